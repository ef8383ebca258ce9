/**
 * Protected paths against renames and removals of the folders above them, and git's control files a command could
 * create, with the real bubblewrap, overlay and git, staged and not. The proof that matters is on the host: after the
 * command (and, staged, after landing everything, as a person who allows every card), the host's own git runs in the
 * workspace, and the program a planted config or hook names must not have run (its marker is outside the workspace,
 * where the sandbox cannot write it itself).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CommandSandbox } from '../../src/core/sandbox/commandSandbox';
import { pinnedFolders } from '../../src/core/sandbox/policy';
import { sandboxFailure } from '../../src/core/sandbox/failures';
import type { SandboxInputs } from '../../src/core/sandbox/gather';
import { probeSandbox, type SandboxLaunch } from '../../src/core/sandbox/sandbox';
import { discardStage, findUnshare, probeStaging } from '../../src/core/sandbox/stage';
import { readChangeSet } from '../../src/core/sandbox/changeSet';
import { landChanges } from '../../src/core/sandbox/landing';
import { defaultProtectedPaths } from '../../src/core/settings';
import type { CommandResult } from '../../src/core/terminal/bashRunner';
import { runLaunched } from '../fixtures/launchedRun';
import { scratchFolder } from '../fixtures/scratch';

const git = (cwd: string, ...args: string[]): string => execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** The protected files whose content and place the attacks try to change. */
const guarded = ['.git/config', '.github/workflows/ci.yml', '.vscode/settings.json', 'pkg/.vscode/tasks.json'];

describe('protected paths hold against renames of their folders, and against git control files planted (real bubblewrap and git)', function () {
  this.timeout(30_000);
  let base: string;
  let ws: string;
  let marker: string;
  let inputs: SandboxInputs;

  beforeEach(() => {
    // Not under /tmp: the sandbox gives the command a private /tmp.
    base = scratchFolder('toolgate-renames-');
    ws = path.join(base, 'ws');
    marker = path.join(base, 'outside', 'planted-program-ran');
    mkdirSync(path.join(base, 'outside'));
    for (const folder of ['.github/workflows', '.vscode', 'pkg/.vscode', 'src']) {
      mkdirSync(path.join(ws, folder), { recursive: true });
    }
    writeFileSync(path.join(ws, '.github', 'workflows', 'ci.yml'), 'on: push\n');
    writeFileSync(path.join(ws, '.vscode', 'settings.json'), '{}\n');
    writeFileSync(path.join(ws, 'pkg', '.vscode', 'tasks.json'), '{}\n');
    writeFileSync(path.join(ws, 'src', 'a.ts'), 'export {};\n');
    execFileSync('git', ['init', '-q', '-b', 'main', ws]);
    git(ws, 'add', '-A');
    git(ws, 'commit', '-qm', 'first');
    inputs = { workspaceFolders: [ws], protectedGlobs: defaultProtectedPaths, extraHidden: [], extraWritable: [], ownStorage: [], network: 'none', cacheRoot: path.join(base, 'cache') };
  });
  afterEach(() => {
    execFileSync('chmod', ['-R', 'u+rwx', base]);
    rmSync(base, { recursive: true, force: true });
  });

  const sandbox = (): CommandSandbox => {
    const unshare = findUnshare();
    return new CommandSandbox({
      probe: () => probeSandbox(),
      inputs: () => inputs,
      log: () => undefined,
      staging: { parent: path.join(base, 'stages'), unshare: unshare ?? 'unshare', probe: () => probeStaging(unshare), enabled: () => true },
    });
  };

  /**
   * Runs the command; staged, then lands every change it made (a person who allows every card). Returns its result
   * and the launch it ran in.
   */
  async function run(command: string, staged: boolean, box = sandbox()): Promise<{ result: CommandResult; launch: SandboxLaunch }> {
    const prepared = await box.launch(ws, undefined, { stage: staged });
    assert.ok('launch' in prepared, `the sandbox starts here: ${'unavailable' in prepared ? prepared.unavailable : ''}`);
    const { launch } = prepared;
    assert.equal(launch.stage !== undefined, staged, 'staged only when asked');
    const result = await runLaunched(command.replaceAll('$MARK', marker), { cwd: ws, timeoutMs: 15_000, wrap: launch, graceMs: 500, drainMs: 300 });
    if (launch.stage !== undefined) {
      try {
        await landChanges(launch.stage, (await readChangeSet(launch.stage)).changes);
      } finally {
        await discardStage(launch.stage);
      }
    }
    return { result, launch };
  }

  const contents = (): Record<string, string | undefined> => Object.fromEntries(guarded.map((file) => [file, existsSync(path.join(ws, file)) ? readFileSync(path.join(ws, file), 'utf8') : undefined]));

  /** The host's own git, as VS Code's git extension runs it on a change (and a commit, which runs hooks): nothing planted runs. */
  function hostGitRunsNothingPlanted(): void {
    try {
      git(ws, 'status');
      git(ws, 'commit', '-q', '--allow-empty', '-m', 'host');
    } catch {
      // A repository the command broke may make git fail: what matters is only whether a planted program ran.
    }
    assert.equal(existsSync(marker), false, 'a program the command planted ran on the host');
  }

  const fsmonitor = String.raw`printf '[core]\n\tfsmonitor = "touch $MARK; false"\n'`;
  const renames: [string, string][] = [
    ['.git renamed, a new .git with a config that runs a program', `mv .git .git-old && mkdir .git && cp -r .git-old/HEAD .git-old/objects .git-old/refs .git/ && ${fsmonitor} > .git/config`],
    ['.git removed, a new config written in its place', `rm -rf .git; mkdir -p .git/refs .git/objects && echo 'ref: refs/heads/main' > .git/HEAD && ${fsmonitor} > .git/config`],
    ['.github renamed, a new workflow in its place', 'mv .github x && mkdir -p .github/workflows && echo "on: evil" > .github/workflows/ci.yml'],
    ['.vscode renamed, new settings in its place', 'mv .vscode x && mkdir .vscode && echo "{\\"evil\\": 1}" > .vscode/settings.json'],
    ['a folder holding a protected .vscode renamed, a new one made', 'mv pkg pkg2 && mkdir -p pkg/.vscode && echo "{\\"evil\\": 1}" > pkg/.vscode/tasks.json'],
  ];
  for (const staged of [false, true]) {
    for (const [what, command] of renames) {
      it(`${staged ? 'staged' : 'unstaged'}: ${what} is refused, and the host's git runs nothing planted`, async () => {
        const before = contents();
        const { result } = await run(command, staged);
        assert.notEqual(result.exitCode, 0, result.output);
        assert.match(result.output, /Device or resource busy/);
        assert.match(sandboxFailure(result) ?? '', /cannot be renamed or removed/);
        assert.deepEqual(contents(), before, `the protected files are as they were: ${result.output}`);
        hostGitRunsNothingPlanted();
      });
    }
  }

  // Control files git reads that did not exist when the command started (git init makes hooks and info; some
  // repositories have neither, and the empty placeholder stands in for them).
  const plants: [string, string, string][] = [
    ['a hook, where .git/hooks did not exist', 'rm -rf .git/hooks', `mkdir -p .git/hooks; printf '#!/bin/sh\\ntouch $MARK\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`],
    ['a hook in a hooks folder remade', '', `rm -rf .git/hooks; mkdir -p .git/hooks; printf '#!/bin/sh\\ntouch $MARK\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`],
    ['.git/info/attributes, where .git/info did not exist', 'rm -rf .git/info', 'mkdir -p .git/info; echo "* filter=x" > .git/info/attributes'],
    ['.git/info/attributes', '', 'echo "* filter=x" > .git/info/attributes'],
    ['.git/objects/info/alternates', '', 'echo /var/tmp > .git/objects/info/alternates'],
  ];
  for (const [what, setup, command] of plants) {
    it(`unstaged: cannot plant ${what}; ordinary git still works after`, async () => {
      if (setup !== '') {
        execFileSync('sh', ['-c', setup], { cwd: ws });
      }
      const box = sandbox();
      const { result, launch } = await run(command, false, box);
      assert.notEqual(result.exitCode, 0, result.output);
      for (const file of ['.git/hooks/pre-commit', '.git/info/attributes', '.git/objects/info/alternates']) {
        const full = path.join(ws, file);
        assert.ok(!existsSync(full) || readFileSync(full, 'utf8') === '', `${file} holds nothing: ${result.output}`);
      }
      // The placeholders' mount points left behind are not reported as created by the command.
      assert.deepEqual(await box.newlyProtected(launch), []);
      hostGitRunsNothingPlanted();
    });
  }

  it('unstaged: git config.worktree is not read while the read-only config does not turn it on: planted, it runs nothing (and is named)', async () => {
    const box = sandbox();
    const { result, launch } = await run(`${fsmonitor} > .git/config.worktree`, false, box);
    assert.equal(result.exitCode, 0, result.output);
    assert.deepEqual(await box.newlyProtected(launch), [path.join(ws, '.git', 'config.worktree')]);
    hostGitRunsNothingPlanted();
  });

  // What the sandbox cannot stop with staging off (see commandSandbox.newlyProtected): a commondir (git dies on an
  // empty placeholder, and any content changes what the repository is) and a new nested repository (git init is
  // ordinary work). Both are named after the command, for the warning the person sees.
  const detected: [string, string, string[]][] = [
    ['.git/commondir pointing at a config of the command\'s', `mkdir -p evil/objects && cp -r .git/HEAD .git/refs evil/ && ${fsmonitor} > evil/config && echo ../evil > .git/commondir`, ['.git/commondir']],
    ['a new nested repository with a config of its own', `git init -q sub && ${fsmonitor} >> sub/.git/config`, ['sub/.git/config', 'sub/.git/hooks']],
  ];
  for (const [what, command, named] of detected) {
    it(`unstaged: ${what} is named after the command`, async () => {
      const box = sandbox();
      const { result, launch } = await run(command, false, box);
      assert.equal(result.exitCode, 0, result.output);
      const created = (await box.newlyProtected(launch)).map((entry) => path.relative(ws, entry));
      for (const entry of named) {
        assert.ok(created.includes(entry), `${entry} is named: ${created.join(', ')}`);
      }
    });
  }

  it('unstaged: git add, commit and checkout -b of ordinary files work, with hooks and info missing (placeholders) and the folders pinned', async () => {
    execFileSync('sh', ['-c', 'rm -rf .git/hooks .git/info'], { cwd: ws });
    const box = sandbox();
    const { result, launch } = await run('echo b > src/b.ts && git -c user.email=a@b -c user.name=a add src/b.ts && git -c user.email=a@b -c user.name=a commit -qm two && git checkout -q -b feature && git status --short && git log --oneline | wc -l', false, box);
    assert.equal(result.exitCode, 0, result.output);
    assert.equal(result.output.trim(), '2');
    assert.equal(git(ws, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'feature');
    assert.deepEqual(await box.newlyProtected(launch), []);
    // The mount points bwrap made stay empty, and the host's git reads them as none.
    assert.deepEqual(readdirSync(path.join(ws, '.git', 'hooks')), []);
    assert.equal(git(ws, 'status', '--short'), '');
  });
});

describe('the folders pinned so that no folder above a protected path can be renamed (pure)', () => {
  const table: [string, string[], string[], string[]][] = [
    ['nothing protected', [], ['/ws'], []],
    ['an entry at the top of the workspace folder: the folder is a mount already', ['/ws/.vscode'], ['/ws'], []],
    ['git\'s control entries: .git once', ['/ws/.git/config', '/ws/.git/hooks', '/ws/.git/info/attributes'], ['/ws'], ['/ws/.git', '/ws/.git/info']],
    ['a nested entry: every folder between, outermost first', ['/ws/pkg/sub/.vscode/tasks.json'], ['/ws'], ['/ws/pkg', '/ws/pkg/sub', '/ws/pkg/sub/.vscode']],
    ['a submodule\'s repository', ['/ws/.git/modules/lib/config'], ['/ws'], ['/ws/.git', '/ws/.git/modules', '/ws/.git/modules/lib']],
    ['a folder inside another read-only entry is read-only already', ['/ws/.github/workflows', '/ws/.github/workflows/x/y'], ['/ws'], ['/ws/.github']],
    ['each workspace folder, and the innermost writable folder that holds the entry', ['/a/.git/config', '/b/c/.env', '/a/in/x/.env'], ['/a', '/b', '/a/in'], ['/a/.git', '/a/in/x', '/b/c']],
    ['outside every writable folder: nothing (read-only anyway)', ['/etc/x/y'], ['/ws'], []],
    ['a prefix that is not a parent', ['/ws-other/x/.env'], ['/ws'], []],
  ];
  for (const [what, entries, writable, expected] of table) {
    it(what, () => {
      assert.deepEqual(pinnedFolders(entries, writable), expected);
    });
  }
});
