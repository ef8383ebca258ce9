import * as assert from 'node:assert/strict';
import { sha256 } from '../../src/core/approval/hash';
import type { FileContent, TaskRecord, TurnRecord } from '../../src/core/checkpoints/schema';
import { CheckpointStore } from '../../src/core/checkpoints/store';
import { MemoryStore } from '../fixtures/memoryGate';
import { planTaskUndo, planTurnUndo, planUndo, undoPaths, type FileUndo, type FileUndoKind } from '../../src/core/checkpoints/undo';

const lf = (...items: string[]): string => items.map((item) => `${item}\n`).join('');
/** Twelve lines a..l, with some replaced: `file({ 1: 'B' })` changes the second line. */
const file = (changes: Record<number, string | null> = {}, eol = '\n'): string =>
  Array.from('abcdefghijkl')
    .flatMap((line, i) => {
      const changed = changes[i];
      return changed === null ? [] : [`${changed ?? line}${eol}`];
    })
    .join('');

type Change = [path: string, before: FileContent, after: FileContent];

function turn(number: number, ...changes: Change[]): TurnRecord {
  return {
    turn: number,
    startedAt: `t${number}`,
    changes: changes.map(([path, before, after]) => ({
      kind: 'file',
      path,
      tool: before === null ? 'write_file' : 'edit_file',
      at: `t${number}`,
      before,
      after,
      beforeHash: before === null ? null : sha256(before),
      afterHash: after === null ? null : sha256(after),
    })),
  };
}

function task(...turns: TurnRecord[]): TaskRecord {
  return { chatId: 'c', taskId: 't', startedAt: 't0', turns, droppedTurns: [] };
}

const O = file();
const A = file({ 1: 'B (agent)' });
const A2 = file({ 1: 'B (agent)', 8: 'I (agent, turn 2)' });

describe('undo plans', () => {
  const rows: {
    name: string;
    turns: TurnRecord[];
    current: Record<string, FileContent>;
    /** Undo one turn (default: the whole task). */
    only?: number;
    expect: Record<string, { kind: FileUndoKind; content?: string; remainingSteps?: number }>;
  }[] = [
    { name: 'unchanged since: a simple revert', turns: [turn(0, ['a', O, A])], current: { a: A }, expect: { a: { kind: 'revert', content: O } } },
    {
      name: 'the person edited another part of the file afterwards: it survives',
      turns: [turn(0, ['a', O, A])],
      current: { a: file({ 1: 'B (agent)', 10: 'K (person)' }) },
      expect: { a: { kind: 'merge', content: file({ 10: 'K (person)' }) } },
    },
    {
      name: 'the person edited the same lines: a conflict, nothing written',
      turns: [turn(0, ['a', O, A])],
      current: { a: file({ 1: 'B (person)' }) },
      expect: { a: { kind: 'conflict', remainingSteps: 0 } },
    },
    { name: 'created by the agent, unchanged since: deleted', turns: [turn(0, ['n', null, lf('new')])], current: { n: lf('new') }, expect: { n: { kind: 'delete' } } },
    {
      name: 'created by the agent, then edited by the person: needs confirmation',
      turns: [turn(0, ['n', null, lf('new')])],
      current: { n: lf('new', 'mine') },
      expect: { n: { kind: 'confirm-delete', remainingSteps: 0 } },
    },
    { name: 'created by the agent, deleted since: nothing to do', turns: [turn(0, ['n', null, lf('new')])], current: { n: null }, expect: { n: { kind: 'already-reverted' } } },
    { name: 'edited by the agent, deleted since: nothing written', turns: [turn(0, ['a', O, A])], current: { a: null }, expect: { a: { kind: 'deleted-since', remainingSteps: 0 } } },
    { name: 'reverted by hand already', turns: [turn(0, ['a', O, A])], current: { a: O }, expect: { a: { kind: 'already-reverted' } } },
    { name: 'removed by the agent, still missing: restored', turns: [turn(0, ['a', O, null])], current: { a: null }, expect: { a: { kind: 'restore', content: O } } },
    {
      name: 'two turns on the same file, undone as a task: back to the start',
      turns: [turn(0, ['a', O, A]), turn(1, ['a', A, A2])],
      current: { a: A2 },
      expect: { a: { kind: 'revert', content: O } },
    },
    {
      name: 'two turns on the same file, then a hand edit: the hand edit survives the task undo',
      turns: [turn(0, ['a', O, A]), turn(1, ['a', A, A2])],
      current: { a: file({ 1: 'B (agent)', 5: 'F (person)', 8: 'I (agent, turn 2)' }) },
      expect: { a: { kind: 'merge', content: file({ 5: 'F (person)' }) } },
    },
    {
      name: 'a hand edit between the two turns survives too',
      turns: [turn(0, ['a', O, A]), turn(1, ['a', file({ 1: 'B (agent)', 11: 'L (person)' }), file({ 1: 'B (agent)', 8: 'I (agent, turn 2)', 11: 'L (person)' })])],
      current: { a: file({ 1: 'B (agent)', 8: 'I (agent, turn 2)', 11: 'L (person)' }) },
      expect: { a: { kind: 'merge', content: file({ 11: 'L (person)' }) } },
    },
    {
      name: 'undoing the first turn only keeps the second turn\'s change elsewhere in the file',
      turns: [turn(0, ['a', O, A]), turn(1, ['a', A, A2])],
      only: 0,
      current: { a: A2 },
      expect: { a: { kind: 'merge', content: file({ 8: 'I (agent, turn 2)' }) } },
    },
    {
      name: 'undoing the second turn only goes back to the first turn\'s result',
      turns: [turn(0, ['a', O, A]), turn(1, ['a', A, A2])],
      only: 1,
      current: { a: A2 },
      expect: { a: { kind: 'revert', content: A } },
    },
    {
      name: 'a conflict in the newest change leaves the older one for later',
      turns: [turn(0, ['a', O, A]), turn(1, ['a', file({ 1: 'B (agent)', 11: 'L (person)' }), file({ 1: 'B (agent)', 8: 'I (agent)', 11: 'L (person)' })])],
      current: { a: file({ 1: 'B (agent)', 8: 'I (person now)', 11: 'L (person)' }) },
      expect: { a: { kind: 'conflict', remainingSteps: 1 } },
    },
    {
      name: 'back-to-back turns are merged as one change: one conflict to resolve covers both turns',
      turns: [turn(0, ['a', O, A]), turn(1, ['a', A, A2])],
      current: { a: file({ 1: 'B (agent)', 8: 'I (person)' }) },
      expect: { a: { kind: 'conflict', remainingSteps: 0 } },
    },
    {
      name: 'created by the agent in turn 1, edited by it in turn 2: deleted if unchanged since',
      turns: [turn(0, ['n', null, lf('v1')]), turn(1, ['n', lf('v1'), lf('v2')])],
      current: { n: lf('v2') },
      expect: { n: { kind: 'delete' } },
    },
    {
      name: 'unicode lines',
      turns: [turn(0, ['u', lf('héllo', 'wörld', '日本', 'x', 'y', 'z', '🙂'), lf('héllo', 'WÖRLD', '日本', 'x', 'y', 'z', '🙂')])],
      current: { u: lf('héllo', 'WÖRLD', '日本', 'x', 'y', 'z', '🙃') },
      expect: { u: { kind: 'merge', content: lf('héllo', 'wörld', '日本', 'x', 'y', 'z', '🙃') } },
    },
    {
      name: 'CRLF and a missing final newline are kept',
      turns: [turn(0, ['w', `${file({}, '\r\n')}end`, `${file({ 1: 'B' }, '\r\n')}end`])],
      current: { w: `${file({ 1: 'B', 9: 'J' }, '\r\n')}end` },
      expect: { w: { kind: 'merge', content: `${file({ 9: 'J' }, '\r\n')}end` } },
    },
    {
      name: 'several files at once',
      turns: [turn(0, ['a', O, A], ['n', null, lf('new')]), turn(1, ['b', lf('b'), lf('B')])],
      current: { a: A, n: lf('new'), b: lf('B') },
      expect: { a: { kind: 'revert', content: O }, n: { kind: 'delete' }, b: { kind: 'revert', content: lf('b') } },
    },
  ];

  for (const row of rows) {
    it(row.name, () => {
      const record = task(...row.turns);
      const current = new Map(Object.entries(row.current));
      const plan = row.only === undefined ? planTaskUndo(record, current) : planTurnUndo(record, row.only, current);
      const got: Record<string, { kind: FileUndoKind; content?: string; remainingSteps?: number }> = {};
      for (const undo of plan.files) {
        got[undo.path] = {
          kind: undo.kind,
          ...('content' in undo ? { content: undo.content } : {}),
          ...('remainingSteps' in undo ? { remainingSteps: undo.remainingSteps } : {}),
        };
        // Every result is bound to the content it was planned against.
        const now = current.get(undo.path) ?? null;
        assert.deepEqual(undo.current, { exists: now !== null, hash: sha256(now ?? '') });
      }
      assert.deepEqual(got, row.expect);
      const kinds = plan.files.map((undo) => undo.kind);
      assert.equal(plan.needsAttention, kinds.some((kind) => kind === 'conflict' || kind === 'confirm-delete' || kind === 'deleted-since'));
    });
  }

  it('a conflict carries the three versions and a merged text with conflict regions', () => {
    const current = file({ 1: 'B (person)', 10: 'K (person)' });
    const plan = planUndo([turn(0, ['a', O, A])], new Map([['a', current]]));
    const undo = plan.files[0];
    assert.ok(undo?.kind === 'conflict');
    assert.equal(undo.base, A);
    assert.equal(undo.ours, current);
    assert.equal(undo.theirs, O);
    assert.equal(undo.conflicts.length, 1);
    assert.equal(
      undo.merged,
      file({
        1: ["<<<<<<< current (your edits)", 'B (person)', "||||||| the agent's result", 'B (agent)', '=======', 'b', ">>>>>>> before the agent's change"].join('\n'),
        10: 'K (person)',
      }),
    );
    assert.equal(plan.writes, false);
    assert.match(plan.text, /^a: 1 place where the agent's change and later edits overlap; nothing was written, merge by hand$/);
  });

  it('lists the commands that ran, newest first, with the files git saw them touch', () => {
    const record = task(
      {
        turn: 0,
        startedAt: 't0',
        changes: [{ kind: 'command', command: 'npm install', cwd: '/w', at: 't0', exitCode: 0, git: { kind: 'observed', root: '/w', headBefore: 'a'.repeat(40), headAfter: 'a'.repeat(40), touched: [{ path: 'package-lock.json', before: 'clean', after: ' M' }], more: 0 } }],
      },
      {
        turn: 1,
        startedAt: 't1',
        changes: [
          { kind: 'command', command: 'git commit -am wip', cwd: '/w', at: 't1', exitCode: 0, git: { kind: 'observed', root: '/w', headBefore: 'a'.repeat(40), headAfter: 'b'.repeat(40), touched: [{ path: 'src/x.ts', before: ' M', after: 'clean' }], more: 3 } },
          { kind: 'command', command: 'ls', cwd: '/tmp', at: 't1', git: { kind: 'not-a-repository' } },
        ],
      },
    );
    const plan = planTaskUndo(record, new Map());
    assert.deepEqual(plan.files, []);
    assert.deepEqual(
      plan.commands.map((command) => command.message),
      [
        '`ls` (turn 2, in /tmp) cannot be undone; what it changed is unknown (not in a git repository)',
        '`git commit -am wip` (turn 2, in /w) cannot be undone; it moved HEAD from aaaaaaaaaaaa to bbbbbbbbbbbb; git saw it touch: src/x.ts (modified -> clean) and 3 more',
        '`npm install` (turn 1, in /w) cannot be undone; git saw it touch: package-lock.json (clean -> modified)',
      ],
    );
  });

  it('names the files whose content it needs, and refuses to plan without one', () => {
    const turns = [turn(0, ['a', O, A], ['b', null, lf('b')]), turn(1, ['a', A, A2])];
    assert.deepEqual(undoPaths(turns), ['a', 'b']);
    assert.throws(() => planUndo(turns, new Map([['a', A2]])), /current content of b was not given/);
  });

  it('a task undo skips turns already undone and says which turns were dropped', () => {
    const record = task(turn(0, ['a', O, A]), { ...turn(1, ['b', lf('b'), lf('B')]), undoneAt: 'earlier' });
    record.droppedTurns = [2];
    const plan = planTaskUndo(record, new Map<string, FileContent>([['a', A], ['b', lf('b')]]));
    assert.deepEqual(plan.files.map((undo: FileUndo) => [undo.path, undo.kind]), [['a', 'revert']]);
    assert.deepEqual(plan.notes, [
      'Turn 2 was already undone and is not undone again.',
      'Turn 3 can no longer be undone: its checkpoint was dropped to stay within the checkpoint budget.',
    ]);
    const dropped = planTurnUndo(record, 2, new Map());
    assert.deepEqual(dropped.files, []);
    assert.match(dropped.text, /Turn 3 can no longer be undone/);
  });
});

describe('undo through the store: a two-turn task, a hand edit afterwards, undo the task', () => {

  it('reverts the agent\'s edits and keeps the hand edit, after a reload', async () => {
    const storage = new MemoryStore();
    const store = new CheckpointStore(storage, { warn: (message) => assert.fail(message) });
    const big = Array.from({ length: 3000 }, (_, i) => `const value${i} = ${i}; // ünïcode ${i % 7}\n`).join('');
    const turn1 = big.replace('const value10 = 10;', 'const value10 = 11;');
    const turn2 = turn1.replace('const value2500 = 2500;', 'const value2500 = 0;');
    await store.record({ chatId: 'c', taskId: 't', turn: 0 }, { kind: 'file', path: '/w/a.ts', tool: 'edit_file', before: big, after: turn1 });
    await store.record({ chatId: 'c', taskId: 't', turn: 0 }, { kind: 'file', path: '/w/new.md', tool: 'write_file', before: null, after: lf('notes') });
    await store.record({ chatId: 'c', taskId: 't', turn: 1 }, { kind: 'file', path: '/w/a.ts', tool: 'edit_file', before: turn1, after: turn2 });
    const handEdited = turn2.replace('const value1500 = 1500;', 'const value1500 = 42; // mine');

    const reloaded = new CheckpointStore(storage, { warn: (message) => assert.fail(message) });
    const loaded = await reloaded.load('c', 't');
    assert.ok(loaded.kind === 'ok');
    const current = new Map<string, FileContent>([['/w/a.ts', handEdited], ['/w/new.md', lf('notes')]]);
    assert.deepEqual(undoPaths(loaded.task.turns), [...current.keys()]);
    const plan = planTaskUndo(loaded.task, current);
    const a = plan.files.find((undo) => undo.path === '/w/a.ts');
    assert.ok(a?.kind === 'merge');
    assert.equal(a.content, big.replace('const value1500 = 1500;', 'const value1500 = 42; // mine'));
    assert.deepEqual(plan.files.find((undo) => undo.path === '/w/new.md')?.kind, 'delete');
    assert.equal(plan.writes, true);
    assert.equal(plan.needsAttention, false);
    await reloaded.markUndone('c', 't', loaded.task.turns.map((record) => record.turn));
    const again = await reloaded.load('c', 't');
    assert.ok(again.kind === 'ok');
    assert.deepEqual(planTaskUndo(again.task, current).files, []);
  });
});
