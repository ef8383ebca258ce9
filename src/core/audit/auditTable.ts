/**
 * The audit log as a person reads it: a Markdown table, newest first, one row per call (time, tool, target, verdict,
 * who, why) in the person's time zone. The JSON lines stay the record; lines that do not parse are counted, never
 * guessed at.
 */
import { agentCaller, callerLabel } from '../callers';
import { AuditLine } from './auditLog';

export interface AuditTable {
  markdown: string;
  rows: number;
  unreadable: number;
}

/** A cell: one line, pipes escaped, long text cut. */
function cell(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return cut.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/`/g, "'") || ' ';
}

/** `2026-11-22T21:48:42.123Z` -> `2026-11-22 21:48:42`, in `timeZone` (an IANA name) or, without one, UTC as logged. */
export function shortTime(iso: string, timeZone?: string): string {
  const date = new Date(iso);
  if (timeZone === undefined || Number.isNaN(date.getTime())) {
    return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '');
  }
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((candidate) => candidate.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}:${part('second')}`;
}

type Decision = Extract<AuditLine, { callId: string }>;

/** One row per call: when it came, and how it ended (the policy's "ask", then the person's answer, are one call). */
function callRow(entries: readonly Decision[], timeZone: string | undefined): string {
  const first = entries[0];
  const last = entries[entries.length - 1];
  if (first === undefined || last === undefined) {
    return '';
  }
  const asked = entries.find((entry) => entry.verdict === 'ask');
  const who = last.scope !== undefined ? `${last.decidedBy} (${last.scope})` : last.decidedBy;
  const tool = last.source === agentCaller ? last.tool : `${last.tool} (from ${callerLabel(last.source)})`;
  const verdict = last.notRun !== undefined
    ? 'not run'
    : last.verdict === 'ask'
      ? 'ask (no answer yet)'
      : `${last.verdict}${asked !== undefined ? ' after asking' : ''}${last.edited === true ? ' (edited)' : ''}`;
  const why = asked !== undefined && asked !== last ? `${asked.reason}; then ${last.reason}` : last.reason;
  return `| ${shortTime(first.time, timeZone)} | ${cell(tool, 60)} | ${cell(last.target ?? first.target ?? '')} | ${verdict} | ${who} | ${cell(why, 240)} |`;
}

/**
 * The table, newest call first, one row per call (its "ask" and its answer together) and one per undo. Times are in
 * `timeZone` (the person's, in VS Code) or UTC; the JSON lines keep UTC.
 */
export function auditTable(text: string, limit = 1000, rawPath?: string, timeZone?: string): AuditTable {
  let unreadable = 0;
  const lines: AuditLine[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      continue;
    }
    let parsed;
    try {
      parsed = AuditLine.safeParse(JSON.parse(line));
    } catch {
      parsed = undefined;
    }
    if (parsed?.success === true) {
      lines.push(parsed.data);
    } else {
      unreadable++;
    }
  }
  const byCall = new Map<string, Decision[]>();
  for (const entry of lines) {
    if (!('kind' in entry)) {
      byCall.set(entry.callId, [...(byCall.get(entry.callId) ?? []), entry]);
    }
  }
  const rows: string[] = [];
  const shown = new Set<string>();
  let calls = 0;
  for (const entry of [...lines].reverse()) {
    if ('kind' in entry) {
      calls++;
      if (rows.length < limit) {
        const target = [...entry.reverted.map((file) => file.path), ...entry.left.map((file) => file.path)].join(', ');
        rows.push(`| ${shortTime(entry.time, timeZone)} | undo (${entry.scope}) | ${cell(target)} | ${entry.outcome} | person | ${cell(entry.reason)} |`);
      }
      continue;
    }
    if (shown.has(entry.callId)) {
      continue;
    }
    shown.add(entry.callId);
    calls++;
    if (rows.length < limit) {
      rows.push(callRow(byCall.get(entry.callId) ?? [entry], timeZone));
    }
  }
  const heading = [
    '# Toolgate audit log',
    '',
    `${calls} row${calls === 1 ? '' : 's'}, newest first: one per call (the question and its answer together) and one per undo${calls > limit ? ` (the newest ${limit} shown)` : ''}. ` +
      `Times are ${timeZone === undefined ? 'UTC' : `local (${timeZone})`}.` +
      (unreadable > 0 ? ` ${unreadable} line${unreadable === 1 ? '' : 's'} could not be read.` : '') +
      (rawPath !== undefined ? ` The record itself is the JSON lines in \`${rawPath}\` (Toolgate: Show Audit Log as JSON Lines), in UTC.` : ''),
    '',
    '| Time | Tool | Target | Verdict | Who | Why |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  return { markdown: [...heading, ...rows, ''].join('\n'), rows: rows.length, unreadable };
}
