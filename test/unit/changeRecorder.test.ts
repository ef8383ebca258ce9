import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GitCli } from '../../src/core/checkpoints/gitCli';
import { planUndo, undoPaths } from '../../src/core/checkpoints/undo';
import { readUtf8File } from '../../src/core/files/diskText';
import type { GitPort } from '../../src/core/checkpoints/gitStatus';
import { ChangeRecorder, startTask, type CommandOutcome } from '../../src/core/checkpoints/recorder';
import type { CommandRecord, DropNote, TaskRecord } from '../../src/core/checkpoints/schema';
import { CheckpointStore, type TurnRef } from '../../src/core/checkpoints/store';
import { MemoryStore } from '../fixtures/memoryGate';

/** A git work tree at /w whose status is `before` until the command ran, then `after`. */
function fakeGit(before: string, after: string): GitPort & { ran: () => void } {
  let status = before;
  return {
    ran: () => {
      status = after;
    },
    snapshot: (cwd) => Promise.resolve(cwd.startsWith('/w') ? { root: '/w', head: 'a'.repeat(40), status } : null),
    hashFiles: () => Promise.resolve({}),
  };
}

interface Harness {
  store: CheckpointStore;
  recorder: ChangeRecorder;
  notes: DropNote[];
  warnings: string[];
  task: () => Promise<TaskRecord | undefined>;
}

function harness(options: { git?: GitPort; budgetBytes?: number; store?: Pick<CheckpointStore, 'record'> } = {}): Harness {
  const warnings: string[] = [];
  const notes: DropNote[] = [];
  const store = new CheckpointStore(new MemoryStore(), { warn: (message) => warnings.push(message), ...(options.budgetBytes !== undefined ? { budgetBytes: options.budgetBytes } : {}) });
  const recorder = new ChangeRecorder({
    store: options.store ?? store,
    ...(options.git ? { git: options.git } : {}),
    onNote: (note) => notes.push(note),
    warn: (message) => warnings.push(message),
  });
  const task = async (): Promise<TaskRecord | undefined> => {
    const loaded = await store.load('c', 't');
    return loaded.kind === 'ok' ? loaded.task : undefined;
  };
  return { store, recorder, notes, warnings, task };
}

const turn0: TurnRef = { chatId: 'c', taskId: 't', turn: 0, title: 'a task' };
const ok = (exitCode: number | undefined): Promise<CommandOutcome & { output: string }> => Promise.resolve({ exitCode, output: 'out', notRun: undefined });
const commands = (task: TaskRecord | undefined): CommandRecord[] => (task?.turns ?? []).flatMap((turn) => turn.changes.filter((change): change is CommandRecord => change.kind === 'command'));

describe('recording what the agent changed', () => {
  it('records a write with its texts, and nothing for a write that changed nothing or has no task', async () => {
    const { recorder, task } = harness();
    await recorder.fileWritten(turn0, { path: '/w/a.ts', relativePath: 'a.ts', tool: 'edit_file', before: 'a\n', after: 'b\n' });
    await recorder.fileWritten(turn0, { path: '/w/same.ts', tool: 'write_file', before: 'x\n', after: 'x\n' });
    await recorder.fileWritten(undefined, { path: '/w/api.ts', tool: 'write_file', before: null, after: 'x\n' });
    await recorder.fileWritten({ ...turn0, turn: 1 }, { path: '/w/new.ts', tool: 'write_file', before: null, after: 'new\n' });
    const recorded = await task();
    assert.deepEqual(
      recorded?.turns.map((turn) => turn.changes.map((change) => (change.kind === 'file' ? [turn.turn, change.path, change.relativePath, change.before, change.after] : []))),
      [[[0, '/w/a.ts', 'a.ts', 'a\n', 'b\n']], [[1, '/w/new.ts', undefined, null, 'new\n']]],
    );
    assert.equal(recorded.title, 'a task');
  });

  const commandRows: {
    name: string;
    git?: () => GitPort & { ran?: () => void };
    cwd?: string;
    run: (git: { ran?: () => void } | undefined) => Promise<CommandOutcome>;
    /** The recorded command's git effect kind and touched paths; undefined: nothing recorded. */
    recorded?: { exitCode?: number | null; git: string; touched?: string[] };
    throws?: RegExp;
  }[] = [
    {
      name: 'in a git work tree: the files it touched',
      git: () => fakeGit(' M a.ts\0', ' M a.ts\0?? out.log\0'),
      run: (git) => {
        git?.ran?.();
        return ok(0);
      },
      recorded: { exitCode: 0, git: 'observed', touched: ['out.log'] },
    },
    { name: 'outside a work tree', git: () => fakeGit('', ''), cwd: '/elsewhere', run: () => ok(2), recorded: { exitCode: 2, git: 'not-a-repository' } },
    { name: 'without a git port', run: () => ok(0), recorded: { exitCode: 0, git: 'unavailable' } },
    { name: 'ended by a signal: no exit code', run: () => ok(undefined), recorded: { git: 'unavailable' } },
    {
      name: 'while git fails: the effect is unavailable, the command still runs and is recorded',
      git: () => ({ snapshot: () => Promise.reject(new Error('git exploded')), hashFiles: () => Promise.resolve({}) }),
      run: () => ok(0),
      recorded: { exitCode: 0, git: 'unavailable' },
    },
    { name: 'that never started is not recorded', run: () => Promise.resolve({ exitCode: undefined, notRun: 'no bash' }) },
    { name: 'whose runner throws: recorded (it may have run), the error passes through', run: () => Promise.reject(new Error('terminal gone')), recorded: { git: 'unavailable' }, throws: /terminal gone/ },
  ];
  for (const row of commandRows) {
    it(`a terminal command ${row.name}`, async () => {
      const git = row.git?.();
      const { recorder, task, warnings } = harness(git ? { git } : {});
      const running = recorder.commandRan(turn0, { command: 'npm test', cwd: row.cwd ?? '/w' }, () => row.run(git));
      if (row.throws) {
        await assert.rejects(running, row.throws);
      } else {
        // The result passes through, with what git saw beside it (for the model's report) when it ran.
        const { observed, ...passed } = await running;
        assert.deepEqual(passed, await row.run(undefined));
        assert.equal(observed?.kind, row.recorded?.git);
      }
      const recorded = commands(await task());
      if (!row.recorded) {
        assert.deepEqual(recorded, []);
        return;
      }
      assert.equal(recorded.length, 1);
      const [command] = recorded;
      assert.equal(command?.command, 'npm test');
      assert.equal(command.exitCode, row.recorded.exitCode);
      assert.equal(command.git?.kind, row.recorded.git);
      if (row.recorded.touched) {
        assert.deepEqual(command.git.kind === 'observed' ? command.git.touched.map((file) => file.path) : [], row.recorded.touched);
      }
      assert.deepEqual(warnings, []);
    });
  }

  // Issue 36: files a staged command landed without review were in no record, so the task's changes left them out.
  it('keeps what landed without review, grouped, read back and said by the undo (which cannot revert it)', async () => {
    const { recorder, task } = harness();
    const paths = ['a.txt', ...Array.from({ length: 1204 }, (_, index) => `node_modules/p${index}/index.js`), 'dist/x.js', 'dist/y.js'];
    await recorder.landedUnreviewed(turn0, { command: 'npm i', paths });
    await recorder.landedUnreviewed(turn0, { command: 'true', paths: [] });
    await recorder.landedUnreviewed(undefined, { command: 'npm i', paths });
    const recorded = await task();
    assert.deepEqual(recorded?.turns[0]?.changes, [{ kind: 'unreviewed', command: 'npm i', at: recorded?.turns[0]?.changes[0]?.at, groups: [{ path: 'a.txt', files: 1 }, { path: 'dist/', files: 2 }, { path: 'node_modules/', files: 1204 }] }]);
    const plan = planUndo(recorded.turns, new Map());
    assert.deepEqual(plan.unreviewed.map((note) => note.message), [
      'a.txt: a git-ignored output of `npm i`, landed without review, not kept for undo',
      'dist/ (2 files): git-ignored outputs of `npm i`, landed without review, not kept for undo',
      'node_modules/ (1,204 files): git-ignored outputs of `npm i`, landed without review, not kept for undo',
    ]);
    assert.deepEqual(plan.notes, []);
  });

  it('a command without a task runs without git or a record', async () => {
    let looked = 0;
    const git: GitPort = { snapshot: () => ((looked += 1), Promise.resolve(null)), hashFiles: () => Promise.resolve({}) };
    const { recorder, task } = harness({ git });
    assert.equal((await recorder.commandRan(undefined, { command: 'ls', cwd: '/w' }, () => ok(0))).exitCode, 0);
    assert.equal(looked, 0);
    assert.equal(await task(), undefined);
  });

  it('a failure to record only warns: the tool call goes on', async () => {
    const failing = { record: () => Promise.reject(new Error('disk full')) };
    const { recorder, warnings } = harness({ store: failing });
    await recorder.fileWritten(turn0, { path: '/w/a.ts', tool: 'edit_file', before: 'a', after: 'b' });
    assert.equal((await recorder.commandRan(turn0, { command: 'make', cwd: '/w' }, () => ok(0))).exitCode, 0);
    assert.deepEqual(warnings, [
      'checkpoints: could not record /w/a.ts: disk full; it cannot be undone',
      'checkpoints: could not record `make`: disk full; it cannot be undone',
    ]);
  });

  it('input the store refuses (an overlong id) only warns', async () => {
    const { recorder, warnings } = harness();
    await recorder.fileWritten({ ...turn0, taskId: 'x'.repeat(300) }, { path: '/w/a.ts', tool: 'edit_file', before: 'a', after: 'b' });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /^checkpoints: could not record \/w\/a\.ts: checkpoints: taskId/);
  });

  it('passes on what was dropped to stay within the budget, once each', async () => {
    const { recorder, notes, store } = harness({ budgetBytes: 2_000 });
    await recorder.fileWritten(turn0, { path: '/w/small', tool: 'write_file', before: null, after: 'small\n' });
    await recorder.fileWritten({ ...turn0, taskId: 't2' }, { path: '/w/other', tool: 'write_file', before: null, after: 'x'.repeat(1_500) });
    await recorder.fileWritten({ ...turn0, taskId: 't3' }, { path: '/w/huge', tool: 'write_file', before: null, after: 'y'.repeat(5_000) });
    await recorder.fileWritten({ ...turn0, taskId: 't3' }, { path: '/w/later', tool: 'write_file', before: null, after: 'z\n' });
    assert.deepEqual(notes, store.notes());
    assert.deepEqual(
      notes.filter((note) => note.taskId !== 't2').map((note) => [note.kind, note.taskId]),
      [
        ['task-dropped', 't'],
        ['turn-not-recorded', 't3'],
        ['turn-not-recorded', 't3'],
      ],
    );
  });

  it('a new task has a fresh id and the prompt, on one line and shortened, as its title', () => {
    const first = startTask('c', '  fix\n the   tests ');
    const second = startTask('c', 'x'.repeat(500));
    assert.equal(first.title, 'fix the tests');
    assert.equal(second.title?.length, 200);
    assert.ok(second.title.endsWith('…'));
    assert.notEqual(first.taskId, second.taskId);
    assert.equal(first.chatId, 'c');
  });
});

describe('a command that ran unstaged, in a real git repository: what git can tell the before of is undone like an edit', () => {
  let repo: string;
  const git = (...args: string[]): void => {
    execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=t', ...args], { cwd: repo, stdio: 'ignore' });
  };
  const at = (name: string): string => path.join(repo, name);
  const read = (name: string): string | null => (existsSync(at(name)) ? readFileSync(at(name), 'utf8') : null);

  beforeEach(() => {
    repo = mkdtempSync(path.join(tmpdir(), 'toolgate-recover-'));
    git('init', '-q');
    writeFileSync(at('clean.txt'), 'one\ntwo\n');
    writeFileSync(at('gone.txt'), 'keep me\n');
    writeFileSync(at('dirty.txt'), 'committed\n');
    writeFileSync(at('.gitignore'), 'build/\n');
    git('add', '.');
    git('commit', '-q', '-m', 'base');
    writeFileSync(at('dirty.txt'), 'the person was editing this\n');
  });
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  it('records the files clean or absent before it; a file already changed before it, or ignored, is not; the undo reverts the recorded ones and lists the rest', async () => {
    const store = new CheckpointStore(new MemoryStore(), { warn: () => undefined });
    const recorder = new ChangeRecorder({ store, git: new GitCli(), readText: readUtf8File, onNote: () => undefined, warn: () => undefined });
    await recorder.commandRan(turn0, { command: 'npm run format', cwd: repo }, () => {
      writeFileSync(at('clean.txt'), 'one\nTWO\n');
      rmSync(at('gone.txt'));
      writeFileSync(at('made.txt'), 'new\n');
      writeFileSync(at('dirty.txt'), 'formatted over the person\n');
      mkdirSync(at('build'));
      writeFileSync(at('build/out.js'), 'ignored\n');
      return ok(0);
    });
    const loaded = await store.load('c', 't');
    assert.ok(loaded.kind === 'ok', 'the task was recorded');
    const task = loaded.task;
    const [command] = commands(task);
    assert.deepEqual(command?.recovered, ['clean.txt', 'gone.txt', 'made.txt']);
    const files = task.turns.flatMap((turn) => turn.changes.filter((change) => change.kind === 'file'));
    assert.deepEqual(
      files.map((file) => [file.relativePath, file.tool, file.before, file.after]),
      [
        ['clean.txt', 'run_in_terminal', 'one\ntwo\n', 'one\nTWO\n'],
        ['gone.txt', 'run_in_terminal', 'keep me\n', null],
        ['made.txt', 'run_in_terminal', null, 'new\n'],
      ],
    );
    const turns = task.turns;
    const plan = planUndo(turns, new Map(undoPaths(turns).map((file) => [file, existsSync(file) ? readFileSync(file, 'utf8') : null])));
    assert.deepEqual(plan.files.map((file) => [file.relativePath, file.kind]), [['clean.txt', 'revert'], ['gone.txt', 'restore'], ['made.txt', 'delete']]);
    assert.equal(plan.commands.length, 1);
    assert.match(plan.commands[0]?.message ?? '', /`npm run format` \(turn 1, in .*\): 3 files it changed are reverted like edits, the rest cannot be undone; not undone: dirty\.txt \(modified, changed further\)/);
    assert.equal(read('dirty.txt'), 'formatted over the person\n');
  });

  it('a command whose every touched file was recovered leaves no "cannot be undone" note', async () => {
    const store = new CheckpointStore(new MemoryStore(), { warn: () => undefined });
    const recorder = new ChangeRecorder({ store, git: new GitCli(), readText: readUtf8File, onNote: () => undefined, warn: () => undefined });
    await recorder.commandRan(turn0, { command: 'sed -i s/two/2/ clean.txt', cwd: repo }, () => {
      writeFileSync(at('clean.txt'), 'one\n2\n');
      return ok(0);
    });
    const loaded = await store.load('c', 't');
    const turns = loaded.kind === 'ok' ? loaded.task.turns : [];
    const plan = planUndo(turns, new Map(undoPaths(turns).map((file) => [file, readFileSync(file, 'utf8')])));
    assert.deepEqual(plan.commands, []);
    assert.deepEqual(plan.files.map((file) => file.kind === 'revert' || file.kind === 'merge' ? file.content : file.kind), ['one\ntwo\n']);
  });
});
