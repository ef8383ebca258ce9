/**
 * The runner with the REAL bash: what runs is the exact string, as one program text, with bash's non-interactive
 * semantics, whatever the environment holds. Hostile environments are first shown to work on a plain `bash -c`
 * (the control), so each row proves the runner is what stops them.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bashEnvironment, findBash, runBash, type BashRunOptions, type CommandResult } from '../../src/core/terminal/bashRunner';

const bash = findBash();

/** Whether a process is still alive (a zombie waiting for a reaper counts as gone). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function eventually(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('runBash, with the real bash', function () {
  this.timeout(20_000);
  let dir: string;
  const file = (name: string): string => path.join(dir, name);

  beforeEach(() => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bash-')));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs in the throw-away folder; `raw` is what the sink received, byte for byte. */
  async function run(command: string, options: Partial<BashRunOptions> = {}): Promise<CommandResult & { raw: string }> {
    let raw = '';
    const result = await runBash(command, {
      cwd: dir,
      timeoutMs: 10_000,
      sink: { write: (text) => (raw += text) },
      ...options,
    });
    return { ...result, raw };
  }

  it('finds a bash on this machine', () => {
    assert.ok(bash !== undefined && path.isAbsolute(bash), String(bash));
  });

  describe('the string is one program text, not a typed line', () => {
    const rows: { title: string; command: string; exitCode: number; raw?: string; rawMatch?: RegExp; absent: string[] }[] = [
      { title: '`#` starts a comment (interactive zsh would run the rest)', command: 'echo hi # ; touch pwned', exitCode: 0, raw: 'hi\n', absent: ['pwned'] },
      { title: '`\\r` is part of a word, not "back to the start of the line"', command: 'ls\rtouch p', exitCode: 127, rawMatch: /ls\\rtouch': command not found/, absent: ['p'] },
      { title: 'Ctrl-U does not erase the line before it', command: 'echo visible\u0015touch pwned', exitCode: 0, raw: 'visible\u0015touch pwned\n', absent: ['pwned'] },
      { title: 'DEL does not delete the character before it', command: "printf '%s\\n' ab\u007fc", exitCode: 0, raw: 'ab\u007fc\n', absent: [] },
      { title: 'Ctrl-A does not move to the start of the line (readline would run `echo hi`)', command: 'ho hi\u0001ec', exitCode: 127, rawMatch: /ho: command not found/, absent: [] },
      { title: 'a newline separates commands, as in a script', command: 'echo one\necho two', exitCode: 0, raw: 'one\ntwo\n', absent: [] },
      { title: 'a command written as an alias on the line before is not expanded', command: "alias ls='touch pwned'\nls >/dev/null", exitCode: 0, raw: '', absent: ['pwned'] },
    ];
    for (const row of rows) {
      it(row.title, async () => {
        const result = await run(row.command);
        assert.equal(result.exitCode, row.exitCode, result.raw);
        if (row.raw !== undefined) {
          assert.equal(result.raw, row.raw);
        }
        if (row.rawMatch) {
          assert.match(result.raw, row.rawMatch);
        }
        for (const name of row.absent) {
          assert.equal(existsSync(file(name)), false, `${name} was created`);
        }
      });
    }
  });

  describe('nothing in the environment changes what a word means', () => {
    interface Row {
      title: string;
      env: (dir: string) => Record<string, string>;
      setup?: (dir: string) => void;
      command: string;
      /** The hostile effect: true on a plain `bash -c` with this environment, false through the runner. */
      effect: (dir: string, output: string) => boolean;
    }
    const touches = (name: string) => (at: string) => existsSync(path.join(at, name));
    const rows: Row[] = [
      {
        title: 'an exported function (BASH_FUNC_ls%%) does not replace ls',
        env: () => ({ 'BASH_FUNC_ls%%': '() {  touch pwned\n}' }),
        command: 'ls >/dev/null',
        effect: touches('pwned'),
      },
      {
        title: 'BASH_ENV does not run a start-up script',
        env: (at) => ({ BASH_ENV: path.join(at, 'startup.sh') }),
        setup: (at) => writeFileSync(path.join(at, 'startup.sh'), 'touch pwned\n'),
        command: 'true',
        effect: touches('pwned'),
      },
      {
        title: 'CDPATH does not send a relative cd elsewhere',
        env: (at) => ({ CDPATH: path.join(at, 'elsewhere') }),
        setup: (at) => {
          mkdirSync(path.join(at, 'sub'));
          mkdirSync(path.join(at, 'elsewhere', 'sub'), { recursive: true });
        },
        command: 'cd sub >/dev/null && pwd',
        effect: (at, output) => output.trim() === path.join(at, 'elsewhere', 'sub'),
      },
      {
        title: 'BASHOPTS=expand_aliases does not turn aliases on',
        env: () => ({ BASHOPTS: 'expand_aliases' }),
        command: "alias ls='touch pwned'\nls >/dev/null",
        effect: touches('pwned'),
      },
      {
        title: 'SHELLOPTS=noglob does not turn globbing off',
        env: () => ({ SHELLOPTS: 'noglob' }),
        setup: (at) => writeFileSync(path.join(at, 'only.txt'), ''),
        command: 'echo *.txt',
        effect: (_at, output) => output.trim() === '*.txt',
      },
      {
        title: 'POSIXLY_CORRECT does not switch bash to POSIX mode',
        env: () => ({ POSIXLY_CORRECT: '1' }),
        command: 'a-b() { echo fn; }; a-b',
        effect: (_at, output) => output.trim() !== 'fn',
      },
      {
        title: 'BASH_COMPAT does not change how [[ =~ ]] reads a quoted pattern',
        env: () => ({ BASH_COMPAT: '31' }),
        command: '[[ ab =~ "a." ]] && echo regex || echo literal',
        effect: (_at, output) => output.trim() === 'regex',
      },
      {
        title: 'OLDPWD does not give `cd -` a place to go',
        env: () => ({ OLDPWD: os.tmpdir() }),
        command: 'cd - >/dev/null 2>&1 && pwd',
        effect: (_at, output) => output.trim() === realpathSync(os.tmpdir()),
      },
      {
        title: 'an empty PATH entry does not make a workspace file the ls that runs',
        env: () => ({ PATH: `:${process.env['PATH'] ?? '/usr/bin:/bin'}` }),
        setup: (at) => {
          writeFileSync(path.join(at, 'ls'), '#!/bin/sh\ntouch pwned\n');
          chmodSync(path.join(at, 'ls'), 0o755);
        },
        command: 'ls >/dev/null',
        effect: touches('pwned'),
      },
    ];
    for (const row of rows) {
      it(row.title, async () => {
        const env = { ...process.env, ...row.env(dir) };
        // The control: a plain bash -c with this environment shows the effect.
        const controlDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bash-control-')));
        try {
          row.setup?.(controlDir);
          const controlEnv = { ...process.env, ...row.env(controlDir) };
          const control = spawnSync(bash ?? 'bash', ['-c', row.command], { cwd: controlDir, env: controlEnv, encoding: 'utf8' });
          assert.equal(row.effect(controlDir, control.stdout), true, `the control did not show the effect: ${control.stdout}${control.stderr}`);
        } finally {
          rmSync(controlDir, { recursive: true, force: true });
        }
        row.setup?.(dir);
        // Named in toolgate.sandbox.passEnvironment too: what the allow-list would drop anyway must still be dropped.
        const result = await runBash(row.command, { cwd: dir, timeoutMs: 10_000, env, passEnvironment: Object.keys(row.env(dir)) });
        assert.equal(row.effect(dir, result.output), false, `the runner let the environment change the command: ${result.output}`);
      });
    }

    it('bashEnvironment drops exactly the listed variables and exported functions, even when the setting names them, fixes PWD and PATH, keeps the rest it passes', () => {
      const env = bashEnvironment(
        {
          BASH_ENV: '/x',
          ENV: '/x',
          'BASH_FUNC_ls%%': '() { :; }',
          'BASH_FUNC_cd()': '() { :; }',
          SHELLOPTS: 'xtrace',
          BASHOPTS: 'expand_aliases',
          CDPATH: '/tmp',
          GLOBIGNORE: '*',
          IFS: 'x',
          POSIXLY_CORRECT: '1',
          PROMPT_COMMAND: 'touch x',
          PS4: '$(touch x)',
          BASH_XTRACEFD: '7',
          PWD: '/elsewhere',
          PATH: '/usr/bin::relative:./bin:/bin',
          HOME: '/home/someone',
          LANG: 'C.UTF-8',
          MY_VAR: 'kept',
          UNSET: undefined,
        },
        '/work/folder',
        'linux',
        ['BASH_ENV', 'ENV', 'BASH_FUNC_ls%%', 'BASH_FUNC_cd()', 'SHELLOPTS', 'BASHOPTS', 'CDPATH', 'GLOBIGNORE', 'IFS', 'POSIXLY_CORRECT', 'PROMPT_COMMAND', 'PS4', 'BASH_XTRACEFD', 'PWD', 'MY_VAR', 'UNSET'],
      );
      assert.deepEqual(env, { PWD: '/work/folder', PATH: '/usr/bin:/bin', HOME: '/home/someone', LANG: 'C.UTF-8', MY_VAR: 'kept' });
    });
  });

  describe('how it ends', () => {
    const rows: { command: string; exitCode: number | undefined; signal?: NodeJS.Signals }[] = [
      { command: 'true', exitCode: 0 },
      { command: 'exit 3', exitCode: 3 },
      { command: 'false', exitCode: 1 },
      { command: 'exit 255', exitCode: 255 },
      { command: 'no-such-command-toolgate', exitCode: 127 },
      { command: 'kill -TERM $$', exitCode: undefined, signal: 'SIGTERM' },
    ];
    for (const row of rows) {
      it(`\`${row.command}\` -> ${row.exitCode ?? row.signal ?? ''}`, async () => {
        const result = await run(row.command);
        assert.equal(result.exitCode, row.exitCode);
        assert.equal(result.signal, row.signal);
        assert.equal(result.timedOut || result.cancelled || result.notRun !== undefined, false);
      });
    }

    it('runs in the given folder, with stdin from /dev/null', async () => {
      const result = await run('pwd; cat; echo "read: $?"');
      assert.equal(result.output, `${dir}\nread: 0\n`);
    });

    it('streams stdout and stderr to the sink as they arrive, and keeps them for the model', async () => {
      const chunks: string[] = [];
      const result = await runBash('echo one; sleep 0.3; echo two >&2; sleep 0.3; echo three', {
        cwd: dir,
        timeoutMs: 10_000,
        sink: { write: (text) => chunks.push(text) },
      });
      assert.deepEqual(chunks, ['one\n', 'two\n', 'three\n']);
      assert.equal(result.output, 'one\ntwo\nthree\n');
    });

    it('gives the model clean output: no colour codes, a carriage-return progress line at its last state', async () => {
      const result = await run("printf '\\033[32mgreen\\033[0m\\n'; printf '10%%\\r50%%\\r100%%\\n'");
      assert.ok(result.raw.includes('\u001b[32m'), 'the display gets the colours');
      assert.equal(result.output, 'green\n100%\n');
    });

    it('caps the output it keeps: head and tail, with the count left out', async () => {
      const result = await run("head -c 100000 /dev/zero | tr '\\0' a; echo; echo END", { maxOutputChars: 1_000 });
      assert.match(result.output, /\n\[… 99005 characters of output left out …\]\n/);
      assert.ok(result.output.startsWith('a'.repeat(500)));
      assert.ok(result.output.endsWith('a\nEND\n'));
      assert.ok(result.output.length < 1_100, String(result.output.length));
      assert.equal(result.raw.length, 100_005, 'the display gets everything');
    });
  });

  describe('timeout and cancel', () => {
    it('a timeout stops `sleep 30` and the children it started; the result says timed out', async () => {
      const started = Date.now();
      // The background sleep ignores SIGINT (bash starts background jobs so), so this also needs the SIGKILL.
      const result = await run('sleep 30 & echo "$!"; sleep 30', { timeoutMs: 300 });
      assert.ok(Date.now() - started < 8_000, 'it did not hang');
      assert.equal(result.timedOut, true);
      assert.equal(result.cancelled, false);
      assert.equal(result.exitCode, undefined);
      const child = Number(result.output.trim());
      assert.ok(child > 0, result.output);
      await eventually(() => !isRunning(child), `child ${child} to be gone`);
    });

    it('a foreground command ends at the SIGINT, without waiting for the grace period', async () => {
      const result = await run('sleep 30', { timeoutMs: 200, graceMs: 60_000 });
      assert.equal(result.timedOut, true);
      assert.equal(result.signal, 'SIGINT');
    });

    it('a command that traps SIGINT is killed after the grace period', async () => {
      const result = await run("trap 'echo got INT' INT; echo ready; while :; do sleep 0.1; done", { timeoutMs: 500, graceMs: 300 });
      assert.equal(result.timedOut, true);
      assert.equal(result.signal, 'SIGKILL');
      assert.match(result.output, /^ready\n(got INT\n)+$/);
    });

    it('cancel (AbortSignal) interrupts it at once; the result says cancelled and keeps the output so far', async () => {
      const controller = new AbortController();
      let raw = '';
      const running = runBash('echo started; sleep 30', {
        cwd: dir,
        timeoutMs: 60_000,
        signal: controller.signal,
        sink: {
          write: (text) => {
            raw += text;
            if (raw.includes('started')) {
              controller.abort();
            }
          },
        },
      });
      const result = await running;
      assert.equal(result.cancelled, true);
      assert.equal(result.timedOut, false);
      assert.equal(result.output, 'started\n');
    });

    it('an already cancelled signal runs nothing', async () => {
      const controller = new AbortController();
      controller.abort();
      const result = await run('touch ran', { signal: controller.signal });
      assert.equal(result.cancelled, true);
      assert.match(result.notRun ?? '', /cancelled before the command started/);
      assert.equal(existsSync(file('ran')), false);
    });

    it('what bash leaves running that holds the output is stopped when bash exits', async () => {
      const result = await run('sleep 30 & echo "$!"', { drainMs: 100, graceMs: 500 });
      assert.equal(result.exitCode, 0);
      assert.equal(result.leftoversStopped, true);
      const child = Number(result.output.trim());
      await eventually(() => !isRunning(child), `child ${child} to be gone`);
    });

    it('a background process that does not hold the output is left running', async () => {
      const result = await run('sleep 30 >/dev/null 2>&1 & echo "$!"', { drainMs: 100 });
      assert.equal(result.leftoversStopped, false);
      const child = Number(result.output.trim());
      try {
        assert.equal(isRunning(child), true);
      } finally {
        process.kill(child, 'SIGKILL');
      }
    });
  });

  describe('when it cannot run, it says why and runs nothing', () => {
    const rows: { title: string; command: string; options: Partial<BashRunOptions>; reason: RegExp }[] = [
      { title: 'no bash', command: 'touch ran', options: { locateBash: () => undefined }, reason: /no bash was found.*nothing was run/ },
      { title: 'a NUL character', command: 'touch ran\0 other', options: {}, reason: /NUL character/ },
      { title: 'a missing folder', command: 'touch ran', options: { cwd: '/nonexistent/toolgate' }, reason: /does not exist/ },
      { title: 'a command longer than one program argument may be', command: `touch ran; : ${'x'.repeat(200_000)}`, options: {}, reason: /longer than the system lets/ },
    ];
    for (const row of rows) {
      it(row.title, async () => {
        const result = await run(row.command, row.options);
        assert.match(result.notRun ?? '', row.reason);
        assert.equal(result.exitCode, undefined);
        assert.equal(existsSync(file('ran')), false);
      });
    }
  });
});

describe('findBash', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-findbash-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const put = (relative: string, mode: number): string => {
    const at = path.join(dir, relative);
    mkdirSync(path.dirname(at), { recursive: true });
    writeFileSync(at, '#!/bin/sh\n');
    chmodSync(at, mode);
    return at;
  };

  it('takes a fixed place first, then PATH', () => {
    const fixed = put('fixed/bash', 0o755);
    const onPath = put('bin/bash', 0o755);
    assert.equal(findBash({ candidates: [fixed], pathVariable: path.join(dir, 'bin') }), fixed);
    assert.equal(findBash({ candidates: [path.join(dir, 'missing')], pathVariable: path.join(dir, 'bin') }), onPath);
  });

  it('skips files that are not executable, and relative or empty PATH entries', () => {
    put('noexec/bash', 0o644);
    put('rel/bash', 0o755);
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      assert.equal(findBash({ candidates: [], pathVariable: `${path.join(dir, 'noexec')}:rel::./rel` }), undefined);
      assert.equal(findBash({ candidates: [], pathVariable: undefined }), undefined);
    } finally {
      process.chdir(cwd);
    }
  });

  it('on Windows, searches PATH for bash.exe but never takes the WSL launcher in System32', () => {
    const exists = new Set(['C:\\Windows\\System32\\bash.exe', 'D:\\tools\\git\\bin\\bash.exe']);
    const options = { platform: 'win32' as const, candidates: [], isExecutable: (file: string) => exists.has(file) };
    assert.equal(findBash({ ...options, pathVariable: 'C:\\Windows\\System32;D:\\tools\\git\\bin' }), 'D:\\tools\\git\\bin\\bash.exe');
    assert.equal(findBash({ ...options, pathVariable: 'C:\\Windows\\System32' }), undefined);
  });
});
