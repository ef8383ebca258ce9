/**
 * Who asks for a call (the `source` of a gate input, the audit log and the cards): the core records the caller, limits
 * grants to it, and names it (the views carry the name to the cards, which never read a source themselves). Sources
 * are made only here, by the entry point a call came through, so a caller cannot pass for another: the API's
 * self-reported names never take the reserved ones.
 */

/** Toolgate's own agent. */
export const agentCaller = 'agent';

/** A call through the exported API that did not name itself. */
export const apiCaller = 'api';

/** The caller a call of Toolgate's language-model tools is recorded as (cards, audit log): another agent in VS Code. */
export const lmToolCaller = 'vscode-lm-tool';

const mcpClientPrefix = 'mcp-client:';

/** What a client's self-reported name or version may show: printable, short, no `@` (it separates the version). */
function tidy(text: string, fallback: string): string {
  const kept = text.replace(/[^\w .:/+-]/g, '_').trim().slice(0, 64);
  return kept === '' ? fallback : kept;
}

/** A client of Toolgate's MCP endpoint, by the name and version it gave in `initialize`. */
export function mcpClientSource(name: string, version: string): string {
  return `${mcpClientPrefix}${tidy(name, 'unnamed')}@${tidy(version, '?')}`;
}

/** The source of a call through the exported API: the name the extension gave, unless it is one of the reserved. */
export function apiSource(given: string | undefined): string {
  if (given === undefined || given === agentCaller || given === lmToolCaller || given.startsWith(mcpClientPrefix)) {
    return apiCaller;
  }
  return tidy(given, apiCaller);
}

/**
 * Whether the chat shows a call of this caller: only the agent's own (others' calls show in the Approvals panel), so
 * only those are decided by typing in the chat.
 */
export function chatShowsCall(call: { source: string }): boolean {
  return call.source === agentCaller;
}

/** Whether the caller is a client of Toolgate's MCP endpoint. */
export function isMcpClientSource(source: string): boolean {
  return source.startsWith(mcpClientPrefix);
}

/** Whether the caller is outside Toolgate and its API: another agent through the language-model tools or MCP. */
export function isOutsideCaller(source: string): boolean {
  return source === lmToolCaller || isMcpClientSource(source);
}

/**
 * The caller a grant is limited to: the source without an MCP client's version, so a client's grants outlive its
 * updates.
 */
export function grantCaller(source: string): string {
  if (!source.startsWith(mcpClientPrefix)) {
    return source;
  }
  const at = source.lastIndexOf('@');
  return at > mcpClientPrefix.length ? source.slice(0, at) : source;
}

/** Who asks, as a card, the audit log or the grant list says it ("from …", "for …"). */
export function callerLabel(source: string): string {
  if (source === lmToolCaller) {
    return 'a VS Code tool call (another agent)';
  }
  if (source === agentCaller) {
    return "Toolgate's agent";
  }
  if (source.startsWith(mcpClientPrefix)) {
    const rest = source.slice(mcpClientPrefix.length);
    const at = rest.lastIndexOf('@');
    return at > 0 ? `the MCP client ${rest.slice(0, at)} ${rest.slice(at + 1)}` : `the MCP client ${rest}`;
  }
  return source;
}
