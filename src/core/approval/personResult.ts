/**
 * What a person's choice on a waiting call comes to: the gate's result (with the reason the audit log and the model
 * read), its scope, and the grant to add when the choice makes one. Pure: the gate adds the grant and records it.
 */
import { grantScopes, isGrantAction, type PersonChoice } from './choices';
import { describeGrant, grantMinutes, newGrantId, type Grant, type GrantScope } from './grants';
import type { GateResult, WaitingCall } from './waitingCall';
import { grantCaller } from '../callers';
import { checkHunkDecisions } from '../review/hunks';

export interface PersonOutcome {
  result: GateResult;
  scope: 'once' | GrantScope | undefined;
  /** The grant the choice makes, for the gate to add before it answers. */
  grant?: Grant;
}

export function personResult(entry: Pick<WaitingCall, 'callId' | 'input' | 'options' | 'chatId' | 'taskId'>, decision: PersonChoice, now: Date): PersonOutcome {
  const { callId, input } = entry;
  if (decision.action === 'deny') {
    const personReason = decision.reason?.trim();
    return {
      result: { verdict: 'deny', callId, decidedBy: 'person', reason: personReason ? `denied by the person: ${personReason}` : 'denied by the person', ...(personReason ? { personReason } : {}) },
      scope: undefined,
    };
  }
  if (decision.action === 'allow-edited') {
    return { result: { verdict: 'allow', callId, decidedBy: 'person', scope: 'once', reason: 'allowed once by the person, after editing', edited: decision.edited ?? '' }, scope: 'once' };
  }
  if (decision.action === 'allow-remedy') {
    const remedy = input.remedies?.find((offered) => offered.id === decision.remedy);
    return { result: { verdict: 'allow', callId, decidedBy: 'person', scope: 'once', reason: `allowed by the person: ${remedy?.label ?? decision.remedy ?? ''}`, ...(remedy ? { remedy: remedy.id } : {}) }, scope: 'once' };
  }
  if (decision.action === 'allow-unconfined') {
    return { result: { verdict: 'allow', callId, decidedBy: 'person', scope: 'once', reason: 'allowed once by the person, without the sandbox' }, scope: 'once' };
  }
  if (!isGrantAction(decision.action)) {
    const preview = input.preview;
    const check = decision.hunks !== undefined && preview.kind === 'diff' ? checkHunkDecisions(preview.hunks.length, decision.hunks, 'accept') : undefined;
    const result: GateResult =
      check?.kind === 'ok' && check.accepted.size < check.decisions.length
        ? { verdict: 'allow', callId, decidedBy: 'person', scope: 'once', reason: `allowed once by the person: ${check.accepted.size} of ${check.decisions.length} hunks`, hunks: check.decisions }
        : { verdict: 'allow', callId, decidedBy: 'person', scope: 'once', reason: 'allowed once by the person' };
    return { result, scope: 'once' };
  }
  const scope = grantScopes[decision.action];
  const option = entry.options.find((candidate) => candidate.id === decision.grantOption) ?? entry.options[0];
  if (!option) {
    return { result: { verdict: 'allow', callId, decidedBy: 'person', scope, reason: `allowed by the person for this ${scope}` }, scope };
  }
  const grant: Grant = {
    id: newGrantId(),
    tool: input.call.tool,
    matcher: option.matcher,
    scope,
    createdAt: now.toISOString(),
    ...(scope === 'task' && entry.taskId !== undefined ? { taskId: entry.taskId } : {}),
    ...(scope === 'timed' ? { expiresAt: new Date(now.getTime() + (decision.minutes ?? grantMinutes.default) * 60_000).toISOString() } : {}),
    caller: grantCaller(input.source),
    ...(input.call.external?.definitionHash !== undefined ? { definitionHash: input.call.external.definitionHash } : {}),
  };
  return { result: { verdict: 'allow', callId, decidedBy: 'person', scope, reason: `allowed by the person: new ${describeGrant(grant)}`, granted: grant }, scope, grant };
}
