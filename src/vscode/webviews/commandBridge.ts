import * as vscode from 'vscode';
import type { Disposable } from '../../core/disposable';
import type { HostCommand, ViewKind, WebviewToHost } from '../../shared/messages';
import type { Outcome, ViewRequest } from '../../core/views/viewRequests';
import type { Log } from '../log';
import type { WebviewChannel } from '../../core/views/webviewChannel';

/** The VS Code command (and its arguments) behind each host command of the contract. */
const commandIds: Record<HostCommand, () => [string, ...unknown[]]> = {
  openApprovals: () => ['toolgate.openApprovals'],
  showAuditLog: () => ['toolgate.showAuditLog'],
  setApiKey: () => ['toolgate.setApiKey'],
  focusChat: () => ['toolgate.chat.focus'],
  resetWorkspaceApprovals: () => ['toolgate.resetWorkspaceApprovals'],
  manageWorkspaceTrust: () => ['workbench.trust.manage'],
  // toolgate.model.baseUrl is machine-scoped: a remote window (code-server, SSH, WSL) takes it from its Remote settings.
  // The query shows every model setting: the provider, the address, the model.
  openModelSettings: () => [isRemoteWindow() ? 'workbench.action.openRemoteSettings' : 'workbench.action.openSettings', { query: 'toolgate.model' }],
  openTerminalRules: () => ['workbench.action.openSettings', { query: 'toolgate.autoApprove.terminal' }],
  openEditRules: () => ['workbench.action.openSettings', { query: 'toolgate.autoApprove.edits' }],
  openGatedTools: () => ['workbench.action.openSettings', { query: 'toolgate.gatedTools' }],
  showStagedChanges: () => ['toolgate.showStagedChanges'],
  setUpModel: () => ['toolgate.setUpModel'],
};

/** Whether this window's extensions run on another machine (code-server, SSH, WSL, a container). */
export function isRemoteWindow(): boolean {
  return vscode.env.remoteName !== undefined;
}

type CommandRequest = Extract<WebviewToHost, { type: 'command' }>;
const isCommand = (message: { type: string }): message is CommandRequest => message.type === 'command';


/**
 * Answers every request a webview makes with a `result`: the contract's host commands are run here, everything else
 * goes to the view's handler. A refusal or failure is logged and returned to the webview; nothing is dropped silently.
 */
export function answerRequests<V extends ViewKind>(
  channel: WebviewChannel<V>,
  log: Log,
  handle: (request: ViewRequest<V>) => Outcome | Promise<Outcome>,
): Disposable {
  return channel.onDidReceive((message) => {
    const run = async (): Promise<Outcome> => {
      if (isCommand(message)) {
        await vscode.commands.executeCommand(...commandIds[message.command]());
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
}
