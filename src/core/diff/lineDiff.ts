/**
 * A fast, bounded line diff for the approvals panel.
 *
 * 1. Both texts are split into lines (`\n` or `\r\n`); the common leading and trailing lines are set aside.
 * 2. The remaining lines are interned to integers. A line of one side that occurs nowhere in the other side can never
 *    be matched, so it is certainly removed (or added) and is left out of the alignment; this keeps the longest common
 *    subsequence and usually shrinks the problem to almost nothing (GNU diff's "discard confusing lines" idea).
 * 3. What is left is aligned exactly (a minimal diff) by the `diff` package's Myers implementation, `diffArrays`, with
 *    a small edit budget: enough for almost every edit. A larger change is cut at the lines that occur once on each
 *    side, in the same order on both (as patience diff does), and the pieces are done the same way, each within the
 *    edit budget and an overall time limit. A piece that cannot be aligned within them is shown as removed and re-added
 *    whole, and the diff gets a note. The work is bounded for any input.
 * 4. The matched line pairs become hunks with a few lines of context, numbered from 1 like a unified diff.
 *
 * Lines compare with their line ending, so a change of line ending or of the final newline is a change (as in git);
 * `DiffLine.text` never contains the line ending.
 *
 * Why not the `diff` package's own line diff (`diffLines`, `structuredPatch`): it aligns the whole file with no edit
 * budget, so a large rewrite takes far longer and a pathological one is unbounded. This uses that package for the
 * exact alignment, but only on what is left after steps 1-2, and stays bounded. `npm run bench` (the diff table)
 * times `structuredPatch` on the same 10,000-line pair as a reference.
 */
import { diffArrays } from 'diff';

export interface DiffLine {
  kind: 'context' | 'add' | 'del';
  oldLine?: number;
  newLine?: number;
  text: string;
}

/**
 * One hunk, numbered as in a unified diff: starts are 1-based, and a side with no lines in the hunk has as its start
 * the line after which the other side's lines go (0 at the top of the file).
 */
export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: DiffLine[];
}

export interface LineDiff {
  hunks: DiffHunk[];
  /** count of 'add' lines */
  added: number;
  /** count of 'del' lines */
  removed: number;
  identical: boolean;
  oldLineCount: number;
  newLineCount: number;
  /** Set when the alignment was bounded and a coarser (still correct) diff is shown. */
  note?: string;
}

export interface DiffOptions {
  /** Lines of context around each change (default 3). */
  context?: number;
  /**
   * Most insertions plus deletions spent on aligning one piece of lines found on both sides (default 1000) before
   * that piece is shown as removed and re-added. The work per piece grows with the square of this. A change needing
   * at most min(this, 256) of them is always aligned exactly (a minimal diff).
   */
  maxEditLength?: number;
}

const DEFAULT_CONTEXT = 3;
const DEFAULT_MAX_EDIT_LENGTH = 1000;
/** A safety net beside the edit length, so that no input holds the extension host for long. */
const ALIGN_TIMEOUT_MS = 1000;

/** Whether each side ends with a newline, for `formatUnified`'s "\ No newline at end of file" markers. */
const finalNewlines = new WeakMap<LineDiff, { old: boolean; new: boolean }>();

/** A change between matched lines: old lines [oldFrom, oldTo) became new lines [newFrom, newTo) (0-based). */
interface Block {
  oldFrom: number;
  oldTo: number;
  newFrom: number;
  newTo: number;
}

/** The lines of a text, each with its line ending; the last one may have none. `''` has no lines. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    if (end === -1) {
      break;
    }
    lines.push(text.slice(start, end + 1));
    start = end + 1;
  }
  if (start < text.length) {
    lines.push(text.slice(start));
  }
  return lines;
}

function withoutEnding(line: string): string {
  if (line.endsWith('\r\n')) {
    return line.slice(0, -2);
  }
  return line.endsWith('\n') ? line.slice(0, -1) : line;
}

/** A whole, non-negative option value (Infinity allowed); the default when missing or NaN. */
function count(value: number | undefined, fallback: number): number {
  return value === undefined || Number.isNaN(value) ? fallback : Math.max(0, Math.floor(value));
}

export function diffText(oldText: string, newText: string, options: DiffOptions = {}): LineDiff {
  const context = count(options.context, DEFAULT_CONTEXT);
  const maxEditLength = count(options.maxEditLength, DEFAULT_MAX_EDIT_LENGTH);
  const oldLines = splitLines(oldText);
  const newLines = splitLines(newText);
  const identical = oldText === newText;
  let blocks: Block[] = [];
  let note: string | undefined;
  if (!identical) {
    const aligned = align(oldLines, newLines, maxEditLength);
    blocks = aligned.blocks;
    if (aligned.gaveUp) {
      note =
        `The change is too large to align line by line within the limits (${maxEditLength} edits per region, ` +
        `${ALIGN_TIMEOUT_MS / 1000} s), so the part that could not be aligned is shown as removed and added whole.`;
    }
  }
  let added = 0;
  let removed = 0;
  for (const block of blocks) {
    added += block.newTo - block.newFrom;
    removed += block.oldTo - block.oldFrom;
  }
  const result: LineDiff = {
    hunks: buildHunks(blocks, oldLines, newLines, context),
    added,
    removed,
    identical,
    oldLineCount: oldLines.length,
    newLineCount: newLines.length,
  };
  if (note !== undefined) {
    result.note = note;
  }
  finalNewlines.set(result, {
    old: oldText === '' || oldText.endsWith('\n'),
    new: newText === '' || newText.endsWith('\n'),
  });
  return result;
}

/** The changed blocks, in order, and whether the aligner gave up somewhere (then that part is replaced whole). */
function align(oldLines: string[], newLines: string[], maxEditLength: number): { blocks: Block[]; gaveUp: boolean } {
  // Common prefix and suffix.
  let prefix = 0;
  const shorter = Math.min(oldLines.length, newLines.length);
  while (prefix < shorter && oldLines[prefix] === newLines[prefix]) {
    prefix++;
  }
  let oldEnd = oldLines.length;
  let newEnd = newLines.length;
  while (oldEnd > prefix && newEnd > prefix && oldLines[oldEnd - 1] === newLines[newEnd - 1]) {
    oldEnd--;
    newEnd--;
  }
  if (prefix === oldEnd || prefix === newEnd) {
    // Only insertions or only deletions (or nothing).
    const region = { oldFrom: prefix, oldTo: oldEnd, newFrom: prefix, newTo: newEnd };
    return { blocks: prefix === oldEnd && prefix === newEnd ? [] : [region], gaveUp: false };
  }

  // Intern the lines of the region to integers.
  const ids = new Map<string, number>();
  const intern = (lines: string[], from: number, to: number): Int32Array => {
    const out = new Int32Array(to - from);
    for (let i = from; i < to; i++) {
      const line = lines[i] ?? '';
      let id = ids.get(line);
      if (id === undefined) {
        id = ids.size;
        ids.set(line, id);
      }
      out[i - from] = id;
    }
    return out;
  };
  const oldIds = intern(oldLines, prefix, oldEnd);
  const newIds = intern(newLines, prefix, newEnd);
  const aligner = new Aligner(oldIds, newIds, ids.size, maxEditLength);
  aligner.run();

  // Matched pairs, mapped back to line indices, delimit the changed blocks.
  const blocks: Block[] = [];
  let lastOld = prefix - 1;
  let lastNew = prefix - 1;
  const match = (i: number, j: number): void => {
    if (i > lastOld + 1 || j > lastNew + 1) {
      blocks.push({ oldFrom: lastOld + 1, oldTo: i, newFrom: lastNew + 1, newTo: j });
    }
    lastOld = i;
    lastNew = j;
  };
  for (let k = 0; k < aligner.oldMatched.length; k++) {
    match(prefix + (aligner.oldMatched[k] ?? 0), prefix + (aligner.newMatched[k] ?? 0));
  }
  match(oldEnd, newEnd);
  return { blocks, gaveUp: aligner.gaveUp };
}

/** Edit length within which the whole region is first aligned exactly (then the diff is minimal). */
const QUICK_EDIT_LENGTH = 256;
/** A piece this small (old plus new lines) is aligned exactly rather than cut further. */
const SMALL_PIECE = 64;
/** How deep pieces are cut at unique lines before the rest of a piece is aligned exactly. */
const MAX_DEPTH = 32;

/**
 * Aligns the interned lines of two regions and records the matched pairs (indices into the regions, increasing).
 *
 * A piece of the problem is two increasing lists of line indices. For each piece: matching lines at its start and end
 * are taken; a line found nowhere on the other side of the piece can never be matched and is left out; then, for the
 * whole region, an exact alignment with a small edit budget is tried first, which is all almost every edit needs. A
 * piece that needs more is cut at the lines that occur exactly once on each side of it, in the same order on both (the
 * longest such run, as patience diff does), and the pieces between are done the same way. A piece without such lines,
 * or a small one, is aligned exactly with the full budget; if that is exceeded, or the time is up, the piece is left
 * unmatched, which shows it as removed and added whole.
 */
class Aligner {
  readonly oldMatched: number[] = [];
  readonly newMatched: number[] = [];
  gaveUp = false;
  private readonly deadline = Date.now() + ALIGN_TIMEOUT_MS;
  /** Scratch, indexed by line id: occurrences in the current piece, and the position in its new list. */
  private readonly oldCount: Int32Array;
  private readonly newCount: Int32Array;
  private readonly newPosition: Int32Array;

  constructor(
    private readonly oldIds: Int32Array,
    private readonly newIds: Int32Array,
    idCount: number,
    private readonly maxEditLength: number,
  ) {
    this.oldCount = new Int32Array(idCount);
    this.newCount = new Int32Array(idCount);
    this.newPosition = new Int32Array(idCount);
  }

  run(): void {
    const all = (length: number): number[] => Array.from({ length }, (_, i) => i);
    this.piece(all(this.oldIds.length), all(this.newIds.length), 0);
  }

  private piece(oldList: number[], newList: number[], depth: number): void {
    const { oldIds, newIds } = this;
    const same = (k: number, l: number): boolean => oldIds[oldList[k] ?? 0] === newIds[newList[l] ?? 0];
    // Matching lines at the start and at the end.
    let start = 0;
    const shorter = Math.min(oldList.length, newList.length);
    while (start < shorter && same(start, start)) {
      this.pair(oldList[start] ?? 0, newList[start] ?? 0);
      start++;
    }
    let oldStop = oldList.length;
    let newStop = newList.length;
    while (oldStop > start && newStop > start && same(oldStop - 1, newStop - 1)) {
      oldStop--;
      newStop--;
    }
    if (oldStop > start && newStop > start) {
      this.middle(oldList.slice(start, oldStop), newList.slice(start, newStop), depth);
    }
    for (let k = 0; k < oldList.length - oldStop; k++) {
      this.pair(oldList[oldStop + k] ?? 0, newList[newStop + k] ?? 0);
    }
  }

  /** A piece whose first lines differ and whose last lines differ. */
  private middle(oldAll: number[], newAll: number[], depth: number): void {
    const { oldIds, newIds, oldCount, newCount, newPosition } = this;
    for (const i of oldAll) {
      const id = oldIds[i] ?? 0;
      oldCount[id] = (oldCount[id] ?? 0) + 1;
    }
    for (const j of newAll) {
      const id = newIds[j] ?? 0;
      newCount[id] = (newCount[id] ?? 0) + 1;
    }
    // Leave out the lines that cannot be matched; note the lines that occur once on each side.
    const oldList: number[] = [];
    const oldUnique: number[] = [];
    for (const i of oldAll) {
      const id = oldIds[i] ?? 0;
      if ((newCount[id] ?? 0) > 0) {
        if (oldCount[id] === 1 && newCount[id] === 1) {
          oldUnique.push(oldList.length);
        }
        oldList.push(i);
      }
    }
    const newList: number[] = [];
    for (const j of newAll) {
      const id = newIds[j] ?? 0;
      if ((oldCount[id] ?? 0) > 0) {
        if (oldCount[id] === 1 && newCount[id] === 1) {
          newPosition[id] = newList.length;
        }
        newList.push(j);
      }
    }
    for (const i of oldAll) {
      oldCount[oldIds[i] ?? 0] = 0;
    }
    for (const j of newAll) {
      newCount[newIds[j] ?? 0] = 0;
    }
    if (oldList.length === 0 || newList.length === 0) {
      return;
    }
    if (Date.now() > this.deadline) {
      this.gaveUp = true;
      return;
    }
    if (depth === 0 && this.myers(oldList, newList, Math.min(this.maxEditLength, QUICK_EDIT_LENGTH))) {
      return;
    }
    const cuts =
      depth < MAX_DEPTH && oldList.length + newList.length > SMALL_PIECE
        ? longestIncreasing(oldUnique.map((k) => newPosition[oldIds[oldList[k] ?? 0] ?? 0] ?? 0))
        : [];
    if (cuts.length === 0) {
      if (!this.myers(oldList, newList, this.maxEditLength)) {
        this.gaveUp = true;
      }
      return;
    }
    let oldFrom = 0;
    let newFrom = 0;
    for (let c = 0; c <= cuts.length; c++) {
      const cut = cuts[c];
      const oldTo = cut === undefined ? oldList.length : (oldUnique[cut.index] ?? 0);
      const newTo = cut === undefined ? newList.length : cut.value;
      this.piece(oldList.slice(oldFrom, oldTo), newList.slice(newFrom, newTo), depth + 1);
      if (cut !== undefined) {
        this.pair(oldList[oldTo] ?? 0, newList[newTo] ?? 0);
      }
      oldFrom = oldTo + 1;
      newFrom = newTo + 1;
    }
  }

  private pair(i: number, j: number): void {
    this.oldMatched.push(i);
    this.newMatched.push(j);
  }

  /** Exact (minimal) alignment with the `diff` package, within an edit budget and the time left. */
  private myers(oldList: number[], newList: number[], budget: number): boolean {
    const timeout = this.deadline - Date.now();
    if (timeout <= 0) {
      return false;
    }
    const changes = diffArrays(
      oldList.map((i) => this.oldIds[i] ?? 0),
      newList.map((j) => this.newIds[j] ?? 0),
      { maxEditLength: budget, timeout },
    );
    if (changes === undefined) {
      return false;
    }
    let a = 0;
    let b = 0;
    for (const change of changes) {
      if (change.added) {
        b += change.count;
      } else if (change.removed) {
        a += change.count;
      } else {
        for (let k = 0; k < change.count; k++) {
          this.pair(oldList[a + k] ?? 0, newList[b + k] ?? 0);
        }
        a += change.count;
        b += change.count;
      }
    }
    return true;
  }
}

/** The longest strictly increasing subsequence of `values`, as (index, value) pairs in order (patience sorting). */
function longestIncreasing(values: number[]): { index: number; value: number }[] {
  const tails: number[] = []; // tails[n] = index of the smallest last value of an increasing run of length n + 1
  const previous = new Int32Array(values.length).fill(-1);
  for (let k = 0; k < values.length; k++) {
    const value = values[k] ?? 0;
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((values[tails[middle] ?? 0] ?? 0) < value) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    previous[k] = low > 0 ? (tails[low - 1] ?? -1) : -1;
    tails[low] = k;
  }
  const run: { index: number; value: number }[] = [];
  for (let k = tails[tails.length - 1] ?? -1; k !== -1; k = previous[k] ?? -1) {
    run.push({ index: k, value: values[k] ?? 0 });
  }
  return run.reverse();
}

function buildHunks(blocks: Block[], oldLines: string[], newLines: string[], context: number): DiffHunk[] {
  const hunks: DiffHunk[] = [];
  let first = 0;
  while (first < blocks.length) {
    // The blocks whose unchanged gaps are at most twice the context share a hunk.
    let last = first;
    for (;;) {
      const current = blocks[last];
      const next = blocks[last + 1];
      if (current === undefined || next === undefined || next.oldFrom - current.oldTo > 2 * context) {
        break;
      }
      last++;
    }
    const head = blocks[first];
    const tail = blocks[last];
    if (head === undefined || tail === undefined) {
      break;
    }
    // Lines outside blocks are matched one to one, so the context before and after is the same on both sides.
    const lead = Math.min(context, head.oldFrom, head.newFrom);
    const trail = Math.min(context, oldLines.length - tail.oldTo, newLines.length - tail.newTo);
    const oldFrom = head.oldFrom - lead;
    const newFrom = head.newFrom - lead;
    const lines: DiffLine[] = [];
    let i = oldFrom;
    let j = newFrom;
    const contextUpTo = (oldStop: number): void => {
      for (; i < oldStop; i++, j++) {
        lines.push({ kind: 'context', oldLine: i + 1, newLine: j + 1, text: withoutEnding(oldLines[i] ?? '') });
      }
    };
    for (let index = first; index <= last; index++) {
      const block = blocks[index];
      if (block === undefined) {
        continue;
      }
      contextUpTo(block.oldFrom);
      for (; i < block.oldTo; i++) {
        lines.push({ kind: 'del', oldLine: i + 1, text: withoutEnding(oldLines[i] ?? '') });
      }
      for (; j < block.newTo; j++) {
        lines.push({ kind: 'add', newLine: j + 1, text: withoutEnding(newLines[j] ?? '') });
      }
    }
    contextUpTo(tail.oldTo + trail);
    const oldCount = i - oldFrom;
    const newCount = j - newFrom;
    hunks.push({
      oldStart: oldCount === 0 ? oldFrom : oldFrom + 1,
      oldLines: oldCount,
      newStart: newCount === 0 ? newFrom : newFrom + 1,
      newLines: newCount,
      lines,
    });
    first = last + 1;
  }
  return hunks;
}

/**
 * Renders a LineDiff as unified-diff text (`@@ -a,b +c,d @@` headers, ' ', '+', '-' prefixes) for tests and logs.
 * File headers (`---`, `+++`) are written when a name is given. For a diff made by `diffText`, a line that ends its
 * text without a newline is followed by `\ No newline at end of file`, as git and GNU diff write it.
 */
export function formatUnified(diff: LineDiff, oldName?: string, newName?: string): string {
  const out: string[] = [];
  if (oldName !== undefined || newName !== undefined) {
    out.push(`--- ${oldName ?? newName ?? ''}`, `+++ ${newName ?? oldName ?? ''}`);
  }
  const endings = finalNewlines.get(diff) ?? { old: true, new: true };
  for (const hunk of diff.hunks) {
    out.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) {
      const prefix = line.kind === 'context' ? ' ' : line.kind === 'add' ? '+' : '-';
      out.push(prefix + line.text);
      const endsOld = line.kind !== 'add' && line.oldLine === diff.oldLineCount && !endings.old;
      const endsNew = line.kind !== 'del' && line.newLine === diff.newLineCount && !endings.new;
      if (endsOld || endsNew) {
        out.push('\\ No newline at end of file');
      }
    }
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
