/**
 * A fast, bounded line diff for the approvals panel.
 *
 * 1. Both texts are split into lines (`\n` or `\r\n`); the common leading and trailing lines are set aside.
 * 2. The remaining lines are interned to integers. A line of one side that occurs nowhere in the other side can never
 *    be matched, so it is certainly removed (or added) and is taken out before aligning; this leaves the longest common
 *    subsequence unchanged but usually shrinks the problem to almost nothing (GNU diff calls it discarding confusing
 *    lines).
 * 3. What is left is aligned with the `diff` package's Myers implementation (`diffArrays`), bounded by an edit length
 *    and a time limit. If the bound is hit, the changed region is shown as removed and re-added, with a note.
 * 4. The matched line pairs become hunks with a few lines of context, numbered from 1 like a unified diff.
 *
 * Lines compare with their line ending, so a change of line ending or of the final newline is a change (as in git);
 * `DiffLine.text` never contains the line ending.
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
   * Most insertions plus deletions the aligner may spend on the lines that occur on both sides (default 4000) before
   * it gives up and shows the changed region as removed and re-added.
   */
  maxEditLength?: number;
}

const DEFAULT_CONTEXT = 3;
const DEFAULT_MAX_EDIT_LENGTH = 4000;
/** A safety net beside the edit length, so that no input holds the extension host for long. */
const ALIGN_TIMEOUT_MS = 2000;

/** Whether each side ends with a newline, for `formatUnified`'s "\ No newline at end of file" markers. */
const finalNewlines = new WeakMap<LineDiff, { old: boolean; new: boolean }>();

/** A change between matched lines: old lines [oldFrom, oldTo) became new lines [newFrom, newTo) (0-based). */
interface Block {
  oldFrom: number;
  oldTo: number;
  newFrom: number;
  newTo: number;
}

/** The lines of a text, each with its line ending (the last one may have none). */
function splitLines(text: string): string[] {
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

export function diffText(oldText: string, newText: string, options: DiffOptions = {}): LineDiff {
  const context = Math.max(0, Math.floor(options.context ?? DEFAULT_CONTEXT));
  const maxEditLength = Math.max(0, Math.floor(options.maxEditLength ?? DEFAULT_MAX_EDIT_LENGTH));
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
        `The texts differ too much to align line by line (more than ${maxEditLength} edits among lines found on both ` +
        'sides), so the changed region is shown as removed and added whole.';
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
  finalNewlines.set(result, { old: oldText === '' || oldText.endsWith('\n'), new: newText === '' || newText.endsWith('\n') });
  return result;
}

/** The changed blocks, in order, and whether the aligner gave up (then there is one block for the whole region). */
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
  const region: Block = { oldFrom: prefix, oldTo: oldEnd, newFrom: prefix, newTo: newEnd };
  if (prefix === oldEnd || prefix === newEnd) {
    // Pure insertion or pure deletion (or nothing, when only the line endings of equal lines could differ: they do not).
    return { blocks: region.oldFrom === region.oldTo && region.newFrom === region.newTo ? [] : [region], gaveUp: false };
  }

  // Intern the lines of the region; count how often each occurs on each side.
  const ids = new Map<string, number>();
  const oldCounts: number[] = [];
  const newCounts: number[] = [];
  const intern = (line: string): number => {
    let id = ids.get(line);
    if (id === undefined) {
      id = ids.size;
      ids.set(line, id);
      oldCounts.push(0);
      newCounts.push(0);
    }
    return id;
  };
  const oldIds = new Int32Array(oldEnd - prefix);
  for (let i = prefix; i < oldEnd; i++) {
    const id = intern(oldLines[i] ?? '');
    oldIds[i - prefix] = id;
    oldCounts[id] = (oldCounts[id] ?? 0) + 1;
  }
  const newIds = new Int32Array(newEnd - prefix);
  for (let j = prefix; j < newEnd; j++) {
    const id = intern(newLines[j] ?? '');
    newIds[j - prefix] = id;
    newCounts[id] = (newCounts[id] ?? 0) + 1;
  }

  // Keep only the lines that occur on the other side too; remember where each kept line came from.
  const oldKept: number[] = [];
  const oldAt: number[] = [];
  for (let i = 0; i < oldIds.length; i++) {
    const id = oldIds[i] ?? 0;
    if ((newCounts[id] ?? 0) > 0) {
      oldKept.push(id);
      oldAt.push(prefix + i);
    }
  }
  const newKept: number[] = [];
  const newAt: number[] = [];
  for (let j = 0; j < newIds.length; j++) {
    const id = newIds[j] ?? 0;
    if ((oldCounts[id] ?? 0) > 0) {
      newKept.push(id);
      newAt.push(prefix + j);
    }
  }

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
  if (oldKept.length > 0 && newKept.length > 0) {
    const changes = diffArrays(oldKept, newKept, { maxEditLength, timeout: ALIGN_TIMEOUT_MS });
    if (changes === undefined) {
      return { blocks: [region], gaveUp: true };
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
          match(oldAt[a + k] ?? 0, newAt[b + k] ?? 0);
        }
        a += change.count;
        b += change.count;
      }
    }
  }
  match(oldEnd, newEnd);
  return { blocks, gaveUp: false };
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
