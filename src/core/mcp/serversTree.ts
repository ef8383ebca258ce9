/**
 * The MCP Servers view: each server with its state (starting, running, failed with the reason, stopped) and where it is
 * defined, and under it its tools, with whether each asks. What each row says; VS Code draws it
 * (src/vscode/mcp/mcpServersView.ts).
 */
import { toolRequiresApproval } from './config';
import type { McpServerStatus, McpToolInfo } from './manager';

export type McpServersNode = { kind: 'server'; status: McpServerStatus; server: string } | { kind: 'tool'; server: string; tool: McpToolInfo; asks: boolean };

/** One row: its label, what follows it, its hover (a tool's: its description, then its input schema), its codicon. */
export interface McpServersRow {
  label: string;
  expandable: boolean;
  description: string;
  tooltip: string | { text: string; json: string };
  icon: string;
  /** A server's state, for its context menu (`mcpServer.<state>`). */
  contextValue?: string;
}

const originLabels: Record<McpServerStatus['origin'], string> = { workspace: 'defined in this workspace', user: 'user settings', profile: 'your VS Code profile\'s mcp.json' };

const stateIcons: Record<McpServerStatus['state'], string> = {
  starting: 'loading~spin',
  running: 'pass',
  failed: 'error',
  stopped: 'circle-slash',
};

/** The servers (no node), or a server's tools. */
export function mcpServersChildren(servers: () => McpServerStatus[], node?: McpServersNode): McpServersNode[] {
  if (!node) {
    return servers().map((status) => ({ kind: 'server', status, server: status.name }));
  }
  if (node.kind === 'server') {
    return node.status.tools.map((tool) => ({ kind: 'tool', server: node.server, tool, asks: toolRequiresApproval(node.status.config, tool.name) }));
  }
  return [];
}

export function mcpServersRow(node: McpServersNode): McpServersRow {
  if (node.kind === 'tool') {
    return {
      label: node.tool.name,
      expandable: false,
      // Which tools stop for approval (requireApproval), before the line of the tool's own description.
      description: `${node.asks ? 'asks' : 'runs without asking'} · ${node.tool.description.split('\n')[0] ?? ''}`,
      tooltip: { text: node.tool.description, json: JSON.stringify(node.tool.inputSchema, null, 2) },
      icon: 'tools',
    };
  }
  const { status } = node;
  return {
    label: status.name,
    expandable: status.tools.length > 0,
    description: status.state === 'failed' ? `failed: ${status.error ?? 'unknown reason'}` : `${status.state} · ${status.tools.length} tools`,
    tooltip: `${status.name} (${originLabels[status.origin]}): ${status.state}${status.error !== undefined ? `\n${status.error}` : ''}`,
    icon: stateIcons[status.state],
    contextValue: `mcpServer.${status.state}`,
  };
}
