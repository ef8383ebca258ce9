import * as assert from 'node:assert/strict';
import { sha256 } from '../../src/core/approval/hash';
import { indexKey, taskKeyPrefix, type TaskRecord } from '../../src/core/checkpoints/schema';
import { CheckpointStore, type CheckpointStorage, type RecordInput, type TurnRef } from '../../src/core/checkpoints/store';
import { applyPatch, makePatch, TextStore } from '../../src/core/checkpoints/texts';
import { planTaskUndo } from '../../src/core/checkpoints/undo';
import { prng } from '../fixtures/prng';

/** Workspace state as VS Code keeps it: values survive as JSON; `undefined` removes a key. */
class MemoryStorage implements CheckpointStorage {
  readonly values = new Map<string, unknown>();
  writes = 0;
  get(key: string): unknown {
    const value = this.values.get(key);
    return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  }
  update(key: string, value: unknown): Promise<void> {
    this.writes++;
    if (value === undefined) {
      this.values.delete(key);
    } else {
      this.values.set(key, JSON.parse(JSON.stringify(value)));
    }
    return Promise.resolve();
  }
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
}

const lines = (count: number, seed: number): string =>
  Array.from({ length: count }, (_, i) => `line ${i} of ${seed}: ${'x'.repeat(20 + ((i * 7) % 30))}\n`).join('');

function edit(text: string, every: number, tag: string): string {
  return text
    .split('\n')
    .map((line, i) => (i % every === 3 ? `${line} // ${tag}` : line))
    .join('\n');
}

function open(storage: MemoryStorage, budgetBytes?: number): { store: CheckpointStore; warnings: string[] } {
  const warnings: string[] = [];
  let tick = 0;
  const store = new CheckpointStore(storage, {
    ...(budgetBytes !== undefined ? { budgetBytes } : {}),
    warn: (message) => warnings.push(message),
    now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++)),
  });
  return { store, warnings };
}

const file = (path: string, before: string | null, after: string | null): RecordInput => ({ kind: 'file', path, relativePath: path, tool: 'edit_file', before, after });
const ref = (taskId: string, turn: number, chatId = 'chat-1'): TurnRef => ({ chatId, taskId, turn, title: `task ${taskId}` });

async function loadOk(store: CheckpointStore, taskId: string, chatId = 'chat-1'): Promise<TaskRecord> {
  const result = await store.load(chatId, taskId);
  assert.equal(result.kind, 'ok', result.kind !== 'ok' ? result.message : '');
  return (result as { task: TaskRecord }).task;
}

describe('stored texts', () => {
  it('a patch rebuilds the text byte for byte (CRLF, no final newline, unicode)', () => {
    const random = prng(77);
    const pick = (): string => ['a', 'bb', '}', '', 'ünï', '🙂'][Math.floor(random() * 6)] ?? '';
    for (let round = 0; round < 300; round++) {
      const make = (): string => {
        const out = Array.from({ length: Math.floor(random() * 20) }, () => pick() + (random() < 0.3 ? '\r\n' : '\n')).join('');
        return random() < 0.3 ? out.replace(/\r?\n$/, '') : out;
      };
      const from = make();
      const to = make();
      assert.equal(applyPatch(from, makePatch(from, to)), to);
    }
  });

  it('keeps each text once and stores a close text as a patch', () => {
    const table = {};
    const texts = new TextStore(table);
    const base = lines(2000, 1);
    const changed = edit(base, 100, 'changed');
    const baseHash = texts.add(base);
    const changedHash = texts.add(changed, [baseHash]);
    assert.equal(texts.add(changed, [baseHash]), changedHash);
    assert.deepEqual(Object.keys(table).sort(), [baseHash, changedHash].sort());
    const size = JSON.stringify(table).length;
    assert.ok(size < base.length * 1.1, `${size} bytes for a ${base.length}-byte text and its edit`);
    assert.equal(new TextStore(JSON.parse(JSON.stringify(table)) as typeof table).get(changedHash), changed);
  });

  const broken: { name: string; table: (hashes: { base: string; changed: string }, table: Record<string, unknown>) => void; error: RegExp }[] = [
    { name: 'a missing base', table: (h, t) => Reflect.deleteProperty(t, h.base), error: /missing/ },
    { name: 'a text that is not its hash', table: (h, t) => (t[h.base] = { full: 'tampered' }), error: /does not match its hash/ },
    { name: 'a patch that does not fit its base', table: (h, t) => (t[h.changed] = { from: h.base, ops: [[99999, 1, 'x\n']] }), error: /does not fit/ },
    { name: 'a loop', table: (h, t) => (t[h.base] = { from: h.changed, ops: [] }), error: /loop/ },
  ];
  for (const row of broken) {
    it(`refuses ${row.name}`, () => {
      const table: Record<string, unknown> = {};
      const texts = new TextStore(table as never);
      const base = lines(500, 2);
      const hashes = { base: texts.add(base) } as { base: string; changed: string };
      hashes.changed = texts.add(edit(base, 50, 'e'), [hashes.base]);
      row.table(hashes, table);
      assert.throws(() => new TextStore(table as never).get(hashes.changed), row.error);
    });
  }
});

describe('checkpoint store', () => {
  it('records file changes and commands per chat, task and turn, and reads them back after a reload', async () => {
    const storage = new MemoryStorage();
    const { store, warnings } = open(storage);
    const original = lines(300, 3);
    const first = edit(original, 40, 'one');
    const second = edit(first, 55, 'two');
    assert.equal((await store.record(ref('t1', 0), file('/w/a.ts', original, first))).kind, 'recorded');
    await store.record(ref('t1', 0), file('/w/new.ts', null, 'created\n'));
    await store.record(ref('t1', 1), file('/w/a.ts', first, second));
    await store.record(ref('t1', 1), { kind: 'command', command: 'npm test', cwd: '/w', exitCode: 1, git: { kind: 'not-a-repository' } });
    await store.record(ref('t2', 0, 'chat-2'), file('/w/b.ts', 'b\n', 'B\n'));
    const reopened = open(storage).store;
    const task = await loadOk(reopened, 't1');
    assert.equal(task.title, 'task t1');
    assert.deepEqual(
      task.turns.map((turn) => turn.changes.map((change) => (change.kind === 'file' ? [change.path, change.before === null ? null : sha256(change.before), change.afterHash] : change.kind === 'command' ? [change.command, change.exitCode] : [change.command]))),
      [
        [
          ['/w/a.ts', sha256(original), sha256(first)],
          ['/w/new.ts', null, sha256('created\n')],
        ],
        [
          ['/w/a.ts', sha256(first), sha256(second)],
          ['npm test', 1],
        ],
      ],
    );
    const last = task.turns[1]?.changes[0];
    assert.ok(last?.kind === 'file');
    assert.equal(last.after, second);
    assert.equal(last.beforeHash, sha256(first));
    assert.deepEqual(reopened.tasks().map((summary) => summary.taskId), ['t2', 't1']);
    assert.deepEqual(reopened.tasks('chat-2').map((summary) => summary.taskId), ['t2']);
    assert.equal(reopened.latestTask('chat-1')?.taskId, 't1');
    assert.deepEqual(warnings, []);
    // The base of turn 2 is turn 1's result: stored once; results are patches, so the task is about one copy of the file.
    const bytes = reopened.tasks('chat-1')[0]?.bytes ?? 0;
    assert.ok(bytes < original.length * 1.5, `${bytes} bytes for a ${original.length}-byte file edited twice`);
  });

  it('records concurrent changes of one turn without losing any', async () => {
    const { store } = open(new MemoryStorage());
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.record(ref('t', 0), file(`/w/f${i}`, null, `${i}\n`))));
    const task = await loadOk(store, 't');
    assert.equal(task.turns[0]?.changes.length, 20);
  });

  it('drops the oldest tasks first when over budget, and notes it', async () => {
    const storage = new MemoryStorage();
    const size = lines(400, 4).length;
    const { store } = open(storage, Math.floor(size * 2.5));
    for (const [i, taskId] of ['t1', 't2', 't3'].entries()) {
      await store.record(ref(taskId, 0, i === 1 ? 'chat-2' : 'chat-1'), file(`/w/${taskId}`, null, lines(400, 10 + i)));
    }
    const outcome = await store.record(ref('t4', 0), file('/w/t4', null, lines(400, 20)));
    assert.ok(outcome.kind === 'recorded');
    assert.deepEqual(outcome.dropped.map((note) => [note.kind, note.taskId]), [['task-dropped', 't2']]);
    assert.deepEqual(store.tasks().map((task) => task.taskId), ['t4', 't3']);
    assert.ok(store.totalBytes() <= size * 2.5);
    assert.deepEqual(store.notes().map((note) => [note.kind, note.taskId]), [['task-dropped', 't1'], ['task-dropped', 't2']]);
    assert.deepEqual(store.notes('chat-2').map((note) => note.taskId), ['t2']);
    assert.match(store.notes()[0]?.message ?? '', /"task t1" were dropped to stay within the checkpoint budget/);
    assert.ok(![...storage.values.keys()].includes(`${taskKeyPrefix}0`), 'the dropped task value is removed');
    const gone = await store.load('chat-1', 't1');
    assert.ok(gone.kind === 'not-found');
    assert.match(gone.message, /dropped/);
    // A new task whose turn alone is over the budget drops nothing older.
    const huge = await store.record(ref('t5', 0), file('/w/t5', null, lines(1400, 21)));
    assert.ok(huge.kind === 'not-recorded');
    assert.deepEqual(huge.dropped.map((note) => note.kind), ['turn-not-recorded']);
    assert.deepEqual(store.tasks().map((task) => task.taskId), ['t5', 't4', 't3']);
  });

  it('then drops the oldest turns of the task being recorded, and a turn larger than the budget is not recorded', async () => {
    const size = lines(400, 5).length;
    const { store } = open(new MemoryStorage(), Math.floor(size * 2.5));
    await store.record(ref('t', 0), file('/w/a', null, lines(400, 30)));
    await store.record(ref('t', 1), file('/w/b', null, lines(400, 31)));
    const third = await store.record(ref('t', 2), file('/w/c', null, lines(400, 32)));
    assert.ok(third.kind === 'recorded');
    assert.deepEqual(third.dropped.map((note) => [note.kind, note.turns]), [['turns-dropped', [0]]]);
    const task = await loadOk(store, 't');
    assert.deepEqual(task.turns.map((turn) => turn.turn), [1, 2]);
    assert.deepEqual(task.droppedTurns, [0]);
    // A change to a dropped turn cannot be recorded either (a turn is kept whole or not at all).
    assert.equal((await store.record(ref('t', 0), file('/w/z', null, 'z\n'))).kind, 'not-recorded');
    const huge = await store.record(ref('t', 3), file('/w/huge', null, lines(1400, 33)));
    assert.ok(huge.kind === 'not-recorded');
    assert.equal(huge.note.kind, 'turn-not-recorded');
    assert.match(huge.note.message, /turn 4 are larger than the checkpoint budget/);
    assert.deepEqual(huge.dropped, [huge.note], 'nothing older was dropped for it');
    const after = await loadOk(store, 't');
    assert.deepEqual(after.turns.map((turn) => turn.turn), [1, 2]);
    assert.deepEqual(after.droppedTurns, [0, 3]);
  });

  it('a task editing one large file turn after turn drops its oldest turns first, not the newest', async () => {
    const versions = [lines(400, 8)];
    for (let turn = 1; turn <= 6; turn++) {
      versions.push(edit(versions[turn - 1] ?? '', 40 + turn, `turn ${turn}`));
    }
    const storage = new MemoryStorage();
    const probe = open(storage).store;
    for (let turn = 0; turn < 5; turn++) {
      await probe.record(ref('t', turn), file('/w/a', versions[turn] ?? '', versions[turn + 1] ?? ''));
    }
    const budget = probe.totalBytes() + 100;
    const { store } = open(storage, budget);
    const outcome = await store.record(ref('t', 5), file('/w/a', versions[5] ?? '', versions[6] ?? ''));
    assert.ok(outcome.kind === 'recorded');
    assert.ok(store.totalBytes() <= budget);
    const task = await loadOk(store, 't');
    const kept = task.turns.map((turn) => turn.turn);
    assert.ok(kept.includes(5) && kept.length >= 3, `kept turns ${kept.join(', ')}`);
    assert.deepEqual(task.droppedTurns, Array.from({ length: 6 - kept.length }, (_, i) => i), 'the oldest were dropped');
    const first = kept[0] ?? 0;
    const plan = planTaskUndo(task, new Map([['/w/a', versions[6] ?? '']]));
    assert.deepEqual(plan.files.map((undo) => [undo.kind, 'content' in undo ? undo.content : undefined]), [['revert', versions[first]]]);
    assert.match(plan.text, /can no longer be undone: .* dropped to stay within the checkpoint budget/);
  });

  it('shrinks to a smaller budget when the setting changes', async () => {
    const size = lines(300, 6).length;
    const { store } = open(new MemoryStorage());
    await store.record(ref('t1', 0), file('/w/a', null, lines(300, 40)));
    await store.record(ref('t2', 0), file('/w/b', null, lines(300, 41)));
    await store.record(ref('t2', 1), file('/w/c', null, lines(300, 42)));
    const dropped = await store.setBudget(Math.floor(size * 1.5));
    assert.deepEqual(dropped.map((note) => [note.kind, note.taskId, note.turns]), [['task-dropped', 't1', [0]], ['turns-dropped', 't2', [0]]]);
    assert.deepEqual((await loadOk(store, 't2')).turns.map((turn) => turn.turn), [1]);
  });

  it('marks turns undone, and forgets a task', async () => {
    const storage = new MemoryStorage();
    const { store } = open(storage);
    await store.record(ref('t', 0), file('/w/a', 'a\n', 'b\n'));
    await store.record(ref('t', 1), file('/w/a', 'b\n', 'c\n'));
    await store.markUndone('chat-1', 't', [1]);
    const task = await loadOk(open(storage).store, 't');
    assert.deepEqual(task.turns.map((turn) => turn.undoneAt !== undefined), [false, true]);
    assert.deepEqual(store.tasks()[0]?.turns, [{ turn: 0, undone: false }, { turn: 1, undone: true }]);
    await store.forget('chat-1', 't');
    assert.deepEqual(store.tasks(), []);
    assert.deepEqual([...storage.values.keys()], [indexKey]);
  });

  const invalidRows: { name: string; ref: TurnRef; input: RecordInput; error: RegExp }[] = [
    { name: 'a task id too long to read back', ref: ref('t'.repeat(201), 0), input: file('/w/a', null, 'a\n'), error: /taskId/ },
    { name: 'an empty chat id', ref: ref('t', 0, ''), input: file('/w/a', null, 'a\n'), error: /chatId/ },
    { name: 'a fractional turn', ref: ref('t', 0.5), input: file('/w/a', null, 'a\n'), error: /turn/ },
    { name: 'an empty path', ref: ref('t', 0), input: file('', null, 'a\n'), error: /path/ },
    { name: 'a fractional exit code', ref: ref('t', 0), input: { kind: 'command', command: 'x', cwd: '/w', exitCode: 0.5 }, error: /exitCode/ },
    { name: 'a git effect of an unknown kind', ref: ref('t', 0), input: { kind: 'command', command: 'x', cwd: '/w', git: { kind: 'guessed' } as never }, error: /git/ },
  ];
  for (const row of invalidRows) {
    it(`refuses to record ${row.name}, storing nothing`, async () => {
      const storage = new MemoryStorage();
      const { store } = open(storage);
      await assert.rejects(store.record(row.ref, row.input), (error: unknown) => error instanceof RangeError && row.error.test(error.message));
      assert.equal(storage.writes, 0);
      assert.deepEqual(store.tasks(), []);
    });
  }

  describe('stored data that does not fit is ignored with a warning, never trusted', () => {
    const indexRows: { name: string; index: unknown }[] = [
      { name: 'an index of another version', index: { version: 2, revision: 0, nextSeq: 0, tasks: [], notes: [] } },
      { name: 'an index that is not an object', index: 'garbage' },
      {
        name: 'an index with two tasks under one key',
        index: {
          version: 1,
          revision: 0,
          nextSeq: 1,
          tasks: ['t1', 't2'].map((taskId) => ({ chatId: 'c', taskId, seq: 0, startedAt: 'x', updatedAt: 'x', bytes: 1, turns: [], droppedTurns: [] })),
          notes: [],
        },
      },
      { name: 'an index with a task of a negative size', index: { version: 1, revision: 0, nextSeq: 1, tasks: [{ chatId: 'c', taskId: 't', seq: 0, startedAt: 'x', updatedAt: 'x', bytes: -1, turns: [], droppedTurns: [] }], notes: [] } },
    ];
    for (const row of indexRows) {
      it(row.name, async () => {
        const storage = new MemoryStorage();
        storage.values.set(indexKey, row.index);
        storage.values.set(`${taskKeyPrefix}0`, '{}');
        const { store, warnings } = open(storage);
        assert.deepEqual(store.tasks(), []);
        assert.equal(warnings.length, 1);
        assert.match(warnings[0] ?? '', /ignored the stored checkpoints/);
        await store.record(ref('t', 0), file('/w/a', null, 'a\n'));
        assert.ok(!storage.values.has(`${taskKeyPrefix}0`) || (await loadOk(store, 't')).turns.length === 1, 'the orphan value was removed or replaced');
      });
    }

    const taskRows: { name: string; corrupt: (value: string) => unknown }[] = [
      { name: 'a task value that is not JSON', corrupt: () => '{ nope' },
      { name: 'a task value that is not a string', corrupt: (value) => JSON.parse(value) as unknown },
      { name: 'a task value of another version', corrupt: (value) => value.replace('"version":1', '"version":9') },
      { name: 'a task value with an unknown field', corrupt: (value) => value.replace('"version":1', '"version":1,"trusted":true') },
      { name: 'a task value of another task', corrupt: (value) => value.replace('"taskId":"t"', '"taskId":"u"') },
      { name: 'a tampered text', corrupt: (value) => value.replace('after the agent', 'after the agenT') },
      { name: 'a missing task value', corrupt: () => undefined },
      {
        name: 'a text no entry names that does not check out',
        corrupt: (value) => value.replace('"texts":{', `"texts":{"${'0'.repeat(64)}":{"full":"not this"},`),
      },
    ];
    for (const row of taskRows) {
      it(row.name, async () => {
        const storage = new MemoryStorage();
        const { store } = open(storage);
        await store.record(ref('t', 0), file('/w/a', 'before\n', 'after the agent\n'));
        const key = `${taskKeyPrefix}0`;
        const corrupted = row.corrupt(storage.values.get(key) as string);
        if (corrupted === undefined) {
          storage.values.delete(key);
        } else {
          storage.values.set(key, corrupted);
        }
        const reopened = open(storage);
        const result = await reopened.store.load('chat-1', 't');
        assert.equal(result.kind, 'unreadable');
        assert.equal(reopened.warnings.length, 1);
        assert.match(reopened.warnings[0] ?? '', /could not be read .* and were ignored/);
        assert.deepEqual(reopened.store.notes().map((note) => note.kind), ['unreadable']);
        assert.deepEqual(reopened.store.tasks(), []);
        // Recording again starts the task afresh rather than building on what could not be read.
        await reopened.store.record(ref('t', 1), file('/w/a', 'x\n', 'y\n'));
        assert.deepEqual((await loadOk(reopened.store, 't')).turns.map((turn) => turn.turn), [1]);
      });
    }
  });
});
