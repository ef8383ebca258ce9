import * as assert from 'node:assert/strict';
import { detectEol, withEol } from '../../src/core/diff/lines';
import { applyEdits } from '../../src/core/tools/edits';
import { parseBuiltinCall } from '../../src/core/toolDefinitions';

describe('edit_file replacements', () => {
  it('replaces each exact text once, in order', () => {
    const result = applyEdits('a\nb\nc\n', [{ old: 'b', new: 'B' }, { old: 'c', new: 'C' }], 'f.txt');
    assert.deepEqual(result, { ok: true, text: 'a\nB\nC\n' });
  });

  it('fails clearly when old is missing, naming the edit', () => {
    const result = applyEdits('a\n', [{ old: 'a', new: 'x' }, { old: 'zzz', new: 'y' }], 'f.txt');
    assert.deepEqual(result, { ok: false, error: 'edit 2 of 2: `old` was not found in f.txt; read the file again and copy the text exactly' });
  });

  it('fails clearly when old is ambiguous', () => {
    const result = applyEdits('}\n}\n', [{ old: '}', new: ']' }], 'f.ts');
    assert.match('error' in result ? result.error : '', /occurs 2 times in f\.ts; include more surrounding lines/);
  });

  it('keeps CRLF line endings when the model sends LF', () => {
    const result = applyEdits('one\r\ntwo\r\nthree\r\n', [{ old: 'one\ntwo', new: 'uno\ndos' }], 'w.txt');
    assert.deepEqual(result, { ok: true, text: 'uno\r\ndos\r\nthree\r\n' });
  });

  it('detects and rewrites line endings', () => {
    assert.equal(detectEol('a\r\nb'), '\r\n');
    assert.equal(detectEol('a\nb\r\n'), '\n');
    assert.equal(detectEol('single line'), '\n');
    assert.equal(withEol('a\nb\r\nc', '\r\n'), 'a\r\nb\r\nc');
    assert.equal(withEol('a\r\nb', '\n'), 'a\nb');
  });
});

describe('tool argument parsing', () => {
  const cases: [string, string, unknown, RegExp][] = [
    ['not JSON', 'write_file', '{"path": "a", ', /write_file: the arguments are not valid JSON/],
    ['a missing field', 'write_file', { path: 'a' }, /write_file: invalid arguments: content: /],
    ['a wrong type', 'run_in_terminal', { command: 42 }, /run_in_terminal: invalid arguments: command: /],
    ['an unexpected field', 'read_file', { path: 'a', sudo: true }, /read_file: invalid arguments: arguments: .*sudo/],
    ['no edits', 'edit_file', { path: 'a', edits: [] }, /edits: needs at least one edit/],
    ['an empty old', 'edit_file', { path: 'a', edits: [{ old: '', new: 'x' }] }, /edits\.0\.old: must not be empty/],
    ['a NUL in a path', 'read_file', { path: 'a\0b' }, /path: must not contain a NUL character/],
    ['an unknown tool', 'format_disk', {}, /unknown tool 'format_disk'\. Known tools: read_file, /],
  ];
  for (const [label, tool, args, error] of cases) {
    it(`rejects ${label} with a precise error`, () => {
      const parsed = parseBuiltinCall(tool, args);
      assert.match('error' in parsed ? parsed.error : '(accepted)', error);
    });
  }

  it('accepts a JSON string from the model', () => {
    const parsed = parseBuiltinCall('write_file', '{"path":"a.txt","content":"x"}');
    assert.deepEqual(parsed, { ok: true, tool: 'write_file', args: { path: 'a.txt', content: 'x' } });
  });
});
