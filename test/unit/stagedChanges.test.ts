/**
 * A staged command's changes judged and landed, with the real overlay, unshare, bubblewrap and git: what a rule allows
 * lands at once, git-ignored output lands unreviewed, the rest waits in the gate as write_file calls (protected paths
 * included), hunk choices and denials are obeyed byte for byte, a file the person changed meanwhile asks, and what
 * landed as text is handed to the checkpoints.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Gate } from '../../src/core/approval/gate';
import { PathResolver } from '../../src/core/approval/paths';
import { GitCli } from '../../src/core/checkpoints/gitCli';
import type { FileWritten } from '../../src/core/checkpoints/recorder';
import { discardStage, type Stage } from '../../src/core/sandbox/stage';
import { changesSoFar } from '../../src/core/tools/changesSoFar';
import { StagedLanding } from '../../src/core/tools/stagedLanding';
import { DiskFiles } from '../fixtures/diskFiles';
import { runStaged, waiting } from '../fixtures/stagedRun';
import { createMemoryGate, locateUnder } from '../fixtures/memoryGate';
import { pendingViews } from '../../src/core/views/pendingCall';
import { scratchFolder } from '../fixtures/scratch';

const twoHunks = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`).join('\n') + '\n';

describe('a staged command lands what is allowed and asks for the rest (real overlay, bubblewrap and git)', function () {
  this.timeout(30_000);
  let base: string;
  let ws: string;
  let cache: string;

  beforeEach(() => {
    base = scratchFolder('toolgate-landing-');
    ws = path.join(base, 'ws');
    cache = path.join(base, 'cache');
    for (const folder of ['allowed', 'src', 'gone']) {
      mkdirSync(path.join(ws, folder), { recursive: true });
    }
    writeFileSync(path.join(ws, 'allowed', 'x.txt'), 'x\n');
    writeFileSync(path.join(ws, 'src', 'a.txt'), twoHunks);
    writeFileSync(path.join(ws, 'src', 'del.txt'), 'keep me\n');
    writeFileSync(path.join(ws, 'gone', 'one.txt'), 'one\n');
    writeFileSync(path.join(ws, '.gitignore'), 'build/\n');
    execFileSync('git', ['init', '-q', ws]);
    execFileSync('git', ['-C', ws, 'add', '.']);
  });
  afterEach(() => {
    execFileSync('chmod', ['-R', 'u+rwx', base]);
    rmSync(base, { recursive: true, force: true });
  });

  const run = (command: string): Promise<Stage> => runStaged(ws, cache, command);

  /** What the landings said landed without review, as the recorder was told. */
  let unseen: { command: string; paths: readonly string[] }[] = [];
  beforeEach(() => {
    unseen = [];
  });

  function landing(gate: Gate, recorded: FileWritten[], landIgnored = true, onSettled?: (relative: string, landed: boolean) => void): StagedLanding {
    return new StagedLanding({
      ...(onSettled ? { onSettled } : {}),
      gate,
      files: new DiskFiles(),
      resolver: new PathResolver([ws]),
      recorder: { fileWritten: (_turn, change) => (recorded.push(change), Promise.resolve()), landedUnreviewed: (_turn, landed) => (unseen.push(landed), Promise.resolve()) },
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
      ignored: (folder, paths) => new GitCli().ignored(folder, paths),
      landIgnored,
      keepProposal: () => () => undefined,
    });
  }

  const turn = { chatId: 'c', taskId: 't', turn: 0 };

  it('a rule lands its file at once, git-ignored output lands unreviewed, the rest asks; one hunk accepted lands exactly that hunk, denials leave the files as they were', async () => {
    const { gate } = createMemoryGate({ locate: locateUnder(ws), editRules: { 'allowed/**': true } });
    const command = [
      'echo X > allowed/x.txt',
      `sed -i -e 's/^line 2$/LINE TWO/' -e 's/^line 19$/LINE NINETEEN/' src/a.txt`,
      'rm src/del.txt',
      'rm -r gone',
      'mkdir -p build/deep && echo out > build/deep/out.js',
      'mkdir -p made/deep',
      // A protected file that did not exist: the sandbox could not make it read-only; staged, it asks.
      'mkdir .vscode && echo \'{"tasks": []}\' > .vscode/tasks.json',
    ].join(' && ');
    const stage = await run(command);
    assert.equal(readFileSync(path.join(ws, 'allowed', 'x.txt'), 'utf8'), 'x\n', 'nothing lands while the command runs');
    const recorded: FileWritten[] = [];
    let allowedLanded = (): void => undefined;
    const ruleLanded = new Promise<void>((resolve) => {
      allowedLanded = resolve;
    });
    const done = landing(gate, recorded, true, (relative, landed) => relative === 'allowed/x.txt' && landed && allowedLanded()).land(stage, { command, source: 'agent', chatId: 'c', turn });
    const views = await waiting(gate, 4);
    await ruleLanded;
    const byPath = new Map(views.map((view) => [view.preview.kind === 'diff' ? view.preview.path : path.relative(ws, (JSON.parse(view.argsJson) as { path: string }).path), view]));
    assert.deepEqual([...byPath.keys()].sort(), ['.vscode/tasks.json', 'gone/one.txt', 'src/a.txt', 'src/del.txt']);
    // One card for what asks: every file in the same group, named by the command (6 changes: 4 ask, 2 landed).
    const group = views[0]?.group;
    assert.ok(group);
    for (const view of views) {
      assert.equal(view.tool, 'write_file');
      // The reason most files give is the group's, said once on the card; the protected file keeps its own.
      assert.deepEqual(view.group, { id: group.id, command, changed: 6, reason: 'Writes a file; writes always ask (toolgate.gatedTools).' });
      assert.equal(view.reasonShared, view === byPath.get('.vscode/tasks.json') ? undefined : true);
    }
    assert.match(byPath.get('.vscode/tasks.json')?.reason ?? '', /protected/);
    assert.equal(byPath.get('.vscode/tasks.json')?.grantable, false);
    // The allowed file and the ignored output are in the workspace while the rest waits.
    assert.equal(readFileSync(path.join(ws, 'allowed', 'x.txt'), 'utf8'), 'X\n');
    assert.equal(readFileSync(path.join(ws, 'build', 'deep', 'out.js'), 'utf8'), 'out\n');

    const a = byPath.get('src/a.txt');
    assert.ok(a && a.preview.kind === 'diff' && a.preview.hunks.length === 2);
    assert.deepEqual(gate.chooseHunk(a, 1, false, 'keep 19'), { ok: true });
    // A file rejected whole: every hunk of it.
    for (const path of ['src/del.txt', '.vscode/tasks.json']) {
      const view = byPath.get(path);
      assert.ok(view?.preview.kind === 'diff' && view.preview.hunks.length > 0);
      view.preview.hunks.forEach((_, index) => assert.deepEqual(gate.chooseHunk(view, index, false, 'not that'), { ok: true }));
    }
    const gone = byPath.get('gone/one.txt');
    assert.ok(gone);
    // Allow once on any member settles the group: each file by its own choices.
    assert.deepEqual(gate.settle(gone, { action: 'allow-once' }), { ok: true });
    assert.equal(gate.waitingCount, 0);
    const { summary, counts } = await done;
    // Counted for the command's chat entry: what landed whole and in part, what the person rejected, what could not land.
    assert.deepEqual(counts, { landed: 2, partly: 1, rejected: 2, notLanded: 1, withoutReview: 1 });

    assert.equal(readFileSync(path.join(ws, 'src', 'a.txt'), 'utf8'), twoHunks.replace('line 2\n', 'LINE TWO\n'), 'only the accepted hunk');
    assert.equal(readFileSync(path.join(ws, 'src', 'del.txt'), 'utf8'), 'keep me\n');
    assert.equal(existsSync(path.join(ws, '.vscode')), false, 'nor the folder made for it');
    assert.equal(existsSync(path.join(ws, 'gone')), false, 'the folder goes with its last file');
    assert.equal(existsSync(path.join(ws, 'made')), false, 'an empty folder no rule allows is not made');
    assert.match(summary, /NOT landed \(an empty folder, which would ask: make it yourself if you want it\): made\/deep\//);
    assert.match(summary, /- landed: allowed\/x\.txt, gone\/one\.txt\n/);
    assert.match(summary, /- landed in part: src\/a\.txt \(1 of 2 hunks; rejected hunk 2: "keep 19"\)\n/);
    // Named to the model and counted in the task (issue 36): nobody saw it, so nobody accepted it.
    assert.match(summary, /- landed without review, unseen by the person \(the folder's repository ignores them\): build\/deep\/out\.js\n/);
    assert.deepEqual(unseen, [{ command, paths: ['build/deep/out.js'] }]);
    assert.match(summary, /NOT landed \(you denied it: "not that"\): \.vscode\/tasks\.json, src\/del\.txt$/m);
    // What the checkpoint gets, for the undo: the texts before and after (a deleted file: after null).
    assert.deepEqual(
      recorded.map((change) => [change.relativePath, change.tool, change.before, change.after]).sort(),
      [
        ['allowed/x.txt', 'run_in_terminal', 'x\n', 'X\n'],
        ['gone/one.txt', 'run_in_terminal', 'one\n', null],
        ['src/a.txt', 'run_in_terminal', twoHunks, twoHunks.replace('line 2\n', 'LINE TWO\n')],
      ],
    );
    await discardStage(stage);
  });

  const binaryCases = [
    { name: 'rejected, it does not land; the text file beside it does', accept: false },
    { name: 'accepted, it lands byte for byte and is said not to be undoable', accept: true },
  ];
  for (const { name, accept } of binaryCases) {
    it(`a binary file in the group is one hunk that stands for its whole change: ${name}`, async () => {
      const { gate } = createMemoryGate({ locate: locateUnder(ws) });
      const command = "printf '\\000\\001\\002' > data.bin && sed -i 's/^line 2$/LINE TWO/' src/a.txt";
      const stage = await run(command);
      const done = landing(gate, []).land(stage, { command, source: 'agent', chatId: 'c', turn }).then((report) => report.summary);
      const views = await waiting(gate, 2);
      const byPath = new Map(views.map((view) => [view.preview.kind === 'diff' ? view.preview.path : '', view]));
      const binary = byPath.get('data.bin');
      assert.ok(binary?.preview.kind === 'diff');
      assert.deepEqual(binary.preview.hunks, [{ header: 'The command creates it whole with 3 bytes that are not text in its encoding.', rows: [] }]);
      assert.deepEqual(binary.hunkChoices, [{ accepted: true, reason: '' }]);
      if (!accept) {
        assert.deepEqual(gate.chooseHunk(binary, 0, false), { ok: true });
      }
      const text = byPath.get('src/a.txt');
      assert.ok(text);
      assert.deepEqual(gate.settle(text, { action: 'allow-once' }), { ok: true });
      const summary = await done;
      assert.equal(readFileSync(path.join(ws, 'src', 'a.txt'), 'utf8'), twoHunks.replace('line 2\n', 'LINE TWO\n'));
      if (accept) {
        assert.deepEqual([...readFileSync(path.join(ws, 'data.bin'))], [0, 1, 2]);
        assert.match(summary, /- landed: data\.bin, src\/a\.txt\n/);
        assert.match(summary, /- cannot be undone \(binary, link or mode changes\): data\.bin/);
      } else {
        assert.equal(existsSync(path.join(ws, 'data.bin')), false);
        assert.match(summary, /- landed: src\/a\.txt\n/);
        assert.match(summary, /- NOT landed \(you denied it: "rejected in the review"\): data\.bin/);
      }
      await discardStage(stage);
    });
  }

  it("changes so far: what the stage holds, sorted, folders left out, files with their staged copy; nothing lands", async () => {
    const stage = await run('echo X > allowed/x.txt && mkdir -p made/deep && echo new > made/deep/n.txt && rm src/del.txt && chmod +x src/a.txt');
    const changes = await changesSoFar(stage, [ws]);
    assert.deepEqual(changes.map((change) => [change.path, change.kind, change.staged !== undefined]), [
      ['allowed/x.txt', 'modified', true],
      ['made/deep/n.txt', 'created', true],
      ['src/a.txt', 'mode', false],
      ['src/del.txt', 'deleted', false],
    ]);
    assert.equal(readFileSync(changes[0]?.staged ?? '', 'utf8'), 'X\n');
    assert.equal(readFileSync(path.join(ws, 'allowed', 'x.txt'), 'utf8'), 'x\n', 'nothing landed');
    assert.equal(existsSync(path.join(ws, 'src', 'del.txt')), true);
    await discardStage(stage);
  });

  it('a file the person changed while the command ran asks even where a rule allows it, and Deny keeps their version', async () => {
    const { gate } = createMemoryGate({ locate: locateUnder(ws), editRules: { 'allowed/**': true } });
    const stage = await run('echo from-the-command > allowed/x.txt');
    // The person's save, after the stage was made.
    writeFileSync(path.join(ws, 'allowed', 'x.txt'), 'mine\n');
    const later = new Date(stage.startedMs + 1_000);
    utimesSync(path.join(ws, 'allowed', 'x.txt'), later, later);
    const done = landing(gate, []).land(stage, { command: 'echo', source: 'agent', chatId: 'c', turn }).then((report) => report.summary);
    const [view] = await waiting(gate, 1);
    assert.ok(view);
    assert.match(view.reason, /changed in the workspace while the command ran/);
    assert.equal(view.grantable, false);
    assert.match(view.warnings.join('\n'), /allowing replaces your version/);
    gate.settle(view, { action: 'deny' });
    assert.match(await done, /NOT landed \(you denied it\): allowed\/x\.txt/);
    assert.equal(readFileSync(path.join(ws, 'allowed', 'x.txt'), 'utf8'), 'mine\n');
    await discardStage(stage);
  });

  it('with toolgate.sandbox.landIgnoredFiles off, ignored output asks too; an executable script keeps its mode when it lands', async () => {
    const { gate } = createMemoryGate({ locate: locateUnder(ws), editRules: { 'allowed/**': true } });
    const stage = await run('mkdir build && echo out > build/out.js && printf "#!/bin/sh\\necho hi\\n" > allowed/run.sh && chmod +x allowed/run.sh');
    const done = landing(gate, [], false).land(stage, { command: 'build', source: 'agent', chatId: 'c', turn }).then((report) => report.summary);
    const [view] = await waiting(gate, 1);
    assert.ok(view?.preview.kind === 'diff' && view.preview.path === 'build/out.js');
    gate.settle(view, { action: 'deny' });
    await done;
    assert.equal(existsSync(path.join(ws, 'build', 'out.js')), false);
    assert.equal(statSync(path.join(ws, 'allowed', 'run.sh')).mode & 0o777, 0o755);
    await discardStage(stage);
  });

  it("a command's files a rule allows are not calls of their own: more of them than the task's cap land without asking", async () => {
    const { gate } = createMemoryGate({ locate: locateUnder(ws), editRules: { 'allowed/**': true } }, undefined, { maxConsecutive: 2 });
    const stage = await run('for n in 1 2 3 4 5; do echo $n > allowed/$n.txt; done; mkdir allowed/empty');
    const summary = await landing(gate, []).land(stage, { command: 'five', source: 'agent', chatId: 'c', turn }).then((report) => report.summary);
    assert.deepEqual(pendingViews(gate), []);
    assert.match(summary, /- landed: allowed\/1\.txt, allowed\/2\.txt, allowed\/3\.txt, allowed\/4\.txt, allowed\/5\.txt$/m);
    assert.equal(statSync(path.join(ws, 'allowed', 'empty')).isDirectory(), true, 'an empty folder a rule allows is made');
    await discardStage(stage);
  });

  it('a folder swapped for a link to elsewhere before the changes land: nothing lands through it, reviewed or ignored', async () => {
    const { gate } = createMemoryGate({ locate: locateUnder(ws), editRules: { '**': true } });
    mkdirSync(path.join(ws, 'build'));
    const outside = path.join(base, 'outside');
    mkdirSync(outside);
    const stage = await run('echo x > src/new.txt && echo y > build/out.js');
    // Between the command and the landing, src and build become links out of the workspace.
    for (const folder of ['src', 'build']) {
      renameSync(path.join(ws, folder), path.join(base, `${folder}-moved`));
      symlinkSync(outside, path.join(ws, folder));
    }
    const summary = await landing(gate, []).land(stage, { command: 'x', source: 'agent', chatId: 'c', turn }).then((report) => report.summary);
    assert.deepEqual(readdirSync(outside), [], 'nothing landed through a link');
    assert.match(summary, /NOT landed \(a folder on its path is now a symbolic link\): build\/out\.js, src\/new\.txt$/);
    assert.doesNotMatch(summary, /- landed/);
    await discardStage(stage);
  });
});
