/**
 * The words of a staged command's landing: what became of each change (its fate), the summary the model is told, and
 * the counts the chat's entry of the command shows.
 */
import path from 'node:path';
import { groupLanded, landedWords } from '../checkpoints/landedUnreviewed';
import { describeMove, type RefMove } from '../sandbox/gitData';
import type { ConflictKind } from '../sandbox/landing';
import type { StagedChange } from '../sandbox/changeSet';

/** What became of one change, for the summary. */
export type Fate =
  /** `partial`: the person accepted some hunks of it, not all: "1 of 2 hunks; rejected: …". */
  | { kind: 'landed'; how: 'asked' | 'rule' | 'git' | 'ignored'; undoable: boolean; partial?: string }
  /** `byPerson`: the person denied it, or rejected every hunk of it. */
  | { kind: 'refused'; why: string; byPerson?: true };

export interface Outcome {
  path: string;
  fate: Fate;
  /** Landed unasked as git's data: which kind, and the refs it moved. */
  git?: { what: 'object' | 'index' | 'log' | 'scratch' | 'ref'; moves: RefMove[] };
  /** A change in `.git` that asked: why, for the summary. */
  gitAsked?: string;
}

/** What the model is told of a change that did not land, by why (a failed step: its own words). */
export const conflictWords: Record<Exclude<ConflictKind, 'failed'>, string> = {
  changed: 'changed in the workspace while the command ran',
  link: 'a folder on its path is now a symbolic link',
};
export const conflictWhy = (conflict: { kind: ConflictKind; why: string }): string => (conflict.kind === 'failed' ? conflict.why : conflictWords[conflict.kind]);

/**
 * How a change's path is shown: as the command wrote it, relative to its workspace folder (named first when there
 * are several). Never through the links on the way, which may have changed since.
 */
export function shownPath(change: Pick<StagedChange, 'folder' | 'path'>, roots: readonly string[]): string {
  return roots.length > 1 ? `${path.basename(change.folder)}/${change.path}` : change.path;
}

/** Paths in order (the kernel lists a folder in no useful order), the first `max` of them. */
function list(paths: readonly string[], max = 20): string {
  const sorted = [...paths].sort();
  return sorted.length <= max ? sorted.join(', ') : `${sorted.slice(0, max).join(', ')} and ${(sorted.length - max).toLocaleString('en-US')} more`;
}

/** The summary of what landed, for the model (and the person, in the chat's tool result). */
export function landingSummary(outcomes: readonly Outcome[], complete: boolean): string {
  if (outcomes.length === 0) {
    // Nothing to say of a command that wrote nothing in the workspace: its result stays as it was.
    return complete ? '' : 'It was stopped before its changes could be read whole; none landed.';
  }
  const landed = (how: Extract<Fate, { kind: 'landed' }>['how']): string[] =>
    outcomes.filter((entry) => entry.fate.kind === 'landed' && entry.fate.how === how).map((entry) => entry.path);
  const lines = ['Its changes to the workspace were staged and judged as writes:'];
  const partial = new Map(outcomes.flatMap((entry) => (entry.fate.kind === 'landed' && entry.fate.partial !== undefined ? [[entry.path, entry.fate.partial] as const] : [])));
  const reviewed = [...landed('rule'), ...landed('asked')].filter((path) => !partial.has(path));
  if (reviewed.length > 0) {
    lines.push(`- landed: ${list(reviewed)}`);
  }
  for (const [path, what] of [...partial].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`- landed in part: ${path} (${what})`);
  }
  const ignored = landed('ignored');
  if (ignored.length > 0) {
    // Named, so the model never says the person accepted what nobody saw.
    lines.push(`- landed without review, unseen by the person (the folder's repository ignores them): ${landedWords(groupLanded(ignored))}`);
  }
  lines.push(...gitSummary(outcomes));
  const notUndoable = outcomes.filter((entry) => entry.fate.kind === 'landed' && !entry.fate.undoable && (entry.fate.how === 'rule' || entry.fate.how === 'asked')).map((entry) => entry.path);
  if (notUndoable.length > 0) {
    lines.push(`- cannot be undone (binary, link or mode changes): ${list(notUndoable)}`);
  }
  const refusals = outcomes.filter((entry): entry is Outcome & { fate: { kind: 'refused' } } => entry.fate.kind === 'refused');
  const byWhy = new Map<string, string[]>();
  for (const entry of refusals) {
    byWhy.set(entry.fate.why, [...(byWhy.get(entry.fate.why) ?? []), entry.path]);
  }
  for (const [why, paths] of byWhy) {
    lines.push(`- NOT landed (${why}): ${list(paths)}`);
  }
  if (!complete) {
    lines.push('- it was stopped before the stage could be read whole: deletions inside folders it removed and made again may be missing');
  }
  return lines.join('\n');
}

/**
 * What became of a staged command's changes, counted for the chat's entry of the command ("landed 5 files, rejected
 * 2"), so the person sees it without opening the result: reviewed files that landed whole and in part, those the
 * person rejected, those that could not land, and files that landed without review (git ignores them). Git's own data
 * in `.git` is not counted.
 */
export interface LandedCounts {
  landed: number;
  partly: number;
  rejected: number;
  notLanded: number;
  withoutReview: number;
}

export interface LandingReport {
  /** For the model (and the person, in the chat's tool result); '' when the command changed nothing in the workspace. */
  summary: string;
  counts: LandedCounts;
}

export function landedCounts(outcomes: readonly Pick<Outcome, 'fate' | 'git'>[]): LandedCounts {
  const counts: LandedCounts = { landed: 0, partly: 0, rejected: 0, notLanded: 0, withoutReview: 0 };
  for (const { fate, git } of outcomes) {
    if (fate.kind === 'refused') {
      counts[fate.byPerson === true ? 'rejected' : 'notLanded'] += 1;
    } else if (fate.how === 'ignored') {
      counts.withoutReview += 1;
    } else if (fate.how !== 'git' && git === undefined) {
      counts[fate.partial !== undefined ? 'partly' : 'landed'] += 1;
    }
  }
  return counts;
}

/** What happened in `.git`: git's data that landed unasked by kind, the refs it moved, and what asked and why. */
function gitSummary(outcomes: readonly Outcome[]): string[] {
  const lines: string[] = [];
  const data = outcomes.flatMap((entry) => (entry.git !== undefined && entry.fate.kind === 'landed' ? [{ path: entry.path, ...entry.git }] : []));
  const count = (what: string, one: string, many: string): string[] => {
    const n = data.filter((entry) => entry.what === what).length;
    return n === 0 ? [] : [n === 1 ? one : `${n.toLocaleString('en-US')} ${many}`];
  };
  const parts = [
    ...count('object', '1 new object', 'new objects'),
    ...count('index', 'the index', 'indexes'),
    ...count('log', '1 reflog', 'reflogs'),
    ...data.filter((entry) => entry.what === 'scratch').map((entry) => path.posix.basename(entry.path)),
    ...count('ref', '1 ref file', 'ref files'),
  ];
  if (parts.length > 0) {
    lines.push(`- git's data in .git, landed without review: ${parts.join(', ')}`);
  }
  const moves = data.flatMap((entry) => entry.moves);
  if (moves.length > 0) {
    lines.push(`- without review (no protected path changes), the command ${moves.map(describeMove).join('; ')}`);
  }
  const asked = new Map<string, string[]>();
  for (const entry of outcomes) {
    if (entry.gitAsked !== undefined) {
      asked.set(entry.gitAsked, [...(asked.get(entry.gitAsked) ?? []), entry.path]);
    }
  }
  for (const [why, paths] of asked) {
    lines.push(`- asked in .git (${why}): ${list(paths)}`);
  }
  return lines;
}
