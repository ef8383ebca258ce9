/**
 * The undo's file port in VS Code: reads as the file tools do (an open editor's unsaved text first, else the disk),
 * and writes every file of one undo in ONE WorkspaceEdit (create, delete, replace), so Edit > Undo takes the whole
 * undo back. Each file is checked against the version the undo was planned on just before the edit is built; an open
 * document is edited in its buffer and saved only if it had no unsaved changes before, as the agent's writes are.
 */
import * as vscode from 'vscode';
import type { ApplyResult, FileWrite, UndoFiles } from '../../core/checkpoints/undoRunner';
import { undoWriteOf } from '../../core/checkpoints/undoWrites';
import { encodeOrRefusal } from '../../core/tools/fileWrites';
import { documentInSync, saveDocument, VsCodeWorkspaceFiles } from '../documents/workspaceFiles';

const isDirty = (uri: vscode.Uri): boolean => vscode.workspace.textDocuments.some((doc) => doc.uri.toString() === uri.toString() && doc.isDirty);

const metadata: vscode.WorkspaceEditEntryMetadata = { label: "Toolgate: undo the agent's changes", needsConfirmation: false };

export class WorkspaceUndoFiles implements UndoFiles {
  private readonly files = new VsCodeWorkspaceFiles();

  constructor(private readonly warn: (message: string) => void) {}

  async read(path: string): Promise<string | null> {
    const now = await this.files.snapshot(path);
    if (now.exists && now.format.kind === 'binary') {
      throw new Error(`${vscode.workspace.asRelativePath(path)} is binary now, so it is not the text the agent left`);
    }
    return now.exists ? now.text : null;
  }

  async apply(writes: readonly FileWrite[]): Promise<ApplyResult> {
    const edit = new vscode.WorkspaceEdit();
    // Counted here: WorkspaceEdit.size counts only text edits, so an undo of deletes alone looked empty and was never
    // applied, though it was reported as done.
    let operations = 0;
    const toSave: vscode.TextDocument[] = [];
    // Files not in UTF-8 are written as exact bytes in their own encoding, after the edit (see workspaceFiles.ts).
    const byteWrites: { uri: vscode.Uri; bytes: Uint8Array }[] = [];
    for (const write of writes) {
      const uri = vscode.Uri.file(write.path);
      const now = await this.files.snapshot(write.path);
      const planned = undoWriteOf(write, now, isDirty(uri));
      if (planned.kind === 'changed') {
        return { kind: 'changed', path: write.relativePath ?? write.path };
      }
      if (planned.kind === 'bytes') {
        const bytes = await encodeOrRefusal(planned.text, planned.format, write.relativePath ?? write.path);
        if (typeof bytes === 'string') {
          return { kind: 'refused', message: bytes };
        }
        byteWrites.push({ uri, bytes });
        continue;
      }
      if (planned.kind === 'delete') {
        edit.deleteFile(uri, { ignoreIfNotExists: true }, metadata);
        operations++;
        continue;
      }
      if (planned.kind === 'create') {
        edit.createFile(uri, { overwrite: false, contents: new TextEncoder().encode(planned.text) }, metadata);
        operations++;
        continue;
      }
      const doc = await vscode.workspace.openTextDocument(uri);
      const wasDirty = doc.isDirty;
      if (!(wasDirty ? doc.getText() === now.text : await documentInSync(doc, now.text))) {
        return { kind: 'changed', path: write.relativePath ?? write.path };
      }
      edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), planned.text, metadata);
      operations++;
      if (!wasDirty) {
        toSave.push(doc);
      }
    }
    // An undo of only byte writes has an empty edit, which VS Code reports as refused.
    if (operations > 0 && !(await vscode.workspace.applyEdit(edit))) {
      return { kind: 'refused', message: 'VS Code refused the edit' };
    }
    for (const { uri, bytes } of byteWrites) {
      await vscode.workspace.fs.writeFile(uri, bytes);
    }
    for (const doc of toSave) {
      if (!(await saveDocument(doc))) {
        this.warn(`undo: ${vscode.workspace.asRelativePath(doc.uri)} was put back in its editor but could not be saved`);
      }
    }
    return { kind: 'applied' };
  }
}
