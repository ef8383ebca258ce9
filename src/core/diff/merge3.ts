/**
 * A line-based three-way merge (diff3), built on the project's bounded diff engine.
 *
 * The merge is the one GNU diff3 and node-diff3 make (Khanna, Kunal and Pierce's formulation): the changes from
 * `base` to `ours` and from `base` to `theirs` are laid on the base; a change that no change of the other side
 * overlaps or touches is taken; changes of both sides that overlap or touch form one region, taken when both sides
 * made the same change there and a conflict otherwise. Touching counts (as in git): two changes on adjacent lines, or
 * two insertions at the same place, are a conflict, never guessed.
 *
 * node-diff3 itself is used as the test oracle only: its Hunt–McIlroy LCS took over 30 s on a 10,000-line file with
 * 100 scattered changes (bench/review.ts), while `diffText` is bounded (an exact Myers diff within an edit budget,
 * then patience cuts, then a time limit).
 *
 * Lines keep their endings, so a clean merge is byte exact. In a conflict, the merged text carries diff3-style regions
 * (`<<<<<<<`, `|||||||`, `=======`, `>>>>>>>`) in the file's line ending; a side whose last line has no ending gets
 * one before the next marker.
 */
import { detectEol, lineChanges, splitLines, type LineChange } from './lines';

export interface MergeLabels {
  ours: string;
  base: string;
  theirs: string;
}

/** One region where the two sides disagree. Lines keep their endings. */
export interface MergeConflict {
  /** Base lines [baseFrom, baseTo) (0-based) that the region covers. */
  baseFrom: number;
  baseTo: number;
  /** 1-based line of the `<<<<<<<` marker in the merged text. */
  markerLine: number;
  ours: string[];
  base: string[];
  theirs: string[];
}

export type Merge3Result =
  | { kind: 'clean'; text: string }
  | { kind: 'conflict'; text: string; conflicts: MergeConflict[] };

const defaultLabels: MergeLabels = { ours: 'ours', base: 'base', theirs: 'theirs' };

type Side = 'ours' | 'theirs';

interface SideChange extends LineChange {
  side: Side;
}

/** A piece of the merge: lines taken as they are, or a region where both sides changed. */
type Piece =
  | { kind: 'take'; lines: string[] }
  | { kind: 'both'; baseFrom: number; baseTo: number; ours: string[]; base: string[]; theirs: string[] };

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) {
    return false;
  }
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) {
      return false;
    }
  }
  return true;
}

/** The diff3 regions of the three texts (see the file comment). */
function mergePieces(baseLines: string[], sides: Record<Side, string[]>, changes: Record<Side, LineChange[]>): Piece[] {
  const all: SideChange[] = [
    ...changes.ours.map((change) => ({ ...change, side: 'ours' as const })),
    ...changes.theirs.map((change) => ({ ...change, side: 'theirs' as const })),
  ];
  // Stable: at equal starts, ours comes first (as node-diff3 orders them).
  all.sort((x, y) => x.oldFrom - y.oldFrom);
  const pieces: Piece[] = [];
  let at = 0; // next base line not yet emitted
  let k = 0;
  while (k < all.length) {
    const first = all[k];
    if (first === undefined) {
      break;
    }
    const regionFrom = first.oldFrom;
    let regionTo = first.oldTo;
    const region: SideChange[] = [first];
    k++;
    for (let next = all[k]; next !== undefined && next.oldFrom <= regionTo; next = all[k]) {
      regionTo = Math.max(regionTo, next.oldTo);
      region.push(next);
      k++;
    }
    if (regionFrom > at) {
      pieces.push({ kind: 'take', lines: baseLines.slice(at, regionFrom) });
    }
    if (region.length === 1) {
      pieces.push({ kind: 'take', lines: sides[first.side].slice(first.newFrom, first.newTo) });
    } else {
      // Each side's lines for [regionFrom, regionTo): outside its own changes a side is aligned one to one with the
      // base, so its span is its changes' span widened by the base lines the other side's changes add around them.
      const span = (side: Side): string[] => {
        const own = region.filter((change) => change.side === side);
        const head = own[0];
        if (head === undefined) {
          return baseLines.slice(regionFrom, regionTo);
        }
        let from = head.newFrom;
        let to = head.newTo;
        let oldFrom = head.oldFrom;
        let oldTo = head.oldTo;
        for (const change of own) {
          from = Math.min(from, change.newFrom);
          to = Math.max(to, change.newTo);
          oldFrom = Math.min(oldFrom, change.oldFrom);
          oldTo = Math.max(oldTo, change.oldTo);
        }
        return sides[side].slice(from - (oldFrom - regionFrom), to + (regionTo - oldTo));
      };
      pieces.push({
        kind: 'both',
        baseFrom: regionFrom,
        baseTo: regionTo,
        ours: span('ours'),
        base: baseLines.slice(regionFrom, regionTo),
        theirs: span('theirs'),
      });
    }
    at = regionTo;
  }
  if (at < baseLines.length) {
    pieces.push({ kind: 'take', lines: baseLines.slice(at) });
  }
  return pieces;
}

/**
 * Merges the changes from `base` to `ours` and from `base` to `theirs`. Clean: the merged text. Conflict: the text
 * with conflict regions, and each region's three versions.
 */
export function merge3(base: string, ours: string, theirs: string, labels: MergeLabels = defaultLabels): Merge3Result {
  // Shortcuts that the general merge would also reach, without diffing.
  if (ours === theirs || theirs === base) {
    return { kind: 'clean', text: ours };
  }
  if (ours === base) {
    return { kind: 'clean', text: theirs };
  }
  const baseLines = splitLines(base);
  const sides = { ours: splitLines(ours), theirs: splitLines(theirs) };
  const pieces = mergePieces(baseLines, sides, { ours: lineChanges(base, ours), theirs: lineChanges(base, theirs) });
  const eol = detectEol(ours.includes('\n') ? ours : theirs.includes('\n') ? theirs : base);
  const out: string[] = [];
  let lineCount = 0;
  const conflicts: MergeConflict[] = [];
  const emit = (lines: readonly string[]): void => {
    for (const line of lines) {
      out.push(line);
    }
    lineCount += lines.length;
  };
  // Inside a conflict, every line ends, so that the next marker starts a line.
  const emitEnded = (lines: readonly string[]): void => {
    emit(lines.map((line) => (line.endsWith('\n') ? line : line + eol)));
  };
  for (const piece of pieces) {
    if (piece.kind === 'take') {
      emit(piece.lines);
      continue;
    }
    if (sameLines(piece.ours, piece.theirs)) {
      emit(piece.ours); // both sides made the same change (a "false conflict")
      continue;
    }
    // The previous line must end before a marker (a base or side line without a final newline cannot precede one,
    // except at the end of the text, which a conflict never follows; kept defensive).
    const last = out[out.length - 1];
    if (last !== undefined && !last.endsWith('\n')) {
      out[out.length - 1] = last + eol;
    }
    conflicts.push({
      baseFrom: piece.baseFrom,
      baseTo: piece.baseTo,
      markerLine: lineCount + 1,
      ours: piece.ours,
      base: piece.base,
      theirs: piece.theirs,
    });
    emit([`<<<<<<< ${labels.ours}${eol}`]);
    emitEnded(piece.ours);
    emit([`||||||| ${labels.base}${eol}`]);
    emitEnded(piece.base);
    emit([`=======${eol}`]);
    emitEnded(piece.theirs);
    emit([`>>>>>>> ${labels.theirs}${eol}`]);
  }
  const text = out.join('');
  return conflicts.length === 0 ? { kind: 'clean', text } : { kind: 'conflict', text, conflicts };
}
