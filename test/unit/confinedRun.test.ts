/**
 * The core's confined run, with the real sandbox (bubblewrap, and the overlay stage where it works here): the stage is
 * handed to the caller only with the result of a command that ran, and is gone on every other way out; a protected
 * path the command created is told; the terminal port gets the command as judged, wrapped in the sandbox.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CommandSandbox } from '../../src/core/sandbox/commandSandbox';
import type { SandboxInputs } from '../../src/core/sandbox/gather';
import { probeSandbox } from '../../src/core/sandbox/sandbox';
import { discardStage, findUnshare, probeStaging } from '../../src/core/sandbox/stage';
import { defaultProtectedPaths } from '../../src/core/settings';
import { runBash } from '../../src/core/terminal/bashRunner';
import type { CommandRequest, TerminalCommandResult } from '../../src/core/terminal/commandTerminal';
import { ConfinedRunner, notStarted, type CreatedProtected, type TerminalPort } from '../../src/core/terminal/confinedRun';
import { scratchFolder } from '../fixtures/scratch';

describe('the confined run (real sandbox)', function () {
  this.timeout(30_000);
  let base: string;
  let ws: string;
  let stages: string;
  let sandbox: CommandSandbox;

  before(async () => {
    base = scratchFolder('toolgate-confined-');
    ws = path.join(base, 'ws');
    stages = path.join(base, 'stages');
    mkdirSync(path.join(ws, '.vscode'), { recursive: true });
    writeFileSync(path.join(ws, '.vscode', 'settings.json'), '{}\n');
    const inputs: SandboxInputs = {
      workspaceFolders: [ws],
      protectedGlobs: defaultProtectedPaths,
      extraHidden: [],
      extraWritable: [],
      ownStorage: [],
      network: 'none',
      home: path.join(base, 'home'),
      cacheRoot: path.join(base, 'cache'),
    };
    const unshare = findUnshare();
    assert.ok(unshare !== undefined, 'util-linux unshare is installed');
    const staged = await probeStaging(unshare, base);
    assert.ok(staged.available, `staging works here: ${staged.available ? '' : staged.reason}`);
    sandbox = new CommandSandbox({
      probe: () => probeSandbox(),
      inputs: () => inputs,
      log: () => undefined,
      staging: { parent: stages, unshare, probe: () => Promise.resolve({ available: true }), enabled: () => true },
    });
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  const stagesLeft = (): string[] => (existsSync(stages) ? readdirSync(stages) : []);

  /** A terminal that runs what it is given for real, or answers as a terminal that did not start it would. */
  const terminal = (answer: 'run' | 'not run' | 'throw', seen: CommandRequest[] = []): TerminalPort => ({
    execute: async (request: CommandRequest): Promise<TerminalCommandResult> => {
      seen.push(request);
      if (answer === 'throw') {
        throw new Error('the terminal went away');
      }
      if (answer === 'not run') {
        return notStarted('the folder is not trusted');
      }
      return { ...(await runBash(request.command, { cwd: request.cwd, timeoutMs: request.timeoutMs, ...(request.wrap ? { wrap: request.wrap } : {}) })), stoppedFromTerminal: undefined };
    },
  });

  const cases: { name: string; answer: 'run' | 'not run' | 'throw'; stageHandedOver: boolean }[] = [
    { name: 'a command that ran: its stage goes to the caller', answer: 'run', stageHandedOver: true },
    { name: 'a command the terminal did not start: its stage is discarded', answer: 'not run', stageHandedOver: false },
    { name: 'a terminal that throws: its stage is discarded and the throw goes on', answer: 'throw', stageHandedOver: false },
  ];
  for (const { name, answer, stageHandedOver } of cases) {
    it(name, async () => {
      const seen: CommandRequest[] = [];
      const runner = new ConfinedRunner({ sandbox, terminal: terminal(answer, seen), relative: (absolute) => path.relative(ws, absolute) });
      let result: TerminalCommandResult | undefined;
      let thrown: unknown;
      try {
        result = await runner.run('echo staged > out.txt', ws, 10, undefined, 'chat-1');
      } catch (error) {
        thrown = error;
      }
      assert.equal(seen.length, 1);
      assert.ok(seen[0]?.wrap !== undefined, 'the terminal was given the sandbox');
      assert.equal(runner.runningStages().length, 0, 'no stage is listed as running after the run');
      assert.equal(existsSync(path.join(ws, 'out.txt')), false, 'nothing landed in the workspace by itself');
      if (stageHandedOver) {
        assert.ok(result?.stage !== undefined);
        assert.deepEqual(stagesLeft().length, 1);
        await discardStage(result.stage);
      } else {
        assert.equal(result?.stage, undefined);
        assert.equal(thrown !== undefined, answer === 'throw');
      }
      assert.deepEqual(stagesLeft(), []);
    });
  }

  it('lists a staged command as running while it runs, for its chat only', async () => {
    let during: number[] = [];
    const runner: ConfinedRunner = new ConfinedRunner({
      sandbox,
      terminal: {
        execute: (): Promise<TerminalCommandResult> => {
          during = [runner.runningStages('chat-1').length, runner.runningStages('chat-2').length];
          return Promise.resolve(notStarted('stopped before it began'));
        },
      },
      relative: (absolute) => absolute,
    });
    await runner.run('true', ws, 10, undefined, 'chat-1');
    assert.deepEqual(during, [1, 0]);
  });

  it('tells of a protected path that appeared while the command ran, which the sandbox could not hold read-only', async () => {
    const told: CreatedProtected[] = [];
    const created = path.join(ws, '.env.local');
    const real = terminal('run');
    const runner = new ConfinedRunner({
      sandbox,
      // Someone (an unstaged MCP server, another window) creates a protected file in the workspace while it runs.
      terminal: { execute: (request, chatId) => (writeFileSync(created, '{}\n'), real.execute(request, chatId)) },
      relative: (absolute) => path.relative(ws, absolute),
    });
    runner.onDidCreateProtected((entry) => told.push(entry));
    try {
      const result = await runner.run('true', ws, 10);
      assert.deepEqual(result.createdProtected, ['.env.local']);
      assert.deepEqual(told.map((entry) => entry.relative), [['.env.local']]);
      if (result.stage) {
        await discardStage(result.stage);
      }
    } finally {
      rmSync(created, { force: true });
    }
  });

  it('runs unconfined only when asked to, with no stage', async () => {
    const seen: CommandRequest[] = [];
    const runner = new ConfinedRunner({ sandbox, terminal: terminal('run', seen), relative: (absolute) => absolute });
    const result = await runner.run('echo direct > direct.txt', ws, 10, undefined, 'chat-1', { unconfined: true });
    assert.equal(seen[0]?.wrap, undefined);
    assert.equal(result.stage, undefined);
    assert.equal(existsSync(path.join(ws, 'direct.txt')), true);
    rmSync(path.join(ws, 'direct.txt'));
  });
});
