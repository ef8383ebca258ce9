/** The webviews' requests answered (src/core/views/requestAnswers.ts), their host commands run as VS Code commands. */
import * as vscode from 'vscode';
import type { Disposable } from '../../core/disposable';
import { hostCommandTarget } from '../../core/views/hostCommands';
import { answerRequests } from '../../core/views/requestAnswers';
import type { Outcome, ViewRequest } from '../../core/views/viewRequests';
import type { WebviewChannel } from '../../core/views/webviewChannel';
import type { ViewKind } from '../../shared/messages';
import type { Log } from '../log';
import { isRemoteWindow } from '../remoteWindow';

/** Answers every request of a webview: its host commands here, the rest with `handle`. */
export function answerWebviewRequests<V extends ViewKind>(channel: WebviewChannel<V>, log: Log, handle: (request: ViewRequest<V>) => Outcome | Promise<Outcome>): Disposable {
  return answerRequests(channel, log, handle, (command) => vscode.commands.executeCommand(...hostCommandTarget(command, isRemoteWindow())));
}
