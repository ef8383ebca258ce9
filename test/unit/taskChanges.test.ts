import * as assert from 'node:assert/strict';
import type { CommandRecord, FileChangeRecord, TaskRecord, TurnRecord, UnreviewedRecord } from '../../src/core/checkpoints/schema';
import { CheckpointStore } from '../../src/core/checkpoints/store';
import { latestTaskChanges, taskChanges, turnFileChange } from '../../src/core/checkpoints/taskChanges';
import { MemoryStore } from '../fixtures/memoryGate';

const file = (path: string, before: string | null, after: string | null): FileChangeRecord => ({
  kind: 'file', path: `/ws/${path}`, relativePath: path, tool: 'write_file', at: '2026-11-26T00:00:00.000Z', before, after, beforeHash: null, afterHash: null,
});
const command: CommandRecord = { kind: 'command', command: 'npm test', cwd: '/ws', at: '2026-11-26T00:00:00.000Z' };
const unseen = (groups: UnreviewedRecord['groups'], more?: number): UnreviewedRecord => ({ kind: 'unreviewed', command: 'npm i', at: '2026-11-26T00:00:00.000Z', groups, ...(more !== undefined ? { more } : {}) });
const turn = (n: number, changes: TurnRecord['changes'], undone = false): TurnRecord => ({
  turn: n, startedAt: '2026-11-26T00:00:00.000Z', changes, ...(undone ? { undoneAt: '2026-11-26T00:01:00.000Z' } : {}),
});
const task = (...turns: TurnRecord[]): TaskRecord => ({ chatId: 'c', taskId: 't', startedAt: '2026-11-26T00:00:00.000Z', turns, droppedTurns: [] });

describe('taskChanges: what a task changed, file by file', () => {
  const cases: { name: string; task: TaskRecord; want: { shown: string; kind: string; added: number; removed: number; before: string | null; after: string | null }[]; commands?: number; unreviewed?: { path: string; files: number }[]; more?: number }[] = [
    {
      name: 'a created file: every line added, nothing before',
      task: task(turn(0, [file('new.txt', null, 'a\nb\n')])),
      want: [{ shown: 'new.txt', kind: 'created', added: 2, removed: 0, before: null, after: 'a\nb\n' }],
    },
    {
      name: 'two turns on one file: from before the first to after the last',
      task: task(turn(0, [file('a.ts', 'one\ntwo\n', 'one\n2\n')]), turn(1, [file('a.ts', 'one\n2\n', 'one\n2\nthree\n')])),
      want: [{ shown: 'a.ts', kind: 'modified', added: 2, removed: 1, before: 'one\ntwo\n', after: 'one\n2\nthree\n' }],
    },
    {
      name: 'a file changed and put back is not listed; a removed one is',
      task: task(turn(0, [file('same.ts', 'x\n', 'y\n'), file('gone.ts', 'g\n', null)]), turn(1, [file('same.ts', 'y\n', 'x\n')])),
      want: [{ shown: 'gone.ts', kind: 'deleted', added: 0, removed: 1, before: 'g\n', after: null }],
    },
    {
      name: 'an undone turn counts for nothing; commands are counted, in the order the files came',
      task: task(turn(0, [file('b.ts', 'b\n', 'B\n'), command]), turn(1, [file('a.ts', 'a\n', 'A\n')], true), turn(2, [command, file('c.ts', null, 'c\n')])),
      want: [
        { shown: 'b.ts', kind: 'modified', added: 1, removed: 1, before: 'b\n', after: 'B\n' },
        { shown: 'c.ts', kind: 'created', added: 1, removed: 0, before: null, after: 'c\n' },
      ],
      commands: 2,
    },
    { name: 'no turn: nothing', task: task(), want: [] },
    {
      // Issue 36: what landed without review was missing from the task's changed files.
      name: 'what commands landed without review is counted, merged by path, also of an undone turn (the undo cannot revert it)',
      task: task(
        turn(0, [command, unseen([{ path: 'a.txt', files: 1 }, { path: 'node_modules/', files: 1200 }])]),
        turn(1, [command, unseen([{ path: 'node_modules/', files: 1204 }, { path: 'dist/', files: 3 }], 7)], true),
      ),
      want: [],
      commands: 1,
      unreviewed: [{ path: 'a.txt', files: 1 }, { path: 'dist/', files: 3 }, { path: 'node_modules/', files: 1204 }],
      more: 7,
    },
  ];
  for (const { name, task: input, want, commands, unreviewed, more } of cases) {
    it(name, () => {
      const changes = taskChanges(input);
      assert.deepEqual(
        changes.files.map(({ shown, kind, added, removed, before, after }) => ({ shown, kind, added, removed, before, after })),
        want,
      );
      assert.equal(changes.commands, commands ?? 0);
      assert.deepEqual(changes.unreviewed, unreviewed ?? []);
      assert.equal(changes.unreviewedMore, more ?? 0);
      for (const changed of changes.files) {
        assert.equal(changed.path, `/ws/${changed.shown}`, 'the checkpoints\' key, not the shown path');
      }
    });
  }
});

describe('turnFileChange: what one turn changed in a file, as the call named it', () => {
  const twoTurns = task(
    turn(0, [file('a.txt', 'a\n', 'A\n'), file('a.txt', 'A\n', 'AA\n'), file('sub/a.txt', 's\n', 'S\n')]),
    turn(1, [file('a.txt', 'AA\n', 'AAA\n')]),
  );
  const rows: { name: string; turn: number; file: string; want?: { before: string | null; after: string | null; shown: string } }[] = [
    { name: 'two changes in the turn: before the first, after the last', turn: 0, file: 'a.txt', want: { before: 'a\n', after: 'AA\n', shown: 'a.txt' } },
    { name: './ and an absolute path name the same file', turn: 0, file: './sub/a.txt', want: { before: 's\n', after: 'S\n', shown: 'sub/a.txt' } },
    { name: 'absolute', turn: 1, file: '/ws/a.txt', want: { before: 'AA\n', after: 'AAA\n', shown: 'a.txt' } },
    { name: 'not a file of the same name elsewhere', turn: 1, file: 'sub/a.txt' },
    { name: 'no such turn', turn: 5, file: 'a.txt' },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(turnFileChange(twoTurns, row.turn, row.file), row.want);
    });
  }
});

// Issue 36: "Show the Task's Changes" said nothing changed while the transcript listed two files: it read the chat's
// newest task with checkpoints, which had only run a command.
describe("latestTaskChanges: the task Show the Task's Changes lists", () => {
  const at = { chatId: 'c', title: 'x' };
  const cases: { name: string; record: (store: CheckpointStore) => Promise<void>; want: string | undefined }[] = [
    { name: 'nothing recorded: none', record: () => Promise.resolve(), want: undefined },
    {
      name: 'a later task that only ran a command does not hide the one that changed files',
      record: async (store) => {
        await store.record({ ...at, taskId: 't1', turn: 0 }, { kind: 'file', path: '/ws/a.txt', relativePath: 'a.txt', tool: 'write_file', before: null, after: 'a\n' });
        await store.record({ ...at, taskId: 't2', turn: 0 }, { kind: 'command', command: 'ls', cwd: '/ws' });
      },
      want: 't1',
    },
    {
      name: 'a task whose files all landed without review is listed',
      record: async (store) => {
        await store.record({ ...at, taskId: 't1', turn: 0 }, { kind: 'file', path: '/ws/a.txt', relativePath: 'a.txt', tool: 'write_file', before: null, after: 'a\n' });
        await store.record({ ...at, taskId: 't2', turn: 0 }, { kind: 'unreviewed', command: 'npm i', groups: [{ path: 'node_modules/', files: 1204 }] });
      },
      want: 't2',
    },
    {
      name: 'another chat\'s task is not',
      record: async (store) => {
        await store.record({ chatId: 'other', taskId: 't9', turn: 0 }, { kind: 'file', path: '/ws/a.txt', tool: 'write_file', before: null, after: 'a\n' });
      },
      want: undefined,
    },
  ];
  for (const { name, record, want } of cases) {
    it(name, async () => {
      const store = new CheckpointStore(new MemoryStore(), { warn: () => undefined });
      await record(store);
      assert.equal((await latestTaskChanges(store, 'c'))?.task.taskId, want);
    });
  }
});
