import * as vscode from 'vscode';
import type { HostCommand, InboundFor, ViewKind, WebviewToHost } from '../shared/messages';
import type { Log } from './log';
import type { WebviewChannel } from './webviewChannel';

const commandIds: Record<HostCommand, string> = {
  openApprovals: 'toolgate.openApprovals',
  showAuditLog: 'toolgate.showAuditLog',
  setApiKey: 'toolgate.setApiKey',
  focusChat: 'toolgate.chat.focus',
  resetWorkspaceApprovals: 'toolgate.resetWorkspaceApprovals',
};

type CommandRequest = Extract<WebviewToHost, { type: 'command' }>;
const isCommand = (message: { type: string }): message is CommandRequest => message.type === 'command';

export type Outcome = { ok: true } | { ok: false; error: string };
export type ViewRequest<V extends ViewKind> = Exclude<InboundFor<V>, { type: 'ready' | 'command' }>;

/**
 * Answers every request a webview makes with a `result`: the contract's host commands are run here, everything else
 * goes to the view's handler. A refusal or failure is logged and returned to the webview; nothing is dropped silently.
 */
export function answerRequests<V extends ViewKind>(
  channel: WebviewChannel<V>,
  log: Log,
  handle: (request: ViewRequest<V>) => Outcome | Promise<Outcome>,
): vscode.Disposable {
  const subscription = channel.onDidReceive((message) => {
    const run = async (): Promise<Outcome> => {
      if (isCommand(message)) {
        await vscode.commands.executeCommand(commandIds[message.command]);
        return { ok: true };
      }
      return await handle(message as ViewRequest<V>);
    };
    run().then(
      (outcome) => {
        if (!outcome.ok) {
          log.warn(`[${channel.view}] ignored '${message.type}': ${outcome.error}`);
        }
        channel.post({ type: 'result', requestId: message.requestId, ...outcome });
      },
      (error: unknown) => {
        const text = error instanceof Error ? error.message : String(error);
        log.error(`[${channel.view}] '${message.type}' failed: ${text}`);
        channel.post({ type: 'result', requestId: message.requestId, ok: false, error: text });
      },
    );
  });
  return new vscode.Disposable(() => subscription.dispose());
}
