/**
 * Closing the record at start: a call whose `ask` line has no decision line after it was waiting when the window went
 * away (a reload, a crash, a killed extension host) before its end could be written. Each gets a line saying it was
 * not run, and why, so the log never holds a call that waits for ever.
 */
import { AuditEntry } from './auditLog';

/** How much of the log's end is read at start: calls wait minutes, not megabytes of decisions, before a reload. */
export const recoveryTailBytes = 4 * 1024 * 1024;

/** The `ask` entries of `lines` (JSON lines, oldest first) that no later line decided. */
export function unclosedAsks(lines: readonly string[]): AuditEntry[] {
  const open = new Map<string, AuditEntry>();
  for (const line of lines) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue; // a line cut by the tail, or by a crash mid-write
    }
    const entry = AuditEntry.safeParse(parsed);
    if (!entry.success || entry.data.callId === '') {
      continue;
    }
    if (entry.data.verdict === 'ask') {
      open.set(entry.data.callId, entry.data);
    } else {
      open.delete(entry.data.callId);
    }
  }
  return [...open.values()];
}

/** The lines that close them: denied (not run), decided by nobody, found at this start. */
export function recoveredEntries(asks: readonly AuditEntry[], now: Date): AuditEntry[] {
  return asks.map((ask) => ({
    time: now.toISOString(),
    callId: ask.callId,
    tool: ask.tool,
    argsHash: ask.argsHash,
    verdict: 'deny',
    decidedBy: 'cancel',
    reason: `not run: it was still waiting when the window was reloaded, closed or crashed (waiting since ${ask.time}; found at the next start)`,
    source: ask.source,
    ...(ask.target !== undefined ? { target: ask.target } : {}),
    notRun: 'recovered',
  }));
}
