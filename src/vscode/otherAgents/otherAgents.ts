/**
 * The ways other agents reach Toolgate's gate, made together: the exported API (other extensions), the language-model
 * tools (Copilot agent mode and any extension calling `vscode.lm.invokeTool`) and the MCP endpoint (MCP clients). Each
 * has its own chat for session grants and a terminal, and every call carries its caller (src/core/callers.ts).
 */
import type * as vscode from 'vscode';
import type { DisposableStore } from '../../core/disposable';
import type { KeyValueStore } from '../../core/storage/keyValueStore';
import type { ToolService } from '../../core/tools/service';
import { apiChatId, createApi, type ToolgateApi } from './api';
import { createLmTools, lmToolsChatId, type LmTools } from './lmTools';
import type { Log } from '../log';
import { createMcpEndpointHost, mcpEndpointChatId, type McpEndpointHost } from '../mcp/mcpEndpoint';

export interface OtherAgents {
  /** The API of the public contract, except `onDidDecide`, which the entry owns. */
  api: Omit<ToolgateApi, 'onDidDecide'>;
  /** Registered by the entry at activation. */
  lmTools: LmTools;
  mcpEndpoint: Pick<McpEndpointHost, 'info' | 'copyConfig'>;
}

/** The chats of other agents' calls, with the names their terminals and grant lists go by. */
export const outsideChats: Readonly<Record<string, string>> = { [apiChatId]: 'API calls', [lmToolsChatId]: 'VS Code tool calls', [mcpEndpointChatId]: 'MCP clients' };

/** Where the MCP endpoint keeps its port (workspace state) and its secret (SecretStorage) for the workspace. */
export interface EndpointKeeping {
  state: KeyValueStore;
  secrets: vscode.SecretStorage;
}

export function createOtherAgents(tools: Pick<ToolService, 'requestApproval' | 'evaluate' | 'invokeTool' | 'runOne'>, log: Log, version: string, keeping: EndpointKeeping, disposables: DisposableStore): OtherAgents {
  const mcpEndpoint = disposables.add(createMcpEndpointHost(tools, log, version, keeping.state, keeping.secrets));
  return { api: createApi(tools, mcpEndpoint), lmTools: createLmTools(tools, log), mcpEndpoint };
}
