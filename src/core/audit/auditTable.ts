/**
 * The audit log as a person reads it: a Markdown table, newest first (time, tool, target, verdict, who, why). The
 * JSON lines stay the record; lines that do not parse are counted, never guessed at.
 */
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

/** `2026-11-22T21:48:42.123Z` -> `2026-11-22 21:48:42` (UTC, as logged). */
function shortTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '');
}

export function auditTable(text: string, limit = 1000, rawPath?: string): AuditTable {
  const rows: string[] = [];
  let unreadable = 0;
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  for (const line of lines.reverse()) {
    let parsed;
    try {
      parsed = AuditLine.safeParse(JSON.parse(line));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) {
      unreadable++;
      continue;
    }
    if (rows.length >= limit) {
      continue;
    }
    const entry = parsed.data;
    if ('kind' in entry) {
      const target = [...entry.reverted.map((file) => file.path), ...entry.left.map((file) => file.path)].join(', ');
      rows.push(`| ${shortTime(entry.time)} | undo (${entry.scope}) | ${cell(target)} | ${entry.outcome} | person | ${cell(entry.reason)} |`);
      continue;
    }
    const who = entry.scope !== undefined ? `${entry.decidedBy} (${entry.scope})` : entry.decidedBy;
    const tool = entry.source === 'agent' ? entry.tool : `${entry.tool} (from ${entry.source})`;
    rows.push(`| ${shortTime(entry.time)} | ${cell(tool, 60)} | ${cell(entry.target ?? '')} | ${entry.verdict}${entry.edited === true ? ' (edited)' : ''} | ${who} | ${cell(entry.reason)} |`);
  }
  const total = lines.length - unreadable;
  const heading = [
    '# Toolgate audit log',
    '',
    `${total} decision${total === 1 ? '' : 's'}, newest first${total > limit ? ` (the newest ${limit} shown)` : ''}. Times are UTC.` +
      (unreadable > 0 ? ` ${unreadable} line${unreadable === 1 ? '' : 's'} could not be read.` : '') +
      (rawPath !== undefined ? ` The record itself is the JSON lines in \`${rawPath}\` (Toolgate: Show Audit Log as JSON Lines).` : ''),
    '',
    '| Time | Tool | Target | Verdict | Who | Why |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  return { markdown: [...heading, ...rows, ''].join('\n'), rows: rows.length, unreadable };
}
