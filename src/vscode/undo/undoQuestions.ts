/**
 * The undo's questions in VS Code. For a conflict: VS Code's diff editor with the file as it is now (left, live) and
 * the three-way merge with its conflict regions (right), then a modal "Keep Mine" / "Use Merge". For a file the agent
 * created and that changed since: the diff of the agent's version against the file now, then "Keep" / "Delete".
 * Dismissing a modal keeps the file: nothing is written without an answer. The texts shown live in read-only
 * documents of the `toolgate-undo` scheme, dropped once answered.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import type { ConfirmDeleteUndo, ConflictUndo, UndoQuestions } from '../../core/checkpoints/undoRunner';
import type { Disposable } from '../../core/disposable';
import { ReadOnlyTexts } from '../documents/readOnlyTexts';

export class UndoQuestionsInEditor implements UndoQuestions, Disposable {
  static readonly scheme = 'toolgate-undo';
  private readonly texts = new ReadOnlyTexts(UndoQuestionsInEditor.scheme, '(no longer shown)');

  /** A read-only document holding `text`, named like the file; `release` forgets it. */
  private document(file: string, text: string): { uri: vscode.Uri; release: () => void } {
    return this.texts.hold(text, path.basename(file));
  }

  private async showDiff(left: vscode.Uri, right: vscode.Uri, title: string): Promise<void> {
    try {
      await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
    } catch {
      // The modal still asks; its detail says what differs.
    }
  }

  async conflict(file: ConflictUndo): Promise<'keep-mine' | 'use-merge'> {
    const name = file.relativePath ?? file.path;
    const merged = this.document(file.path, file.merged);
    try {
      await this.showDiff(vscode.Uri.file(file.path), merged.uri, `${name}: yours ↔ merge without the agent's change`);
      const places = `${file.conflicts.length} place${file.conflicts.length === 1 ? '' : 's'}`;
      const older = file.remainingSteps > 0 ? ` Older changes by the agent to this file stay until you undo again.` : '';
      const answer = await vscode.window.showWarningMessage(
        `Undo: the agent's change to ${name} overlaps your later edits in ${places}.`,
        {
          modal: true,
          detail: `Keep Mine leaves the file as it is. Use Merge writes the merge shown on the right: your edits kept, the agent's change removed, and each overlap marked with conflict markers for you to resolve.${older}`,
        },
        'Use Merge',
        'Keep Mine',
      );
      return answer === 'Use Merge' ? 'use-merge' : 'keep-mine';
    } finally {
      merged.release();
    }
  }

  async confirmDelete(file: ConfirmDeleteUndo): Promise<'keep' | 'delete'> {
    const name = file.relativePath ?? file.path;
    const agent = this.document(file.path, file.agentResult);
    try {
      await this.showDiff(agent.uri, vscode.Uri.file(file.path), `${name}: as the agent created it ↔ now`);
      const answer = await vscode.window.showWarningMessage(
        `Undo: the agent created ${name}, and it was changed since.`,
        { modal: true, detail: 'Delete removes the file with those changes (Edit > Undo brings it back). Keep leaves it as it is.' },
        'Delete',
        'Keep',
      );
      return answer === 'Delete' ? 'delete' : 'keep';
    } finally {
      agent.release();
    }
  }

  dispose(): void {
    this.texts.dispose();
  }
}
