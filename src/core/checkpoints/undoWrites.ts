/**
 * How the undo's file port writes one file of an undo (src/vscode/undo/undoFiles.ts): checked first against the
 * version the undo was planned on, then written as exact bytes in its own encoding (a file not in UTF-8, with no
 * unsaved changes in an editor), deleted, created, or replaced in its editor.
 */
import { sha256 } from '../approval/hash';
import type { FileFormat, TextFormat } from '../files/encoding';
import type { FileWrite } from './undoRunner';

export type UndoWrite =
  | { kind: 'changed' }
  | { kind: 'bytes'; text: string; format: TextFormat }
  | { kind: 'delete' }
  | { kind: 'create' | 'replace'; text: string };

/** `now`: the file as the editor reads it now (an unsaved buffer first); `dirty`: it has unsaved changes. */
export function undoWriteOf(write: FileWrite, now: { exists: boolean; text: string; format: FileFormat }, dirty: boolean): UndoWrite {
  // The undo plans on texts: compare the text now with the one it planned on.
  if (now.exists !== write.expected.exists || (now.exists && (now.format.kind === 'binary' || sha256(now.text) !== write.expected.hash))) {
    return { kind: 'changed' };
  }
  if (write.text !== null && now.exists && now.format.kind === 'text' && !['utf8', 'utf8bom'].includes(now.format.encoding) && !dirty) {
    return { kind: 'bytes', text: write.text, format: now.format };
  }
  if (write.text === null) {
    return { kind: 'delete' };
  }
  return { kind: now.exists ? 'replace' : 'create', text: write.text };
}
