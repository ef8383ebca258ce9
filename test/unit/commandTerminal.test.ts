/** The Toolgate terminal's behaviour (what the VS Code Pseudoterminal shows and does), with the real bash. */
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBash, type CommandResult } from '../../src/core/terminal/bashRunner';
import { CommandTerminal, ignoredInputNote, type TerminalCommandResult } from '../../src/core/terminal/commandTerminal';
import { commandReport } from '../../src/core/terminal/report';
import { commandResult } from '../fixtures/memoryFiles';

describe('CommandTerminal, with the real bash', function () {
  this.timeout(20_000);
  let dir: string;
  let terminal: CommandTerminal;
  let shown: string;

  beforeEach(() => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-term-')));
    terminal = new CommandTerminal();
    shown = '';
    terminal.onDidWrite((text) => (shown += text));
  });
  afterEach(() => {
    terminal.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Resolves once the terminal has shown `text`. */
  async function until(text: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!shown.includes(text)) {
      if (Date.now() > deadline) {
        throw new Error(`the terminal never showed ${JSON.stringify(text)}; it shows ${JSON.stringify(shown)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('shows whether it is confined, the folder and the command, the output with terminal line breaks, then the exit code', async () => {
    terminal.open();
    const result = await terminal.run({ command: 'echo one; echo two', cwd: dir, timeoutMs: 10_000 });
    assert.equal(result.exitCode, 0);
    assert.equal(
      shown,
      `\u001b[31m[unconfined]\u001b[39m \u001b[2m${dir}\u001b[22m \u001b[1m$ echo one; echo two\u001b[22m\r\n` + 'one\r\ntwo\r\n' + '\u001b[2m[exit code 0]\u001b[22m\r\n\r\n',
    );
  });

  it('runs bash inside the launcher it is given, and says [sandbox]', async () => {
    terminal.open();
    // `env` as the launcher: it runs what follows `--`... so a launcher that drops its own arguments up to `--`.
    const launcher = path.join(dir, 'launcher.sh');
    writeFileSync(launcher, '#!/bin/bash\nwhile [ "$1" != -- ]; do shift; done; shift; echo "launched with $SANDBOX_MARK"; exec "$@"\n', { mode: 0o755 });
    const result = await terminal.run({ command: 'echo inside', cwd: dir, timeoutMs: 10_000, wrap: { program: launcher, args: ['--flag'], env: { SANDBOX_MARK: 'yes' } } });
    assert.equal(result.exitCode, 0);
    assert.equal(result.sandboxed, true);
    assert.equal(result.output, 'launched with yes\ninside\n');
    assert.ok(shown.startsWith(`\u001b[2m[sandbox]\u001b[22m \u001b[2m${dir}`), shown);
  });

  it('keeps what is written before the terminal opens, and shows it on open', async () => {
    await terminal.run({ command: 'echo early', cwd: dir, timeoutMs: 10_000 });
    assert.equal(shown, '');
    terminal.open();
    assert.match(shown, /\$ echo early.*\r\nearly\r\n/s);
  });

  it('shows control characters of the command as characters, never sends them raw', async () => {
    terminal.open();
    await terminal.run({ command: 'echo a\rtouch pwned\u001b[2J', cwd: dir, timeoutMs: 10_000 });
    const header = shown.split('\r\n')[0] ?? '';
    assert.ok(header.endsWith('$ echo a\u001b[7m\\r\u001b[27mtouch pwned\u001b[7m\\e\u001b[27m[2J\u001b[22m'), JSON.stringify(header));
    assert.equal(header.includes('\r'), false);
    assert.equal(existsSync(path.join(dir, 'pwned')), false);
  });

  it('ends output without a final newline on its own line before the footer, and shows a failure in red', async () => {
    terminal.open();
    const result = await terminal.run({ command: 'printf partial; exit 4', cwd: dir, timeoutMs: 10_000 });
    assert.equal(result.exitCode, 4);
    assert.ok(shown.endsWith('\r\npartial\r\n\u001b[31m[exit code 4]\u001b[39m\r\n\r\n'), JSON.stringify(shown));
  });

  it('Ctrl+C typed in the terminal interrupts the running command; the result says so', async () => {
    terminal.open();
    const running = terminal.run({ command: 'echo started; sleep 30', cwd: dir, timeoutMs: 60_000 });
    await until('started\r\n');
    assert.equal(terminal.busy, true);
    terminal.handleInput('\u0003');
    const result = await running;
    assert.equal(result.stoppedFromTerminal, 'interrupt');
    assert.equal(result.cancelled, false);
    assert.match(shown, /\^C\r\n.*\[stopped with Ctrl\+C, ended by SIGINT\]/);
    assert.equal(terminal.busy, false);
  });

  it('other typing is ignored, and the terminal says so once', async () => {
    terminal.open();
    const running = terminal.run({ command: 'echo started; sleep 0.5; echo finished', cwd: dir, timeoutMs: 10_000 });
    await until('started\r\n');
    terminal.handleInput('y');
    terminal.handleInput('rm -rf /\r');
    const result = await running;
    assert.equal(result.exitCode, 0);
    assert.equal(shown.split(ignoredInputNote).length, 2, 'the note appears exactly once');
    assert.match(result.output, /^started\nfinished\n$/);
  });

  it('closing the terminal stops the command in it', async () => {
    terminal.open();
    const running = terminal.run({ command: 'echo started; sleep 30', cwd: dir, timeoutMs: 60_000 });
    await until('started\r\n');
    terminal.close();
    const result = await running;
    assert.equal(result.stoppedFromTerminal, 'closed');
    assert.equal(terminal.isClosed, true);
    await assert.rejects(terminal.run({ command: 'true', cwd: dir, timeoutMs: 1_000 }), /closed/);
  });

  it("the task's cancel stops it and is reported as a cancel, not as the terminal's", async () => {
    terminal.open();
    const controller = new AbortController();
    const running = terminal.run({ command: 'echo started; sleep 30', cwd: dir, timeoutMs: 60_000, signal: controller.signal });
    await until('started\r\n');
    controller.abort();
    const result = await running;
    assert.equal(result.cancelled, true);
    assert.equal(result.stoppedFromTerminal, undefined);
    assert.match(shown, /\[stopped: the task was cancelled/);
  });

  it('runs one command at a time', async () => {
    terminal.open();
    const running = terminal.run({ command: 'sleep 0.3', cwd: dir, timeoutMs: 10_000 });
    await assert.rejects(terminal.run({ command: 'true', cwd: dir, timeoutMs: 1_000 }), /already running/);
    assert.equal((await running).exitCode, 0);
    assert.equal((await terminal.run({ command: 'true', cwd: dir, timeoutMs: 10_000 })).exitCode, 0, 'and is reused after');
  });

  it('a command that cannot run says why in the terminal', async () => {
    const noBash = new CommandTerminal((command, options) => runBash(command, { ...options, locateBash: () => undefined }));
    let text = '';
    noBash.onDidWrite((chunk) => (text += chunk));
    noBash.open();
    const result = await noBash.run({ command: 'touch ran', cwd: dir, timeoutMs: 1_000 });
    noBash.dispose();
    assert.match(result.notRun ?? '', /no bash/);
    assert.match(text, /\[not run: no bash was found/);
    assert.equal(existsSync(path.join(dir, 'ran')), false);
  });
});

describe('commandReport: what the model is told', () => {
  const base = commandResult();
  const context = { command: 'echo hi', edited: false, timeoutSeconds: 120 };
  const rows: [title: string, change: Partial<TerminalCommandResult>, ok: boolean, text: string][] = [
    ['success', {}, true, 'Exit code: 0\nOutput:\nhi\n'],
    ['failure', { exitCode: 2, output: '' }, false, 'Exit code: 2\nOutput:\n(no output)'],
    [
      'timed out',
      { exitCode: undefined, signal: 'SIGINT', timedOut: true },
      false,
      'The command was stopped after 120 s (toolgate.terminal.timeoutSeconds).\nExit code: none (bash was ended by SIGINT)\nOutput:\nhi\n',
    ],
    ['cancelled', { exitCode: undefined, signal: 'SIGINT', cancelled: true }, false, 'The command was stopped because the task was cancelled.\nExit code: none (bash was ended by SIGINT)\nOutput:\nhi\n'],
    ['Ctrl+C in the terminal', { exitCode: 130, stoppedFromTerminal: 'interrupt' }, false, 'The person stopped the command with Ctrl+C in its terminal.\nExit code: 130\nOutput:\nhi\n'],
    ['terminal closed', { exitCode: undefined, stoppedFromTerminal: 'closed' }, false, 'The command was stopped because the person closed its terminal.\nExit code: unknown\nOutput:\nhi\n'],
    ['leftovers', { leftoversStopped: true }, true, 'bash exited, but processes the command left running in the background still held its output open, so they were stopped.\nExit code: 0\nOutput:\nhi\n'],
    ['not run', { exitCode: undefined, notRun: 'no bash was found.' }, false, 'The command was not run: no bash was found.'],
    [
      'created protected paths in the sandbox',
      { createdProtected: ['.devcontainer', '.husky'] },
      true,
      'It created protected paths, which the sandbox can keep read-only only once they exist: .devcontainer, .husky. They were left in place and the person was told to review them; do not create protected files with commands (write them with write_file, which asks).\nExit code: 0\nOutput:\nhi\n',
    ],
  ];
  for (const [title, change, ok, text] of rows) {
    it(title, () => {
      const result: CommandResult & Pick<TerminalCommandResult, 'stoppedFromTerminal'> = { ...base, ...change };
      assert.deepEqual(commandReport(result, context), { ok, text });
    });
  }

  it('says what ran when the person edited the command', () => {
    assert.equal(
      commandReport(base, { ...context, command: 'echo edited', edited: true }).text,
      'The person edited the command before allowing it. What ran was: echo edited\nExit code: 0\nOutput:\nhi\n',
    );
  });
});
