/**
 * What a finished task changed, file by file, for the chat: the list at its end, the pick of the latest task's files,
 * and each file's diff of its text before and after (the task's, or one finished call's). Both texts are read from
 * the task's checkpoints, never from a path the webview names. The editor opens them: src/vscode/documents/
 * taskChangeDocuments.ts.
 */
import { fileCount, landedFiles } from './landedUnreviewed';
import type { TaskRef } from './recorder';
import type { CheckpointStore } from './store';
import { latestTaskChanges, taskChanges, turnFileChange, type TaskChanges, type TaskFileChange } from './taskChanges';

/** A diff to open: each side's text (null: no file) and its tab's folder, the file, and the diff's title. */
export interface ChangeDiff {
  file: string;
  sides: [string, string];
  before: string | null;
  after: string | null;
  title: string;
}

/** One line of the pick: a changed file (with its diff), a separator, or a file that landed without review. */
export interface ChangePickItem {
  label: string;
  description?: string;
  separator?: true;
  file: TaskFileChange | undefined;
}

export class TaskChangeDiffs {
  constructor(private readonly store: Pick<CheckpointStore, 'load' | 'tasks'>) {}

  /** What the task changed; undefined when no checkpoints were kept for it. */
  async changes(task: Pick<TaskRef, 'chatId' | 'taskId'>): Promise<TaskChanges | undefined> {
    const loaded = await this.store.load(task.chatId, task.taskId);
    return loaded.kind === 'ok' ? taskChanges(loaded.task) : undefined;
  }

  /**
   * The pick of the chat's latest task with changes: the files it changed, and what landed without review (no diff:
   * nothing holds its before). Undefined when no task of the chat has a change left.
   */
  async latestPick(chatId: string): Promise<{ taskId: string; title: string; items: ChangePickItem[] } | undefined> {
    const latest = await latestTaskChanges(this.store, chatId);
    if (latest === undefined) {
      return undefined;
    }
    const { task, changes } = latest;
    const unseen = changes.unreviewed.map((group) => ({
      label: group.path,
      description: `${fileCount(group.files)}: landed without review, no diff to open`,
      file: undefined,
    }));
    const count = changes.files.length + landedFiles(changes.unreviewed) + changes.unreviewedMore;
    return {
      taskId: task.taskId,
      title: `Toolgate: what "${task.title ?? 'the latest task'}" changed (${fileCount(count)})`,
      items: [
        ...changes.files.map((file) => ({
          label: file.shown,
          description: `+${file.added} −${file.removed}${file.kind === 'modified' ? '' : file.kind === 'created' ? ' created' : ' removed'}`,
          file,
        })),
        ...(unseen.length > 0 ? [{ label: 'Landed without review', separator: true as const, file: undefined }, ...unseen] : []),
      ],
    };
  }

  /** What one finished write or edit changed (its file in its model turn), or why it cannot be shown. */
  async callDiff(call: { chatId: string; taskId: string; turn: number; file: string }): Promise<ChangeDiff | { ok: false; error: string }> {
    const loaded = await this.store.load(call.chatId, call.taskId);
    const change = loaded.kind === 'ok' ? turnFileChange(loaded.task, call.turn, call.file) : undefined;
    if (change === undefined) {
      return { ok: false, error: `the checkpoints no longer hold the change to ${call.file} (dropped to stay within toolgate.checkpoints.maxMegabytes, or never kept)` };
    }
    return { file: change.shown, sides: ['before the call', 'after the call'], before: change.before, after: change.after, title: `${change.shown}: what this call changed` };
  }

  /** What the task changed in `file`; refused when the checkpoints no longer hold it (dropped, undone). */
  async fileDiff(chatId: string, taskId: string, file: string): Promise<ChangeDiff | { ok: false; error: string }> {
    const change = (await this.changes({ chatId, taskId }))?.files.find((candidate) => candidate.shown === file);
    if (change === undefined) {
      return { ok: false, error: `the checkpoints no longer hold ${file} of this task (undone, or dropped to stay within toolgate.checkpoints.maxMegabytes)` };
    }
    const what = change.kind === 'created' ? 'created by the task' : change.kind === 'deleted' ? 'removed by the task' : 'what the task changed';
    return { file, sides: ['before the task', 'after the task'], before: change.before, after: change.after, title: `${file}: ${what}` };
  }
}
