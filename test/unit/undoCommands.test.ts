import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CheckpointStore } from '../../src/core/checkpoints/store';
import { TaskChangeDiffs } from '../../src/core/checkpoints/taskChangeDiffs';
import { createUndoCommands, undoNotice, type UndoNotice } from '../../src/core/checkpoints/undoCommands';
import type { UndoResult } from '../../src/core/checkpoints/undoRunner';
import { createCheckpoints } from '../../src/core/checkpoints/windowCheckpoints';
import { Emitter } from '../../src/core/disposable';
import { MirroredWorkspaceState } from '../../src/core/storage/mirroredState';
import type { SettingKey, SettingValue } from '../../src/core/settings';
import { MemoryStore } from '../fixtures/memoryGate';

const undone = (parts: Partial<Extract<UndoResult, { kind: 'undone' }>>): UndoResult => ({
  kind: 'undone', chatId: 'c', taskId: 't', scope: 'turn', turns: [0], undoneTurns: [0], reverted: [], left: [], unchanged: [], commands: [], unreviewed: [], notes: [], summary: 'Undid 1 file.', text: 'Undid a.txt', ...parts,
});

describe('what the person is shown of an undo', () => {
  const rows: { name: string; result: UndoResult; notice: UndoNotice }[] = [
    { name: 'all reverted: information, with the details', result: undone({}), notice: { level: 'info', text: 'Undid 1 file.', details: true } },
    { name: 'a file left as it was: a warning', result: undone({ left: [{ path: '/ws/a.txt', reason: 'kept' } as never] }), notice: { level: 'warning', text: 'Undid 1 file.', details: true } },
    { name: 'a command that ran: a warning', result: undone({ commands: [{ command: 'ls' } as never] }), notice: { level: 'warning', text: 'Undid 1 file.', details: true } },
    { name: 'nothing to undo: information', result: { kind: 'not-undone', reason: 'nothing-to-undo', message: 'nothing to undo' }, notice: { level: 'info', text: 'Toolgate: nothing was undone: nothing to undo.', details: false } },
    { name: 'a refusal: a warning', result: { kind: 'not-undone', reason: 'apply-refused', message: 'VS Code refused the edit' }, notice: { level: 'warning', text: 'Toolgate: nothing was undone: VS Code refused the edit.', details: false } },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(undoNotice(row.result), row.notice);
    });
  }

  it('a command with nothing to undo logs it, shows it, and resolves with it', async () => {
    const logged: string[] = [];
    const shown: UndoNotice[] = [];
    const store = new CheckpointStore(new MemoryStore(), { warn: () => undefined });
    const undo = createUndoCommands({
      store, audit: { recordUndo: () => undefined }, activeChatId: () => 'c', log: { info: (line) => logged.push(line), warn: () => undefined, error: () => undefined },
      files: { read: () => Promise.resolve(null), apply: () => Promise.resolve({ kind: 'applied' }) },
      questions: { conflict: () => Promise.resolve('keep-mine'), confirmDelete: () => Promise.resolve('keep') },
      notify: (notice) => shown.push(notice),
    });
    const result = await undo.commands['toolgate.undoTurn']();
    assert.equal(result.kind, 'not-undone');
    assert.equal(logged.length, 1);
    assert.deepEqual(shown, [undoNotice(result)]);
  });
});

describe("a window's checkpoints", () => {
  it("follow toolgate.checkpoints.maxMegabytes as it changes", async () => {
    const changed = new Emitter<(key: SettingKey) => boolean>();
    let megabytes = 1;
    const settings = { get: <K extends SettingKey>(key: K) => (key === 'checkpoints.maxMegabytes' ? megabytes : undefined) as SettingValue<K>, onDidChange: changed.event };
    const disposables: unknown[] = [];
    const folder = mkdtempSync(path.join(os.tmpdir(), 'toolgate-checkpoints-'));
    const state = new MirroredWorkspaceState(new MemoryStore(), folder, () => undefined);
    const { store } = createCheckpoints({ state, settings, log: { info: () => undefined, warn: () => undefined, error: () => undefined }, disposables: { add: (item) => (disposables.push(item), item) } });
    for (const taskId of ['t1', 't2']) {
      await store.record({ chatId: 'c', taskId, turn: 0 }, { kind: 'file', path: '/ws/a.txt', relativePath: 'a.txt', tool: 'write_file', before: null, after: 'a'.repeat(300_000) });
    }
    assert.equal(store.tasks('c').length, 2);
    megabytes = 0.5;
    changed.fire((key) => key === 'checkpoints.maxMegabytes');
    // Queued behind the drop the change started (the same budget again: nothing more to drop).
    assert.deepEqual(await store.setBudget(Math.floor(0.5 * 1024 * 1024)), []);
    assert.deepEqual(store.tasks('c').map((task) => task.taskId), ['t2'], 'the older task dropped to stay within the new budget');
    assert.equal(disposables.length, 1);
    rmSync(folder, { recursive: true, force: true });
  });
});

describe("a task's changes for the chat", () => {
  async function recorded(): Promise<TaskChangeDiffs> {
    const store = new CheckpointStore(new MemoryStore(), { warn: () => undefined });
    const at = { chatId: 'c', taskId: 't1', title: 'fix it' };
    await store.record({ ...at, turn: 0 }, { kind: 'file', path: '/ws/a.txt', relativePath: 'a.txt', tool: 'write_file', before: 'a\n', after: 'A\n' });
    await store.record({ ...at, turn: 1 }, { kind: 'file', path: '/ws/b.txt', relativePath: 'b.txt', tool: 'write_file', before: null, after: 'b\n' });
    await store.record({ ...at, turn: 1 }, { kind: 'unreviewed', command: 'npm i', groups: [{ path: 'node_modules/', files: 3 }] });
    return new TaskChangeDiffs(store);
  }

  it("lists the latest task's files, then what landed without review", async () => {
    const pick = await (await recorded()).latestPick('c');
    assert.deepEqual(
      pick && { title: pick.title, items: pick.items.map(({ label, description, separator }) => [label, description, separator]) },
      {
        title: 'Toolgate: what "fix it" changed (5 files)',
        items: [
          ['a.txt', '+1 −1', undefined],
          ['b.txt', '+1 −0 created', undefined],
          ['Landed without review', undefined, true],
          ['node_modules/', '3 files: landed without review, no diff to open', undefined],
        ],
      },
    );
    assert.equal(await (await recorded()).latestPick('other'), undefined);
  });

  const diffs: { name: string; diff: (diffs: TaskChangeDiffs) => ReturnType<TaskChangeDiffs['fileDiff']>; want: unknown }[] = [
    { name: "a file of the task: before and after it", diff: (d) => d.fileDiff('c', 't1', 'b.txt'), want: { file: 'b.txt', sides: ['before the task', 'after the task'], before: null, after: 'b\n', title: 'b.txt: created by the task' } },
    { name: 'one call: before and after it', diff: (d) => d.callDiff({ chatId: 'c', taskId: 't1', turn: 0, file: 'a.txt' }), want: { file: 'a.txt', sides: ['before the call', 'after the call'], before: 'a\n', after: 'A\n', title: 'a.txt: what this call changed' } },
    { name: 'a file the task did not change is refused', diff: (d) => d.fileDiff('c', 't1', '/etc/passwd'), want: { ok: false, error: 'the checkpoints no longer hold /etc/passwd of this task (undone, or dropped to stay within toolgate.checkpoints.maxMegabytes)' } },
  ];
  for (const row of diffs) {
    it(row.name, async () => {
      assert.deepEqual(await row.diff(await recorded()), row.want);
    });
  }
});
