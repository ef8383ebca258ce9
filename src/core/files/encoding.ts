/**
 * A file's bytes as text and back, byte-exact: the encoding is found from the byte order mark, the editor's own
 * encoding for the file (VS Code's ids: `utf8`, `utf8bom`, `utf16le`, `windows1252`, `shiftjis`, …), UTF-8 validity,
 * and last a single-byte Western encoding; a decoding is taken only if encoding the text again gives exactly the same
 * bytes, so every byte outside an edit is written back as it was. What no encoding round-trips, or what holds a NUL
 * byte near its start (git's test for a binary file), is binary: it is never decoded into a diff, only replaced whole.
 *
 * UTF-8 is decoded and encoded by Node itself; every other encoding by iconv-lite (the library VS Code uses for the
 * same job), loaded on first use only: most workspaces never need it.
 */
import { createHash } from 'node:crypto';
import type * as IconvLite from 'iconv-lite';

/** How a file's text is stored: VS Code's encoding id, and whether the file starts with a byte order mark. */
export interface TextFormat {
  kind: 'text';
  encoding: string;
  bom: boolean;
}

/** A file that is not text in any encoding Toolgate can write back exactly. */
export interface BinaryFormat {
  kind: 'binary';
  size: number;
}

export type FileFormat = TextFormat | BinaryFormat;

export type DecodedFile = { format: TextFormat; text: string } | { format: BinaryFormat; text: '' };

/** A new file, and a file written whole over a binary one: UTF-8 without a byte order mark. */
export const utf8Format: TextFormat = { kind: 'text', encoding: 'utf8', bom: false };

/** git's test: a NUL byte within the first 8,000 bytes makes a file binary (UTF-16 is found by its BOM first). */
const binaryProbeBytes = 8000;

const boms: readonly { bytes: readonly number[]; encoding: string }[] = [
  { bytes: [0xef, 0xbb, 0xbf], encoding: 'utf8bom' },
  { bytes: [0xff, 0xfe], encoding: 'utf16le' },
  { bytes: [0xfe, 0xff], encoding: 'utf16be' },
];

const bomOf: Readonly<Record<string, readonly number[]>> = Object.fromEntries(boms.map((entry) => [entry.encoding, entry.bytes]));

type Iconv = typeof IconvLite;
let iconvModule: Promise<Iconv> | undefined;

function iconv(): Promise<Iconv> {
  // A CommonJS package: its functions are on `default` when loaded as a module, on the namespace when bundled.
  iconvModule ??= import('iconv-lite').then((module: Iconv & { default?: Iconv }) => module.default ?? module);
  return iconvModule;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.length <= bytes.length && prefix.every((byte, index) => bytes[index] === byte);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

/** VS Code's ids are iconv-lite's names but for the BOM variants; `utf8bom` is UTF-8 with the mark. */
function codec(encoding: string): string {
  return encoding === 'utf8bom' ? 'utf8' : encoding;
}

const isUtf8 = (encoding: string): boolean => encoding === 'utf8' || encoding === 'utf8bom';

/** Text that the file's encoding cannot hold: writing it would put `?` (or U+FFFD) where the person saw it. */
export class UnencodableText extends Error {
  constructor(
    readonly format: TextFormat,
    /** The first character the encoding lacks, and its 1-based line. */
    readonly character: string,
    readonly line: number,
  ) {
    const code = `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
    super(`${describeFormat(format)} cannot hold ${JSON.stringify(character)} (${code}) on line ${line}`);
  }
}

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function firstDifference(text: string, back: string): { character: string; line: number } {
  let index = 0;
  while (index < text.length && text.codePointAt(index) === back.codePointAt(index)) {
    index += (text.codePointAt(index) ?? 0) > 0xffff ? 2 : 1;
  }
  const character = String.fromCodePoint(text.codePointAt(index) ?? 0xfffd);
  return { character, line: text.slice(0, index).split('\n').length };
}

/** The text as `format` stores it, byte order mark included; throws UnencodableText when the encoding lacks a character. */
export async function encodeText(text: string, format: TextFormat): Promise<Uint8Array> {
  const bom = format.bom ? (bomOf[format.encoding] ?? bomOf[codec(format.encoding)] ?? []) : [];
  let body: Uint8Array;
  let back: string;
  if (isUtf8(format.encoding)) {
    body = Buffer.from(text, 'utf8');
    // Only a lone surrogate half cannot be UTF-8: Node would write U+FFFD for it.
    back = text.replace(loneSurrogate, '\ufffd');
  } else {
    const lib = await iconv();
    if (!lib.encodingExists(codec(format.encoding))) {
      throw new Error(`the encoding ${format.encoding} is not supported`);
    }
    body = lib.encode(text, codec(format.encoding), { addBOM: false });
    back = lib.decode(Buffer.from(body.buffer, body.byteOffset, body.byteLength), codec(format.encoding), { stripBOM: false });
  }
  if (back !== text) {
    const { character, line } = firstDifference(text, back);
    throw new UnencodableText(format, character, line);
  }
  if (bom.length === 0) {
    return body;
  }
  const out = new Uint8Array(bom.length + body.length);
  out.set(bom, 0);
  out.set(body, bom.length);
  return out;
}

async function tryDecode(bytes: Uint8Array, encoding: string): Promise<DecodedFile | undefined> {
  const mark = bomOf[encoding] ?? [];
  const bom = mark.length > 0 && startsWith(bytes, mark);
  if (encoding === 'utf8bom' && !bom) {
    return undefined;
  }
  const body = bytes.subarray(bom ? mark.length : 0);
  let text: string;
  if (isUtf8(encoding)) {
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
    } catch {
      return undefined;
    }
  } else {
    const lib = await iconv();
    if (!lib.encodingExists(codec(encoding))) {
      return undefined;
    }
    text = lib.decode(Buffer.from(body.buffer, body.byteOffset, body.byteLength), codec(encoding), { stripBOM: false });
  }
  const format: TextFormat = { kind: 'text', encoding, bom };
  // Only a decoding that gives back every byte is one Toolgate may edit and write.
  try {
    return sameBytes(await encodeText(text, format), bytes) ? { format, text } : undefined;
  } catch (error) {
    if (error instanceof UnencodableText) {
      return undefined;
    }
    throw error;
  }
}

function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, binaryProbeBytes).includes(0);
}

/**
 * The file's text and how to write it back. `preferred` is the editor's encoding for the file (an open document's,
 * or `files.encoding`): used when the bytes round-trip through it, after a byte order mark and before guessing.
 */
export async function decodeFile(bytes: Uint8Array, preferred?: string): Promise<DecodedFile> {
  const marked = boms.find((entry) => startsWith(bytes, entry.bytes));
  const candidates = [
    marked?.encoding,
    // A UTF-16 file without a mark is full of NULs: only the editor's word can say it is text.
    preferred !== undefined && !isUtf8(preferred) && (preferred.startsWith('utf16') || !looksBinary(bytes)) ? preferred : undefined,
  ];
  for (const encoding of candidates) {
    if (encoding !== undefined) {
      const decoded = await tryDecode(bytes, encoding);
      if (decoded) {
        return decoded;
      }
    }
  }
  if (!looksBinary(bytes)) {
    // UTF-8, else the Western single-byte encodings: windows-1252 shows what most such files mean (€, curly quotes);
    // ISO-8859-1 maps every byte, so it always round-trips where windows-1252 leaves a byte undefined.
    for (const encoding of ['utf8', 'windows1252', 'iso88591']) {
      const decoded = await tryDecode(bytes, encoding);
      if (decoded) {
        return decoded;
      }
    }
  }
  return { format: { kind: 'binary', size: bytes.length }, text: '' };
}

/** SHA-256 of bytes, hex: files are compared by what is on disk, not by a decoding of it. */
export function sha256Bytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** How a person would name the format: "UTF-8", "UTF-16 LE with BOM", "windows1252", "binary (12,345 bytes)". */
export function describeFormat(format: FileFormat): string {
  if (format.kind === 'binary') {
    return `binary (${format.size.toLocaleString('en-US')} bytes)`;
  }
  const names: Record<string, string> = { utf8: 'UTF-8', utf8bom: 'UTF-8', utf16le: 'UTF-16 LE', utf16be: 'UTF-16 BE', iso88591: 'ISO-8859-1 (Latin-1)', windows1252: 'Windows-1252' };
  const name = names[format.encoding] ?? format.encoding;
  return format.bom ? `${name} with BOM` : name;
}
