/**
 * The panel's and the chat's view models of the gate's state, built in one place: what a waiting call shows (from its
 * input and the policy's judgement) and the grants a person can revoke. The webview renders these and nothing else.
 */
import type { AllowedByView, CommandPreview, GrantOptionView, GrantView, PendingCallView } from '../../shared/approvals';
import type { GateInput } from './gate';
import type { GrantOption } from './grantOptions';
import { describeGrant, describeMatcher, type Grant } from './grants';
import { canonicalJson } from './hash';
import type { SubVerdict } from '../shell/rules';
import type { AllowedBy, GateCall, Judgement } from './policy';
import { actionsOff } from '../review/choiceRules';

export interface WaitingCall {
  callId: string;
  batchId: string;
  input: GateInput;
  judgement: Judgement;
  options: GrantOption[];
  waitingSince: Date;
  timeoutSeconds: number;
  /** Grants active for the call's chat: a grant of this tool pinned to another definition means it was redefined. */
  activeGrants: readonly Grant[];
}

/** Everything the panel shows of a call that starts waiting (a call's view never changes while it waits). */
export function pendingCallView(waiting: WaitingCall): PendingCallView {
  const { callId, batchId, input, judgement, options, waitingSince, timeoutSeconds } = waiting;
  const external = input.call.external;
  const pinned = external?.definitionHash;
  const redefined =
    pinned !== undefined &&
    waiting.activeGrants.some((grant) => grant.tool === input.call.tool && grant.definitionHash !== undefined && grant.definitionHash !== pinned);
  const notices = [
    ...(input.notices ?? []),
    ...(redefined
      ? ['The server changed this tool (its name, description or input schema) since you granted it, so that grant no longer applies. Read the description below again.']
      : []),
  ];
  const preview = input.preview.kind === 'command' ? { ...input.preview, analysis: commandAnalysisLines(input.call, judgement) } : input.preview;
  return {
    callId,
    batchId,
    tool: input.call.tool,
    source: input.source,
    reason: judgement.plain,
    warnings: [...notices, ...judgement.warnings],
    argsHash: input.call.argsHash,
    argsJson: JSON.stringify(JSON.parse(canonicalJson(input.call.args)), null, 2),
    preview,
    grantable: judgement.grantable && options.length > 0,
    ...(judgement.runsUnconfined === true ? { unconfined: true } : {}),
    grantOptions: options.map(({ id, label }): GrantOptionView => ({ id, label })),
    ...(external?.server !== undefined
      ? { toolInfo: { server: external.server, description: external.description ?? '', annotations: external.annotations ?? [] } }
      : {}),
    ...(input.editable ? { editable: input.editable } : {}),
    ...(input.group ? { group: input.group } : {}),
    ...offView(actionsOff({ grantable: judgement.grantable && options.length > 0, edited: false })),
    waitingSince: waitingSince.toISOString(),
    ...(timeoutSeconds > 0 ? { timesOutAt: new Date(waitingSince.getTime() + timeoutSeconds * 1000).toISOString() } : {}),
  };
}

/** What let a call run without asking, as the chat names it. */
export function allowedByView(allowedBy: AllowedBy): AllowedByView {
  return allowedBy.kind === 'grant' ? { kind: 'grant', grant: grantView(allowedBy.grant) } : { ...allowedBy, keys: [...allowedBy.keys] };
}

/** A grant as the panel lists it, with its revoke button. */
export function grantView(grant: Grant): GrantView {
  return {
    id: grant.id,
    scope: grant.scope,
    label: describeGrant(grant),
    covers: describeMatcher(grant.tool, grant.matcher),
    createdAt: grant.createdAt,
    ...(grant.expiresAt !== undefined ? { expiresAt: grant.expiresAt } : {}),
  };
}

/**
 * The analysis the panel shows for a command: the sub-commands of a line of several, each with its verdict, the
 * redirects and the concerns. The line's verdict is the card's reason, so it is not repeated here, and neither is the
 * reason of the one sub-command the card's reason speaks of.
 */
export function commandAnalysisLines(call: GateCall, judgement: Judgement): CommandPreview['analysis'] {
  const analysis = call.commandAnalysis;
  const details = judgement.commandDetails ?? [];
  return [
    ...(details.length > 1 ? details : []).map((detail) => ({
      text: `${detail.text}: ${detail === judgement.commandSubject ? 'asks (the reason above)' : subCommandPlain(detail)}`,
      verdict: detail.verdict,
    })),
    ...(analysis?.redirects ?? []).map((redirect) => ({
      text: `redirect ${redirect.raw}${redirect.target !== undefined ? ` -> ${redirect.target}` : ' (target depends on an expansion)'}`,
      verdict: 'info' as const,
    })),
    ...(analysis?.concerns ?? []).map((concern) => ({ text: concern.detail, verdict: 'ask' as const })),
  ];
}

/** One sub-command's verdict in plain words: "allowed by `ls`", "no rule allows `wget` yet". */
function subCommandPlain(detail: SubVerdict): string {
  switch (detail.kind) {
    case 'allowed':
      return detail.rule !== undefined ? `allowed by \`${detail.rule}\`` : detail.reason;
    case 'no-rule':
      return `no rule allows \`${detail.name}\` yet`;
    case 'false-rule':
      return detail.falseRule !== undefined ? `\`${detail.falseRule}\` in toolgate.autoApprove.terminal sets it to always ask` : detail.reason;
    default:
      return detail.reason;
  }
}

/** The view's `off` field, present only when an action is off. */
export function offView(off: PendingCallView['off']): Pick<PendingCallView, 'off'> {
  return off === undefined ? {} : { off };
}
