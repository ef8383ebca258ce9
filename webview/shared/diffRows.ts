/**
 * A hunk's rows as the diff view lays them out, without a DOM: lines side by side (which removed line the added one
 * replaces), each changed line's partner, and the words that changed between the two. Tested in plain Node.
 */
import { diffWordsWithSpace } from 'diff';
import type { DiffHunkView, DiffRow } from '../../src/shared/approvals';

export type SplitCell = { no: number | null; text: string; kind: 'c' | 'a' | 'd' | 'empty' };
export type SplitPair = { left: SplitCell; right: SplitCell };

/**
 * A hunk's rows as lines side by side: a context line on both sides, and in each run of removed lines followed by added
 * ones, the i-th removed line beside the i-th added line (the one that replaces it), the longer run's rest alone.
 */
export function rowPairs(rows: readonly DiffRow[]): { left?: DiffRow; right?: DiffRow }[] {
  const pairs: { left?: DiffRow; right?: DiffRow }[] = [];
  let dels: DiffRow[] = [];
  let adds: DiffRow[] = [];
  const flush = (): void => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) {
      pairs.push({ ...(dels[i] ? { left: dels[i] } : {}), ...(adds[i] ? { right: adds[i] } : {}) });
    }
    dels = [];
    adds = [];
  };
  for (const row of rows) {
    if (row[0] === 'd') {
      if (adds.length > 0) {
        flush();
      }
      dels.push(row);
    } else if (row[0] === 'a') {
      adds.push(row);
    } else {
      flush();
      pairs.push({ left: row, right: row });
    }
  }
  flush();
  return pairs;
}

/** A hunk's side-by-side lines: each side's line number, text and kind, an `empty` cell where a side has no line. */
export function splitPairs(hunk: DiffHunkView): SplitPair[] {
  const empty: SplitCell = { no: null, text: '', kind: 'empty' };
  return rowPairs(hunk.rows).map(({ left, right }) => {
    const context = left !== undefined && left === right;
    return {
      left: left ? { no: left[1], text: left[3], kind: context ? 'c' : 'd' } : empty,
      right: right ? { no: right[2], text: right[3], kind: context ? 'c' : 'a' } : empty,
    };
  });
}

/** Each changed row's partner: the line it replaces, or that replaces it (see `rowPairs`). */
export function partners(rows: readonly DiffRow[]): Map<DiffRow, string> {
  const found = new Map<DiffRow, string>();
  for (const { left, right } of rowPairs(rows)) {
    if (left !== undefined && right !== undefined && left !== right) {
      found.set(left, right[3]);
      found.set(right, left[3]);
    }
  }
  return found;
}

/** Past this length a changed line is not diffed word by word (its whole line stays marked). */
export const maxWordDiffChars = 2_000;

/**
 * A changed line's text in pieces, each marked `changed` where it differs from the line it replaced (or that replaced
 * it): a change at the end of a long line, or of one character, is not lost in a wholly coloured row. Undefined when
 * there is no partner or the two are too long to diff: the whole line stays marked.
 */
export function wordChanges(text: string, partner: string | undefined, side: 'a' | 'd'): { text: string; changed: boolean }[] | undefined {
  if (partner === undefined || text.length + partner.length > maxWordDiffChars) {
    return undefined;
  }
  const parts = side === 'a' ? diffWordsWithSpace(partner, text) : diffWordsWithSpace(text, partner);
  return parts
    .filter((part) => (side === 'a' ? !part.removed : !part.added))
    .map((part) => ({ text: part.value, changed: part.added || part.removed }));
}
