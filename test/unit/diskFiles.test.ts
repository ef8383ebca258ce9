import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sha256 } from '../../src/core/approval/hash';
import { undoWriteOf, type UndoWrite } from '../../src/core/checkpoints/undoWrites';
import { sha256Bytes, utf8Format, type FileFormat, type TextFormat } from '../../src/core/files/encoding';
import { diskSnapshot, listFolder, searchFiles } from '../../src/core/tools/diskReads';
import { bufferHash, changedSinceShown, documentFormat, encodeForWrite, isUtf8Text, writeExactBytes } from '../../src/core/tools/fileWrites';
import { ToolError, type FileSnapshot } from '../../src/core/tools/ports';

const latin1: TextFormat = { kind: 'text', encoding: 'windows1252', bom: false };

describe("the workspace's files read from the disk", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-disk-'));
    mkdirSync(path.join(root, 'src'));
    writeFileSync(path.join(root, 'src', 'a.ts'), 'const a = 1;\n  // TODO: more\n');
    writeFileSync(path.join(root, 'b.txt'), Buffer.from('caf\u00e9 TODO\n', 'latin1'));
    writeFileSync(path.join(root, 'c.bin'), Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0x0d, 0xff]));
    symlinkSync(path.join(root, 'src'), path.join(root, 'linked'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('lists a folder sorted, folders and links to folders with a trailing /', async () => {
    assert.deepEqual(await listFolder(root), ['b.txt', 'c.bin', 'linked/', 'src/']);
    assert.deepEqual(await listFolder(path.join(root, 'b.txt')), { kind: 'not-a-folder' });
    assert.deepEqual(await listFolder(path.join(root, 'none')), { kind: 'not-found' });
  });

  it("searches text files in their editor's encoding, binary files never, up to the limit", async () => {
    const files = ['b.txt', 'c.bin', 'src/a.ts'].map((name) => ({ absolute: path.join(root, name), encoding: () => (name === 'b.txt' ? 'windows1252' : undefined), shown: () => name }));
    assert.deepEqual(await searchFiles(files, 'TODO', 10), ['b.txt:1: caf\u00e9 TODO', 'src/a.ts:2: // TODO: more']);
    assert.deepEqual(await searchFiles(files, 'TODO', 1), ['b.txt:1: caf\u00e9 TODO']);
  });

  const snapshots: { name: string; file: string; exists: boolean; text?: string; error?: string }[] = [
    { name: 'a file, decoded as the editor reads it', file: 'b.txt', exists: true, text: 'caf\u00e9 TODO\n' },
    { name: 'no file', file: 'none.txt', exists: false, text: '' },
    { name: 'a folder is refused', file: 'src', exists: false, error: 'src is a folder, not a file' },
  ];
  for (const row of snapshots) {
    it(`a snapshot of ${row.name}`, async () => {
      const taken = diskSnapshot(path.join(root, row.file), () => 'windows1252', () => row.file);
      if (row.error !== undefined) {
        await assert.rejects(taken, (error: unknown) => error instanceof ToolError && error.message === row.error && error.kind === 'is-folder');
        return;
      }
      const snapshot = await taken;
      assert.deepEqual([snapshot.exists, snapshot.text], [row.exists, row.text]);
      assert.equal(snapshot.hash, row.exists ? sha256Bytes(readFileSync(path.join(root, row.file))) : sha256(''));
    });
  }

  it('writes exact bytes only while the disk holds what the diff was computed from', async () => {
    const file = path.join(root, 'b.txt');
    const current: FileSnapshot = { exists: true, text: 'caf\u00e9 TODO\n', hash: sha256Bytes(readFileSync(file)), format: latin1 };
    const write = (bytes: Uint8Array): Promise<void> => {
      writeFileSync(file, bytes);
      return Promise.resolve();
    };
    assert.deepEqual(await writeExactBytes(file, current, 'd\u00e9j\u00e0\n', 'b.txt', write), { kind: 'written', savedToDisk: true });
    assert.deepEqual(readFileSync(file), Buffer.from('d\u00e9j\u00e0\n', 'latin1'));
    assert.deepEqual(await writeExactBytes(file, current, 'x\n', 'b.txt', write), changedSinceShown('b.txt'));
    rmSync(file);
    assert.deepEqual(await writeExactBytes(file, current, 'x\n', 'b.txt', write), { kind: 'changed', detail: 'b.txt was deleted after the diff was shown' });
  });
});

describe("a write's encoding", () => {
  const formats: [string, string, FileFormat, boolean][] = [
    ['UTF-8', 'utf8', { kind: 'text', encoding: 'utf8', bom: false }, true],
    ['UTF-8 with a BOM', 'utf8bom', { kind: 'text', encoding: 'utf8bom', bom: true }, true],
    ['UTF-16 LE, saved with its BOM', 'utf16le', { kind: 'text', encoding: 'utf16le', bom: true }, false],
    ['Windows-1252', 'windows1252', { kind: 'text', encoding: 'windows1252', bom: false }, false],
  ];
  for (const [name, encoding, format, utf8] of formats) {
    it(`an open document in ${name}`, () => {
      assert.deepEqual(documentFormat(encoding), format);
      assert.equal(isUtf8Text(format), utf8);
    });
  }

  it('refuses text its encoding cannot hold, naming the file; over a binary file writes UTF-8', async () => {
    await assert.rejects(encodeForWrite('\u4e2d', latin1, 'b.txt'), (error: unknown) => error instanceof ToolError && error.kind === 'unencodable' && /^b\.txt is .*; nothing was written$/.test(error.message));
    assert.deepEqual(Buffer.from(await encodeForWrite('\u00e9', { kind: 'binary', size: 3 }, 'c.bin')), Buffer.from('\u00e9', 'utf8'));
  });

  it("hashes an unsaved buffer as the bytes it would be saved as, else its text", async () => {
    assert.equal(await bufferHash('caf\u00e9', utf8Format), sha256Bytes(Buffer.from('caf\u00e9', 'utf8')));
    assert.equal(await bufferHash('\u4e2d', latin1), sha256('unsaved buffer:\u4e2d'));
  });
});

describe("how the undo writes a file", () => {
  const expected = (text: string | null) => ({ exists: text !== null, hash: sha256(text ?? '') });
  const rows: { name: string; text: string | null; planned: string | null; now: { exists: boolean; text: string; format: FileFormat }; dirty?: boolean; write: UndoWrite }[] = [
    { name: 'a UTF-8 file as planned: replaced in its editor', text: 'old', planned: 'new', now: { exists: true, text: 'new', format: utf8Format }, write: { kind: 'replace', text: 'old' } },
    { name: 'a file changed since the plan', text: 'old', planned: 'new', now: { exists: true, text: 'newer', format: utf8Format }, write: { kind: 'changed' } },
    { name: 'a file that is binary now', text: 'old', planned: '', now: { exists: true, text: '', format: { kind: 'binary', size: 4 } }, write: { kind: 'changed' } },
    { name: 'a file the agent created: deleted', text: null, planned: 'new', now: { exists: true, text: 'new', format: utf8Format }, write: { kind: 'delete' } },
    { name: 'a file the agent deleted: created', text: 'old', planned: null, now: { exists: false, text: '', format: utf8Format }, write: { kind: 'create', text: 'old' } },
    { name: 'a Windows-1252 file: exact bytes', text: 'old', planned: 'new', now: { exists: true, text: 'new', format: latin1 }, write: { kind: 'bytes', text: 'old', format: latin1 } },
    { name: 'a Windows-1252 file with unsaved changes: in its editor', text: 'old', planned: 'new', now: { exists: true, text: 'new', format: latin1 }, dirty: true, write: { kind: 'replace', text: 'old' } },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(undoWriteOf({ path: '/ws/a.txt', text: row.text, expected: expected(row.planned) }, row.now, row.dirty ?? false), row.write);
    });
  }
});
