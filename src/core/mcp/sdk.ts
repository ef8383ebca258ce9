/**
 * The parts of the MCP SDK the manager (a client of MCP servers) and the endpoint (Toolgate's own MCP server) use, in
 * one module so that they load together and only when the first server starts or the endpoint is first asked for: with ajv and the protocol's zod schemas they are the largest part of the host bundle, and activation does
 * not need them. The extension bundles this module as its own file (see esbuild.mjs), imported with `import()`.
 */
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
// eslint-disable-next-line @typescript-eslint/no-deprecated -- `type: "sse"` servers still exist; VS Code supports them too.
export { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
export { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
export { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { CallToolRequestSchema, ErrorCode, isInitializeRequest, ListToolsRequestSchema, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the endpoint's tools keep the agent's own JSON schemas (see mcpEndpoint.ts).
export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
