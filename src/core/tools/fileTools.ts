/**
 * The built-in file tools over the `WorkspaceFiles` port: what an edit or write would make of a file (the exact
 * text that is shown and, if allowed, written), and the read-only tools' answers.
 */
import type { ResolvedPath } from '../approval/paths';
import { describeFormat, encodeText, sha256Bytes, UnencodableText, utf8Format } from '../files/encoding';
import type { ToolArgs } from '../toolDefinitions';
import { detectEol, withEol } from '../diff/lines';
import { applyEdits } from './edits';
import { ToolError, type FileSnapshot, type WorkspaceFiles } from './ports';

export interface Proposal {
  target: ResolvedPath;
  base: FileSnapshot;
  /** Exactly what will be written if allowed. */
  newText: string;
}

const maxSearchResults = 200;

/** Refuses, before anyone is asked, content the file's encoding cannot hold (it would be written as `?`). */
async function checkEncodable(proposal: Proposal): Promise<Proposal> {
  const format = proposal.base.format.kind === 'text' ? proposal.base.format : utf8Format;
  try {
    await encodeText(proposal.newText, format);
  } catch (error) {
    if (error instanceof UnencodableText) {
      throw new ToolError(
        `${proposal.target.input} is ${error.message}, so the change cannot be written without changing other bytes; use characters it has`,
        'unencodable',
      );
    }
    throw error;
  }
  return proposal;
}

export async function proposeWrite(files: WorkspaceFiles, target: ResolvedPath, args: ToolArgs<'write_file'>): Promise<Proposal> {
  const base = await files.snapshot(target.absolute);
  // A binary file is replaced whole by the new text, as given.
  const newText = base.exists && base.format.kind === 'text' ? withEol(args.content, detectEol(base.text)) : args.content;
  return await checkEncodable({ target, base, newText });
}

export async function proposeEdit(files: WorkspaceFiles, target: ResolvedPath, args: ToolArgs<'edit_file'>): Promise<Proposal> {
  const base = await files.snapshot(target.absolute);
  if (!base.exists) {
    throw new ToolError(`${args.path} does not exist; use write_file to create it`, 'not-found');
  }
  if (base.format.kind === 'binary') {
    throw new ToolError(`${args.path} is a binary file (${base.format.size} bytes), which edit_file cannot edit; write_file replaces it whole`, 'binary');
  }
  const result = applyEdits(base.text, args.edits, args.path);
  if (!result.ok) {
    throw new ToolError(result.error, 'no-match');
  }
  return await checkEncodable({ target, base, newText: result.text });
}

export async function readFileText(files: WorkspaceFiles, target: ResolvedPath): Promise<string> {
  const snapshot = await files.snapshot(target.absolute);
  if (!snapshot.exists) {
    throw new ToolError(`${target.input} does not exist`, 'not-found');
  }
  if (snapshot.format.kind === 'binary') {
    throw new ToolError(`${target.input} is ${describeFormat(snapshot.format)}, not text; read_file shows text files only`, 'binary');
  }
  return snapshot.text;
}

/** What the card says of a file that is not plain UTF-8: its encoding kept, or the binary file replaced whole. */
export async function formatNote(proposal: Proposal): Promise<string | undefined> {
  const { base } = proposal;
  if (!base.exists) {
    return undefined;
  }
  if (base.format.kind === 'binary') {
    const after = await encodeText(proposal.newText, utf8Format);
    return (
      `Replaces a binary file whole: ${base.format.size.toLocaleString('en-US')} bytes (sha256 ${base.hash.slice(0, 12)}…) become ` +
      `${after.length.toLocaleString('en-US')} bytes of UTF-8 text (sha256 ${sha256Bytes(after).slice(0, 12)}…). Undo cannot bring the binary file back.`
    );
  }
  if (base.format.encoding === 'utf8' && !base.format.bom) {
    return undefined;
  }
  return `Written in the file's own encoding, ${describeFormat(base.format)}: every byte outside the change stays as it is.`;
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
