/**
 * The workspace's files as the `WorkspaceFiles` port reads them from the disk: a file's snapshot, a folder's entries,
 * a text search. The editor's part (an open document's unsaved buffer, which encoding it reads a file in, how a path is
 * shown) comes in as arguments: src/vscode/documents/workspaceFiles.ts.
 */
import type { Stats } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { sha256 } from '../approval/hash';
import { decodeFile, sha256Bytes, utf8Format } from '../files/encoding';
import { ToolError, type FileSnapshot } from './ports';

const maxFileBytes = 10 * 1024 * 1024;
const maxSearchFileBytes = 2 * 1024 * 1024;

/**
 * Reads go to the disk through Node, not `vscode.workspace.fs`: the extension host runs where the files are, and in a
 * remote window (code-server, SSH) `workspace.fs` asks the window's renderer for each stat and read. With a busy panel
 * (200 calls arriving) each such round trip took a second, and preparing the calls waited on them.
 */
export async function statOf(absolute: string): Promise<Stats | undefined> {
  try {
    return await fs.stat(absolute);
  } catch {
    return undefined;
  }
}

/**
 * A file as it is on disk, decoded in `encoding()` (the editor's for it) if its bytes allow; `shown()` names it in a
 * refusal. Throws ToolError for a folder or a file too large to be a write's base.
 */
export async function diskSnapshot(absolute: string, encoding: () => string | undefined, shown: () => string): Promise<FileSnapshot> {
  const info = await statOf(absolute);
  if (!info) {
    return { exists: false, text: '', hash: sha256(''), format: utf8Format };
  }
  if (info.isDirectory()) {
    throw new ToolError(`${shown()} is a folder, not a file`, 'is-folder');
  }
  if (info.size > maxFileBytes) {
    throw new ToolError(`${shown()} is larger than ${maxFileBytes / 1024 / 1024} MiB`, 'too-large');
  }
  // Read fresh, so a change made under us is seen even before VS Code reloads an open editor.
  const bytes = await fs.readFile(absolute);
  const decoded = await decodeFile(bytes, encoding());
  return { exists: true, text: decoded.text, hash: sha256Bytes(bytes), format: decoded.format };
}

/** A folder's entries, sorted, folders with a trailing `/`. */
export async function listFolder(absolute: string): Promise<string[] | { kind: 'not-found' | 'not-a-folder' }> {
  const info = await statOf(absolute);
  if (!info) {
    return { kind: 'not-found' };
  }
  if (!info.isDirectory()) {
    return { kind: 'not-a-folder' };
  }
  const entries = await fs.readdir(absolute, { withFileTypes: true });
  // A link to a folder lists as a folder, as VS Code's explorer shows it.
  const named = await Promise.all(
    entries.map(async (entry) => (entry.isDirectory() || (entry.isSymbolicLink() && (await statOf(path.join(absolute, entry.name)))?.isDirectory() === true) ? `${entry.name}/` : entry.name)),
  );
  return named.sort((a, b) => a.replace(/\/$/, '').localeCompare(b.replace(/\/$/, '')));
}

/** A file a search reads: its path, the editor's encoding for it, and how a result names it. */
export interface SearchedFile {
  absolute: string;
  encoding: () => string | undefined;
  shown: () => string;
}

/** Lines containing `query` in `files` (text files up to 2 MiB), as `shown:line: text`, at most `limit`. */
export async function searchFiles(files: readonly SearchedFile[], query: string, limit: number, signal?: AbortSignal): Promise<string[]> {
  const results: string[] = [];
  for (const file of files) {
    if (signal?.aborted || results.length >= limit) {
      break;
    }
    const info = await statOf(file.absolute);
    if (!info || info.size > maxSearchFileBytes) {
      continue;
    }
    const decoded = await decodeFile(await fs.readFile(file.absolute), file.encoding());
    if (decoded.format.kind === 'binary') {
      continue;
    }
    decoded.text
      .split(/\r?\n/)
      .forEach((line, index) => {
        if (results.length < limit && line.includes(query)) {
          results.push(`${file.shown()}:${index + 1}: ${line.trim().slice(0, 300)}`);
        }
      });
  }
  return results;
}
