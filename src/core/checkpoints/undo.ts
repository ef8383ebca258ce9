/**
 * Agent-only undo: reverts what the agent changed in a turn or a task while keeping what the person (or a later turn)
 * changed since. For each file, newest change first, a three-way merge of (base = the agent's result, ours = the
 * file as it is now, theirs = the file before the agent's change): a clean merge is written, a conflict is shown in a
 * merge editor and nothing is overwritten. Files the agent created are deleted only if unchanged since (else the
 * person is asked). Terminal commands cannot be reverted; they are listed with the files git saw them touch, except a
 * staged command, whose text files were recorded as they landed and are reverted like edits.
 *
 * Pure: the wiring reads the current contents (`undoPaths` says which), applies the plan through WorkspaceEdit after
 * checking each file is still as planned (`current` with `checkApplyBinding`), writes the audit entry, and marks the
 * turns undone in the store.
 */
import { sha256 } from '../approval/hash';
import { merge3, type MergeConflict } from '../diff/merge3';
import type { FileVersion } from '../review/hunks';
import { describeGitStatus, type CommandGitEffect } from './gitStatus';
import { fileCount } from './landedUnreviewed';
import type { CommandRecord, FileChangeRecord, FileContent, TaskRecord, TurnRecord, UnreviewedRecord } from './schema';

/** The files' contents now, by path (null: the file does not exist). */
export type CurrentContents = ReadonlyMap<string, FileContent>;

const mergeLabels = { ours: 'current (your edits)', base: "the agent's result", theirs: "before the agent's change" };

interface FileBase {
  path: string;
  relativePath?: string;
  /** The file as it was when the plan was made: apply only onto exactly this (else plan again). */
  current: FileVersion;
  /** The turns whose changes to this file the plan covers, oldest first. */
  turns: number[];
  /** For the person and the audit log. */
  message: string;
}

export type FileUndo =
  /** Unchanged since the agent: write `content` (the text before the agent's changes). */
  | (FileBase & { kind: 'revert'; content: string })
  /** Changed since, elsewhere: write `content`, which keeps those changes. */
  | (FileBase & { kind: 'merge'; content: string })
  /** The agent removed the file and it is still missing: create it with `content`. */
  | (FileBase & { kind: 'restore'; content: string })
  /** Created by the agent and unchanged since: delete it. */
  | (FileBase & { kind: 'delete' })
  /** Nothing to write: the file already is as before the agent's changes. */
  | (FileBase & { kind: 'already-reverted' })
  /**
   * The agent's change and later changes overlap: nothing is written. Open a merge editor with `base` (the agent's
   * result), `ours` (the file now), `theirs` (the file before the agent's change) and `merged` (with conflict regions)
   * as the starting result. `remainingSteps` older changes of the file are not reverted yet (undo again after).
   */
  | (FileBase & {
      kind: 'conflict';
      merged: string;
      base: string;
      ours: string;
      theirs: string;
      conflicts: MergeConflict[];
      remainingSteps: number;
    })
  /** Created by the agent, changed since: delete only if the person confirms. */
  | (FileBase & { kind: 'confirm-delete'; currentText: string; agentResult: string; remainingSteps: number })
  /** The file existed before the agent's change and was deleted since: nothing is written; `before` can be restored by hand. */
  | (FileBase & { kind: 'deleted-since'; before: string; remainingSteps: number });

export type FileUndoKind = FileUndo['kind'];

/** A command that ran: it cannot be reverted; the person is told what git saw it touch. */
export interface CommandUndoNote {
  kind: 'not-revertible';
  turn: number;
  command: string;
  cwd: string;
  at: string;
  exitCode?: number | null;
  git?: CommandGitEffect;
  message: string;
}

/**
 * A file (or a folder's files) a staged command landed without review: nothing holds its before, so the undo keeps it,
 * and says so by name at the moment it matters.
 */
export interface UnreviewedUndoNote {
  turn: number;
  command: string;
  /** A file, or a folder's files (ends in `/`), relative to the workspace; '' for files a record only counts. */
  path: string;
  files: number;
  message: string;
}

export interface UndoPlan {
  files: FileUndo[];
  /** Newest first. */
  commands: CommandUndoNote[];
  /** What commands landed without review, oldest first: kept, named. */
  unreviewed: UnreviewedUndoNote[];
  /** Other things the person should know (dropped turns, turns already undone). */
  notes: string[];
  /** Whether applying it writes or deletes anything without asking. */
  writes: boolean;
  /** Whether something needs the person (a conflict, a confirmation, a deleted file). */
  needsAttention: boolean;
  /** A summary for the person, the audit log and the command's result. */
  text: string;
}

/** The paths whose current content `planUndo` needs, in first-change order. */
export function undoPaths(turns: readonly TurnRecord[]): string[] {
  const paths = new Set<string>();
  for (const turn of turns) {
    for (const change of turn.changes) {
      if (change.kind === 'file') {
        paths.add(change.path);
      }
    }
  }
  return [...paths];
}

interface Segment {
  before: FileContent;
  after: FileContent;
  turns: number[];
}

const sameContent = (a: FileContent, b: FileContent): boolean => a === b;

/** A file's changes, oldest first, with each run of back-to-back changes (one's result is the next one's base) joined. */
function segments(changes: readonly { turn: number; change: FileChangeRecord }[]): Segment[] {
  const out: Segment[] = [];
  for (const { turn, change } of changes) {
    const last = out[out.length - 1];
    if (last && sameContent(last.after, change.before)) {
      last.after = change.after;
      if (!last.turns.includes(turn)) {
        last.turns.push(turn);
      }
    } else {
      out.push({ before: change.before, after: change.after, turns: [turn] });
    }
  }
  return out;
}

function version(content: FileContent): FileVersion {
  return { exists: content !== null, hash: sha256(content ?? '') };
}

function planFile(path: string, relativePath: string | undefined, changes: readonly { turn: number; change: FileChangeRecord }[], now: FileContent): FileUndo {
  const name = relativePath ?? path;
  const steps = segments(changes).reverse(); // newest first
  const turns = [...new Set(changes.map(({ turn }) => turn))].sort((a, b) => a - b);
  const base = { path, ...(relativePath !== undefined ? { relativePath } : {}), current: version(now), turns };
  let content: FileContent = now;
  let merged = false;
  for (const [index, step] of steps.entries()) {
    const remainingSteps = steps.length - index - 1;
    if (step.after === null) {
      // The agent removed the file.
      if (content === null) {
        content = step.before;
        continue;
      }
      const result = merge3('', content, step.before ?? '', mergeLabels);
      if (result.kind === 'conflict') {
        return {
          ...base,
          kind: 'conflict',
          merged: result.text,
          base: '',
          ours: content,
          theirs: step.before ?? '',
          conflicts: result.conflicts,
          remainingSteps,
          message: `${name}: the agent removed it and a file was created there since; merge by hand`,
        };
      }
      content = result.text;
      merged = true;
      continue;
    }
    if (content === null) {
      if (step.before === null) {
        continue; // created by the agent and already gone
      }
      return {
        ...base,
        kind: 'deleted-since',
        before: step.before,
        remainingSteps,
        message: `${name} was deleted after the agent changed it; nothing was written (its content before the agent's change can be restored by hand)`,
      };
    }
    if (step.before === null) {
      // The agent created the file.
      if (content === step.after) {
        content = null;
        continue;
      }
      return {
        ...base,
        kind: 'confirm-delete',
        currentText: content,
        agentResult: step.after,
        remainingSteps,
        message: `${name} was created by the agent and changed since; delete it only if you confirm`,
      };
    }
    if (content === step.after) {
      content = step.before;
      continue;
    }
    if (content === step.before) {
      continue;
    }
    const result = merge3(step.after, content, step.before, mergeLabels);
    if (result.kind === 'conflict') {
      const count = result.conflicts.length;
      return {
        ...base,
        kind: 'conflict',
        merged: result.text,
        base: step.after,
        ours: content,
        theirs: step.before,
        conflicts: result.conflicts,
        remainingSteps,
        message: `${name}: ${count} place${count === 1 ? '' : 's'} where the agent's change and later edits overlap; nothing was written, merge by hand`,
      };
    }
    content = result.text;
    merged = true;
  }
  if (content === now) {
    return { ...base, kind: 'already-reverted', message: `${name}: already as before the agent's changes` };
  }
  if (content === null) {
    return { ...base, kind: 'delete', message: `${name}: created by the agent and unchanged since; deleted` };
  }
  if (now === null) {
    return { ...base, kind: 'restore', content, message: `${name}: removed by the agent; restored` };
  }
  return merged
    ? { ...base, kind: 'merge', content, message: `${name}: the agent's changes reverted; later edits kept` }
    : { ...base, kind: 'revert', content, message: `${name}: reverted to before the agent's changes` };
}

/** Whether an unstaged command left nothing that cannot be undone: every file it touched was recovered. */
function whollyRecovered(command: CommandRecord): boolean {
  const git = command.git;
  const recovered = new Set(command.recovered ?? []);
  return git?.kind === 'observed' && recovered.size > 0 && git.headBefore === git.headAfter && git.more === 0 && git.touched.every((file) => recovered.has(file.path));
}

function describeCommand(turn: number, command: CommandRecord): CommandUndoNote {
  const recovered = new Set(command.recovered ?? []);
  const lines = [
    recovered.size > 0
      ? `\`${command.command}\` (turn ${turn + 1}, in ${command.cwd}): ${recovered.size === 1 ? 'one file it changed is' : `${recovered.size} files it changed are`} reverted like edits, the rest cannot be undone`
      : `\`${command.command}\` (turn ${turn + 1}, in ${command.cwd}) cannot be undone`,
  ];
  const git = command.git;
  if (git?.kind === 'observed') {
    if (git.headBefore !== git.headAfter) {
      lines.push(`it moved HEAD from ${git.headBefore?.slice(0, 12) ?? '(no commit)'} to ${git.headAfter?.slice(0, 12) ?? '(no commit)'}`);
    }
    const touched = git.touched.filter((file) => !recovered.has(file.path));
    if (git.touched.length === 0) {
      lines.push('git saw no file change');
    } else if (touched.length > 0) {
      const files = touched.map((file) =>
        file.contentChanged === true
          ? `${file.path} (${describeGitStatus(file.after)}, changed further)`
          : `${file.path} (${describeGitStatus(file.before)} -> ${describeGitStatus(file.after)})`,
      );
      lines.push(`${recovered.size > 0 ? 'not undone' : 'git saw it touch'}: ${files.join(', ')}${git.more > 0 ? ` and ${git.more} more` : ''}`);
    }
  } else if (git?.kind === 'unavailable') {
    lines.push(`what it changed is unknown (${git.message})`);
  } else {
    lines.push('what it changed is unknown (not in a git repository)');
  }
  return {
    kind: 'not-revertible',
    turn,
    command: command.command,
    cwd: command.cwd,
    at: command.at,
    ...(command.exitCode !== undefined ? { exitCode: command.exitCode } : {}),
    ...(git !== undefined ? { git } : {}),
    message: lines.join('; '),
  };
}

/**
 * Plans reverting the agent's changes in `turns` (any order; composed oldest to newest per file and reverted newest
 * first). `current` must hold every path of `undoPaths(turns)`; a missing one is a RangeError (a wiring bug).
 */
export function planUndo(turns: readonly TurnRecord[], current: CurrentContents): UndoPlan {
  const ordered = [...turns].sort((a, b) => a.turn - b.turn);
  const byPath = new Map<string, { relativePath?: string; changes: { turn: number; change: FileChangeRecord }[] }>();
  const commands: CommandUndoNote[] = [];
  const unreviewed: UnreviewedUndoNote[] = [];
  for (const turn of ordered) {
    for (const change of turn.changes) {
      if (change.kind === 'unreviewed') {
        // Nothing holds their before: named as kept, never silently left out.
        unreviewed.push(...describeUnreviewed(turn.turn, change));
        continue;
      }
      if (change.kind === 'command') {
        // A staged command's text files are file records of their own; what of it could not be kept was said when
        // it landed.
        if (change.staged !== true && !whollyRecovered(change)) {
          commands.push(describeCommand(turn.turn, change));
        }
        continue;
      }
      let file = byPath.get(change.path);
      if (!file) {
        file = change.relativePath !== undefined ? { relativePath: change.relativePath, changes: [] } : { changes: [] };
        byPath.set(change.path, file);
      }
      file.changes.push({ turn: turn.turn, change });
    }
  }
  const files: FileUndo[] = [];
  for (const [path, file] of byPath) {
    if (!current.has(path)) {
      throw new RangeError(`planUndo: the current content of ${path} was not given`);
    }
    files.push(planFile(path, file.relativePath, file.changes, current.get(path) ?? null));
  }
  commands.reverse();
  return summarise(files, commands, [], unreviewed);
}

/** Why a path landed without review: git's own data, or an output git ignores. */
const unreviewedWhy = (path: string, files: number, command: string): string =>
  /(^|\/)\.git(\/|$)/.test(path) ? `git's own data written by \`${command}\`` : `${files === 1 && !path.endsWith('/') ? 'a git-ignored output' : 'git-ignored outputs'} of \`${command}\``;

/** "dist/bundle.js: a git-ignored output of `npm run gen`, landed without review, not kept for undo", a line per group. */
function describeUnreviewed(turn: number, record: UnreviewedRecord): UnreviewedUndoNote[] {
  const tail = 'landed without review, not kept for undo';
  const notes = record.groups.map((group) => {
    const name = group.path.endsWith('/') ? `${group.path} (${fileCount(group.files)})` : group.path;
    return { turn, command: record.command, path: group.path, files: group.files, message: `${name}: ${unreviewedWhy(group.path, group.files, record.command)}, ${tail}` };
  });
  const more = record.more ?? 0;
  return more > 0 ? [...notes, { turn, command: record.command, path: '', files: more, message: `${more.toLocaleString('en-US')} more file${more === 1 ? '' : 's'} written by \`${record.command}\`: ${tail}` }] : notes;
}

function summarise(files: FileUndo[], commands: CommandUndoNote[], notes: string[], unreviewed: UnreviewedUndoNote[]): UndoPlan {
  const writes = files.some((file) => file.kind === 'revert' || file.kind === 'merge' || file.kind === 'restore' || file.kind === 'delete');
  const needsAttention = files.some((file) => file.kind === 'conflict' || file.kind === 'confirm-delete' || file.kind === 'deleted-since');
  const text = [
    ...(files.length === 0 ? ['No file changes to undo.'] : files.map((file) => file.message)),
    ...commands.map((command) => command.message),
    ...unreviewed.map((note) => note.message),
    ...notes,
  ].join('\n');
  return { files, commands, unreviewed, notes, writes, needsAttention, text };
}

/** Plans undoing one turn of a task; its later turns' changes are kept like the person's. */
export function planTurnUndo(task: TaskRecord, turn: number, current: CurrentContents): UndoPlan {
  const record = task.turns.find((candidate) => candidate.turn === turn);
  if (!record) {
    const dropped = task.droppedTurns.includes(turn);
    return summarise([], [], [
      dropped
        ? `Turn ${turn + 1} can no longer be undone: its checkpoint was dropped to stay within the checkpoint budget.`
        : `Turn ${turn + 1} made no recorded changes.`,
    ], []);
  }
  const plan = planUndo([record], current);
  if (record.undoneAt !== undefined) {
    return summarise(plan.files, plan.commands, [...plan.notes, `Turn ${turn + 1} was already undone at ${record.undoneAt}.`], plan.unreviewed);
  }
  return plan;
}

/** The turns `planTaskUndo` covers: those not yet undone. */
export function turnsToUndo(task: TaskRecord): TurnRecord[] {
  return task.turns.filter((turn) => turn.undoneAt === undefined);
}

/** Plans undoing a whole task: all its turns not yet undone, reverted newest first. */
export function planTaskUndo(task: TaskRecord, current: CurrentContents): UndoPlan {
  const turns = turnsToUndo(task);
  const plan = planUndo(turns, current);
  const notes: string[] = [...plan.notes];
  const undone = task.turns.filter((turn) => turn.undoneAt !== undefined).map((turn) => turn.turn + 1);
  if (undone.length > 0) {
    notes.push(
      undone.length === 1
        ? `Turn ${undone.join(', ')} was already undone and is not undone again.`
        : `Turns ${undone.join(', ')} were already undone and are not undone again.`,
    );
  }
  if (task.droppedTurns.length > 0) {
    const dropped = task.droppedTurns.map((turn) => turn + 1);
    notes.push(
      `Turn${dropped.length === 1 ? '' : 's'} ${dropped.join(', ')} can no longer be undone: ${dropped.length === 1 ? 'its checkpoint was' : 'their checkpoints were'} dropped to stay within the checkpoint budget.`,
    );
  }
  return summarise(plan.files, plan.commands, notes, plan.unreviewed);
}
