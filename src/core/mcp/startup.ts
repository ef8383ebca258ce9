/**
 * MCP servers at the start of a task: the first model turn waits (bounded) for servers that are still starting, so
 * that the model is offered their tools; what failed, or is still starting when the wait ends, is reported to the
 * person, and the task goes on without it. Pure: the host supplies the servers' states and the waiting.
 */
import type { McpServerStatus } from './manager';

/** How long the first model turn of a task waits for MCP servers that are starting. */
export const mcpStartupWaitMs = 15_000;

export type McpStartupNoticeKind = 'starting' | 'ready' | 'failed' | 'still-starting';

export interface McpStartupNotice {
  kind: McpStartupNoticeKind;
  /** The servers it is about. */
  servers: string[];
  level: 'info' | 'error';
  text: string;
}

/** Said when the wait begins: which servers the first turn waits for (undefined when none is starting). */
export function startingNotice(servers: readonly McpServerStatus[]): McpStartupNotice | undefined {
  const starting = servers.filter((server) => server.state === 'starting').map((server) => server.name);
  if (starting.length === 0) {
    return undefined;
  }
  return { kind: 'starting', servers: starting, level: 'info', text: `Starting MCP servers: ${starting.join(', ')}…` };
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * Said when the wait ends, about the servers that were starting when it began (`waitedFor`) and any other server
 * that is failed and was not reported to this chat yet (`alreadyReported`, keyed by `failureKey`).
 */
export function settledNotices(
  servers: readonly McpServerStatus[],
  waitedFor: readonly string[],
  waitedMs: number,
  alreadyReported: ReadonlySet<string>,
): McpStartupNotice[] {
  const notices: McpStartupNotice[] = [];
  const waited = servers.filter((server) => waitedFor.includes(server.name));
  const ready = waited.filter((server) => server.state === 'running');
  if (ready.length > 0) {
    notices.push({
      kind: 'ready',
      servers: ready.map((server) => server.name),
      level: 'info',
      text: `MCP servers ready: ${ready.map((server) => `${server.name} (${plural(server.tools.length, 'tool')})`).join(', ')}.`,
    });
  }
  for (const server of servers.filter((candidate) => candidate.state === 'failed' && !alreadyReported.has(failureKey(candidate)))) {
    notices.push({
      kind: 'failed',
      servers: [server.name],
      level: 'error',
      text: `MCP server "${server.name}" failed to start: ${server.error ?? 'no reason given'}. This task goes on without its tools.`,
    });
  }
  const still = waited.filter((server) => server.state === 'starting');
  if (still.length > 0) {
    notices.push({
      kind: 'still-starting',
      servers: still.map((server) => server.name),
      level: 'info',
      text: `Still starting after ${Math.round(waitedMs / 1000)} s: ${still.map((server) => server.name).join(', ')}. The task goes on; their tools are offered from the first turn after they start.`,
    });
  }
  return notices;
}

/** Identifies one failure of one server, so that the same failure is reported once per chat. */
export function failureKey(server: Pick<McpServerStatus, 'name' | 'error'>): string {
  return `${server.name}\n${server.error ?? ''}`;
}
