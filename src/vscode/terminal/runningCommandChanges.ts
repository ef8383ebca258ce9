/**
 * "Changes so far" of a staged command that is still running (src/core/tools/runningChanges.ts) in VS Code: quick
 * picks, and each file's diff against the workspace in VS Code's diff editor. The staged texts shown live in
 * read-only documents of the `toolgate-staged` scheme, read when picked (never a path taken from a URI).
 */
import path from 'node:path';
import * as vscode from 'vscode';
import type { Disposable } from '../../core/disposable';
import type { RunningStage } from '../../core/terminal/confinedRun';
import { showRunningChanges, type RunningChangesPrompts } from '../../core/tools/runningChanges';
import { ReadOnlyTexts } from '../documents/readOnlyTexts';

export class RunningCommandChanges implements Disposable {
  static readonly scheme = 'toolgate-staged';
  // Kept while the window lives: a few staged texts a person asked to see.
  private readonly texts = new ReadOnlyTexts(RunningCommandChanges.scheme, '(no longer shown)');
  private readonly prompts: RunningChangesPrompts = {
    info: (text) => void vscode.window.showInformationMessage(text),
    warn: (text) => void vscode.window.showWarningMessage(text),
    pickCommand: async (running, title) => (await vscode.window.showQuickPick(running.map((entry) => ({ label: entry.command, entry })), { title }))?.entry,
    pickChange: async (items, title, placeHolder) => (await vscode.window.showQuickPick(items, { title, placeHolder, matchOnDescription: true }))?.change,
    openDiff: async (change, staged, title) => {
      const left = change.kind === 'created' ? this.document(change.absolute, '') : vscode.Uri.file(change.absolute);
      const right = this.document(change.absolute, staged);
      await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
    },
  };

  constructor(
    private readonly running: () => RunningStage[],
    private readonly roots: () => readonly string[],
  ) {}

  /** A read-only document holding `text`, named like the file. */
  private document(file: string, text: string): vscode.Uri {
    return this.texts.hold(text, path.basename(file)).uri;
  }

  /** Asks which running command (when several), then lists its changes so far; a picked file opens as a diff. */
  show(): Promise<void> {
    return showRunningChanges(this.running(), this.roots, this.prompts);
  }

  dispose(): void {
    this.texts.dispose();
  }
}
