/** What the gate writes to the audit log: a call that starts waiting, and every outcome with who decided and why. */
import type { AuditEntry } from '../audit/auditLog';
import type { GrantScope } from './grants';
import type { Judgement } from './policy';
import type { GateInput, GateResult } from './waitingCall';

/** A call that asks: it starts waiting, for the reason the policy gave. */
export function askEntry(callId: string, input: GateInput, judgement: Pick<Judgement, 'reason' | 'decidedBy'>, time: Date): AuditEntry {
  const decidedBy = judgement.decidedBy === 'managed' ? 'managed' : 'policy';
  const target = auditTarget(input);
  return { time: time.toISOString(), callId, tool: input.call.tool, argsHash: input.call.argsHash, verdict: 'ask', decidedBy, reason: judgement.reason, source: input.source, ...(target !== undefined ? { target } : {}) };
}

/** A call decided: `shutdown`, the gate was closing, so a cancelled call never ran because the window went away. */
export function resultEntry(input: GateInput, result: GateResult, scope: 'once' | GrantScope | undefined, time: Date, shutdown: boolean): AuditEntry {
  // Filled in the schema's order, each optional key only when it is there (the line is written as built: auditLog.ts).
  const entry: AuditEntry = {
    time: time.toISOString(),
    callId: result.callId,
    tool: input.call.tool,
    argsHash: input.call.argsHash,
    verdict: result.verdict,
    decidedBy: result.decidedBy,
    ...(scope !== undefined ? { scope } : {}),
    reason: result.reason,
    source: input.source,
  };
  if (result.verdict === 'allow' && result.edited !== undefined) {
    entry.edited = true;
  }
  const target = auditTarget(input);
  if (target !== undefined) {
    entry.target = target;
  }
  if (shutdown && result.decidedBy === 'cancel') {
    entry.notRun = 'shutdown';
  }
  return entry;
}

/** What a call was about, for the audit log's reader: the command (cut), the MCP server's tool, or the path. */
function auditTarget(input: GateInput): string | undefined {
  const preview = input.preview;
  const target =
    preview.kind === 'command'
      ? preview.command
      : (input.call.external?.label ?? input.call.target?.relative ?? input.call.target?.absolute);
  return target === undefined || target.length <= 500 ? target : `${target.slice(0, 499)}…`;
}
