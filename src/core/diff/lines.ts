/**
 * Lines with their endings, and the changed blocks between two texts, for code that rebuilds texts from line ranges
 * (per-hunk apply, three-way merge, stored patches). Rebuilding from these pieces is byte exact: `\n`, `\r\n`, mixed
 * endings and a missing final newline all survive, because every line keeps its own ending.
 */
import { diffText, splitLines } from './lineDiff';

export { splitLines };

export type Eol = '\n' | '\r\n';

/** A text's line ending, as its first line has it (`\n` when it has none): what an edit or a merge keeps. */
export function detectEol(text: string): Eol {
  const lf = text.indexOf('\n');
  return lf > 0 && text[lf - 1] === '\r' ? '\r\n' : '\n';
}

/** Rewrites every line ending of `text` to `eol`. */
export function withEol(text: string, eol: Eol): string {
  const normalised = text.replace(/\r\n/g, '\n');
  return eol === '\n' ? normalised : normalised.replace(/\n/g, '\r\n');
}

/** A line without its ending (`\n` or `\r\n`). */
export function stripEnding(line: string): string {
  if (line.endsWith('\r\n')) {
    return line.slice(0, -2);
  }
  return line.endsWith('\n') ? line.slice(0, -1) : line;
}

/** One change between matched lines: old lines [oldFrom, oldTo) became new lines [newFrom, newTo) (0-based). */
export interface LineChange {
  oldFrom: number;
  oldTo: number;
  newFrom: number;
  newTo: number;
}

/**
 * The changed blocks from `oldText` to `newText`, in order, from the project's bounded diff engine (`diffText` with
 * no context, so each hunk is one block). Lines compare with their endings. Between blocks the lines are equal.
 */
export function lineChanges(oldText: string, newText: string, options: { maxEditLength?: number } = {}): LineChange[] {
  if (oldText === newText) {
    return [];
  }
  const diff = diffText(oldText, newText, { context: 0, ...options });
  return diff.hunks.map((hunk) => {
    const oldFrom = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    const newFrom = hunk.newLines === 0 ? hunk.newStart : hunk.newStart - 1;
    return { oldFrom, oldTo: oldFrom + hunk.oldLines, newFrom, newTo: newFrom + hunk.newLines };
  });
}
