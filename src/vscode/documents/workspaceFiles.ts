/**
 * The `WorkspaceFiles` port over the real workspace. Reads see unsaved buffers and decode a file in its own encoding
 * (the editor's for an open document, else found from its bytes: src/core/files/encoding.ts); writes are checked
 * against the bytes the diff was computed from just before they are applied, edit an open dirty document in its
 * buffer instead of on disk, go through WorkspaceEdit (undoable in the editor) for UTF-8 files, and are written as
 * exact bytes in the file's own encoding otherwise, so nothing outside the change is re-encoded. What reads the disk
 * and checks a write is src/core/tools/diskReads.ts and fileWrites.ts.
 */
import * as vscode from 'vscode';
import { utf8Format } from '../../core/files/encoding';
import { diskSnapshot, listFolder, searchFiles } from '../../core/tools/diskReads';
import { bufferHash, changedSinceShown, documentFormat, encodeForWrite, isUtf8Text, writeExactBytes } from '../../core/tools/fileWrites';
import { ToolError, type ApplyOutcome, type FileSnapshot, type WorkspaceFiles } from '../../core/tools/ports';
import { whenSettled } from '../../core/whenSettled';

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
}

/** Waits (3 s at most) until an open, clean document has caught up with the disk: false if it is edited first. */
export function documentInSync(doc: vscode.TextDocument, expected: string): Promise<boolean> {
  // A reload from the disk, and an edit that makes the document dirty, are both changes of it.
  const changes = (listener: () => void): vscode.Disposable => vscode.workspace.onDidChangeTextDocument(({ document }) => document === doc && listener());
  return whenSettled(changes, () => (doc.getText() === expected ? true : doc.isDirty ? false : undefined), 3_000, false);
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

/** The editor's encoding for a file: its open document's, else the `files.encoding` setting for it. */
function editorEncoding(uri: vscode.Uri, open: vscode.TextDocument | undefined): string | undefined {
  return open?.encoding ?? vscode.workspace.getConfiguration('files', uri).get<string>('encoding');
}

export class VsCodeWorkspaceFiles implements WorkspaceFiles {
  async snapshot(absolute: string): Promise<FileSnapshot> {
    const uri = vscode.Uri.file(absolute);
    const open = openDocument(uri);
    if (open?.isDirty) {
      const text = open.getText();
      return { exists: true, text, hash: await bufferHash(text, documentFormat(open.encoding)), format: documentFormat(open.encoding) };
    }
    return await diskSnapshot(uri.fsPath, () => editorEncoding(uri, open), () => vscode.workspace.asRelativePath(uri));
  }

  async apply(absolute: string, base: FileSnapshot, text: string, label: string): Promise<ApplyOutcome> {
    const uri = vscode.Uri.file(absolute);
    const current = await this.snapshot(absolute);
    if (current.exists !== base.exists || current.hash !== base.hash) {
      return changedSinceShown(label, !current.exists);
    }
    const edit = new vscode.WorkspaceEdit();
    if (!current.exists) {
      edit.createFile(uri, { overwrite: false, contents: await encodeForWrite(text, utf8Format, label) });
      if (!(await vscode.workspace.applyEdit(edit))) {
        throw new ToolError(`VS Code refused to create ${label}`);
      }
      return { kind: 'written', savedToDisk: true };
    }
    const writeBytes = (): Promise<ApplyOutcome> => writeExactBytes(uri.fsPath, current, text, label, (bytes) => vscode.workspace.fs.writeFile(uri, bytes));
    const open = openDocument(uri);
    if (!open?.isDirty && !isUtf8Text(current.format)) {
      return await writeBytes();
    }
    const doc = open ?? (await vscode.workspace.openTextDocument(uri));
    if (!doc.isDirty && !isUtf8Text(documentFormat(doc.encoding))) {
      // The editor reads this file in another encoding than its bytes say: write the bytes, never its decoding.
      return await writeBytes();
    }
    await encodeForWrite(text, utf8Format, label); // a lone surrogate would be saved as U+FFFD: refuse it instead
    const wasDirty = doc.isDirty;
    const inSync = wasDirty ? (await bufferHash(doc.getText(), documentFormat(doc.encoding))) === base.hash : await documentInSync(doc, current.text);
    if (!inSync) {
      return changedSinceShown(label);
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

  async list(absolute: string): Promise<string[] | { kind: 'not-found' | 'not-a-folder' }> {
    return await listFolder(absolute);
  }

  async search(absolute: string, query: string, limit: number, signal?: AbortSignal): Promise<string[]> {
    const pattern = new vscode.RelativePattern(vscode.Uri.file(absolute), '**/*');
    const files = await vscode.workspace.findFiles(pattern, '{**/node_modules/**,**/.git/**}', 5000);
    const searched = files.map((file) => ({ absolute: file.fsPath, encoding: () => editorEncoding(file, openDocument(file)), shown: () => vscode.workspace.asRelativePath(file) }));
    return await searchFiles(searched, query, limit, signal);
  }
}
