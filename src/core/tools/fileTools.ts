/**
 * The built-in file tools over the `WorkspaceFiles` port: what an edit or write would make of a file (the exact
 * text that is shown and, if allowed, written), and the read-only tools' answers.
 */
import type { ResolvedPath } from '../approval/paths';
import type { ToolArgs } from './definitions';
import { applyEdits, detectEol, withEol } from './edits';
import { ToolError, type FileSnapshot, type WorkspaceFiles } from './ports';

export interface Proposal {
  target: ResolvedPath;
  base: FileSnapshot;
  /** Exactly what will be written if allowed. */
  newText: string;
}

const maxSearchResults = 200;

export async function proposeWrite(files: WorkspaceFiles, target: ResolvedPath, args: ToolArgs<'write_file'>): Promise<Proposal> {
  const base = await files.snapshot(target.absolute);
  const newText = base.exists ? withEol(args.content, detectEol(base.text)) : args.content;
  return { target, base, newText };
}

export async function proposeEdit(files: WorkspaceFiles, target: ResolvedPath, args: ToolArgs<'edit_file'>): Promise<Proposal> {
  const base = await files.snapshot(target.absolute);
  if (!base.exists) {
    throw new ToolError(`${args.path} does not exist; use write_file to create it`, 'not-found');
  }
  const result = applyEdits(base.text, args.edits, args.path);
  if (!result.ok) {
    throw new ToolError(result.error, 'no-match');
  }
  return { target, base, newText: result.text };
}

export async function readFileText(files: WorkspaceFiles, target: ResolvedPath): Promise<string> {
  const snapshot = await files.snapshot(target.absolute);
  if (!snapshot.exists) {
    throw new ToolError(`${target.input} does not exist`, 'not-found');
  }
  return snapshot.text;
}

export async function listFolder(files: WorkspaceFiles, target: ResolvedPath): Promise<string> {
  const entries = await files.list(target.absolute);
  if (!Array.isArray(entries)) {
    throw new ToolError(entries.kind === 'not-found' ? `${target.input} does not exist` : `${target.input} is a file, not a folder`, entries.kind);
  }
  return entries.length === 0 ? '(empty folder)' : entries.join('\n');
}

export async function searchFolder(files: WorkspaceFiles, target: ResolvedPath, query: string, signal?: AbortSignal): Promise<string> {
  const results = await files.search(target.absolute, query, maxSearchResults, signal);
  if (results.length === 0) {
    return `no matches for ${JSON.stringify(query)}`;
  }
  return results.length >= maxSearchResults ? `${results.join('\n')}\n(stopped at ${maxSearchResults} matches)` : results.join('\n');
}
