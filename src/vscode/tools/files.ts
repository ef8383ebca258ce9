/**
 * The file tools against the real workspace. Reads see unsaved buffers; writes go through WorkspaceEdit (undoable),
 * edit an open dirty document in its buffer instead of on disk, keep line endings and encoding, and are checked
 * against the content the diff was computed from just before they are applied.
 */
import * as vscode from 'vscode';
import { sha256 } from '../../core/approval/hash';
import type { ResolvedPath } from '../../core/approval/paths';
import { applyEdits, detectEol, withEol } from '../../core/tools/edits';
import type { ToolArgs } from '../../core/tools/definitions';

const maxFileBytes = 10 * 1024 * 1024;

export interface Snapshot {
  uri: vscode.Uri;
  exists: boolean;
  text: string;
  hash: string;
}

export class ToolError extends Error {}

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

/**
 * The text a write starts from: an open document's buffer when it has unsaved changes, else the file on disk (read
 * fresh, so a change made under us is seen even before VS Code reloads an open editor).
 */
export async function snapshot(uri: vscode.Uri): Promise<Snapshot> {
  const open = openDocument(uri);
  if (open?.isDirty) {
    const text = open.getText();
    return { uri, exists: true, text, hash: sha256(text) };
  }
  const info = await stat(uri);
  if (!info) {
    return { uri, exists: false, text: '', hash: sha256('') };
  }
  if (info.type & vscode.FileType.Directory) {
    throw new ToolError(`${vscode.workspace.asRelativePath(uri)} is a folder, not a file`);
  }
  if (info.size > maxFileBytes) {
    throw new ToolError(`${vscode.workspace.asRelativePath(uri)} is larger than ${maxFileBytes / 1024 / 1024} MiB`);
  }
  const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  return { uri, exists: true, text, hash: sha256(text) };
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

export interface Proposal {
  target: ResolvedPath;
  uri: vscode.Uri;
  base: Snapshot;
  /** Exactly what will be written if allowed. */
  newText: string;
}

export async function proposeWrite(target: ResolvedPath, args: ToolArgs<'write_file'>): Promise<Proposal> {
  const uri = vscode.Uri.file(target.absolute);
  const base = await snapshot(uri);
  const newText = base.exists ? withEol(args.content, detectEol(base.text)) : args.content;
  return { target, uri, base, newText };
}

export async function proposeEdit(target: ResolvedPath, args: ToolArgs<'edit_file'>): Promise<Proposal> {
  const uri = vscode.Uri.file(target.absolute);
  const base = await snapshot(uri);
  if (!base.exists) {
    throw new ToolError(`${args.path} does not exist; use write_file to create it`);
  }
  const result = applyEdits(base.text, args.edits, args.path);
  if (!result.ok) {
    throw new ToolError(result.error);
  }
  return { target, uri, base, newText: result.text };
}

export type ApplyOutcome = { kind: 'written'; savedToDisk: boolean } | { kind: 'changed'; detail: string };

/**
 * Writes `text` if, and only if, the file is still what the proposal was computed from. An open document is
 * edited in its buffer; it is saved only if it had no unsaved changes before.
 */
export async function applyProposal(proposal: Proposal, text: string): Promise<ApplyOutcome> {
  const current = await snapshot(proposal.uri);
  if (current.exists !== proposal.base.exists || current.hash !== proposal.base.hash) {
    return {
      kind: 'changed',
      detail: current.exists
        ? `${proposal.target.input} changed after the diff was shown`
        : `${proposal.target.input} was deleted after the diff was shown`,
    };
  }
  const edit = new vscode.WorkspaceEdit();
  if (!current.exists) {
    edit.createFile(proposal.uri, { overwrite: false, contents: new TextEncoder().encode(text) });
    if (!(await vscode.workspace.applyEdit(edit))) {
      throw new ToolError(`VS Code refused to create ${proposal.target.input}`);
    }
    return { kind: 'written', savedToDisk: true };
  }
  const doc = await vscode.workspace.openTextDocument(proposal.uri);
  const wasDirty = doc.isDirty;
  const inSync = wasDirty ? sha256(doc.getText()) === proposal.base.hash : await documentInSync(doc, current.text);
  if (!inSync) {
    return { kind: 'changed', detail: `${proposal.target.input} changed after the diff was shown` };
  }
  const fullRange = new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
  edit.replace(proposal.uri, fullRange, text);
  if (!(await vscode.workspace.applyEdit(edit))) {
    throw new ToolError(`VS Code refused the edit of ${proposal.target.input}`);
  }
  if (!wasDirty) {
    if (!(await doc.save())) {
      throw new ToolError(`${proposal.target.input} was edited but could not be saved`);
    }
    return { kind: 'written', savedToDisk: true };
  }
  return { kind: 'written', savedToDisk: false };
}

export async function readFileTool(target: ResolvedPath): Promise<string> {
  const snap = await snapshot(vscode.Uri.file(target.absolute));
  if (!snap.exists) {
    throw new ToolError(`${target.input} does not exist`);
  }
  return snap.text;
}

export async function listFilesTool(target: ResolvedPath): Promise<string> {
  const uri = vscode.Uri.file(target.absolute);
  const info = await stat(uri);
  if (!info) {
    throw new ToolError(`${target.input} does not exist`);
  }
  if (!(info.type & vscode.FileType.Directory)) {
    throw new ToolError(`${target.input} is a file, not a folder`);
  }
  const entries = await vscode.workspace.fs.readDirectory(uri);
  entries.sort(([a], [b]) => a.localeCompare(b));
  const lines = entries.map(([name, type]) => (type & vscode.FileType.Directory ? `${name}/` : name));
  return lines.length === 0 ? '(empty folder)' : lines.join('\n');
}

export async function searchTextTool(target: ResolvedPath, query: string, signal?: AbortSignal): Promise<string> {
  const maxResults = 200;
  const folder = vscode.Uri.file(target.absolute);
  const pattern = new vscode.RelativePattern(folder, '**/*');
  const files = await vscode.workspace.findFiles(pattern, '{**/node_modules/**,**/.git/**}', 5000);
  const results: string[] = [];
  for (const file of files) {
    if (signal?.aborted || results.length >= maxResults) {
      break;
    }
    const info = await stat(file);
    if (!info || info.size > 2 * 1024 * 1024) {
      continue;
    }
    const bytes = await vscode.workspace.fs.readFile(file);
    if (bytes.includes(0)) {
      continue;
    }
    const lines = new TextDecoder().decode(bytes).split(/\r?\n/);
    lines.forEach((line, index) => {
      if (results.length < maxResults && line.includes(query)) {
        results.push(`${vscode.workspace.asRelativePath(file)}:${index + 1}: ${line.trim().slice(0, 300)}`);
      }
    });
  }
  if (results.length === 0) {
    return `no matches for ${JSON.stringify(query)}`;
  }
  return results.length >= maxResults ? `${results.join('\n')}\n(stopped at ${maxResults} matches)` : results.join('\n');
}
