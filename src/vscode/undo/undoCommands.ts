/**
 * Agent-only undo, wired for VS Code (src/core/checkpoints/undoCommands.ts): the files written in one WorkspaceEdit,
 * the questions asked in the diff editor and modal dialogs, and the notice with its Show Details.
 */
import * as vscode from 'vscode';
import { createUndoCommands as undoCommandsOf, type UndoCommandDeps, type UndoCommands, type UndoNotice } from '../../core/checkpoints/undoCommands';
import type { DisposableStore } from '../../core/disposable';
import type { Log } from '../log';
import { WorkspaceUndoFiles } from './undoFiles';
import { UndoQuestionsInEditor } from './undoQuestions';

function show(notice: UndoNotice, log: Log): void {
  const buttons = notice.details ? ['Show Details'] : [];
  const shown = notice.level === 'warning' ? vscode.window.showWarningMessage(notice.text, ...buttons) : vscode.window.showInformationMessage(notice.text, ...buttons);
  void shown.then((choice) => choice !== undefined && log.show(true));
}

export function createUndoCommands(deps: Omit<UndoCommandDeps, 'files' | 'questions' | 'notify'> & { log: Log; disposables: Pick<DisposableStore, 'add'> }): UndoCommands {
  return undoCommandsOf({
    ...deps,
    files: new WorkspaceUndoFiles((message) => deps.log.warn(message)),
    questions: deps.disposables.add(new UndoQuestionsInEditor()),
    notify: (notice) => show(notice, deps.log),
  });
}
