/**
 * Per-hunk review before an edit is applied: the person accepts or rejects each hunk of the diff they were shown, and
 * what is written is the base with only the accepted hunks applied. Pure functions; the wiring keeps the hunks of the
 * diff it showed with the pending call and passes them back here (`diffText` is bounded by time, so a diff computed
 * again is not guaranteed to cut the same hunks on a busy machine).
 *
 * Hunks are numbered as `diffText` numbers them (1-based starts; a side with no lines has as its start the line after
 * which the other side's lines go) and indexed 0-based in file order. Between hunks the two texts are equal line for
 * line, endings included, so the result is built from line ranges of the two texts and keeps `\n`, `\r\n`, mixed
 * endings and the presence or absence of a final newline exactly.
 */
import { diffText, type DiffHunk, type DiffOptions } from '../diff/lineDiff';
import { splitLines, stripEnding } from '../diff/lines';

/** The numbers of a hunk, as in a unified diff header. */
export type HunkNumbers = Pick<DiffHunk, 'oldStart' | 'oldLines' | 'newStart' | 'newLines'>;

/** 0-based index of a hunk side's first line (or of the line its insertion goes before). */
function firstIndex(start: number, count: number): number {
  return count === 0 ? start : start - 1;
}

/**
 * Checks that the hunks can belong to a diff of these texts: in order, within bounds, and with equal text between
 * them. Throws a RangeError otherwise (a wiring bug: hunks of another diff).
 */
function checkHunks(baseLines: readonly string[], proposedLines: readonly string[], hunks: readonly HunkNumbers[]): void {
  let oldAt = 0;
  let newAt = 0;
  const gap = (oldTo: number, newTo: number, where: string): void => {
    if (oldTo - oldAt !== newTo - newAt) {
      throw new RangeError(`the hunks do not belong to these texts (unequal unchanged lines ${where})`);
    }
    for (let i = 0; i < oldTo - oldAt; i++) {
      if (baseLines[oldAt + i] !== proposedLines[newAt + i]) {
        throw new RangeError(`the hunks do not belong to these texts (line ${oldAt + i + 1} differs ${where})`);
      }
    }
  };
  for (const [index, hunk] of hunks.entries()) {
    const oldFrom = firstIndex(hunk.oldStart, hunk.oldLines);
    const newFrom = firstIndex(hunk.newStart, hunk.newLines);
    if (oldFrom < oldAt || newFrom < newAt || oldFrom + hunk.oldLines > baseLines.length || newFrom + hunk.newLines > proposedLines.length) {
      throw new RangeError(`the hunks do not belong to these texts (hunk ${index} is out of order or out of range)`);
    }
    gap(oldFrom, newFrom, `before hunk ${index}`);
    oldAt = oldFrom + hunk.oldLines;
    newAt = newFrom + hunk.newLines;
  }
  gap(baseLines.length, proposedLines.length, 'after the last hunk');
}

function checkIndices(accepted: ReadonlySet<number>, hunkCount: number): void {
  for (const index of accepted) {
    if (!Number.isInteger(index) || index < 0 || index >= hunkCount) {
      throw new RangeError(`no hunk ${index}: the diff has ${hunkCount}`);
    }
  }
}

/**
 * `base` with only the accepted hunks of `hunks` (the diff from `base` to `proposed`, indices 0-based in file order)
 * applied. All accepted gives exactly `proposed`; none gives exactly `base`. Throws a RangeError for an index that
 * is not a hunk or for hunks that do not belong to the two texts.
 */
export function applyHunksOf(base: string, proposed: string, hunks: readonly HunkNumbers[], accepted: ReadonlySet<number>): string {
  checkIndices(accepted, hunks.length);
  const baseLines = splitLines(base);
  const proposedLines = splitLines(proposed);
  checkHunks(baseLines, proposedLines, hunks);
  const out: string[] = [];
  let oldAt = 0;
  for (const [index, hunk] of hunks.entries()) {
    const oldFrom = firstIndex(hunk.oldStart, hunk.oldLines);
    for (; oldAt < oldFrom; oldAt++) {
      out.push(baseLines[oldAt] ?? '');
    }
    if (accepted.has(index)) {
      const newFrom = firstIndex(hunk.newStart, hunk.newLines);
      for (let j = newFrom; j < newFrom + hunk.newLines; j++) {
        out.push(proposedLines[j] ?? '');
      }
      oldAt += hunk.oldLines;
    }
  }
  for (; oldAt < baseLines.length; oldAt++) {
    out.push(baseLines[oldAt] ?? '');
  }
  return out.join('');
}

/** `applyHunksOf` with the hunks of `diffText(base, proposed, options)`. */
export function applyHunks(base: string, proposed: string, accepted: ReadonlySet<number>, options: DiffOptions = {}): string {
  return applyHunksOf(base, proposed, diffText(base, proposed, options).hunks, accepted);
}

// ---------------------------------------------------------------------------------------------------------------------
// Decisions

export interface HunkDecision {
  /** 0-based, in file order. */
  index: number;
  accepted: boolean;
  /** The person's reason for rejecting a hunk. */
  reason?: string;
}

export type HunkDecisionCheck =
  | { kind: 'ok'; accepted: Set<number>; decisions: HunkDecision[] }
  | { kind: 'unknown-hunk' | 'duplicate-decision' | 'undecided-hunk'; index: number; message: string };

/**
 * Validates decisions against the diff that was shown and completes them: one per hunk, in order. `undecided` says
 * what a hunk without a decision becomes (`allow-once` on a partly decided call accepts the rest), or that it is an
 * error.
 */
export function checkHunkDecisions(
  hunkCount: number,
  decisions: readonly HunkDecision[],
  undecided: 'accept' | 'reject' | 'error' = 'error',
): HunkDecisionCheck {
  const byIndex = new Map<number, HunkDecision>();
  for (const decision of decisions) {
    if (!Number.isInteger(decision.index) || decision.index < 0 || decision.index >= hunkCount) {
      return { kind: 'unknown-hunk', index: decision.index, message: `no hunk ${decision.index}: the diff has ${hunkCount}` };
    }
    if (byIndex.has(decision.index)) {
      return { kind: 'duplicate-decision', index: decision.index, message: `hunk ${decision.index} was decided twice` };
    }
    byIndex.set(decision.index, decision);
  }
  const complete: HunkDecision[] = [];
  for (let index = 0; index < hunkCount; index++) {
    const decision = byIndex.get(index);
    if (decision !== undefined) {
      complete.push(decision);
    } else if (undecided === 'error') {
      return { kind: 'undecided-hunk', index, message: `hunk ${index} has no decision` };
    } else {
      complete.push({ index, accepted: undecided === 'accept' });
    }
  }
  return {
    kind: 'ok',
    accepted: new Set(complete.filter((decision) => decision.accepted).map((decision) => decision.index)),
    decisions: complete,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// What the model is told

/**
 * A range of lines, numbered as in a unified diff: `start` is 1-based; an empty range (`count` 0) is the place after
 * line `start` (0 = the top of the file).
 */
export interface LineRange {
  start: number;
  count: number;
}

export interface AppliedHunk {
  kind: 'applied';
  index: number;
  /** The changed lines in the original file (context left out). */
  original: LineRange;
  /** The new lines in the file as written. */
  written: LineRange;
}

export interface RejectedHunk {
  kind: 'rejected';
  index: number;
  /** The lines the hunk would have replaced, in the original file (context left out). */
  original: LineRange;
  /** The same lines in the file as written (they are unchanged; only their numbers may have moved). */
  written: LineRange;
  /** The lines the hunk would have replaced (still in the file), without line endings. */
  kept: string[];
  /** The lines it would have written instead, without line endings. */
  rejected: string[];
  reason?: string;
}

export interface HunkDecisionReport {
  /** `none-applied`: nothing is to be written (the call is in effect denied). */
  kind: 'all-applied' | 'partly-applied' | 'none-applied';
  path: string;
  /** Every hunk, in file order. */
  hunks: (AppliedHunk | RejectedHunk)[];
  applied: number;
  rejected: number;
  /** For the model: what was applied, and each rejected change with its text and reason. */
  text: string;
}

export interface DescribeOptions {
  /** The hunks that were shown (default: `diffText(base, proposed)`'s). */
  hunks?: readonly DiffHunk[];
  /** Lines quoted per block in the text before the rest is summarised (default 60). */
  maxQuotedLines?: number;
}

function rangeText(range: LineRange): string {
  if (range.count === 0) {
    return range.start === 0 ? 'the top of the file' : `after line ${range.start}`;
  }
  return range.count === 1 ? `line ${range.start}` : `lines ${range.start}-${range.start + range.count - 1}`;
}

/** A fenced block that no backtick run inside the lines can close early. */
function quote(lines: readonly string[], maxLines: number): string {
  const shown = lines.slice(0, maxLines);
  let fence = '```';
  for (const match of shown.join('\n').matchAll(/`{3,}/g)) {
    if (match[0].length >= fence.length) {
      fence = '`'.repeat(match[0].length + 1);
    }
  }
  const more = lines.length - shown.length;
  return [fence, ...shown, fence, ...(more > 0 ? [`(${more} more line${more === 1 ? '' : 's'} not shown)`] : [])].join('\n');
}

/**
 * What the person decided hunk by hunk, for the model and as data: which hunks were applied (their lines in the file
 * as written) and, for each rejected one, its lines in the original file, the text it would have replaced, the text
 * that was not written, and the person's reason. Decisions are completed as `checkHunkDecisions(..., 'error')`
 * requires; a RangeError is thrown for decisions that do not fit the diff (validate them first).
 */
export function describeHunkDecisions(
  path: string,
  base: string,
  proposed: string,
  decisions: readonly HunkDecision[],
  options: DescribeOptions = {},
): HunkDecisionReport {
  const hunks = options.hunks ?? diffText(base, proposed).hunks;
  const check = checkHunkDecisions(hunks.length, decisions, 'error');
  if (check.kind !== 'ok') {
    throw new RangeError(check.message);
  }
  const maxQuoted = Math.max(1, options.maxQuotedLines ?? 60);
  const baseLines = splitLines(base);
  const proposedLines = splitLines(proposed);
  const reported: (AppliedHunk | RejectedHunk)[] = [];
  let shift = 0; // written line number minus original line number, from the hunks applied so far
  for (const [index, hunk] of hunks.entries()) {
    const decision = check.decisions[index] ?? { index, accepted: true };
    // The changed span: the hunk without its leading and trailing context.
    let lead = 0;
    while (lead < hunk.lines.length && hunk.lines[lead]?.kind === 'context') {
      lead++;
    }
    let trail = 0;
    while (trail < hunk.lines.length - lead && hunk.lines[hunk.lines.length - 1 - trail]?.kind === 'context') {
      trail++;
    }
    const oldFrom = firstIndex(hunk.oldStart, hunk.oldLines) + lead; // 0-based
    const oldCount = hunk.oldLines - lead - trail;
    const newFrom = firstIndex(hunk.newStart, hunk.newLines) + lead;
    const newCount = hunk.newLines - lead - trail;
    const original: LineRange = { start: oldCount === 0 ? oldFrom : oldFrom + 1, count: oldCount };
    const writtenFrom = oldFrom + shift;
    if (decision.accepted) {
      reported.push({
        kind: 'applied',
        index,
        original,
        written: { start: newCount === 0 ? writtenFrom : writtenFrom + 1, count: newCount },
      });
      shift += newCount - oldCount;
    } else {
      const rejected: RejectedHunk = {
        kind: 'rejected',
        index,
        original,
        written: { start: oldCount === 0 ? writtenFrom : writtenFrom + 1, count: oldCount },
        kept: baseLines.slice(oldFrom, oldFrom + oldCount).map(stripEnding),
        rejected: proposedLines.slice(newFrom, newFrom + newCount).map(stripEnding),
      };
      if (decision.reason !== undefined && decision.reason.trim() !== '') {
        rejected.reason = decision.reason.trim();
      }
      reported.push(rejected);
    }
  }
  const applied = reported.filter((hunk) => hunk.kind === 'applied').length;
  const rejectedCount = reported.length - applied;
  const kind = rejectedCount === 0 ? 'all-applied' : applied === 0 ? 'none-applied' : 'partly-applied';
  const total = `${reported.length} hunk${reported.length === 1 ? '' : 's'}`;
  const out: string[] = [];
  if (kind === 'all-applied') {
    out.push(`${path}: the person accepted all ${total}; the edit was written as proposed.`);
  } else if (kind === 'none-applied') {
    out.push(`${path}: the person rejected all ${total}; nothing was written and the file is unchanged.`);
  } else {
    out.push(
      `${path}: the person accepted ${applied} of ${total} and rejected ${rejectedCount}. The file was written with ` +
        'only the accepted hunks; the rejected changes are not in it. Line numbers below are of the file as written ' +
        'unless marked "originally".',
    );
  }
  for (const hunk of reported) {
    const label = `Hunk ${hunk.index + 1}`;
    if (hunk.kind === 'applied') {
      if (kind !== 'all-applied') {
        const what = hunk.written.count === 0 ? `removed originally ${rangeText(hunk.original)}` : `now ${rangeText(hunk.written)}`;
        out.push(`${label} applied: ${what}.`);
      }
      continue;
    }
    const where =
      hunk.original.count === 0
        ? `an insertion ${rangeText(hunk.original)} originally (${rangeText(hunk.written)} now)`
        : `${rangeText(hunk.written)} (originally ${rangeText(hunk.original)})`;
    out.push(`${label} rejected: ${where}.${hunk.reason !== undefined ? ` Reason: ${hunk.reason}` : ' No reason given.'}`);
    out.push(hunk.kept.length === 0 ? 'The file has no lines there.' : `The file still has:\n${quote(hunk.kept, maxQuoted)}`);
    out.push(
      hunk.rejected.length === 0
        ? 'Not written: the deletion of those lines.'
        : `Not written:\n${quote(hunk.rejected, maxQuoted)}`,
    );
  }
  return { kind, path, hunks: reported, applied, rejected: rejectedCount, text: out.join('\n') };
}

// ---------------------------------------------------------------------------------------------------------------------
// Binding

/** A file's content identity: whether it exists and the SHA-256 of its text (`sha256('')` when it does not exist). */
export interface FileVersion {
  exists: boolean;
  hash: string;
}

export type ApplyBinding =
  | { kind: 'apply' }
  | { kind: 'ask-again'; change: 'modified' | 'created' | 'deleted'; message: string };

/**
 * Whether the decided edit may be written: only onto exactly the content its diff was computed from (and hunks were
 * decided against). Otherwise nothing is written and the call asks again with a fresh diff.
 */
export function checkApplyBinding(path: string, approved: FileVersion, current: FileVersion): ApplyBinding {
  if (approved.exists === current.exists && (!current.exists || approved.hash === current.hash)) {
    return { kind: 'apply' };
  }
  const change = !approved.exists ? 'created' : !current.exists ? 'deleted' : 'modified';
  const verb = change === 'created' ? 'was created' : change === 'deleted' ? 'was deleted' : 'changed';
  return {
    kind: 'ask-again',
    change,
    message: `${path} ${verb} after the diff was shown; nothing was written, and the call asks again with a fresh diff`,
  };
}
