import * as assert from 'node:assert/strict';
import type { ToolCallRequest } from '../../src/core/tools/service';
import { createMemoryGate, locateUnder } from '../fixtures/memoryGate';
import { MemoryFiles, memoryToolService, waitFor } from '../fixtures/memoryFiles';
import { pendingViews } from '../../src/core/views/pendingCall';

const latin1 = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text, 'latin1'));
const utf16le = (text: string): Uint8Array => Uint8Array.from(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
const binary = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0x0d, 0xff]);

const edit = (path: string, old: string, replacement: string): ToolCallRequest => ({ tool: 'edit_file', args: JSON.stringify({ path, edits: [{ old, new: replacement }] }) });
const write = (path: string, content: string): ToolCallRequest => ({ tool: 'write_file', args: JSON.stringify({ path, content }) });

describe('the tool service keeps a file in its own encoding (core, over in-memory bytes)', () => {
  const rows: {
    name: string;
    before: Uint8Array;
    request: ToolCallRequest;
    /** What the card's diff note says, or undefined when the call never reaches the gate. */
    note?: RegExp;
    after?: Uint8Array;
    error?: RegExp;
  }[] = [
    {
      name: 'an edit of a Latin-1 file changes only the edited bytes',
      before: latin1('caf\u00e9\nold\nd\u00e9j\u00e0\n'),
      request: edit('f.txt', 'old', 'new \u00e9t\u00e9'),
      note: /Windows-1252: every byte outside the change stays as it is/,
      after: latin1('caf\u00e9\nnew \u00e9t\u00e9\nd\u00e9j\u00e0\n'),
    },
    {
      name: 'a write over a UTF-16 file keeps its BOM and CRLF line endings',
      before: utf16le('a\r\nb\r\n'),
      request: write('f.txt', 'a\nc\n'),
      note: /UTF-16 LE with BOM/,
      after: utf16le('a\r\nc\r\n'),
    },
    {
      name: 'a write over a binary file replaces it whole with UTF-8 text, the card giving sizes and hashes',
      before: binary,
      request: write('f.txt', 'text \u00fc\n'),
      note: /^Replaces a binary file whole: 8 bytes \(sha256 [0-9a-f]{12}…\) become 8 bytes of UTF-8 text \(sha256 [0-9a-f]{12}…\)\. Undo cannot bring the binary file back\./,
      after: Uint8Array.from(Buffer.from('text \u00fc\n', 'utf8')),
    },
    { name: 'an edit of a binary file is refused', before: binary, request: edit('f.txt', 'PNG', 'GIF'), error: /f\.txt is a binary file \(8 bytes\), which edit_file cannot edit/ },
    { name: 'a character the encoding lacks is refused', before: latin1('caf\u00e9\n'), request: edit('f.txt', 'caf', 'snow \u2603'), error: /Windows-1252 cannot hold "\u2603" \(U\+2603\) on line 1/ },
    { name: 'read_file of a binary file says so', before: binary, request: { tool: 'read_file', args: JSON.stringify({ path: 'f.txt' }) }, error: /f\.txt is binary \(8 bytes\), not text/ },
  ];

  for (const row of rows) {
    it(row.name, async () => {
      const { gate } = createMemoryGate({ locate: locateUnder('/ws') });
      const files = new MemoryFiles();
      files.raw.set('/ws/f.txt', row.before);
      const { service } = memoryToolService(gate, files);
      const promise = service.runBatch([row.request], { chatId: 'chat' });
      if (row.note) {
        const waiting = await waitFor(() => pendingViews(gate)[0]);
        assert.equal(waiting.preview.kind, 'diff');
        assert.match(waiting.preview.note ?? '', row.note);
        assert.equal(gate.settle(waiting, { action: 'allow-once' }).ok, true);
      }
      const [result] = await promise;
      assert.ok(result);
      if (row.error) {
        assert.equal(result.ok, false);
        assert.match(result.output, row.error);
        assert.deepEqual(files.raw.get('/ws/f.txt'), row.before, 'nothing was written');
      } else {
        assert.equal(result.ok, true, result.output);
        assert.deepEqual(Buffer.from(files.raw.get('/ws/f.txt') ?? []), Buffer.from(row.after ?? []));
      }
    });
  }
});
