/**
 * What the `WorkspaceFiles` port checks and encodes for a write, apart from the editor: an unsaved buffer's hash, the
 * text in the file's own encoding (or the refusal when it cannot hold it), and a write of exact bytes, made only if the
 * file on disk is still the one the diff was computed from. The editor's part is src/vscode/documents/workspaceFiles.ts.
 */
import * as fs from 'node:fs/promises';
import { sha256 } from '../approval/hash';
import { encodeText, sha256Bytes, UnencodableText, utf8Format, type FileFormat, type TextFormat } from '../files/encoding';
import { statOf } from './diskReads';
import { ToolError, type ApplyOutcome, type FileSnapshot } from './ports';

/** How an open document in `encoding` (the editor's name) is saved: VS Code writes UTF-16 with its byte order mark. */
export function documentFormat(encoding: string): TextFormat {
  return { kind: 'text', encoding, bom: encoding === 'utf8bom' || encoding.startsWith('utf16') };
}

/** An unsaved buffer's hash: of the bytes it would be saved as (so saving it changes nothing), else of its text. */
export async function bufferHash(text: string, format: TextFormat): Promise<string> {
  try {
    return sha256Bytes(await encodeText(text, format));
  } catch {
    return sha256(`unsaved buffer:${text}`);
  }
}

export const isUtf8Text = (format: FileFormat): boolean => format.kind === 'text' && (format.encoding === 'utf8' || format.encoding === 'utf8bom');

/** `text` in `format`'s encoding, or why it cannot be (`<label> is <why>`). */
export async function encodeOrRefusal(text: string, format: TextFormat, label: string): Promise<Uint8Array | string> {
  try {
    return await encodeText(text, format);
  } catch (error) {
    if (error instanceof UnencodableText) {
      return `${label} is ${error.message}`;
    }
    throw error;
  }
}

/** `text` as a write stores it (over a binary file the new content is text of its own: UTF-8); else a ToolError. */
export async function encodeForWrite(text: string, format: FileFormat, label: string): Promise<Uint8Array> {
  const bytes = await encodeOrRefusal(text, format.kind === 'text' ? format : utf8Format, label);
  if (typeof bytes === 'string') {
    throw new ToolError(`${bytes}; nothing was written`, 'unencodable');
  }
  return bytes;
}

/** The file is no longer what the diff was computed from. */
export function changedSinceShown(label: string, deleted = false): ApplyOutcome {
  return { kind: 'changed', detail: deleted ? `${label} was deleted after the diff was shown` : `${label} changed after the diff was shown` };
}

/**
 * A file that is not UTF-8 (or is binary) is written as exact bytes in its own encoding (by `write`), if the disk still
 * holds `current`: the editor would save its own decoding of it, which for a file it reads in another encoding is not
 * the file.
 */
export async function writeExactBytes(absolute: string, current: FileSnapshot, text: string, label: string, write: (bytes: Uint8Array) => PromiseLike<void>): Promise<ApplyOutcome> {
  const bytes = await encodeForWrite(text, current.format, label);
  const now = await statOf(absolute);
  if (!now) {
    return changedSinceShown(label, true);
  }
  const onDisk = await fs.readFile(absolute);
  if (sha256Bytes(onDisk) !== current.hash) {
    return changedSinceShown(label);
  }
  await write(bytes);
  return { kind: 'written', savedToDisk: true };
}
