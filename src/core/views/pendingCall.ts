/**
 * The panel's and the chat's view of each waiting call, built in one place from what the gate holds: what a call shows
 * (from its input and the policy's judgement) and its live state (hunk choices, the held edit, which actions are off).
 * The webview renders these and nothing else; the gate itself knows nothing of the webview contract.
 */
import type { CommandPreview, GrantOptionView, PendingCallView } from '../../shared/approvals';
import type { Gate, WaitingCall } from '../approval/gate';
import { canonicalJson } from '../approval/hash';
import type { GateCall, Judgement } from '../approval/policy';
import { actionsOff, type ActionsOff } from '../review/choiceRules';
import type { SubVerdict } from '../shell/rules';

/** What the views read of the gate. */
export type GateState = Pick<Gate, 'waitingCalls' | 'liveRevision' | 'liveState'>;

/** A waiting call's views: the one built when it started waiting, and the last one with its live state. */
interface CachedViews {
  initial: PendingCallView;
  live?: { revision: string; view: PendingCallView };
}

/**
 * Keyed by the gate's waiting call, which is the same object while the call waits and is dropped when it settles, so
 * a settled call's views go with it.
 */
const cache = new WeakMap<WaitingCall, CachedViews>();

/**
 * What the panel shows of every waiting call, oldest first; with `chatId`, only the calls of that chat. A call's view
 * is the same object until its live state changes: the views tell a changed call by its object, so a new copy of each
 * of 500 waiting calls on every refresh made each refresh serialise all 500 again.
 */
export function pendingViews(gate: GateState, chatId?: string): PendingCallView[] {
  return gate.waitingCalls(chatId).map((call) => {
    let views = cache.get(call);
    if (views === undefined) {
      views = { initial: pendingCallView(call) };
      cache.set(call, views);
    }
    const revision = gate.liveRevision(call.callId);
    if (revision === undefined) {
      return views.initial;
    }
    if (views.live?.revision === revision) {
      return views.live.view;
    }
    const { hunkChoices, edit, facts } = gate.liveState(call);
    const { off: _initialOff, ...rest } = views.initial; // the live facts decide what is off now
    const view: PendingCallView = {
      ...rest,
      ...(hunkChoices !== undefined ? { hunkChoices } : {}),
      ...(edit !== undefined ? { edit } : {}),
      ...offView(actionsOff(facts)),
    };
    views.live = { revision, view };
    return view;
  });
}

/** Everything the panel shows of a call that starts waiting, before the person touches it. */
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
function offView(off: ActionsOff | undefined): Pick<PendingCallView, 'off'> {
  return off === undefined ? {} : { off };
}
