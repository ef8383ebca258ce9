import * as vscode from 'vscode';
import { toolRequiresApproval } from '../../core/mcp/config';
import type { McpServerStatus, McpToolInfo } from '../../core/mcp/manager';
import { DisposableStore } from '../../core/disposable';
import type { McpServers } from './mcpServers';

const originLabels: Record<McpServerStatus['origin'], string> = { workspace: 'defined in this workspace', user: 'user settings', profile: 'your VS Code profile\'s mcp.json' };

export type McpServersNode = { kind: 'server'; status: McpServerStatus; server: string } | { kind: 'tool'; server: string; tool: McpToolInfo; asks: boolean };
type Node = McpServersNode;

const stateIcons: Record<McpServerStatus['state'], string> = {
  starting: 'loading~spin',
  running: 'pass',
  failed: 'error',
  stopped: 'circle-slash',
};

/** MCP servers with their state (starting, running, failed with the reason, stopped) and their tools. */
export class McpServersView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly changed = this.store.add(new vscode.EventEmitter<undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly host: McpServers) {
    this.store.add(host.onDidChange(() => this.changed.fire(undefined)));
  }

  dispose(): void {
    this.store.dispose();
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      return this.host.servers().map((status) => ({ kind: 'server', status, server: status.name }));
    }
    if (node.kind === 'server') {
      return node.status.tools.map((tool) => ({ kind: 'tool', server: node.server, tool, asks: toolRequiresApproval(node.status.config, tool.name) }));
    }
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'tool') {
      const item = new vscode.TreeItem(node.tool.name, vscode.TreeItemCollapsibleState.None);
      // Which tools stop for approval (requireApproval), before the line of the tool's own description.
      item.description = `${node.asks ? 'asks' : 'runs without asking'} · ${node.tool.description.split('\n')[0] ?? ''}`;
      item.tooltip = new vscode.MarkdownString().appendText(node.tool.description).appendCodeblock(JSON.stringify(node.tool.inputSchema, null, 2), 'json');
      item.iconPath = new vscode.ThemeIcon('tools');
      return item;
    }
    const { status } = node;
    const item = new vscode.TreeItem(status.name, status.tools.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.description = status.state === 'failed' ? `failed: ${status.error ?? 'unknown reason'}` : `${status.state} · ${status.tools.length} tools`;
    item.tooltip = `${status.name} (${originLabels[status.origin]}): ${status.state}${status.error !== undefined ? `\n${status.error}` : ''}`;
    item.iconPath = new vscode.ThemeIcon(stateIcons[status.state]);
    item.contextValue = `mcpServer.${status.state}`;
    return item;
  }
}
