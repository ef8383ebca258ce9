/**
 * Whether this workspace's MCP endpoint was started before, read at activation (so without zod: the record itself is
 * parsed when the endpoint starts, src/core/endpoint/endpointIdentity.ts). Clients keep its config across reloads and
 * restarts, so once kept it listens again as soon as the window starts, not on first use.
 */

/** Where the endpoint's record is kept in workspace state. */
export const endpointStateKey = 'toolgate.mcpEndpoint';

/** Any record, even one that no longer parses (then it starts with a fresh port and secret, and says so in the log). */
export function endpointKept(raw: unknown): boolean {
  return raw !== undefined && raw !== null;
}
