/**
 * What a task changed, file by file: from its checkpoints, each file's text before the task's first change to it and
 * after its last, with the lines added and removed between them. Turns already undone are left out; a file the task
 * changed and then put back as it was is not listed. Pure: the chat lists these at the end of a task, and each opens
 * as a diff of the same two texts.
 */
import path from 'node:path';
import { diffText } from '../diff/lineDiff';
import type { LandedGroup } from './landedUnreviewed';
import type { FileChangeRecord, FileContent, TaskRecord } from './schema';
import type { CheckpointStore, TaskSummary } from './store';

export type TaskFileChangeKind = 'created' | 'modified' | 'deleted';

export interface TaskFileChange {
  /** The key the checkpoints know the file by (an absolute path). */
  path: string;
  /** For display: relative to the workspace folder when known. */
  shown: string;
  kind: TaskFileChangeKind;
  added: number;
  removed: number;
  /** The text before the task's first change (null: the file did not exist) and after its last (null: removed). */
  before: FileContent;
  after: FileContent;
}

export interface TaskChanges {
  files: TaskFileChange[];
  /** Terminal commands the task ran: their effects are listed only where they were recorded as file changes. */
  commands: number;
  /**
   * What its commands landed without review (ignored by the folder's repository, git's data), grouped; also of turns
   * undone since (the undo cannot revert them). A path landed twice is counted once (a folder: its larger count).
   */
  unreviewed: LandedGroup[];
  /** Files landed without review past the groups kept. */
  unreviewedMore: number;
}

export function taskChanges(task: TaskRecord): TaskChanges {
  const byPath = new Map<string, { first: FileChangeRecord; last: FileChangeRecord }>();
  let commands = 0;
  const unreviewed = new Map<string, number>();
  let unreviewedMore = 0;
  for (const turn of task.turns) {
    for (const change of turn.changes) {
      if (change.kind === 'unreviewed') {
        for (const group of change.groups) {
          unreviewed.set(group.path, Math.max(unreviewed.get(group.path) ?? 0, group.files));
        }
        unreviewedMore += change.more ?? 0;
      }
    }
    if (turn.undoneAt !== undefined) {
      continue;
    }
    for (const change of turn.changes) {
      if (change.kind === 'unreviewed') {
        continue;
      }
      if (change.kind === 'command') {
        commands += 1;
        continue;
      }
      const seen = byPath.get(change.path);
      byPath.set(change.path, { first: seen?.first ?? change, last: change });
    }
  }
  const files: TaskFileChange[] = [];
  for (const [path, { first, last }] of byPath) {
    const before = first.before;
    const after = last.after;
    if (before === after) {
      continue;
    }
    // The diff engine's bounded alignment, as the cards' diffs: a huge rewrite counts as removed and re-added.
    const counts = diffText(before ?? '', after ?? '', { context: 0 });
    files.push({
      path,
      shown: last.relativePath ?? first.relativePath ?? path,
      kind: before === null ? 'created' : after === null ? 'deleted' : 'modified',
      added: counts.added,
      removed: counts.removed,
      before,
      after,
    });
  }
  return { files, commands, unreviewed: [...unreviewed].sort(([a], [b]) => a.localeCompare(b)).map(([path, files]) => ({ path, files })), unreviewedMore };
}

/** Whether a change is of `file` as a call named it: relative to the workspace (`./` or not) or absolute. */
function names(change: FileChangeRecord, file: string): boolean {
  return change.path === file || change.relativePath === path.posix.normalize(file.replace(/\\/g, '/'));
}

/**
 * What one model turn of the task changed in `file`: its text before the turn's first change to it and after its last
 * (a finished write or edit in the chat opens this). Undefined when the checkpoints hold no such change.
 */
export function turnFileChange(task: TaskRecord, turn: number, file: string): Pick<TaskFileChange, 'before' | 'after' | 'shown'> | undefined {
  const changes = (task.turns.find((candidate) => candidate.turn === turn)?.changes ?? []).filter(
    (change): change is FileChangeRecord => change.kind === 'file' && names(change, file),
  );
  const first = changes[0];
  const last = changes.at(-1);
  return first === undefined || last === undefined ? undefined : { before: first.before, after: last.after, shown: last.relativePath ?? last.path };
}

/** Whether a task's changes list anything: a file, or what landed without review. */
export const listsChanges = (changes: TaskChanges): boolean => changes.files.length > 0 || changes.unreviewed.length > 0;

/**
 * The chat's newest task whose changes list anything (a file, or what landed without review), with them; undefined
 * when none does. Not merely the newest task with checkpoints: a later task that only ran a command, or whose turns
 * were all undone, would hide the one the transcript lists.
 */
export async function latestTaskChanges(store: Pick<CheckpointStore, 'tasks' | 'load'>, chatId: string): Promise<{ task: TaskSummary; changes: TaskChanges } | undefined> {
  for (const task of store.tasks(chatId)) {
    const loaded = await store.load(chatId, task.taskId);
    const changes = loaded.kind === 'ok' ? taskChanges(loaded.task) : undefined;
    if (changes !== undefined && listsChanges(changes)) {
      return { task, changes };
    }
  }
  return undefined;
}
