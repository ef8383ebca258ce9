import * as vscode from 'vscode';
import type { HostCommand } from '../shared/messages';
import type { WebviewChannel } from './webviewChannel';

const commandIds: Record<HostCommand, string> = {
  openApprovals: 'toolgate.openApprovals',
  showAuditLog: 'toolgate.showAuditLog',
  setApiKey: 'toolgate.setApiKey',
  focusChat: 'toolgate.chat.focus',
  resetWorkspaceApprovals: 'toolgate.resetWorkspaceApprovals',
};

/** Runs the contract's host commands asked for by a webview and answers with a `result`. */
export function answerCommands(channel: WebviewChannel<'chat'> | WebviewChannel<'approvals'>): vscode.Disposable {
  const subscription = (channel as WebviewChannel).onDidReceive((message) => {
    if (message.type !== 'command') {
      return;
    }
    vscode.commands.executeCommand(commandIds[message.command]).then(
      () => channel.post({ type: 'result', requestId: message.requestId, ok: true }),
      (error: unknown) =>
        channel.post({
          type: 'result',
          requestId: message.requestId,
          ok: false,
          error: error instanceof Error ? error.message : String(error),
        }),
    );
  });
  return new vscode.Disposable(() => subscription.dispose());
}
