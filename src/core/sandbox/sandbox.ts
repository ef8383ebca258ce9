/**
 * Whether commands can be confined here, and the launch prefix that confines one. The probe runs bubblewrap once with
 * the arguments every command gets and a short check inside (`confinementCheck`); if bwrap does not start (not
 * installed, user namespaces off, not Linux) or what it started is not a sandbox (a capability kept, a mount that can
 * be undone, a user namespace that can be made), the sandbox is unavailable and says why in one line, and the gate
 * then asks for every command (fail closed) with that line on the command's card.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bridgeCommand, type BridgeRuntime } from './networkBridge';
import { bwrapArgs, nodeInSandbox } from './bwrap';
import type { DomainProxy } from './domainProxy';
import type { LocalForward } from './domains';
import { gatherSandboxPolicy, type SandboxInputs } from './gather';
import type { SandboxPolicy } from './policy';
import type { OpenedOnce, OpenRefusal } from './openOnce';
import { loadSeatbelt, sandboxExec, type SeatbeltBuilder } from './seatbelt';
import { seatbeltConfig } from './seatbeltConfig';
import type { Stage } from './stage';

/**
 * `bwrap`: our bubblewrap wrapper (Linux), `program` bwrap's path. `seatbelt`: macOS's sandbox-exec with the profile
 * @anthropic-ai/sandbox-runtime builds from Toolgate's policy (./seatbelt), `program` sandbox-exec's path.
 */
export type SandboxState =
  | { available: true; engine: 'bwrap'; program: string }
  | { available: true; engine: 'seatbelt'; program: string; seatbelt: SeatbeltBuilder }
  | {
      available: false;
      /** One line for the person: why commands cannot be confined here. */
      reason: string;
    };

/** How a command is started inside the sandbox: `program ...args -- <bash> ...`. */
export interface SandboxLaunch {
  program: string;
  args: string[];
  /** Variables set for the command (a private TMPDIR, caches in the writable cache folder). */
  env: Record<string, string>;
  policy: SandboxPolicy;
  /**
   * The filtering proxy this command's connections go through (toolgate.sandbox.allowedDomains): its refusals are
   * the command's; whoever runs the command closes it when the command has ended.
   */
  proxy?: DomainProxy;
  /**
   * The stage the workspace folders are seen through (./stage): what the command writes there lands only when
   * Toolgate lands it. Whoever runs the command lands or discards it.
   */
  stage?: Stage;
  /**
   * The protected files the person allowed this command to write on its card, opened for this run (./openOnce), and
   * those that could not be: whoever runs the command releases them (`releaseOpened`) when it has ended.
   */
  opened?: { files: OpenedOnce[]; refused: OpenRefusal[] };
  /** Descriptors the command's first program gets after stdin, stdout and stderr (3, 4, …): the opened files. */
  fds?: number[];
}

/** The extension host's own binary: Node in a server, Electron (run as Node) in the desktop app. */
export const hostNode = (): BridgeRuntime => ({ kind: 'node', path: process.execPath, env: process.versions.electron === undefined ? {} : { ELECTRON_RUN_AS_NODE: '1' } });

/** Where the system's Python 3 lives (never a version manager's shim: those are scripts that read the home). */
const pythonCandidates = ['/usr/bin/python3', '/bin/python3', '/usr/local/bin/python3'];

/** The bridge's runtime: the system's Python 3, which starts in a third of Node's time, else the host's Node. */
export function bridgeRuntime(exists: (file: string) => boolean = isExecutable): BridgeRuntime {
  const python = pythonCandidates.find(exists);
  return python === undefined ? hostNode() : { kind: 'python', path: python, env: {} };
}

const candidates = ['/usr/bin/bwrap', '/bin/bwrap', '/usr/local/bin/bwrap'];

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** bwrap's absolute path: the system's places first, then the absolute entries of PATH. */
export function findBwrap(pathVariable = process.env['PATH'] ?? '', exists: (file: string) => boolean = isExecutable): string | undefined {
  const searched = pathVariable.split(':').filter((entry) => path.isAbsolute(entry)).map((entry) => path.join(entry, 'bwrap'));
  return [...candidates, ...searched].find(exists);
}

/** What the probe's failure means, in words that name the fix. */
export function explainProbeFailure(stderr: string): string {
  if (/setting up uid map|No permissions to creating new namespace|Operation not permitted|user namespace/i.test(stderr)) {
    return `bubblewrap cannot create user namespaces here (${stderr.trim().split('\n')[0]}): unprivileged user namespaces are off (on Ubuntu, the AppArmor restriction kernel.apparmor_restrict_unprivileged_userns; elsewhere kernel.unprivileged_userns_clone or user.max_user_namespaces)`;
  }
  return `bubblewrap failed to start a sandbox: ${stderr.trim().split('\n')[0] || 'no message'}`;
}

/**
 * Run inside a sandbox (`/bin/sh -c`), it prints one line per way it is not one, then `end`. Only what every Linux
 * has is assumed: /proc, and `umount`/`mount`/`unshare` where they exist (without a capability no mount changes,
 * whichever tool asks; a user namespace is tried with util-linux's or busybox's `unshare`, else Python's ctypes, else
 * the check says it could not try: unknown is not "holds").
 */
export const confinementCheck = String.raw`while read -r name value; do
  case $name in CapPrm:|CapEff:|CapBnd:|CapAmb:) case $value in *[!0]*) echo "cap \${name%:} $value";; esac;; esac
done < /proc/self/status
umount /tmp 2>/dev/null && echo 'umount could unmount /tmp'
mount -o remount,bind,rw / 2>/dev/null && echo 'remount could remount / read-write'
if command -v unshare >/dev/null 2>&1; then
  unshare -U true 2>/dev/null && echo 'userns can create a user namespace'
elif command -v python3 >/dev/null 2>&1; then
  python3 -I -S -c 'import ctypes, sys; sys.exit(ctypes.CDLL(None).unshare(0x10000000) != 0)' 2>/dev/null && echo 'userns can create a user namespace'
else
  echo 'userns could not be checked for nested user namespaces (neither unshare nor python3 is installed)'
fi
echo end
`.replaceAll('\\${', '${');

/** The fixed PATH the check runs with: the system's tools, never a folder the workspace or a version manager put first. */
const systemPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Runs `confinementCheck` in the sandbox `program ...args` starts: undefined when it holds, else one line naming what
 * held. Rejects with bwrap's (or unshare's) first line of stderr when the sandbox did not start at all.
 */
export function confinementProblem(program: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    execFile(program, [...args, '--', '/bin/sh', '-c', confinementCheck], { timeout: 10_000, env: { PATH: systemPath } }, (error, stdout, stderr) => {
      const lines = stdout.split('\n').filter((line) => line !== '');
      if (lines.at(-1) !== 'end') {
        reject(new Error(stderr.trim().split('\n')[0] || error?.message || 'the check inside the sandbox did not finish'));
        return;
      }
      const caps = lines.filter((line) => line.startsWith('cap ')).map((line) => line.slice(4));
      const others = lines.slice(0, -1).filter((line) => !line.startsWith('cap ')).map((line) => line.slice(line.indexOf(' ') + 1));
      const held = [...(caps.length > 0 ? [`still has capabilities (${caps.join(', ')})`] : []), ...others];
      resolve(held.length === 0 ? undefined : `a sandboxed process ${held.join(', ')}`);
    });
  });
}

/** The probe's sandbox: nothing writable, nothing hidden; every command's sandbox adds to this, never takes away. */
export const probePolicy: SandboxPolicy = { writable: [], readOnly: [], pinned: [], hidden: [], network: 'none', env: {} };

/** How macOS's sandbox is found and checked; each part can be stood in for (tests fake the platform on Linux). */
export interface SeatbeltProbe {
  exists?: (file: string) => boolean;
  load?: () => Promise<SeatbeltBuilder>;
  /** Runs `sandbox-exec …args` and resolves with what it printed (rejects when it did not start). */
  run?: (program: string, args: readonly string[]) => Promise<string>;
}

/**
 * Run in the probe's Seatbelt sandbox (nothing writable), it tries to write a file where the person can and prints
 * what held and `end`: a profile sandbox-exec refused prints nothing.
 */
export const seatbeltCheck = `if : > "$1" 2>/dev/null; then rm -f "$1"; echo 'write could write outside the workspace'; fi; echo end`;

export async function probeSeatbelt(deps: SeatbeltProbe = {}): Promise<SandboxState> {
  const exists = deps.exists ?? isExecutable;
  if (!exists(sandboxExec)) {
    return { available: false, reason: `macOS's ${sandboxExec} is missing, so commands cannot be confined` };
  }
  let seatbelt: SeatbeltBuilder;
  let profile: string;
  try {
    seatbelt = await (deps.load ?? (() => loadSeatbelt()))();
    profile = seatbelt.profile(seatbeltConfig(probePolicy), os.tmpdir());
  } catch (error) {
    return { available: false, reason: `the Seatbelt sandbox cannot start: ${error instanceof Error ? error.message : String(error)}` };
  }
  const target = path.join(os.tmpdir(), `toolgate-seatbelt-probe-${process.pid}`);
  try {
    const output = await (deps.run ?? runChecked)(sandboxExec, ['-p', profile, '--', '/bin/sh', '-c', seatbeltCheck, 'sh', target]);
    const lines = output.split('\n').filter((line) => line !== '');
    if (lines.at(-1) !== 'end') {
      return { available: false, reason: `the Seatbelt sandbox did not run its check (${lines[0] ?? 'no output'})` };
    }
    const held = lines.slice(0, -1).map((line) => line.slice(line.indexOf(' ') + 1));
    return held.length === 0 ? { available: true, engine: 'seatbelt', program: sandboxExec, seatbelt } : { available: false, reason: `the Seatbelt sandbox does not hold here: a sandboxed process ${held.join(', ')}` };
  } catch (error) {
    return { available: false, reason: `sandbox-exec failed to start a sandbox: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function runChecked(program: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(program, [...args], { timeout: 10_000, env: { PATH: systemPath } }, (error, stdout, stderr) => {
      if (error && stdout === '') {
        reject(new Error(stderr.trim().split('\n')[0] || error.message));
        return;
      }
      resolve(stdout);
    });
  });
}

export function probeSandbox(platform: NodeJS.Platform = process.platform, locate: () => string | undefined = () => findBwrap(), seatbelt: SeatbeltProbe = {}): Promise<SandboxState> {
  if (platform === 'darwin') {
    return probeSeatbelt(seatbelt);
  }
  if (platform !== 'linux') {
    return Promise.resolve({ available: false, reason: `Toolgate has no sandbox for ${platform === 'win32' ? 'Windows (run VS Code in WSL for one)' : platform}` });
  }
  const program = locate();
  if (program === undefined) {
    return Promise.resolve({ available: false, reason: 'bubblewrap is not installed (install the `bubblewrap` package: sudo apt install bubblewrap)' });
  }
  return confinementProblem(program, bwrapArgs(probePolicy, '/')).then(
    (problem): SandboxState => (problem === undefined ? { available: true, engine: 'bwrap', program } : { available: false, reason: `bubblewrap's sandbox does not hold here: ${problem}` }),
    (error: unknown): SandboxState => ({ available: false, reason: explainProbeFailure(error instanceof Error ? error.message : String(error)) }),
  );
}

/**
 * The launch prefix for one command: its policy gathered now, so what exists now is what is protected. With a proxy,
 * the command is started by the bridge, which hands its connections to the proxy.
 */
export async function prepareLaunch(
  state: Extract<SandboxState, { available: true }>,
  inputs: SandboxInputs,
  cwd: string,
  network?: { proxy: DomainProxy; runtime: BridgeRuntime; forwards: readonly LocalForward[] },
): Promise<{ launch: SandboxLaunch; notes: string[] }> {
  if (state.engine === 'seatbelt') {
    return seatbeltLaunch(state, inputs, cwd, network?.proxy);
  }
  const { policy, notes } = await gatherSandboxPolicy(inputs);
  if (network === undefined) {
    return { launch: { program: state.program, args: bwrapArgs(policy, cwd), env: policy.env, policy }, notes };
  }
  // The host's /tmp is out of the sandbox's sight, and so are the hidden paths: a Node binary there is shown alone.
  const { runtime } = network;
  const unseen = runtime.kind === 'node' && (runtime.path.startsWith('/tmp/') || policy.hidden.some((entry) => runtime.path === entry.path || runtime.path.startsWith(`${entry.path}/`)));
  const mounts = { proxySocket: network.proxy.socketPath, ...(unseen ? { node: runtime.path } : {}) };
  const args = [...bwrapArgs(policy, cwd, mounts), '--', ...bridgeCommand(runtime, unseen ? nodeInSandbox : runtime.path, network.forwards)];
  return { launch: { program: state.program, args, env: { ...policy.env, ...runtime.env }, policy, proxy: network.proxy }, notes };
}

/** The variables that send a command's connections to its filtering proxy on the loopback (macOS: no bridge). */
export function proxyVariables(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return { HTTP_PROXY: url, HTTPS_PROXY: url, ALL_PROXY: url, http_proxy: url, https_proxy: url, all_proxy: url, NODE_USE_ENV_PROXY: '1' };
}

/**
 * macOS: `sandbox-exec -p <profile> -- <bash> …`, the profile built by the library from this command's policy
 * (./seatbeltConfig), and the command's connections sent to its proxy's loopback port, the one the profile allows.
 */
async function seatbeltLaunch(
  state: Extract<SandboxState, { engine: 'seatbelt' }>,
  inputs: SandboxInputs,
  cwd: string,
  proxy: DomainProxy | undefined,
): Promise<{ launch: SandboxLaunch; notes: string[] }> {
  const { policy, notes } = await gatherSandboxPolicy({ ...inputs, engine: 'seatbelt' });
  const port = proxy?.port;
  if (proxy !== undefined && port === undefined) {
    throw new Error('the filtering proxy listens on no loopback port');
  }
  const profile = state.seatbelt.profile(seatbeltConfig(policy, port), cwd);
  const env = { ...policy.env, ...(port === undefined ? {} : proxyVariables(port)) };
  return { launch: { program: state.program, args: ['-p', profile], env, policy, ...(proxy === undefined ? {} : { proxy }) }, notes };
}
