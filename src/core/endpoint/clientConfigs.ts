/**
 * The ready configurations of Toolgate's MCP endpoint for the MCP clients people use (what `Toolgate: Copy the MCP
 * Endpoint's Config` offers), each in the client's own syntax, and what the command says once one is copied. They hold
 * this workspace's secret, so the command copies one to the clipboard and writes nothing to the workspace.
 */
import type { McpEndpointInfo } from './mcpEndpoint';

export interface ClientConfig {
  id: 'url' | 'claude-code' | 'codex' | 'cline' | 'roo' | 'gemini';
  /** The client, as the picker lists it. */
  label: string;
  /** Where it goes, in one line. */
  detail: string;
  /** What is copied. */
  text: string;
}

/** The name the endpoint is given in each client's configuration (its tools are then `mcp__toolgate__write_file`…). */
export const endpointServerName = 'toolgate';

export function clientConfigs(info: McpEndpointInfo): ClientConfig[] {
  const authorization = info.headers['Authorization'] ?? '';
  const token = authorization.replace(/^Bearer /, '');
  const json = (entry: Record<string, unknown>): string => JSON.stringify({ mcpServers: { [endpointServerName]: entry } }, null, 2);
  return [
    {
      id: 'url',
      label: 'The URL and the header',
      detail: 'for any MCP client that speaks streamable HTTP',
      text: `${info.url}\nAuthorization: ${authorization}`,
    },
    {
      id: 'claude-code',
      label: 'Claude Code',
      detail: 'a command to run in the terminal (stored in your ~/.claude.json, not in the workspace)',
      text: `claude mcp add --transport http ${endpointServerName} ${info.url} --header "Authorization: ${authorization}"`,
    },
    {
      id: 'codex',
      label: 'Codex CLI',
      detail: 'a command to run in the terminal: Codex with the endpoint, the secret in an environment variable',
      text: `TOOLGATE_MCP_TOKEN='${token}' codex -c 'mcp_servers.${endpointServerName}.url="${info.url}"' -c 'mcp_servers.${endpointServerName}.bearer_token_env_var="TOOLGATE_MCP_TOKEN"'`,
    },
    {
      id: 'cline',
      label: 'Cline',
      detail: 'an entry for cline_mcp_settings.json (Cline: MCP Servers, Configure)',
      text: json({ type: 'streamableHttp', url: info.url, headers: info.headers, disabled: false }),
    },
    {
      id: 'roo',
      label: 'Roo Code',
      detail: "an entry for Roo's global mcp_settings.json (not the workspace's .roo/mcp.json)",
      text: json({ type: 'streamable-http', url: info.url, headers: info.headers, disabled: false }),
    },
    {
      id: 'gemini',
      label: 'Gemini CLI',
      detail: 'an entry for ~/.gemini/settings.json',
      text: json({ httpUrl: info.url, headers: info.headers }),
    },
  ];
}

/** What the copy command says: a warning when the port moved since the config copied before (that one must be replaced). */
export function copiedMessage(label: string, moved: { from: number; to: number } | undefined): { level: 'info' | 'warning'; text: string } {
  if (moved !== undefined) {
    return {
      level: 'warning',
      text: `Copied the config for ${label}, with the new port ${moved.to}: port ${moved.from}, in the config you copied before, was taken by another program when this window started. Replace the saved config with this one; until then that client's connection is refused or reaches the other program.`,
    };
  }
  return {
    level: 'info',
    text: `Copied the config for ${label}. It holds this workspace's secret: keep it out of files others can read. It keeps working across reloads and restarts while this folder is open in VS Code; while no window has it open, the client's connection is refused.`,
  };
}

/** Said when the endpoint starts away from the port of the config last copied (it was taken). */
export function movedWarning(moved: { from: number; to: number }): string {
  return `Toolgate's MCP endpoint listens on port ${moved.to} now: port ${moved.from}, in the config you copied for your MCP clients, was taken by another program. Those clients cannot reach the gate until you copy the config again and replace the saved one.`;
}
