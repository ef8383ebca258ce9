/** The editor command (and its arguments) behind each host command of the webview contract. */
import type { HostCommand } from '../../shared/messages';

/** A VS Code command id and its arguments, as `executeCommand` takes them. */
export type EditorCommand = [string, ...unknown[]];

const commandIds: Record<HostCommand, (remote: boolean) => EditorCommand> = {
  openApprovals: () => ['toolgate.openApprovals'],
  showAuditLog: () => ['toolgate.showAuditLog'],
  setApiKey: () => ['toolgate.setApiKey'],
  focusChat: () => ['toolgate.chat.focus'],
  resetWorkspaceApprovals: () => ['toolgate.resetWorkspaceApprovals'],
  manageWorkspaceTrust: () => ['workbench.trust.manage'],
  // toolgate.model.baseUrl is machine-scoped: a remote window (code-server, SSH, WSL) takes it from its Remote settings.
  // The query shows every model setting: the provider, the address, the model.
  openModelSettings: (remote) => [remote ? 'workbench.action.openRemoteSettings' : 'workbench.action.openSettings', { query: 'toolgate.model' }],
  openTerminalRules: () => ['workbench.action.openSettings', { query: 'toolgate.autoApprove.terminal' }],
  openEditRules: () => ['workbench.action.openSettings', { query: 'toolgate.autoApprove.edits' }],
  openGatedTools: () => ['workbench.action.openSettings', { query: 'toolgate.gatedTools' }],
  showStagedChanges: () => ['toolgate.showStagedChanges'],
  setUpModel: () => ['toolgate.setUpModel'],
};

/** The command a host command runs; `remote`: this window's extensions run on another machine. */
export function hostCommandTarget(command: HostCommand, remote: boolean): EditorCommand {
  return commandIds[command](remote);
}
