/**
 * Calling a running MCP server: its tools listed (every page), a tool called within the call's deadline, and what
 * went wrong said as a typed McpCallError. A streamable HTTP session the server forgot is renewed once through the
 * manager's relaunch.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { type Connection, type McpServerState, type SdkModule, loadSdk, messageOf } from './connection';
import { definitionHash } from './names';

export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: ToolAnnotations;
  definitionHash: string;
}

export interface McpCallOptions {
  signal?: AbortSignal;
  /** Per call; defaults to the manager's `callTimeoutMs`. */
  timeoutMs?: number;
}

export type McpCallErrorKind = 'unknown-server' | 'not-running' | 'timeout' | 'cancelled' | 'crashed' | 'failed';

export class McpCallError extends Error {
  override readonly name = 'McpCallError';
  constructor(
    readonly kind: McpCallErrorKind,
    readonly server: string,
    readonly tool: string,
    message: string,
  ) {
    super(message);
  }
}

/** What a call needs of a server: its connection while it runs, and what to say when it does not. */
export interface CallTarget {
  readonly config: { readonly name: string };
  readonly state: McpServerState;
  readonly error?: string;
  readonly connection?: Connection;
  readonly stderrTail: readonly string[];
}

/** How a call reaches back into the manager: its log, and a relaunch of the server (a forgotten session). */
export interface CallHooks {
  log: (server: string, line: string) => void;
  relaunch: () => Promise<void>;
}

/** Every tool a server lists, page by page, each with the hash of its definition. */
export async function listTools(client: Client, startTimeoutMs: number): Promise<McpToolInfo[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: startTimeoutMs });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools.map((tool) => {
    const info = {
      name: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema as Record<string, unknown>,
    };
    return {
      ...info,
      ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
      definitionHash: definitionHash(info),
    };
  });
}

/**
 * One call to a running server's tool, within `deadline`; rejects with an McpCallError. A streamable HTTP session the
 * server forgot (404) is renewed once and the call tried again.
 */
export async function callOnce(
  entry: CallTarget,
  tool: string,
  args: Record<string, unknown>,
  signal: AbortSignal | undefined,
  timeoutMs: number,
  deadline: number,
  mayRenewSession: boolean,
  hooks: CallHooks,
): Promise<CallToolResult> {
  const name = entry.config.name;
  if (signal?.aborted === true) {
    throw new McpCallError('cancelled', name, tool, `the call to "${tool}" on MCP server "${name}" was cancelled`);
  }
  const connection = entry.connection;
  if (entry.state !== 'running' || connection === undefined) {
    const why = entry.state === 'starting' ? `still starting after ${String(timeoutMs)} ms` : entry.state;
    throw new McpCallError(
      'not-running',
      name,
      tool,
      `MCP server "${name}" is not running (${why}${entry.error === undefined ? '' : `: ${entry.error}`})`,
    );
  }
  const remaining = Math.max(1, deadline - Date.now());
  try {
    const result = await connection.client.callTool({ name: tool, arguments: args }, undefined, {
      timeout: remaining,
      ...(signal !== undefined ? { signal } : {}),
    });
    return result as CallToolResult;
  } catch (error) {
    // Loaded (long since: a server is running) only to tell its errors apart: a call waits no turn for it.
    const sdk = await loadSdk();
    if (mayRenewSession && error instanceof sdk.StreamableHTTPError && error.code === 404 && entry.connection === connection) {
      hooks.log(name, 'the server forgot the session (404); initialising a new one and retrying once');
      await hooks.relaunch();
      return callOnce(entry, tool, args, signal, timeoutMs, deadline, false, hooks);
    }
    throw describeCallError(sdk, entry, tool, error, timeoutMs, signal);
  }
}

function describeCallError(
  sdk: SdkModule,
  entry: CallTarget,
  tool: string,
  error: unknown,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): McpCallError {
  const name = entry.config.name;
  if (signal?.aborted === true) {
    return new McpCallError('cancelled', name, tool, `the call to "${tool}" on MCP server "${name}" was cancelled`);
  }
  if (error instanceof sdk.McpError && error.code === (sdk.ErrorCode.RequestTimeout as number)) {
    return new McpCallError(
      'timeout',
      name,
      tool,
      `MCP server "${name}" did not answer "${tool}" within ${String(timeoutMs)} ms; the call was cancelled`,
    );
  }
  if (error instanceof sdk.McpError && error.code === (sdk.ErrorCode.ConnectionClosed as number)) {
    const tail = entry.stderrTail.at(-1);
    return new McpCallError(
      'crashed',
      name,
      tool,
      `MCP server "${name}" closed the connection during "${tool}" (it exited or crashed)${tail === undefined ? '' : `; stderr: ${tail}`}`,
    );
  }
  return new McpCallError('failed', name, tool, `MCP server "${name}" failed "${tool}": ${messageOf(error)}`);
}
