/**
 * MCP in this window (src/core/mcp/windowServers.ts) over VS Code: the Toolgate MCP output channel, the modal that
 * allows a first launch, the profile's mcp.json, the setting, Workspace Trust, and the sources re-read when they change.
 */
import * as vscode from 'vscode';
import type { CommandSandbox } from '../../core/sandbox/commandSandbox';
import { WindowMcpServers } from '../../core/mcp/windowServers';
import type { Log } from '../log';
import type { ManagedState } from '../../core/managed/managedState';

export class McpServers extends WindowMcpServers implements vscode.Disposable {
  constructor(
    state: vscode.Memento,
    log: Log,
    /** The extension's `dist` folder, which holds the stdio servers' watchdog. */
    dist: string,
    /** The commands' sandbox: stdio servers from the workspace (and any whose config asks) run in it. */
    sandbox: CommandSandbox,
    /** The `mcp.json` of the VS Code profile (User/mcp.json): the servers VS Code users already have. */
    profileFile: vscode.Uri | undefined,
    /** The managed settings file in force: the servers are checked again when it changes. */
    managed: Pick<ManagedState, 'policy' | 'onDidChange'>,
  ) {
    const output = vscode.window.createOutputChannel('Toolgate MCP');
    super({
      state,
      log,
      output,
      warn: (message) => void vscode.window.showWarningMessage(message),
      allowLaunch: async (question, detail) => (await vscode.window.showWarningMessage(question, { modal: true, detail }, 'Allow and start')) === 'Allow and start',
      trusted: () => vscode.workspace.isTrusted,
      folder: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      profileFileText: async () => profileFile === undefined ? undefined : await vscode.workspace.fs.readFile(profileFile).then((bytes) => new TextDecoder().decode(bytes), () => undefined),
      setting: () => {
        const inspected = vscode.workspace.getConfiguration('toolgate').inspect<unknown>('mcp.servers');
        return { user: inspected?.globalValue, workspace: inspected?.workspaceValue };
      },
      sandbox,
      dist,
      managed: () => managed.policy(),
    });
    this.store.add(output);
    for (const subscription of [
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('toolgate.mcp.servers')) {
          void this.reload();
        }
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.reload()),
      managed.onDidChange(() => void this.reload().catch((error: unknown) => log.error(`MCP: ${String(error)}`))),
    ]) {
      this.store.add(subscription);
    }
    const patterns: vscode.GlobPattern[] = ['**/.vscode/mcp.json'];
    if (profileFile !== undefined) {
      patterns.push(new vscode.RelativePattern(vscode.Uri.joinPath(profileFile, '..'), 'mcp.json'));
    }
    for (const pattern of patterns) {
      const watcher = this.store.add(vscode.workspace.createFileSystemWatcher(pattern));
      this.store.add(watcher.onDidChange(() => void this.reload()));
      this.store.add(watcher.onDidCreate(() => void this.reload()));
      this.store.add(watcher.onDidDelete(() => void this.reload()));
    }
  }
}
