import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { taskKeyPrefix } from '../../src/core/checkpoints/schema';
import { CheckpointStore } from '../../src/core/checkpoints/store';
import { CheckpointStateStorage } from '../../src/core/checkpoints/stateStorage';
import { MirroredWorkspaceState } from '../../src/core/storage/mirroredState';
import { MemoryStore } from '../fixtures/memoryGate';

const noWarning = (message: string): void => {
  throw new Error(`unexpected warning: ${message}`);
};

// VS Code's Memento in memory (MemoryStore); a test "loses" a write, as a browser reload can, by changing its values.
describe('workspace state mirrored to a file', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'toolgate-mirror-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('writes both copies', async () => {
    const memento = new MemoryStore();
    const store = new MirroredWorkspaceState(memento, folder, noWarning);
    await store.update('toolgate.grants', { version: 1, revision: 3, grants: [] });
    assert.deepEqual(memento.get('toolgate.grants'), { version: 1, revision: 3, grants: [] });
    assert.deepEqual(JSON.parse(readFileSync(path.join(folder, 'toolgate.grants.json'), 'utf8')), { version: 1, revision: 3, grants: [] });
  });

  it('keeps the newer copy when workspace state lost a write', async () => {
    const memento = new MemoryStore();
    const store = new MirroredWorkspaceState(memento, folder, noWarning);
    await store.update('k', { revision: 5, grants: ['newest'] });
    memento.values.set('k', { revision: 4, grants: ['stale'] });
    assert.deepEqual(store.get('k'), { revision: 5, grants: ['newest'] });
  });

  it('keeps workspace state when it is newer than the file, and when there is no file', () => {
    const memento = new MemoryStore();
    memento.values.set('k', { revision: 7 });
    const store = new MirroredWorkspaceState(memento, folder, noWarning);
    assert.deepEqual(store.get('k'), { revision: 7 });
    writeFileSync(path.join(folder, 'k.json'), JSON.stringify({ revision: 6 }));
    assert.deepEqual(store.get('k'), { revision: 7 });
  });

  it('ignores an unreadable file', () => {
    writeFileSync(path.join(folder, 'k.json'), '{ not json');
    const memento = new MemoryStore();
    const store = new MirroredWorkspaceState(memento, folder, noWarning);
    assert.equal(store.get('k'), undefined);
  });

  it('lists the keys of both copies, and removing a key removes its file', async () => {
    const memento = new MemoryStore();
    const store = new MirroredWorkspaceState(memento, folder, noWarning);
    await store.update('toolgate.a', { revision: 1 });
    await store.update('toolgate.b', 'text');
    memento.values.delete('toolgate.b'); // a write workspace state lost
    memento.values.set('only.state', 1);
    writeFileSync(path.join(folder, 'not_a_key_.json.tmp'), '{}');
    assert.deepEqual([...store.keys()].sort(), ['only.state', 'toolgate.a', 'toolgate.b']);
    await store.update('toolgate.a', undefined);
    assert.deepEqual([...store.keys()].sort(), ['only.state', 'toolgate.b']);
    assert.equal(store.get('toolgate.a'), undefined);
  });

  it('has no keys of its own before the folder exists', () => {
    const store = new MirroredWorkspaceState(new MemoryStore(), path.join(folder, 'missing'), noWarning);
    assert.deepEqual(store.keys(), []);
  });
});

describe('checkpoints in the mirrored workspace state', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'toolgate-checkpoints-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('a task written again after a workspace-state write was lost reads back as the newer copy, after a reload', async () => {
    const memento = new MemoryStore();
    const open = (): CheckpointStore =>
      new CheckpointStore(new CheckpointStateStorage(new MirroredWorkspaceState(memento, folder, noWarning)), { warn: noWarning });
    const store = open();
    await store.record({ chatId: 'c', taskId: 't', turn: 0 }, { kind: 'file', path: '/w/a', tool: 'edit_file', before: 'a\n', after: 'b\n' });
    const stale = new Map(memento.values);
    await store.record({ chatId: 'c', taskId: 't', turn: 1 }, { kind: 'file', path: '/w/a', tool: 'edit_file', before: 'b\n', after: 'c\n' });
    // The reload dropped the second write from workspace state; the mirror files have it.
    memento.values.clear();
    for (const [key, value] of stale) {
      memento.values.set(key, value);
    }
    const loaded = await open().load('c', 't');
    assert.ok(loaded.kind === 'ok');
    assert.deepEqual(loaded.task.turns.map((turn) => turn.turn), [0, 1]);
  });

  it('lists only checkpoint keys, reads what it did not write as absent, and stamps every write higher', async () => {
    const memento = new MemoryStore();
    const mirrored = new MirroredWorkspaceState(memento, folder, noWarning);
    const storage = new CheckpointStateStorage(mirrored, () => 1000);
    await mirrored.update('toolgate.grants', { revision: 1 });
    await mirrored.update(`${taskKeyPrefix}9`, 'a bare value');
    await storage.update(`${taskKeyPrefix}1`, 'one');
    await storage.update(`${taskKeyPrefix}1`, 'two');
    assert.deepEqual([...storage.keys()].sort(), [`${taskKeyPrefix}1`, `${taskKeyPrefix}9`]);
    assert.equal(storage.get(`${taskKeyPrefix}9`), undefined);
    assert.equal(storage.get(`${taskKeyPrefix}1`), 'two');
    assert.deepEqual(mirrored.get(`${taskKeyPrefix}1`), { revision: 1001, value: 'two' });
    await storage.update(`${taskKeyPrefix}1`, undefined);
    assert.equal(storage.get(`${taskKeyPrefix}1`), undefined);
  });
});
