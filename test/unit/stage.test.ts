/**
 * Staged commands with the real kernel overlay, unshare and bubblewrap: the workspace is untouched while the change
 * set is read from the stage, every kind of change is found, and landing it makes the workspace exactly what the
 * command left, except where the person changed a file meanwhile.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bwrapArgs } from '../../src/core/sandbox/bwrap';
import { gatherSandboxPolicy } from '../../src/core/sandbox/gather';
import { findBwrap } from '../../src/core/sandbox/sandbox';
import { createStage, discardStage, findUnshare, probeStaging, stagedLaunch, sweepStages, type Stage } from '../../src/core/sandbox/stage';
import { readChangeSet, type ChangeSet } from '../../src/core/sandbox/changeSet';
import { landChanges } from '../../src/core/sandbox/landing';
import { defaultProtectedPaths } from '../../src/core/settings';
import { runBash, type CommandResult } from '../../src/core/terminal/bashRunner';
import { scratchFolder } from '../fixtures/scratch';

/** Every entry under `root`: its kind, mode and content hash (or link target). */
function tree(root: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (relative: string): void => {
    for (const name of readdirSync(path.join(root, relative))) {
      const rel = relative === '' ? name : `${relative}/${name}`;
      const full = path.join(root, rel);
      const stat = lstatSync(full);
      if (stat.isDirectory()) {
        found[rel] = `dir ${(stat.mode & 0o777).toString(8)}`;
        walk(rel);
      } else if (stat.isSymbolicLink()) {
        found[rel] = `link ${readlinkSync(full)}`;
      } else {
        found[rel] = `file ${(stat.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(full)).digest('hex').slice(0, 16)}`;
      }
    }
  };
  walk('');
  return found;
}

const summary = (set: ChangeSet): string[] => set.changes.map((change) => `${change.kind} ${change.path}`).sort();

describe('staged commands (real overlay, unshare and bubblewrap)', function () {
  this.timeout(30_000);
  let base: string;
  let ws: string;
  let cache: string;

  beforeEach(() => {
    // Not under /tmp: the sandbox gives the command a private /tmp.
    base = scratchFolder('toolgate-stage-');
    ws = path.join(base, 'ws');
    cache = path.join(base, 'cache');
    for (const folder of ['src', 'old/deep', 'remade', 'keep', '.vscode']) {
      mkdirSync(path.join(ws, folder), { recursive: true });
    }
    writeFileSync(path.join(ws, 'src', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(ws, 'src', 'b.ts'), 'export const b = 2;\n');
    writeFileSync(path.join(ws, 'old', 'deep', 'x.txt'), 'x\n');
    writeFileSync(path.join(ws, 'old', 'y.txt'), 'y\n');
    writeFileSync(path.join(ws, 'remade', 'gone.txt'), 'gone\n');
    writeFileSync(path.join(ws, 'remade', 'kept-name.txt'), 'before\n');
    writeFileSync(path.join(ws, 'keep', 'same.txt'), 'same\n');
    writeFileSync(path.join(ws, 'run.sh'), 'echo run\n');
    writeFileSync(path.join(ws, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    writeFileSync(path.join(ws, '.vscode', 'settings.json'), '{}\n');
    symlinkSync('src/a.ts', path.join(ws, 'link'));
    execFileSync('git', ['init', '-q', ws]);
  });
  afterEach(() => {
    execFileSync('chmod', ['-R', 'u+rwx', base]);
    rmSync(base, { recursive: true, force: true });
  });

  async function staged(command: string, timeoutMs = 15_000, stageParent = cache): Promise<{ stage: Stage; result: CommandResult }> {
    const stage = await createStage(stageParent, [ws]);
    const { policy } = await gatherSandboxPolicy({ workspaceFolders: [ws], protectedGlobs: defaultProtectedPaths, extraHidden: [], extraWritable: [], ownStorage: [], network: 'none', cacheRoot: cache, staged: true });
    const launch = stagedLaunch(stage, '/usr/bin/unshare', { program: findBwrap() ?? 'bwrap', args: bwrapArgs(policy, ws) });
    const result = await runBash(command, { cwd: ws, timeoutMs, wrap: { ...launch, env: policy.env }, graceMs: 500, drainMs: 300 });
    return { stage, result };
  }

  it("a window gone leaves its stages behind: the next start removes them (even a used overlay's work folder), another live window's stay", async () => {
    const parent = path.join(base, 'stages');
    const mine = await createStage(parent, [ws]);
    const { stage: used } = await staged('echo x > src/a.ts', 15_000, parent);
    const gone = path.join(parent, `stage-999999-leftover`);
    execFileSync('mv', [used.root, gone]);
    const swept = await sweepStages(parent, (pid) => pid !== 999999);
    assert.deepEqual(swept, [gone]);
    assert.deepEqual(readdirSync(parent), [path.basename(mine.root)]);
    assert.match(path.basename(mine.root), new RegExp(`^stage-${process.pid}-`));
  });

  it('can stage here (unprivileged user namespaces with overlayfs)', async () => {
    assert.deepEqual(await probeStaging(findUnshare()), { available: true });
  });

  it('the command sees its own writes, the workspace none of them; the change set holds every kind of change; landing it is exactly what the command left', async () => {
    const before = tree(ws);
    const command = [
      'printf "export const a = 10;\\n" > src/a.ts',
      'echo new > src/c.ts',
      'rm -r old',
      'rm -r remade && mkdir remade && echo after > remade/kept-name.txt',
      'chmod +x run.sh',
      'touch keep/same.txt',
      'ln -sfn src/b.ts link',
      'mkdir -p empty/inner',
      'printf "caf\\351!\\n" > latin1.txt',
      'mv src/b.ts src/renamed.ts',
      'id -u; cat src/a.ts src/c.ts; ls remade',
    ].join(' && ');
    const { stage, result } = await staged(command);
    assert.equal(result.exitCode, 0, result.output);
    assert.equal(result.output, `${process.getuid?.() ?? 0}\nexport const a = 10;\nnew\nkept-name.txt\n`);
    assert.deepEqual(tree(ws), before, 'the workspace is untouched until the change set lands');
    const set = await readChangeSet(stage);
    assert.equal(set.complete, true);
    assert.deepEqual(summary(set), [
      'created src/c.ts',
      'created src/renamed.ts',
      'deleted old',
      'deleted old/deep',
      'deleted old/deep/x.txt',
      'deleted old/y.txt',
      'deleted remade/gone.txt',
      'deleted src/b.ts',
      'folder empty',
      'folder empty/inner',
      'mode run.sh',
      'modified latin1.txt',
      'modified remade/kept-name.txt',
      'modified src/a.ts',
      'symlink link',
    ]);
    // What the command left, seen through a plain (unstaged) run of the same command in a copy.
    const copy = path.join(base, 'copy');
    execFileSync('cp', ['-a', ws, copy]);
    execFileSync('bash', ['-c', command.replace(/ && id -u;.*$/, '')], { cwd: copy });
    const outcome = await landChanges(stage, set.changes);
    assert.deepEqual(outcome.conflicts, []);
    const landed = tree(ws);
    assert.deepEqual(landed, tree(copy));
    assert.deepEqual([...readFileSync(path.join(ws, 'latin1.txt'))], [0x63, 0x61, 0x66, 0xe9, 0x21, 0x0a], 'bytes, not text');
    await discardStage(stage);
    assert.equal(existsSync(stage.root), false);
  });

  it('lands only the changes it is given: part of a new folder lands file by file, and a stage on another disk by copying', async () => {
    const other = mkdtempSync(path.join('/dev/shm', 'toolgate-stage-'));
    try {
      for (const parent of [cache, other]) {
        const { stage } = await staged('mkdir -p gen/a && echo 1 > gen/a/one && echo 2 > gen/two && chmod 755 gen/two', 15_000, parent);
        const set = await readChangeSet(stage);
        assert.deepEqual(summary(set), ['created gen/a/one', 'created gen/two', 'folder gen', 'folder gen/a']);
        const chosen = set.changes.filter((change) => change.path !== 'gen/a/one');
        const outcome = await landChanges(stage, chosen);
        assert.equal(outcome.landed.length, 3);
        assert.deepEqual(tree(path.join(ws, 'gen')), { a: 'dir 755', two: `file 755 ${createHash('sha256').update('2\n').digest('hex').slice(0, 16)}` });
        rmSync(path.join(ws, 'gen'), { recursive: true });
        await discardStage(stage);
      }
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('protected paths stay read-only in the stage, and nothing of them is in the change set', async () => {
    const { stage, result } = await staged('echo x > .vscode/settings.json; git config core.fsmonitor "touch pwned"; echo done');
    assert.match(result.output, /Read-only file system[\s\S]*done\n$/);
    assert.deepEqual(summary(await readChangeSet(stage)).filter((line) => /\.vscode|\.git\/config/.test(line)), []);
    await discardStage(stage);
  });

  it('a file the person changes while the command runs is not overwritten: a conflict, the rest lands', async () => {
    const { stage } = await staged('echo agent > src/a.ts && echo agent > src/c.ts');
    writeFileSync(path.join(ws, 'src', 'a.ts'), 'person\n');
    const outcome = await landChanges(stage, (await readChangeSet(stage)).changes);
    assert.deepEqual(outcome.conflicts.map((conflict) => conflict.why), ['src/a.ts was changed while the command ran']);
    assert.equal(readFileSync(path.join(ws, 'src', 'a.ts'), 'utf8'), 'person\n');
    assert.equal(readFileSync(path.join(ws, 'src', 'c.ts'), 'utf8'), 'agent\n');
    await discardStage(stage);
  });

  it('a command stopped by its timeout leaves a change set that is still read whole', async () => {
    const { stage, result } = await staged('echo partial > src/p.ts && rm -r remade && mkdir remade && exec sleep 60', 1_000);
    assert.equal(result.timedOut, true);
    const set = await readChangeSet(stage);
    assert.equal(set.complete, true, 'the wrapper ignored the stop signal and listed the overlay');
    assert.deepEqual(summary(set), ['created src/p.ts', 'deleted remade/gone.txt', 'deleted remade/kept-name.txt']);
    await discardStage(stage);
  });

  it('git works in the stage: a commit is a change set of .git files, and the workspace\'s repository is untouched until it lands', async () => {
    const head = (): string => execFileSync('git', ['-C', ws, 'rev-parse', '--verify', '-q', 'HEAD'], { encoding: 'utf8' }).trim();
    const { stage, result } = await staged('git -c user.email=a@b -c user.name=a add src && git -c user.email=a@b -c user.name=a commit -qm one && git log --oneline | wc -l');
    assert.equal(result.output, '1\n', result.output);
    assert.throws(head, 'no commit in the workspace yet');
    const set = await readChangeSet(stage);
    assert.ok(set.changes.some((change) => change.path === '.git/index'));
    await landChanges(stage, set.changes);
    assert.match(head(), /^[0-9a-f]{40}$/);
    await discardStage(stage);
  });

  it('refuses to land nothing it was not given: an empty change set changes nothing', async () => {
    const before = tree(ws);
    const { stage } = await staged('cat src/a.ts > /dev/null');
    const set = await readChangeSet(stage);
    assert.deepEqual(set.changes, []);
    await landChanges(stage, set.changes);
    assert.deepEqual(tree(ws), before);
    await discardStage(stage);
  });
});
