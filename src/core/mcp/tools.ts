/**
 * What the agent needs from the running MCP servers: the tools the model may see (as ToolSpecs under their
 * `mcp__server__tool` names) and, for a name the model called, the server, tool and what the gate needs to know.
 */
import type { ToolSpec } from '../llm/client';
import { toolRequiresApproval, toolVisible } from './config';
import type { McpServerStatus, McpToolInfo } from './manager';
import { McpToolNameMap } from './names';

export interface McpModelTool {
  modelName: string;
  server: string;
  tool: McpToolInfo;
  /** For GateCall.external.gated: whether `requireApproval` makes this tool ask. */
  gated: boolean;
}

export interface McpModelTools {
  specs: ToolSpec[];
  /** The MCP tool behind a model-side name, if it is one the model was shown. */
  resolve(modelName: string): McpModelTool | undefined;
}

/** The tools of running servers that their config lets the model see. */
export function mcpModelTools(servers: readonly McpServerStatus[]): McpModelTools {
  const visible = servers
    .filter((server) => server.state === 'running')
    .flatMap((server) =>
      server.tools.filter((tool) => toolVisible(server.config, tool.name)).map((tool) => ({ status: server, tool })),
    );
  const names = new McpToolNameMap(visible.map(({ status, tool }) => ({ server: status.name, tool: tool.name })));
  const byModelName = new Map<string, McpModelTool>();
  for (const { status, tool } of visible) {
    const modelName = names.toModel(status.name, tool.name);
    if (modelName !== undefined) {
      byModelName.set(modelName, {
        modelName,
        server: status.name,
        tool,
        gated: toolRequiresApproval(status.config, tool.name),
      });
    }
  }
  const specs = [...byModelName.values()]
    .sort((a, b) => (a.modelName < b.modelName ? -1 : 1))
    .map(({ modelName, server, tool }) => ({
      name: modelName,
      description: `[MCP server "${server}"] ${tool.description}`,
      parameters: tool.inputSchema,
    }));
  return { specs, resolve: (modelName) => byModelName.get(modelName) };
}
