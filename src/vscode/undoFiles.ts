/**
 * The undo's file port in VS Code: reads as the file tools do (an open editor's unsaved text first, else the disk),
 * and writes every file of one undo in ONE WorkspaceEdit (create, delete, replace), so Edit > Undo takes the whole
 * undo back. Each file is checked against the version the undo was planned on just before the edit is built; an open
 * document is edited in its buffer and saved only if it had no unsaved changes before, as the agent's writes are.
 */
import * as vscode from 'vscode';
import type { ApplyResult, FileWrite, UndoFiles } from '../core/checkpoints/undoRunner';
import { documentInSync, VsCodeWorkspaceFiles } from './workspaceFiles';

const metadata: vscode.WorkspaceEditEntryMetadata = { label: "Toolgate: undo the agent's changes", needsConfirmation: false };

export class WorkspaceUndoFiles implements UndoFiles {
  private readonly files = new VsCodeWorkspaceFiles();

  constructor(private readonly warn: (message: string) => void) {}

  async read(path: string): Promise<string | null> {
    const now = await this.files.snapshot(path);
    return now.exists ? now.text : null;
  }

  async apply(writes: readonly FileWrite[]): Promise<ApplyResult> {
    const edit = new vscode.WorkspaceEdit();
    const toSave: vscode.TextDocument[] = [];
    for (const write of writes) {
      const uri = vscode.Uri.file(write.path);
      const now = await this.files.snapshot(write.path);
      if (now.exists !== write.expected.exists || (now.exists && now.hash !== write.expected.hash)) {
        return { kind: 'changed', path: write.relativePath ?? write.path };
      }
      if (write.text === null) {
        edit.deleteFile(uri, { ignoreIfNotExists: true }, metadata);
        continue;
      }
      if (!now.exists) {
        edit.createFile(uri, { overwrite: false, contents: new TextEncoder().encode(write.text) }, metadata);
        continue;
      }
      const doc = await vscode.workspace.openTextDocument(uri);
      const wasDirty = doc.isDirty;
      if (!(wasDirty ? doc.getText() === now.text : await documentInSync(doc, now.text))) {
        return { kind: 'changed', path: write.relativePath ?? write.path };
      }
      edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), write.text, metadata);
      if (!wasDirty) {
        toSave.push(doc);
      }
    }
    if (!(await vscode.workspace.applyEdit(edit))) {
      return { kind: 'refused', message: 'VS Code refused the edit' };
    }
    for (const doc of toSave) {
      if (!(await doc.save())) {
        this.warn(`undo: ${vscode.workspace.asRelativePath(doc.uri)} was put back in its editor but could not be saved`);
      }
    }
    return { kind: 'applied' };
  }
}
