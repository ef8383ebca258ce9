/**
 * "Changes so far" of a staged command that is still running (a watcher, a dev server until its timeout): a quick pick
 * of what it has changed in its stage until now, each file's diff against the workspace in VS Code's diff editor.
 * Nothing is judged or landed here; that happens when the command ends. The staged texts shown live in read-only
 * documents of the `toolgate-staged` scheme, read when picked (never a path taken from a URI).
 */
import path from 'node:path';
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { Disposable } from '../../core/disposable';
import { decodeFile } from '../../core/files/encoding';
import { changesSoFar, type ChangeSoFar } from '../../core/tools/stagedChanges';
import { ReadOnlyTexts } from '../documents/readOnlyTexts';
import type { RunningStage } from '../../core/terminal/confinedRun';

const kindWords: Record<ChangeSoFar['kind'], string> = {
  created: 'created',
  modified: 'modified',
  deleted: 'deleted',
  mode: 'mode changed',
  symlink: 'made a symbolic link',
};

export class RunningCommandChanges implements Disposable {
  static readonly scheme = 'toolgate-staged';
  // Kept while the window lives: a few staged texts a person asked to see.
  private readonly texts = new ReadOnlyTexts(RunningCommandChanges.scheme, '(no longer shown)');

  constructor(
    private readonly running: () => RunningStage[],
    private readonly roots: () => readonly string[],
  ) {}

  /** A read-only document holding `text`, named like the file. */
  private document(file: string, text: string): vscode.Uri {
    return this.texts.hold(text, path.basename(file)).uri;
  }

  /** Asks which running command (when several), then lists its changes so far; a picked file opens as a diff. */
  async show(): Promise<void> {
    const running = this.running();
    if (running.length === 0) {
      void vscode.window.showInformationMessage('Toolgate: no staged command is running now. A command that ended has landed its changes, or asks about them in the Approvals panel.');
      return;
    }
    const which = running.length === 1 ? running[0] : (await vscode.window.showQuickPick(running.map((entry) => ({ label: entry.command, entry })), { title: 'Toolgate: which running command?' }))?.entry;
    if (which === undefined) {
      return;
    }
    let changes: ChangeSoFar[];
    try {
      changes = await changesSoFar(which.stage, this.roots());
    } catch (error) {
      void vscode.window.showWarningMessage(`Toolgate: the changes of \`${which.command}\` could not be read (${error instanceof Error ? error.message : String(error)}); it may just have ended.`);
      return;
    }
    if (changes.length === 0) {
      void vscode.window.showInformationMessage(`Toolgate: \`${which.command}\` has changed nothing in the workspace so far.`);
      return;
    }
    const picked = await vscode.window.showQuickPick(
      changes.map((change) => ({ label: change.path, description: kindWords[change.kind], change })),
      {
        title: `Toolgate: \`${which.command}\` has changed ${changes.length} file${changes.length === 1 ? '' : 's'} so far (staged, not in your workspace until it ends and they are judged)`,
        placeHolder: 'Pick a file to see its diff against the workspace',
        matchOnDescription: true,
      },
    );
    if (picked !== undefined) {
      await this.openDiff(picked.change, which.command);
    }
  }

  private async openDiff(change: ChangeSoFar, command: string): Promise<void> {
    const staged = change.staged === undefined ? '' : await this.text(change.staged);
    if (staged === undefined) {
      void vscode.window.showInformationMessage(`Toolgate: ${change.path} is not text; \`${command}\` ${kindWords[change.kind]} it so far.`);
      return;
    }
    if (change.kind === 'mode' || change.kind === 'symlink') {
      void vscode.window.showInformationMessage(`Toolgate: \`${command}\` has ${kindWords[change.kind]} for ${change.path} so far.`);
      return;
    }
    const left = change.kind === 'created' ? this.document(change.absolute, '') : vscode.Uri.file(change.absolute);
    const right = this.document(change.absolute, staged);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${change.path} (staged so far by \`${command}\`)`, { preview: true });
  }

  /** A staged file's text, decoded as the workspace would read it; undefined when it is not text. */
  private async text(file: string): Promise<string | undefined> {
    const decoded = await decodeFile(await fs.readFile(file));
    return decoded.format.kind === 'text' ? decoded.text : undefined;
  }

  dispose(): void {
    this.texts.dispose();
  }
}
