import * as vscode from 'vscode';
import { DisposableStore } from '../../core/disposable';
import { mcpServersChildren, mcpServersRow, type McpServersNode } from '../../core/mcp/serversTree';
import type { McpServers } from './mcpServers';

export type { McpServersNode };

/** MCP servers with their state (starting, running, failed with the reason, stopped) and their tools. */
export class McpServersView implements vscode.TreeDataProvider<McpServersNode>, vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly changed = this.store.add(new vscode.EventEmitter<undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly host: McpServers) {
    this.store.add(host.onDidChange(() => this.changed.fire(undefined)));
  }

  dispose(): void {
    this.store.dispose();
  }

  getChildren(node?: McpServersNode): McpServersNode[] {
    return mcpServersChildren(() => this.host.servers(), node);
  }

  getTreeItem(node: McpServersNode): vscode.TreeItem {
    const row = mcpServersRow(node);
    const item = new vscode.TreeItem(row.label, row.expandable ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.description = row.description;
    item.tooltip = typeof row.tooltip === 'string' ? row.tooltip : new vscode.MarkdownString().appendText(row.tooltip.text).appendCodeblock(row.tooltip.json, 'json');
    item.iconPath = new vscode.ThemeIcon(row.icon);
    if (row.contextValue !== undefined) {
      item.contextValue = row.contextValue;
    }
    return item;
  }
}
