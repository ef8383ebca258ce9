import * as vscode from 'vscode';
import { ApprovalsPanel } from './vscode/approvalsPanel';
import { ChatViewProvider } from './vscode/chatViewProvider';
import { createLog } from './vscode/log';
import { ApiKeyStore } from './vscode/secrets';
import { Settings } from './vscode/settings';

export function activate(context: vscode.ExtensionContext): void {
  const log = createLog();
  context.subscriptions.push(log);
  const settings = new Settings(log);
  const apiKeys = new ApiKeyStore(context.secrets);
  const waitingCalls = (): number => 0;

  const chat = new ChatViewProvider(context.extensionUri, log, () => ({
    view: 'chat',
    model: { baseUrl: settings.get('model.baseUrl'), name: settings.get('model.name') },
    waitingCalls: waitingCalls(),
    trusted: vscode.workspace.isTrusted,
  }));
  const approvals = new ApprovalsPanel(context.extensionUri, log, () => ({
    view: 'approvals',
    waitingCalls: waitingCalls(),
    trusted: vscode.workspace.isTrusted,
  }));
  const refreshViews = (): void => {
    chat.refresh();
    approvals.refresh();
  };

  context.subscriptions.push(
    chat,
    approvals,
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewType, chat),
    vscode.commands.registerCommand('toolgate.openApprovals', () => approvals.show()),
    vscode.commands.registerCommand('toolgate.setApiKey', () => apiKeys.prompt()),
    settings.onDidChange(refreshViews),
    vscode.workspace.onDidGrantWorkspaceTrust(refreshViews),
  );
  const manifest = context.extension.packageJSON as { version?: unknown };
  log.info(`Toolgate ${String(manifest.version)} activated`);
}

export function deactivate(): void {
  // Everything is owned by context.subscriptions.
}
