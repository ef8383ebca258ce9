/**
 * The `WorkspaceFiles` port over the real workspace. Reads see unsaved buffers and decode a file in its own encoding
 * (the editor's for an open document, else found from its bytes: src/core/files/encoding.ts); writes are checked
 * against the bytes the diff was computed from just before they are applied, edit an open dirty document in its
 * buffer instead of on disk, go through WorkspaceEdit (undoable in the editor) for UTF-8 files, and are written as
 * exact bytes in the file's own encoding otherwise, so nothing outside the change is re-encoded.
 */
import type { Stats } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { sha256 } from '../../core/approval/hash';
import { decodeFile, encodeText, sha256Bytes, UnencodableText, utf8Format, type FileFormat, type TextFormat } from '../../core/files/encoding';
import { ToolError, type ApplyOutcome, type FileSnapshot, type WorkspaceFiles } from '../../core/tools/ports';

const maxFileBytes = 10 * 1024 * 1024;
const maxSearchFileBytes = 2 * 1024 * 1024;

/**
 * Reads go to the disk through Node, not `vscode.workspace.fs`: the extension host runs where the files are, and in a
 * remote window (code-server, SSH) `workspace.fs` asks the window's renderer for each stat and read. With a busy panel
 * (200 calls arriving) each such round trip took a second, and preparing the calls waited on them.
 */
async function stat(uri: vscode.Uri): Promise<Stats | undefined> {
  try {
    return await fs.stat(uri.fsPath);
  } catch {
    return undefined;
  }
}

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
}

/** Waits (briefly) until an open, clean document has caught up with the disk. */
export async function documentInSync(doc: vscode.TextDocument, expected: string): Promise<boolean> {
  const deadline = Date.now() + 3_000;
  while (doc.getText() !== expected) {
    if (doc.isDirty || Date.now() > deadline) {
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/**
 * Saves a document the edit just changed. The document may be closed meanwhile (the decided call's diff editor closes
 * and takes it along): then the edited buffer, still open in VS Code as unsaved, is saved through a fresh handle.
 */
export async function saveDocument(doc: vscode.TextDocument): Promise<boolean> {
  try {
    return await doc.save();
  } catch (error) {
    if (!doc.isClosed) {
      throw error;
    }
  }
  return await (await vscode.workspace.openTextDocument(doc.uri)).save();
}

/** How an open document is saved: VS Code writes UTF-16 with its byte order mark. */
function documentFormat(doc: vscode.TextDocument): TextFormat {
  const encoding = doc.encoding;
  return { kind: 'text', encoding, bom: encoding === 'utf8bom' || encoding.startsWith('utf16') };
}

/** An unsaved buffer's hash: of the bytes it would be saved as (so saving it changes nothing), else of its text. */
async function bufferHash(doc: vscode.TextDocument, text: string): Promise<string> {
  try {
    return sha256Bytes(await encodeText(text, documentFormat(doc)));
  } catch {
    return sha256(`unsaved buffer:${text}`);
  }
}

/** The editor's encoding for a file: its open document's, else the `files.encoding` setting for it. */
function editorEncoding(uri: vscode.Uri, open: vscode.TextDocument | undefined): string | undefined {
  return open?.encoding ?? vscode.workspace.getConfiguration('files', uri).get<string>('encoding');
}

const isUtf8Text = (format: FileFormat): boolean => format.kind === 'text' && (format.encoding === 'utf8' || format.encoding === 'utf8bom');

async function encodeForWrite(text: string, format: FileFormat, label: string): Promise<Uint8Array> {
  try {
    // Over a binary file the new content is text of its own: UTF-8.
    return await encodeText(text, format.kind === 'text' ? format : utf8Format);
  } catch (error) {
    if (error instanceof UnencodableText) {
      throw new ToolError(`${label} is ${error.message}; nothing was written`, 'unencodable');
    }
    throw error;
  }
}

export class VsCodeWorkspaceFiles implements WorkspaceFiles {
  async snapshot(absolute: string): Promise<FileSnapshot> {
    const uri = vscode.Uri.file(absolute);
    const open = openDocument(uri);
    if (open?.isDirty) {
      const text = open.getText();
      return { exists: true, text, hash: await bufferHash(open, text), format: documentFormat(open) };
    }
    const info = await stat(uri);
    if (!info) {
      return { exists: false, text: '', hash: sha256(''), format: utf8Format };
    }
    if (info.isDirectory()) {
      throw new ToolError(`${vscode.workspace.asRelativePath(uri)} is a folder, not a file`, 'is-folder');
    }
    if (info.size > maxFileBytes) {
      throw new ToolError(`${vscode.workspace.asRelativePath(uri)} is larger than ${maxFileBytes / 1024 / 1024} MiB`, 'too-large');
    }
    // Read fresh, so a change made under us is seen even before VS Code reloads an open editor.
    const bytes = await fs.readFile(uri.fsPath);
    const decoded = await decodeFile(bytes, editorEncoding(uri, open));
    return { exists: true, text: decoded.text, hash: sha256Bytes(bytes), format: decoded.format };
  }

  async apply(absolute: string, base: FileSnapshot, text: string, label: string): Promise<ApplyOutcome> {
    const uri = vscode.Uri.file(absolute);
    const current = await this.snapshot(absolute);
    if (current.exists !== base.exists || current.hash !== base.hash) {
      return { kind: 'changed', detail: current.exists ? `${label} changed after the diff was shown` : `${label} was deleted after the diff was shown` };
    }
    const edit = new vscode.WorkspaceEdit();
    if (!current.exists) {
      edit.createFile(uri, { overwrite: false, contents: await encodeForWrite(text, utf8Format, label) });
      if (!(await vscode.workspace.applyEdit(edit))) {
        throw new ToolError(`VS Code refused to create ${label}`);
      }
      return { kind: 'written', savedToDisk: true };
    }
    const open = openDocument(uri);
    if (!open?.isDirty && !isUtf8Text(current.format)) {
      return await this.writeBytes(uri, current, text, label);
    }
    const doc = open ?? (await vscode.workspace.openTextDocument(uri));
    if (!doc.isDirty && !isUtf8Text(documentFormat(doc))) {
      // The editor reads this file in another encoding than its bytes say: write the bytes, never its decoding.
      return await this.writeBytes(uri, current, text, label);
    }
    await encodeForWrite(text, utf8Format, label); // a lone surrogate would be saved as U+FFFD: refuse it instead
    const wasDirty = doc.isDirty;
    const inSync = wasDirty ? (await bufferHash(doc, doc.getText())) === base.hash : await documentInSync(doc, current.text);
    if (!inSync) {
      return { kind: 'changed', detail: `${label} changed after the diff was shown` };
    }
    edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), text);
    if (!(await vscode.workspace.applyEdit(edit))) {
      throw new ToolError(`VS Code refused the edit of ${label}`);
    }
    if (wasDirty) {
      // The person had unsaved changes there: the edit stays in the buffer, theirs to save.
      return { kind: 'written', savedToDisk: false };
    }
    if (!(await saveDocument(doc))) {
      throw new ToolError(`${label} was edited but could not be saved`);
    }
    return { kind: 'written', savedToDisk: true };
  }

  /**
   * A file that is not UTF-8 (or is binary) is written as exact bytes in its own encoding: the editor would save its
   * own decoding of it, which for a file it reads in another encoding is not the file. An open editor reloads it.
   */
  private async writeBytes(uri: vscode.Uri, current: FileSnapshot, text: string, label: string): Promise<ApplyOutcome> {
    const bytes = await encodeForWrite(text, current.format, label);
    const now = await stat(uri);
    if (!now) {
      return { kind: 'changed', detail: `${label} was deleted after the diff was shown` };
    }
    const onDisk = await fs.readFile(uri.fsPath);
    if (sha256Bytes(onDisk) !== current.hash) {
      return { kind: 'changed', detail: `${label} changed after the diff was shown` };
    }
    await vscode.workspace.fs.writeFile(uri, bytes);
    return { kind: 'written', savedToDisk: true };
  }

  async list(absolute: string): Promise<string[] | { kind: 'not-found' | 'not-a-folder' }> {
    const uri = vscode.Uri.file(absolute);
    const info = await stat(uri);
    if (!info) {
      return { kind: 'not-found' };
    }
    if (!info.isDirectory()) {
      return { kind: 'not-a-folder' };
    }
    const entries = await fs.readdir(absolute, { withFileTypes: true });
    // A link to a folder lists as a folder, as VS Code's explorer shows it.
    const named = await Promise.all(
      entries.map(async (entry) => (entry.isDirectory() || (entry.isSymbolicLink() && (await stat(vscode.Uri.file(path.join(absolute, entry.name))))?.isDirectory() === true) ? `${entry.name}/` : entry.name)),
    );
    return named.sort((a, b) => a.replace(/\/$/, '').localeCompare(b.replace(/\/$/, '')));
  }

  async search(absolute: string, query: string, limit: number, signal?: AbortSignal): Promise<string[]> {
    const pattern = new vscode.RelativePattern(vscode.Uri.file(absolute), '**/*');
    const files = await vscode.workspace.findFiles(pattern, '{**/node_modules/**,**/.git/**}', 5000);
    const results: string[] = [];
    for (const file of files) {
      if (signal?.aborted || results.length >= limit) {
        break;
      }
      const info = await stat(file);
      if (!info || info.size > maxSearchFileBytes) {
        continue;
      }
      const decoded = await decodeFile(await fs.readFile(file.fsPath), editorEncoding(file, openDocument(file)));
      if (decoded.format.kind === 'binary') {
        continue;
      }
      decoded.text
        .split(/\r?\n/)
        .forEach((line, index) => {
          if (results.length < limit && line.includes(query)) {
            results.push(`${vscode.workspace.asRelativePath(file)}:${index + 1}: ${line.trim().slice(0, 300)}`);
          }
        });
    }
    return results;
  }
}
