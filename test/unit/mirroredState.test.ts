import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MirroredWorkspaceState } from '../../src/core/storage/mirroredState';

/** A fake of VS Code's Memento (workspace state) that can "lose" writes, as a browser reload can. */
class FakeMemento {
  values = new Map<string, unknown>();
  get(key: string): unknown {
    return this.values.get(key);
  }
  update(key: string, value: unknown): Promise<void> {
    this.values.set(key, value);
    return Promise.resolve();
  }
}

const noWarning = (message: string): void => {
  throw new Error(`unexpected warning: ${message}`);
};

describe('workspace state mirrored to a file', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'toolgate-mirror-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('writes both copies', async () => {
    const memento = new FakeMemento();
    const store = new MirroredWorkspaceState(memento, folder, noWarning);
    await store.update('toolgate.grants', { version: 1, revision: 3, grants: [] });
    assert.deepEqual(memento.get('toolgate.grants'), { version: 1, revision: 3, grants: [] });
    assert.deepEqual(JSON.parse(readFileSync(path.join(folder, 'toolgate.grants.json'), 'utf8')), { version: 1, revision: 3, grants: [] });
  });

  it('keeps the newer copy when workspace state lost a write', async () => {
    const memento = new FakeMemento();
    const store = new MirroredWorkspaceState(memento, folder, noWarning);
    await store.update('k', { revision: 5, grants: ['newest'] });
    memento.values.set('k', { revision: 4, grants: ['stale'] });
    assert.deepEqual(store.get('k'), { revision: 5, grants: ['newest'] });
  });

  it('keeps workspace state when it is newer than the file, and when there is no file', () => {
    const memento = new FakeMemento();
    memento.values.set('k', { revision: 7 });
    const store = new MirroredWorkspaceState(memento, folder, noWarning);
    assert.deepEqual(store.get('k'), { revision: 7 });
    writeFileSync(path.join(folder, 'k.json'), JSON.stringify({ revision: 6 }));
    assert.deepEqual(store.get('k'), { revision: 7 });
  });

  it('ignores an unreadable file', () => {
    writeFileSync(path.join(folder, 'k.json'), '{ not json');
    const memento = new FakeMemento();
    const store = new MirroredWorkspaceState(memento, folder, noWarning);
    assert.equal(store.get('k'), undefined);
  });
});
