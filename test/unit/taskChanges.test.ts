import * as assert from 'node:assert/strict';
import type { CommandRecord, FileChangeRecord, TaskRecord, TurnRecord } from '../../src/core/checkpoints/schema';
import { taskChanges } from '../../src/core/checkpoints/taskChanges';

const file = (path: string, before: string | null, after: string | null): FileChangeRecord => ({
  kind: 'file', path: `/ws/${path}`, relativePath: path, tool: 'write_file', at: '2026-11-26T00:00:00.000Z', before, after, beforeHash: null, afterHash: null,
});
const command: CommandRecord = { kind: 'command', command: 'npm test', cwd: '/ws', at: '2026-11-26T00:00:00.000Z' };
const turn = (n: number, changes: TurnRecord['changes'], undone = false): TurnRecord => ({
  turn: n, startedAt: '2026-11-26T00:00:00.000Z', changes, ...(undone ? { undoneAt: '2026-11-26T00:01:00.000Z' } : {}),
});
const task = (...turns: TurnRecord[]): TaskRecord => ({ chatId: 'c', taskId: 't', startedAt: '2026-11-26T00:00:00.000Z', turns, droppedTurns: [] });

describe('taskChanges: what a task changed, file by file', () => {
  const cases: { name: string; task: TaskRecord; want: { shown: string; kind: string; added: number; removed: number; before: string | null; after: string | null }[]; commands?: number }[] = [
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
  ];
  for (const { name, task: input, want, commands } of cases) {
    it(name, () => {
      const changes = taskChanges(input);
      assert.deepEqual(
        changes.files.map(({ shown, kind, added, removed, before, after }) => ({ shown, kind, added, removed, before, after })),
        want,
      );
      assert.equal(changes.commands, commands ?? 0);
      for (const changed of changes.files) {
        assert.equal(changed.path, `/ws/${changed.shown}`, 'the checkpoints\' key, not the shown path');
      }
    });
  }
});
