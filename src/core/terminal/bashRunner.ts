/**
 * Runs a command line exactly as the gate analysed it: the whole string is ONE program text given to bash (the shell
 * the analysis models) with `bash --noprofile --norc -c <text>`: non-interactive, so nothing edits the line (no
 * readline: `\r`, Ctrl-U, DEL are ordinary characters), no aliases, no rc or profile files, and an environment of its
 * own: a short allow-list of the host's (never its tokens), without anything that would change what a word means.
 * Whatever the user's login or terminal shell is, and on every OS that has bash, the same text means the same thing. Where no
 * bash exists nothing runs and the result says why.
 *
 * The command has stdin from /dev/null and its own process group, so an interrupt reaches everything it started:
 * a timeout or a cancel sends SIGINT to the group, then SIGKILL after a grace period; nothing can keep the caller
 * waiting. Output (stdout and stderr as they arrive) streams to a sink for display and is kept, capped, for the model.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Refusal } from '../sandbox/domainProxy';
import { inheritedEnvironment } from '../sandbox/environment';
import { cleanOutput, maxOutputChars, OutputBuffer } from './output';
import type { OpenRefusalKind } from '../sandbox/openOnce';

export interface CommandResult {
  /** bash's exit status; `undefined` when it was ended by a signal or never ran. */
  exitCode: number | undefined;
  /** The signal that ended bash, if one did. */
  signal: NodeJS.Signals | undefined;
  /** What the command printed (stdout and stderr interleaved), capped and cleaned for the model. */
  output: string;
  /** Stopped because it ran longer than the timeout. */
  timedOut: boolean;
  /** Stopped because the caller's AbortSignal fired. */
  cancelled: boolean;
  /** bash exited but processes it left running still held the output open, so its process group was stopped. */
  leftoversStopped: boolean;
  /** Set only when nothing ran, with the reason (no bash, a NUL character, a missing folder, spawn failure). */
  notRun: string | undefined;
  /** The bash that ran the command (absolute path). */
  shell: string | undefined;
  /** It ran inside the OS sandbox. */
  sandboxed: boolean;
  /**
   * In the sandbox: protected paths (workspace-relative) that did not exist when it started, so could not be made
   * read-only, and exist now: it, or someone at the same time, created them.
   */
  createdProtected?: string[];
  /** In the sandbox: connections its filtering proxy refused (`host:port (why)`), oldest first. */
  refusedConnections?: string[];
  /** In the sandbox, after it failed: the writes its policy refused (workspace-relative), and why where the card allowed one. */
  refusedWrites?: { path: string; why?: OpenRefusalKind }[];
  /** The same refusals as the proxy recorded them: what the card offers to allow is read from these. */
  refusals?: Refusal[];
}

/** Where streamed output goes for display (a terminal); called with text as it arrives. */
export interface OutputSink {
  write(text: string): void;
}

export interface BashRunOptions {
  /** The working folder (absolute). */
  cwd: string;
  /** Stop the command after this long. */
  timeoutMs: number;
  /** Stops the command when it fires. */
  signal?: AbortSignal;
  sink?: OutputSink;
  /** The environment to start from (default: this process's); only its allow-list is kept, see `bashEnvironment`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** More names of `env` to pass (toolgate.sandbox.passEnvironment). */
  passEnvironment?: readonly string[];
  /** Finds bash (default: `findBash()`); a result of `undefined` means there is none and nothing runs. */
  locateBash?: () => string | undefined;
  /** Between SIGINT (or SIGTERM) and SIGKILL. Default 2 s. */
  graceMs?: number;
  /** How long output may still arrive after bash exits before what holds it open is stopped. Default 1 s. */
  drainMs?: number;
  /** The cap on the output kept for the model. */
  maxOutputChars?: number;
  /**
   * Runs bash inside this launcher (the OS sandbox): `program ...args -- bash ...`, with `env` added to the command's
   * environment. Without it the command runs unconfined.
   */
  /** `fds`: descriptors the wrapping program gets as 3, 4, … (the sandbox's opened files). */
  wrap?: { program: string; args: readonly string[]; env?: Readonly<Record<string, string>>; fds?: readonly number[] };
}

/** The argument list bash gets before the program text. */
export const bashArgs = ['--noprofile', '--norc', '-c'] as const;

/**
 * Variables bash (or a POSIX shell) reads at start-up that change what the words of a command mean or which code
 * runs: start-up files, shell options, the directory search of `cd`, glob filtering, word splitting, POSIX mode,
 * code run per prompt or per trace line, the compatibility level, executables hidden from the PATH search, the
 * previous directory (`cd -`, `~-`). Exported functions (`BASH_FUNC_name%%`) are removed by prefix.
 */
export const droppedVariables: readonly string[] = [
  'BASH_ENV',
  'ENV',
  'SHELLOPTS',
  'BASHOPTS',
  'CDPATH',
  'GLOBIGNORE',
  'IFS',
  'POSIXLY_CORRECT',
  'PROMPT_COMMAND',
  'PS4',
  'BASH_XTRACEFD',
  'BASH_COMPAT',
  'EXECIGNORE',
  'GLOBSORT',
  'OLDPWD',
];
const exportedFunctionPrefix = 'BASH_FUNC_';

/**
 * The environment the command runs with: of `base`, only the allow-list and the names in `passed`
 * (../sandbox/environment: the host's tokens never reach a command), and of those none of `droppedVariables` nor an
 * exported function (even named in the setting), `PWD` set to the working folder, and `PATH` without empty or
 * relative entries (an empty entry means "the current folder", so a workspace file named `ls` would become the `ls`
 * that runs).
 */
export function bashEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  cwd: string,
  platform: NodeJS.Platform = process.platform,
  passed: readonly string[] = [],
): Record<string, string> {
  const dropped = new Set(droppedVariables);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(inheritedEnvironment(base, passed, platform))) {
    const name = platform === 'win32' ? key.toUpperCase() : key;
    if (dropped.has(name) || name.startsWith(exportedFunctionPrefix) || name === 'PWD') {
      continue;
    }
    env[key] = name === 'PATH' ? absolutePathEntries(value, platform).join(platform === 'win32' ? ';' : ':') : value;
  }
  env['PWD'] = cwd;
  return env;
}

function absolutePathEntries(value: string, platform: NodeJS.Platform): string[] {
  const separator = platform === 'win32' ? ';' : ':';
  const paths = platform === 'win32' ? path.win32 : path.posix;
  return value.split(separator).filter((entry) => entry !== '' && paths.isAbsolute(entry));
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) {
      return false;
    }
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface FindBashOptions {
  platform?: NodeJS.Platform;
  /** The PATH to search after the fixed places (default: this process's). Relative entries are never searched. */
  pathVariable?: string | undefined;
  /** Looked at first, in order (default: /bin/bash, /usr/bin/bash; on Windows Git for Windows' bash). */
  candidates?: readonly string[];
  /** Whether a file is there and executable (default: the file system). */
  isExecutable?: (file: string) => boolean;
}

/**
 * The absolute path of a bash to run commands with, or `undefined` when there is none. On Windows the WSL launcher
 * (System32\bash.exe) is never chosen: it runs a different system's bash with different paths.
 */
export function findBash(options: FindBashOptions = {}): string | undefined {
  const platform = options.platform ?? process.platform;
  const isExecutable = options.isExecutable ?? isExecutableFile;
  const windows = platform === 'win32';
  const candidates =
    options.candidates ??
    (windows ? ['C:\\Program Files\\Git\\bin\\bash.exe', 'C:\\Program Files\\Git\\usr\\bin\\bash.exe'] : ['/bin/bash', '/usr/bin/bash']);
  const pathVariable = 'pathVariable' in options ? options.pathVariable : process.env['PATH'];
  const paths = windows ? path.win32 : path.posix;
  const searched = absolutePathEntries(pathVariable ?? '', platform).map((folder) => paths.join(folder, windows ? 'bash.exe' : 'bash'));
  return [...candidates, ...searched].find(
    (file) => !(windows && /\\system32\\bash\.exe$/i.test(file)) && isExecutable(file),
  );
}

const noBash =
  'no bash was found (looked at /bin/bash, /usr/bin/bash and the folders on PATH). Toolgate runs commands only with bash, the shell its analysis models, so nothing was run.';

/** Runs `command` as one bash program text; never rejects. */
export function runBash(command: string, options: BashRunOptions): Promise<CommandResult> {
  const notRun = (reason: string, shell?: string, cancelled = false): Promise<CommandResult> =>
    Promise.resolve({
      exitCode: undefined,
      signal: undefined,
      output: '',
      timedOut: false,
      cancelled,
      leftoversStopped: false,
      notRun: reason,
      shell,
      sandboxed: false,
    });
  if (command.includes('\0')) {
    return notRun('the command contains a NUL character, which cannot be passed to a program, so nothing was run.');
  }
  const shell = (options.locateBash ?? (() => findBash()))();
  if (shell === undefined) {
    return notRun(noBash);
  }
  if (options.signal?.aborted) {
    return notRun('the task was cancelled before the command started.', shell, true);
  }
  try {
    if (!statSync(options.cwd).isDirectory()) {
      return notRun(`the working folder ${options.cwd} is not a folder, so nothing was run.`, shell);
    }
  } catch {
    return notRun(`the working folder ${options.cwd} does not exist, so nothing was run.`, shell);
  }
  const posix = process.platform !== 'win32';
  let child: ChildProcess;
  try {
    const env = { ...bashEnvironment(options.env ?? process.env, options.cwd, process.platform, options.passEnvironment), ...options.wrap?.env };
    const [program, args] = options.wrap
      ? [options.wrap.program, [...options.wrap.args, '--', shell, ...bashArgs, command]]
      : [shell, [...bashArgs, command]];
    child = spawn(program, args, {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe', ...(options.wrap?.fds ?? [])],
      // Its own process group (POSIX), so SIGINT and SIGKILL reach every process the command started.
      detached: posix,
      windowsHide: true,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return notRun(
      code === 'E2BIG'
        ? 'the command is longer than the system lets one program argument be (128 KiB on Linux), so nothing was run.'
        : `bash could not be started: ${error instanceof Error ? error.message : String(error)}`,
      shell,
    );
  }
  return supervise(child, shell, options, posix);
}

function supervise(child: ChildProcess, shell: string, options: BashRunOptions, posix: boolean): Promise<CommandResult> {
  const graceMs = options.graceMs ?? 2_000;
  const drainMs = options.drainMs ?? 1_000;
  const buffer = new OutputBuffer(options.maxOutputChars ?? maxOutputChars);
  return new Promise((resolve) => {
    const timers = new Set<NodeJS.Timeout>();
    let settled = false;
    const later = (ms: number, run: () => void): void => {
      if (settled) {
        return;
      }
      const timer = setTimeout(() => {
        timers.delete(timer);
        run();
      }, ms);
      timers.add(timer);
    };
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let stopping = false;
    let timedOut = false;
    let cancelled = false;
    let leftoversStopped = false;
    let spawnError: string | undefined;

    const signalGroup = (signal: NodeJS.Signals): void => {
      try {
        if (posix && child.pid !== undefined) {
          process.kill(-child.pid, signal);
        } else {
          child.kill(signal);
        }
      } catch {
        // The group is gone already.
      }
    };
    /** SIGINT (SIGTERM for leftovers, which bash started with SIGINT ignored), then SIGKILL, then stop waiting. */
    const stop = (first: NodeJS.Signals): void => {
      if (stopping) {
        return;
      }
      stopping = true;
      signalGroup(first);
      later(graceMs, () => {
        signalGroup('SIGKILL');
        // Something outside the group (a process that made its own session) may still hold the output open.
        later(1_000, () => settle());
      });
    };

    const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
    const take = (text: string): void => {
      if (text === '') {
        return;
      }
      buffer.append(text);
      try {
        options.sink?.write(text);
      } catch {
        // A display that fails must not stop the command or lose its output.
      }
    };
    child.stdout?.on('data', (chunk: Buffer) => take(decoders.stdout.write(chunk)));
    child.stderr?.on('data', (chunk: Buffer) => take(decoders.stderr.write(chunk)));

    const onAbort = (): void => {
      if (exited === undefined && !settled) {
        cancelled = true;
        stop('SIGINT');
      }
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    later(Math.max(1, options.timeoutMs), () => {
      if (exited === undefined) {
        timedOut = true;
        stop('SIGINT');
      }
    });

    function settle(): void {
      if (settled) {
        return;
      }
      settled = true;
      for (const timer of timers) {
        clearTimeout(timer);
      }
      timers.clear();
      options.signal?.removeEventListener('abort', onAbort);
      take(decoders.stdout.end());
      take(decoders.stderr.end());
      child.stdout?.destroy();
      child.stderr?.destroy();
      const neverRan = spawnError !== undefined && exited === undefined;
      resolve({
        exitCode: exited?.code ?? undefined,
        signal: exited?.signal ?? undefined,
        output: buffer.render(cleanOutput),
        timedOut,
        cancelled,
        leftoversStopped,
        notRun: neverRan ? `bash could not be started: ${spawnError}` : undefined,
        shell,
        sandboxed: options.wrap !== undefined && !neverRan,
      });
    }

    child.on('error', (error) => {
      // Only a failure to start matters here; a failed kill of a process that is gone is not news.
      if (child.pid === undefined) {
        spawnError = error.message;
        settle();
      }
    });
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      if (!stopping) {
        later(drainMs, () => {
          // bash is done but something it started still holds the output open: stop the group rather than wait.
          leftoversStopped = true;
          stop('SIGTERM');
        });
      }
    });
    child.on('close', (code, signal) => {
      exited ??= { code, signal };
      settle();
    });
  });
}
