/**
 * What a finished task changed, file by file, for the chat (src/core/checkpoints/taskChangeDiffs.ts): each file opens
 * as VS Code's diff of its text before the task and after it, both shown in read-only documents of the `toolgate-task`
 * scheme; the latest task's files in a quick pick.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import type { TaskRef } from '../../core/checkpoints/recorder';
import type { CheckpointStore } from '../../core/checkpoints/store';
import { TaskChangeDiffs, type ChangeDiff } from '../../core/checkpoints/taskChangeDiffs';
import type { TaskChanges } from '../../core/checkpoints/taskChanges';
import type { Disposable } from '../../core/disposable';
import type { Outcome } from '../../core/views/viewRequests';
import { ReadOnlyTexts } from './readOnlyTexts';

/** The texts of the diffs opened last: an older one, still open in an editor, then says to open it again. */
const heldTexts = 40;

export class TaskChangeDocuments implements Disposable {
  static readonly scheme = 'toolgate-task';
  private readonly texts = new ReadOnlyTexts(TaskChangeDocuments.scheme, '(No longer held: open the file again from the chat.)\n', heldTexts);
  private readonly diffs: TaskChangeDiffs;

  constructor(store: Pick<CheckpointStore, 'load' | 'tasks'>) {
    this.diffs = new TaskChangeDiffs(store);
  }

  /** What the task changed; undefined when no checkpoints were kept for it. */
  changes(task: Pick<TaskRef, 'chatId' | 'taskId'>): Promise<TaskChanges | undefined> {
    return this.diffs.changes(task);
  }

  /** VS Code's diff of a change (or why there is none), each side's tab named by its side and the file. */
  private async diff(diff: ChangeDiff | { ok: false; error: string }): Promise<Outcome> {
    if ('ok' in diff) {
      return diff;
    }
    const left = this.texts.hold(diff.before ?? '', `${diff.sides[0]}/${path.basename(diff.file)}`).uri;
    const right = this.texts.hold(diff.after ?? '', `${diff.sides[1]}/${path.basename(diff.file)}`).uri;
    await vscode.commands.executeCommand('vscode.diff', left, right, diff.title, { preview: true });
    return { ok: true };
  }

  /** On request (the chat's title menu): the files the chat's latest task with changes changed, a picked one opened. */
  async show(chatId: string): Promise<void> {
    const pick = await this.diffs.latestPick(chatId);
    if (pick === undefined) {
      void vscode.window.showInformationMessage('Toolgate: no task of this chat has changed a file (that is still changed: an undone one is not listed).');
      return;
    }
    const items = pick.items.map(({ separator, ...item }) => (separator ? { ...item, kind: vscode.QuickPickItemKind.Separator } : item));
    const picked = await vscode.window.showQuickPick(items, { title: pick.title, placeHolder: 'Pick a file to see its diff: before the task, and after it' });
    if (picked?.file !== undefined) {
      await this.open(chatId, pick.taskId, picked.file.shown);
    }
  }

  /** Opens what one finished write or edit changed (its file in its model turn) as a diff. */
  async openCall(call: { chatId: string; taskId: string; turn: number; file: string }): Promise<Outcome> {
    return this.diff(await this.diffs.callDiff(call));
  }

  /** Opens `file` of the task's changes as a diff; refused when the checkpoints no longer hold it (dropped, undone). */
  async open(chatId: string, taskId: string, file: string): Promise<Outcome> {
    return this.diff(await this.diffs.fileDiff(chatId, taskId, file));
  }

  dispose(): void {
    this.texts.dispose();
  }
}
