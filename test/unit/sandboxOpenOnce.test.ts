/**
 * A protected file the person allowed on a command's card is writable for that run only (issue 36, item 3), with the
 * real bubblewrap and overlay, staged and not, through the tool service as the agent calls it: one card, and the write
 * lands; its folder is made when missing; nothing else is loosened (siblings, a renamed folder, a link planted at its
 * place or on its way, a hard link, git's files); the next command is protected again; and a write the sandbox
 * refused names the path and says it was the sandbox.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PathResolver } from '../../src/core/approval/paths';
import { GitCli } from '../../src/core/checkpoints/gitCli';
import { CommandSandbox } from '../../src/core/sandbox/commandSandbox';
import type { SandboxInputs } from '../../src/core/sandbox/gather';
import { releaseOpened } from '../../src/core/sandbox/openOnce';
import { probeSandbox } from '../../src/core/sandbox/sandbox';
import { discardStage, findUnshare, probeStaging } from '../../src/core/sandbox/stage';
import { defaultProtectedPaths } from '../../src/core/settings';
import { initShellParser } from '../../src/core/shell/parser';
import { runBash } from '../../src/core/terminal/bashRunner';
import { runLaunched } from '../fixtures/launchedRun';
import type { CommandRequest, TerminalCommandResult } from '../../src/core/terminal/commandTerminal';
import { ConfinedRunner, type TerminalPort } from '../../src/core/terminal/confinedRun';
import { ToolService } from '../../src/core/tools/service';
import { pendingViews } from '../../src/core/views/pendingCall';
import { DiskFiles } from '../fixtures/diskFiles';
import { MemoryLog } from '../fixtures/memoryFiles';
import { createMemoryGate } from '../fixtures/memoryGate';
import { scratchFolder } from '../fixtures/scratch';

const terminal: TerminalPort = {
  execute: async (request: CommandRequest): Promise<TerminalCommandResult> => ({
    ...(await runBash(request.command, { cwd: request.cwd, timeoutMs: request.timeoutMs, graceMs: 500, drainMs: 300, ...(request.wrap ? { wrap: request.wrap } : {}) })),
    stoppedFromTerminal: undefined,
  }),
};

for (const staged of [false, true]) {
  describe(`a protected file allowed on the command's card is writable for that run only, ${staged ? 'staged' : 'not staged'} (real bubblewrap${staged ? ' and overlay' : ''})`, function () {
    this.timeout(30_000);
    let base: string;
    let ws: string;
    let outside: string;
    let inputs: SandboxInputs;

    before(() => initShellParser());
    beforeEach(() => {
      // Not under /tmp: the sandbox gives the command a private /tmp.
      base = scratchFolder('toolgate-open-once-');
      ws = path.join(base, 'ws');
      outside = path.join(base, 'outside');
      mkdirSync(outside);
      writeFileSync(path.join(outside, 'secret'), 'secret\n');
      mkdirSync(path.join(ws, 'src'), { recursive: true });
      writeFileSync(path.join(ws, 'src', 'a.ts'), 'export {};\n');
      execFileSync('git', ['init', '-q', ws]);
      inputs = { workspaceFolders: [ws], protectedGlobs: defaultProtectedPaths, extraHidden: [], extraWritable: [], ownStorage: [], network: 'none', home: path.join(base, 'home'), cacheRoot: path.join(base, 'cache') };
    });
    afterEach(() => {
      execFileSync('chmod', ['-R', 'u+rwx', base]);
      rmSync(base, { recursive: true, force: true });
    });

    const settings = (): string => path.join(ws, '.vscode', 'settings.json');
    const withSettings = (text = '{}\n'): void => {
      mkdirSync(path.join(ws, '.vscode'), { recursive: true });
      writeFileSync(settings(), text);
    };

    function sandbox(): CommandSandbox {
      const unshare = findUnshare();
      return new CommandSandbox({
        probe: () => probeSandbox(),
        inputs: () => inputs,
        log: () => undefined,
        staging: { parent: path.join(base, 'stages'), unshare: unshare ?? 'unshare', probe: () => probeStaging(unshare, base), enabled: () => staged },
      });
    }

    /**
     * The agent runs `command`; the person allows every card that comes (Allow once) but never "Run without sandbox"
     * (denied), and each card's reason is kept. Staged, a group card for what the command changed would be a card too.
     */
    async function agentRuns(command: string): Promise<{ ok: boolean; output: string; cards: string[] }> {
      const resolver = new PathResolver([ws]);
      const { gate } = createMemoryGate({ locate: (absolute) => resolver.resolve(absolute) });
      const runner = new ConfinedRunner({ sandbox: sandbox(), terminal, relative: (absolute) => path.relative(ws, absolute) });
      const service = new ToolService({
        gate,
        files: new DiskFiles(),
        resolver: () => resolver,
        terminal: runner,
        terminalTimeoutSeconds: () => 20,
        commandJudgeReady: () => initShellParser(),
        log: new MemoryLog(),
        staging: { ignored: (folder, paths) => new GitCli().ignored(folder, paths), landIgnored: () => true },
      });
      const cards: string[] = [];
      const allowEvery = gate.onDidChange(() => {
        for (const view of pendingViews(gate)) {
          cards.push(`${view.tool}${view.unconfined === true ? ' (unconfined)' : ''}: ${view.reason} ${view.warnings.join(' ')}`);
          gate.settle(view, { action: view.unconfined === true ? 'deny' : 'allow-once' });
        }
      });
      try {
        const [result] = await service.runBatch([{ tool: 'run_in_terminal', args: JSON.stringify({ command }) }], { chatId: 'chat' });
        assert.ok(result);
        return { ok: result.ok, output: result.output, cards };
      } finally {
        allowEvery.dispose();
      }
    }

    it('an existing protected file: one card, the write lands, and the next command is refused again, by name', async () => {
      withSettings();
      const first = await agentRuns(`echo '{"a": 1}' >> .vscode/settings.json`);
      assert.equal(first.ok, true, first.output);
      assert.equal(first.cards.length, 1, `one card: ${first.cards.join(' | ')}`);
      assert.match(first.cards[0] ?? '', /protected|always ask/);
      assert.match(first.cards[0] ?? '', /Allow once lets this command write the protected file `\.vscode\/settings\.json`: the sandbox opens that file alone, for this run only\./);
      assert.equal(readFileSync(settings(), 'utf8'), '{}\n{"a": 1}\n');
      // A command the analysis does not see writing it: the card does not name it, so nothing is opened, and the
      // refusal names the path and the sandbox.
      const second = await agentRuns(`python3 -c "open('.vscode/settings.json', 'a').write('again')"`);
      assert.equal(second.ok, false);
      assert.match(second.output, /the sandbox kept `\.vscode\/settings\.json` read-only \(protected path\)/);
      assert.ok(second.cards.some((card) => card.includes('the sandbox kept `.vscode/settings.json` read-only (protected path)')), `the second card names it: ${second.cards.join(' | ')}`);
      assert.equal(readFileSync(settings(), 'utf8'), '{}\n{"a": 1}\n');
    });

    it('no .vscode folder: the approved write makes it, with one card, and nothing else in it', async () => {
      const result = await agentRuns(`echo '{}' >> .vscode/settings.json`);
      assert.equal(result.ok, true, result.output);
      assert.equal(result.cards.length, 1, `one card: ${result.cards.join(' | ')}`);
      assert.equal(readFileSync(settings(), 'utf8'), '{}\n');
      assert.deepEqual(readdirSync(path.join(ws, '.vscode')), ['settings.json']);
    });

    it(`no .vscode folder: another protected file made in the folder made for the allowed one is ${staged ? 'asked on the group card' : 'refused, by name'}`, async () => {
      const result = await agentRuns(`echo '{}' >> .vscode/settings.json; python3 -c "open('.vscode/tasks.json', 'w').write('planted')"`);
      assert.equal(readFileSync(settings(), 'utf8'), '{}\n');
      if (staged) {
        // The folder is new on the stage (the workspace has none to hold read-only): what else lands in it is judged.
        assert.equal(result.cards.length, 2, result.cards.join(' | '));
        assert.match(result.cards[1] ?? '', /^write_file: .*protected/);
        assert.match(result.output, /\.vscode\/tasks\.json/);
      } else {
        assert.equal(existsSync(path.join(ws, '.vscode', 'tasks.json')), false);
        assert.ok(result.cards.some((card) => card.includes('the sandbox kept `.vscode/tasks.json` read-only (protected path)')), result.cards.join(' | '));
      }
    });

    it('a write the command did not make leaves nothing behind: no empty file, no folder', async () => {
      const result = await agentRuns(`true || echo '{}' > .vscode/settings.json`);
      assert.equal(result.ok, true, result.output);
      assert.equal(existsSync(path.join(ws, '.vscode')), false);
    });

    it('a sibling stays read-only: only the path the card named is opened, and the refusal names the sibling', async () => {
      withSettings();
      writeFileSync(path.join(ws, '.vscode', 'tasks.json'), 'tasks\n');
      const result = await agentRuns(`echo one >> .vscode/settings.json && python3 -c "open('.vscode/tasks.json', 'w').write('planted')"`);
      assert.equal(readFileSync(settings(), 'utf8'), '{}\none\n');
      assert.equal(readFileSync(path.join(ws, '.vscode', 'tasks.json'), 'utf8'), 'tasks\n');
      assert.ok(result.cards.some((card) => card.includes('the sandbox kept `.vscode/tasks.json` read-only (protected path)')), result.cards.join(' | '));
      assert.ok(!result.cards.some((card) => card.includes('`.vscode/settings.json` read-only')));
    });

    it('renaming its folder away and making a new one fails: the allowance is that file, where it is', async () => {
      withSettings();
      const result = await agentRuns(`mv .vscode old; mkdir -p .vscode; echo one >> .vscode/settings.json; echo two >> .vscode/settings.json; ls -a`);
      assert.equal(existsSync(path.join(ws, 'old')), false);
      assert.equal(readFileSync(settings(), 'utf8'), '{}\none\ntwo\n');
      assert.equal(result.cards.length, 1, result.cards.join(' | '));
    });

    const attacks: { name: string; plant: () => void; command: string; kept: () => void }[] = [
      {
        name: 'a link planted at its place, to a file outside: not opened, not written',
        plant: () => {
          mkdirSync(path.join(ws, '.vscode'));
          symlinkSync(path.join(outside, 'secret'), settings());
        },
        command: `echo owned >> .vscode/settings.json`,
        kept: () => assert.ok(lstatSync(settings()).isSymbolicLink()),
      },
      {
        name: 'a link planted at its place, to a protected file inside: not opened, not written',
        plant: () => {
          mkdirSync(path.join(ws, '.vscode'));
          writeFileSync(path.join(ws, '.env'), 'KEY=1\n');
          symlinkSync('../.env', settings());
        },
        command: `echo owned >> .vscode/settings.json`,
        kept: () => assert.equal(readFileSync(path.join(ws, '.env'), 'utf8'), 'KEY=1\n'),
      },
      {
        name: 'its folder a link to a folder outside: not opened, not written',
        plant: () => {
          writeFileSync(path.join(outside, 'settings.json'), 'secret\n');
          symlinkSync(outside, path.join(ws, '.vscode'));
        },
        command: `echo owned >> .vscode/settings.json`,
        kept: () => assert.equal(readFileSync(path.join(outside, 'settings.json'), 'utf8'), 'secret\n'),
      },
      {
        name: 'a hard link to a file outside: not opened (writing it would write the other)',
        plant: () => {
          mkdirSync(path.join(ws, '.vscode'));
          linkSync(path.join(outside, 'secret'), settings());
        },
        command: `echo owned >> .vscode/settings.json`,
        kept: () => undefined,
      },
      {
        name: "git's hook: never opened, whatever the card said",
        plant: () => writeFileSync(path.join(ws, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n', { mode: 0o755 }),
        command: `echo 'touch /owned' >> .git/hooks/pre-commit`,
        kept: () => assert.equal(readFileSync(path.join(ws, '.git', 'hooks', 'pre-commit'), 'utf8'), '#!/bin/sh\n'),
      },
      {
        name: "git's config: never opened",
        plant: () => undefined,
        command: `printf '[core]\\n\\tfsmonitor = touch /owned\\n' >> .git/config`,
        kept: () => assert.doesNotMatch(readFileSync(path.join(ws, '.git', 'config'), 'utf8'), /fsmonitor/),
      },
    ];
    for (const attack of attacks) {
      it(attack.name, async () => {
        attack.plant();
        const runner = new ConfinedRunner({ sandbox: sandbox(), terminal, relative: (absolute) => path.relative(ws, absolute) });
        // As the service would ask: the path the command names, opened because the person allowed it.
        const named = attack.command.includes('.git/') ? path.join(ws, attack.command.includes('hooks') ? '.git/hooks/pre-commit' : '.git/config') : settings();
        const result = await runner.run(attack.command, ws, 20, undefined, 'chat', { staged, open: [named], writes: [named] });
        if (result.stage !== undefined) {
          await discardStage(result.stage);
        }
        assert.notEqual(result.exitCode, 0, result.output);
        assert.equal(readFileSync(path.join(outside, 'secret'), 'utf8'), 'secret\n');
        attack.kept();
        assert.ok((result.refusedWrites ?? []).some((entry) => entry.path === path.relative(ws, named) && entry.why !== undefined), JSON.stringify(result.refusedWrites));
      });
    }

    if (!staged) {
      it('a link swapped in after the file was opened binds nothing: bwrap finds the path is not the descriptor\'s file and does not start', async () => {
        withSettings();
        const prepared = await sandbox().launch(ws, undefined, { stage: false, open: [settings()] });
        assert.ok('launch' in prepared);
        const { launch } = prepared;
        const files = launch.opened?.files ?? [];
        assert.equal(files.length, 1);
        // Relative, so that it leads to the file outside inside the sandbox too (bwrap mounts onto where it leads).
        renameSync(settings(), path.join(ws, 'moved.json'));
        symlinkSync('../../outside/secret', settings());
        try {
          const result = await runLaunched(`echo owned >> .vscode/settings.json`, { cwd: ws, timeoutMs: 15_000, wrap: launch, graceMs: 500, drainMs: 300 });
          // bwrap checks that what it bound at the path is the descriptor's file: here it is not, so nothing starts.
          assert.notEqual(result.exitCode, 0);
          assert.match(result.output, /^bwrap: Race condition/);
        } finally {
          await releaseOpened(files, [ws]);
        }
        assert.equal(readFileSync(path.join(outside, 'secret'), 'utf8'), 'secret\n');
        assert.equal(readFileSync(path.join(ws, 'moved.json'), 'utf8'), '{}\n');
      });
    }
  });
}
