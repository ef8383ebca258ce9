/**
 * What a finished task changed, file by file, for the chat: the list at its end comes from here, and each file opens as
 * VS Code's diff of its text before the task and after it. Both texts are read from the task's checkpoints (never from
 * a path the webview names) and shown in read-only documents of the `toolgate-task` scheme.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import type { TaskRef } from '../../core/checkpoints/recorder';
import type { CheckpointStore } from '../../core/checkpoints/store';
import { fileCount, landedFiles } from '../../core/checkpoints/landedUnreviewed';
import { latestTaskChanges, taskChanges, turnFileChange, type TaskChanges } from '../../core/checkpoints/taskChanges';
import type { Disposable } from '../../core/disposable';
import type { Outcome } from '../../core/views/viewRequests';
import { ReadOnlyTexts } from './readOnlyTexts';

/** The texts of the diffs opened last: an older one, still open in an editor, then says to open it again. */
const heldTexts = 40;

export class TaskChangeDocuments implements Disposable {
  static readonly scheme = 'toolgate-task';
  private readonly texts = new ReadOnlyTexts(TaskChangeDocuments.scheme, '(No longer held: open the file again from the chat.)\n', heldTexts);

  constructor(private readonly store: Pick<CheckpointStore, 'load' | 'tasks'>) {}

  /** What the task changed; undefined when no checkpoints were kept for it. */
  async changes(task: Pick<TaskRef, 'chatId' | 'taskId'>): Promise<TaskChanges | undefined> {
    const loaded = await this.store.load(task.chatId, task.taskId);
    return loaded.kind === 'ok' ? taskChanges(loaded.task) : undefined;
  }

  /** VS Code's diff of `before` and `after` (null: no file), each side's tab named by `sides` and the file. */
  private async diff(file: string, sides: [string, string], before: string | null, after: string | null, title: string): Promise<Outcome> {
    const left = this.texts.hold(before ?? '', `${sides[0]}/${path.basename(file)}`).uri;
    const right = this.texts.hold(after ?? '', `${sides[1]}/${path.basename(file)}`).uri;
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
    return { ok: true };
  }

  /**
   * On request (the chat's title menu): the files the chat's latest task with changes changed, a picked one opened as
   * its diff; what landed without review is listed too (no diff: nothing holds its before).
   */
  async show(chatId: string): Promise<void> {
    const latest = await latestTaskChanges(this.store, chatId);
    if (latest === undefined) {
      void vscode.window.showInformationMessage('Toolgate: no task of this chat has changed a file (that is still changed: an undone one is not listed).');
      return;
    }
    const { task, changes } = latest;
    const unseen = changes.unreviewed.map((group) => ({
      label: group.path,
      description: `${fileCount(group.files)}: landed without review, no diff to open`,
      file: undefined,
    }));
    const count = changes.files.length + landedFiles(changes.unreviewed) + changes.unreviewedMore;
    const picked = await vscode.window.showQuickPick(
      [
        ...changes.files.map((file) => ({
          label: file.shown,
          description: `+${file.added} −${file.removed}${file.kind === 'modified' ? '' : file.kind === 'created' ? ' created' : ' removed'}`,
          file,
        })),
        ...(unseen.length > 0 ? [{ label: 'Landed without review', kind: vscode.QuickPickItemKind.Separator, file: undefined }, ...unseen] : []),
      ],
      { title: `Toolgate: what "${task.title ?? 'the latest task'}" changed (${fileCount(count)})`, placeHolder: 'Pick a file to see its diff: before the task, and after it' },
    );
    if (picked?.file !== undefined) {
      await this.open(chatId, task.taskId, picked.file.shown);
    }
  }

  /** Opens what one finished write or edit changed (its file in its model turn) as a diff. */
  async openCall(call: { chatId: string; taskId: string; turn: number; file: string }): Promise<Outcome> {
    const loaded = await this.store.load(call.chatId, call.taskId);
    const change = loaded.kind === 'ok' ? turnFileChange(loaded.task, call.turn, call.file) : undefined;
    if (change === undefined) {
      return { ok: false, error: `the checkpoints no longer hold the change to ${call.file} (dropped to stay within toolgate.checkpoints.maxMegabytes, or never kept)` };
    }
    return this.diff(change.shown, ['before the call', 'after the call'], change.before, change.after, `${change.shown}: what this call changed`);
  }

  /** Opens `file` of the task's changes as a diff; refused when the checkpoints no longer hold it (dropped, undone). */
  async open(chatId: string, taskId: string, file: string): Promise<Outcome> {
    const change = (await this.changes({ chatId, taskId }))?.files.find((candidate) => candidate.shown === file);
    if (change === undefined) {
      return { ok: false, error: `the checkpoints no longer hold ${file} of this task (undone, or dropped to stay within toolgate.checkpoints.maxMegabytes)` };
    }
    const what = change.kind === 'created' ? 'created by the task' : change.kind === 'deleted' ? 'removed by the task' : 'what the task changed';
    return this.diff(file, ['before the task', 'after the task'], change.before, change.after, `${file}: ${what}`);
  }

  dispose(): void {
    this.texts.dispose();
  }
}
