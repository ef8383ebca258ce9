/**
 * An audit decision as the OpenTelemetry log record the export sends: typed fields only, under a `toolgate.` prefix,
 * never file contents or the decision's free-text reason (a person's reason or a command's words may hold a secret);
 * the target is cut to 200 characters. The spool keeps exactly this (src/core/audit/export/exportSpool.ts).
 */
import { createHash } from 'node:crypto';
import * as z from '../../../zod';
import { agentCaller, isMcpClientSource, lmToolCaller } from '../../callers';
import type { AuditEntry } from '../auditLog';

/** The attribute names (README: "Audit export"). */
export const exportAttributes = {
  recordId: 'toolgate.record.id',
  callId: 'toolgate.call.id',
  tool: 'toolgate.tool',
  argsHash: 'toolgate.args.hash',
  verdict: 'toolgate.verdict',
  decidedBy: 'toolgate.decided_by',
  scope: 'toolgate.scope',
  callerKind: 'toolgate.caller.kind',
  caller: 'toolgate.caller',
  workspaceId: 'toolgate.workspace.id',
  target: 'toolgate.target',
  edited: 'toolgate.edited',
  notRun: 'toolgate.not_run',
  droppedBefore: 'toolgate.export.dropped_before',
} as const;

/** The log record's event name. */
export const decisionEventName = 'toolgate.decision';

export const maxTargetLength = 200;

/** Who asked for the call, as a kind: Toolgate's agent, the API, a language-model tool client, an MCP client. */
export const CallerKind = z.enum(['agent', 'api', 'lm-tool', 'mcp-client']);
export type CallerKind = z.infer<typeof CallerKind>;

export function callerKind(source: string): CallerKind {
  if (source === agentCaller) {
    return 'agent';
  }
  if (source === lmToolCaller) {
    return 'lm-tool';
  }
  if (isMcpClientSource(source)) {
    return 'mcp-client';
  }
  return 'api'; // an extension through the API: `api`, or the name it gave
}

/** A record waiting in the spool: what is sent, and how many records were dropped just before it. */
export const ExportRecord = z.strictObject({
  id: z.string().check(z.minLength(1)),
  /** The decision's time (ISO). */
  time: z.string(),
  severity: z.enum(['info', 'warn']),
  body: z.string(),
  attributes: z.record(z.string(), z.union([z.string(), z.boolean()])),
  /** Records dropped (oldest first, the spool being full) right before this one: sent as an attribute. */
  droppedBefore: z._default(z.int().check(z.nonnegative()), 0),
});
export type ExportRecord = z.infer<typeof ExportRecord>;

/** The workspace as the collector sees it: a hash of its folders' URIs, never a path. `none` for an empty window. */
export function workspaceId(folderUris: readonly string[]): string {
  if (folderUris.length === 0) {
    return 'none';
  }
  return createHash('sha256').update([...folderUris].sort().join('\n')).digest('hex').slice(0, 16);
}

function cut(text: string): string {
  return text.length > maxTargetLength ? `${text.slice(0, maxTargetLength - 1)}…` : text;
}

/** The record for one decision. `id` makes it unique (a call has an `ask` and an answer): a collector may dedupe. */
export function exportRecord(entry: AuditEntry, workspace: string, id: string): ExportRecord {
  const attributes: Record<string, string | boolean> = {
    [exportAttributes.callId]: entry.callId,
    [exportAttributes.tool]: entry.tool,
    [exportAttributes.argsHash]: entry.argsHash,
    [exportAttributes.verdict]: entry.verdict,
    [exportAttributes.decidedBy]: entry.decidedBy,
    [exportAttributes.callerKind]: callerKind(entry.source),
    [exportAttributes.caller]: entry.source,
    [exportAttributes.workspaceId]: workspace,
  };
  if (entry.scope !== undefined) {
    attributes[exportAttributes.scope] = entry.scope;
  }
  if (entry.target !== undefined) {
    attributes[exportAttributes.target] = cut(entry.target);
  }
  if (entry.edited === true) {
    attributes[exportAttributes.edited] = true;
  }
  if (entry.notRun !== undefined) {
    attributes[exportAttributes.notRun] = entry.notRun;
  }
  const scope = entry.scope !== undefined ? ` (${entry.scope})` : '';
  return {
    id,
    time: entry.time,
    severity: entry.verdict === 'deny' ? 'warn' : 'info',
    body: `${entry.verdict} ${entry.tool} by ${entry.decidedBy}${scope}`,
    attributes,
    droppedBefore: 0,
  };
}
