/**
 * The `WorkspaceFiles` port over the real workspace. Reads see unsaved buffers; writes go through WorkspaceEdit
 * (undoable), edit an open dirty document in its buffer instead of on disk, and are checked against the content the
 * diff was computed from just before they are applied.
 */
import * as vscode from 'vscode';
import { sha256 } from '../core/approval/hash';
import { ToolError, type ApplyOutcome, type FileSnapshot, type WorkspaceFiles } from '../core/tools/ports';

const maxFileBytes = 10 * 1024 * 1024;
const maxSearchFileBytes = 2 * 1024 * 1024;

async function stat(uri: vscode.Uri): Promise<vscode.FileStat | undefined> {
  try {
    return await vscode.workspace.fs.stat(uri);
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

export class VsCodeWorkspaceFiles implements WorkspaceFiles {
  async snapshot(absolute: string): Promise<FileSnapshot> {
    const uri = vscode.Uri.file(absolute);
    const open = openDocument(uri);
    if (open?.isDirty) {
      const text = open.getText();
      return { exists: true, text, hash: sha256(text) };
    }
    const info = await stat(uri);
    if (!info) {
      return { exists: false, text: '', hash: sha256('') };
    }
    if (info.type & vscode.FileType.Directory) {
      throw new ToolError(`${vscode.workspace.asRelativePath(uri)} is a folder, not a file`, 'is-folder');
    }
    if (info.size > maxFileBytes) {
      throw new ToolError(`${vscode.workspace.asRelativePath(uri)} is larger than ${maxFileBytes / 1024 / 1024} MiB`, 'too-large');
    }
    // Read fresh, so a change made under us is seen even before VS Code reloads an open editor.
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    return { exists: true, text, hash: sha256(text) };
  }

  async apply(absolute: string, base: FileSnapshot, text: string, label: string): Promise<ApplyOutcome> {
    const uri = vscode.Uri.file(absolute);
    const current = await this.snapshot(absolute);
    if (current.exists !== base.exists || current.hash !== base.hash) {
      return { kind: 'changed', detail: current.exists ? `${label} changed after the diff was shown` : `${label} was deleted after the diff was shown` };
    }
    const edit = new vscode.WorkspaceEdit();
    if (!current.exists) {
      edit.createFile(uri, { overwrite: false, contents: new TextEncoder().encode(text) });
      if (!(await vscode.workspace.applyEdit(edit))) {
        throw new ToolError(`VS Code refused to create ${label}`);
      }
      return { kind: 'written', savedToDisk: true };
    }
    const doc = await vscode.workspace.openTextDocument(uri);
    const wasDirty = doc.isDirty;
    const inSync = wasDirty ? sha256(doc.getText()) === base.hash : await documentInSync(doc, current.text);
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
    if (!(await doc.save())) {
      throw new ToolError(`${label} was edited but could not be saved`);
    }
    return { kind: 'written', savedToDisk: true };
  }

  async list(absolute: string): Promise<string[] | { kind: 'not-found' | 'not-a-folder' }> {
    const uri = vscode.Uri.file(absolute);
    const info = await stat(uri);
    if (!info) {
      return { kind: 'not-found' };
    }
    if (!(info.type & vscode.FileType.Directory)) {
      return { kind: 'not-a-folder' };
    }
    const entries = await vscode.workspace.fs.readDirectory(uri);
    entries.sort(([a], [b]) => a.localeCompare(b));
    return entries.map(([name, type]) => (type & vscode.FileType.Directory ? `${name}/` : name));
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
      const bytes = await vscode.workspace.fs.readFile(file);
      if (bytes.includes(0)) {
        continue;
      }
      new TextDecoder()
        .decode(bytes)
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
