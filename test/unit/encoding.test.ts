import assert from 'node:assert/strict';
import { decodeFile, describeFormat, encodeText, sha256Bytes, UnencodableText, type FileFormat, type TextFormat } from '../../src/core/files/encoding';

const bytes = (...parts: (number[] | string)[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? [...Buffer.from(part, 'latin1')] : part)));

const utf16le = (text: string): number[] => [...Buffer.from(text, 'utf16le')];
const utf16be = (text: string): number[] => [...Buffer.from(text, 'utf16le').swap16()];

describe('file encodings', () => {
  const cases: { name: string; input: Uint8Array; preferred?: string; format: FileFormat; text: string }[] = [
    { name: 'empty file', input: bytes(), format: { kind: 'text', encoding: 'utf8', bom: false }, text: '' },
    { name: 'ASCII', input: bytes('a = 1\n'), format: { kind: 'text', encoding: 'utf8', bom: false }, text: 'a = 1\n' },
    { name: 'UTF-8', input: Uint8Array.from(Buffer.from('café ☕\n')), format: { kind: 'text', encoding: 'utf8', bom: false }, text: 'café ☕\n' },
    {
      name: 'UTF-8 with BOM',
      input: bytes([0xef, 0xbb, 0xbf], 'x\n'),
      format: { kind: 'text', encoding: 'utf8bom', bom: true },
      text: 'x\n',
    },
    { name: 'Latin-1 é (not UTF-8)', input: bytes('caf', [0xe9], '\n'), format: { kind: 'text', encoding: 'windows1252', bom: false }, text: 'café\n' },
    { name: 'windows-1252 euro sign', input: bytes([0x80], ' 5\n'), format: { kind: 'text', encoding: 'windows1252', bom: false }, text: '€ 5\n' },
    {
      name: 'a byte windows-1252 leaves undefined falls to ISO-8859-1',
      input: bytes('a', [0x81], 'b'),
      format: { kind: 'text', encoding: 'iso88591', bom: false },
      text: 'a\u0081b',
    },
    { name: 'UTF-16 LE with BOM', input: bytes([0xff, 0xfe], utf16le('hé\r\n')), format: { kind: 'text', encoding: 'utf16le', bom: true }, text: 'hé\r\n' },
    { name: 'UTF-16 BE with BOM', input: bytes([0xfe, 0xff], utf16be('hé\n')), format: { kind: 'text', encoding: 'utf16be', bom: true }, text: 'hé\n' },
    {
      name: 'UTF-16 LE without BOM, as the editor opened it',
      input: bytes(utf16le('hi\n')),
      preferred: 'utf16le',
      format: { kind: 'text', encoding: 'utf16le', bom: false },
      text: 'hi\n',
    },
    { name: 'UTF-16 LE without BOM and no word from the editor is binary', input: bytes(utf16le('hi\n')), format: { kind: 'binary', size: 6 }, text: '' },
    { name: 'a NUL byte (PNG header)', input: bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), format: { kind: 'binary', size: 12 }, text: '' },
    {
      name: "the editor's encoding wins over the guess",
      input: bytes([0x82, 0xa0]),
      preferred: 'shiftjis',
      format: { kind: 'text', encoding: 'shiftjis', bom: false },
      text: 'あ',
    },
    {
      name: "the editor's encoding is not taken when the bytes do not round-trip through it",
      input: bytes('caf', [0xe9]),
      preferred: 'shiftjis',
      format: { kind: 'text', encoding: 'windows1252', bom: false },
      text: 'café',
    },
    { name: 'a binary file is not decoded even if the editor names a single-byte encoding', input: bytes('a', [0], 'b'), preferred: 'windows1252', format: { kind: 'binary', size: 3 }, text: '' },
    { name: 'valid UTF-8 stays UTF-8 when the editor says utf8', input: bytes('x'), preferred: 'utf8', format: { kind: 'text', encoding: 'utf8', bom: false }, text: 'x' },
  ];

  for (const { name, input, preferred, format, text } of cases) {
    it(`decodes ${name}`, async () => {
      const decoded = await decodeFile(input, preferred);
      assert.deepEqual(decoded.format, format);
      assert.equal(decoded.text, text);
      if (decoded.format.kind === 'text') {
        assert.deepEqual(Buffer.from(await encodeText(decoded.text, decoded.format)), Buffer.from(input), 'writes back the same bytes');
      }
    });
  }

  it('an edit of a Latin-1 file changes only the edited bytes', async () => {
    const original = bytes('na', [0xef], 've caf', [0xe9], '\nold line\nd', [0xe9], 'j', [0xe0], ' vu\n');
    const decoded = await decodeFile(original);
    assert.deepEqual(decoded.format, { kind: 'text', encoding: 'windows1252', bom: false });
    const written = Buffer.from(await encodeText(decoded.text.replace('old line', 'new line'), { kind: 'text', encoding: 'windows1252', bom: false }));
    assert.deepEqual(written, Buffer.from(bytes('na', [0xef], 've caf', [0xe9], '\nnew line\nd', [0xe9], 'j', [0xe0], ' vu\n')));
  });

  const unencodable: { name: string; text: string; format: TextFormat; character: string; line: number }[] = [
    { name: 'a snowman in Windows-1252', text: 'a\nsnow ☃', format: { kind: 'text', encoding: 'windows1252', bom: false }, character: '☃', line: 2 },
    { name: 'an emoji in Latin-1', text: '😀', format: { kind: 'text', encoding: 'iso88591', bom: false }, character: '😀', line: 1 },
    { name: 'a lone surrogate in UTF-8', text: 'x\n\n\ud800', format: { kind: 'text', encoding: 'utf8', bom: false }, character: '\ud800', line: 3 },
  ];
  for (const { name, text, format, character, line } of unencodable) {
    it(`refuses ${name} rather than write "?" for it`, async () => {
      await assert.rejects(encodeText(text, format), (error: unknown) => {
        assert.ok(error instanceof UnencodableText);
        assert.equal(error.character, character);
        assert.equal(error.line, line);
        return true;
      });
    });
  }

  it('hashes bytes, so two decodings of one text do not look the same', () => {
    assert.notEqual(sha256Bytes(bytes('caf', [0xe9])), sha256Bytes(Uint8Array.from(Buffer.from('café'))));
  });

  const names: [FileFormat, string][] = [
    [{ kind: 'text', encoding: 'utf8', bom: false }, 'UTF-8'],
    [{ kind: 'text', encoding: 'utf16le', bom: true }, 'UTF-16 LE with BOM'],
    [{ kind: 'text', encoding: 'shiftjis', bom: false }, 'shiftjis'],
    [{ kind: 'binary', size: 12345 }, 'binary (12,345 bytes)'],
  ];
  for (const [format, name] of names) {
    it(`names ${name}`, () => assert.equal(describeFormat(format), name));
  }
});
