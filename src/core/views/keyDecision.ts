/**
 * Allow once / deny from a command or its keybinding (Toolgate: Allow Once / Deny), for the call whose card holds the
 * keyboard focus in the chat or the panel. The rule: an Allow never decides a call the person cannot see. With no
 * card focused, it brings the oldest waiting call's card into view with the focus, and the next press decides it.
 * Deny takes the oldest then (refusing unseen loses nothing) and asks for an optional reason. Every decision is echoed
 * in the status bar and to a screen reader. The editor's part (messages, the reason's input box) is a port.
 */
import type { Gate } from '../approval/gate';
import type { PendingCallView } from '../../shared/approvals';
import type { FocusedCalls } from './focusedCall';
import { pendingViews, type GateState } from './pendingCall';
import { callWaiter } from './waitNotices';

/** What a keyboard decision did: the call it settled, or why none. */
export type KeyDecision = { decided: true; callId: string; tool: string } | { decided: false; why: string };

/** A view that shows waiting calls' cards, as a keyboard decision reaches it. */
export interface CardView {
  readonly visible: boolean;
  /** Says `text` to a screen reader. */
  announce(text: string): void;
}

/** What the editor shows and asks around a keyboard decision. */
export interface KeyPrompts {
  info(text: string): void;
  warn(text: string): void;
  /** A short message in the status bar. */
  status(text: string): void;
  /** The deny's optional reason; undefined when the person cancelled (the call keeps waiting). */
  askReason(title: string): PromiseLike<string | undefined>;
}

export interface KeyDecisionDeps {
  gate: GateState & Pick<Gate, 'settle'>;
  focus: Pick<FocusedCalls, 'focusedCall'>;
  /** `focusCall` brings the call's inline card into view with the focus; false when the chat does not show it. */
  chat: CardView & { focusCall(callId: string): boolean };
  approvals: CardView & { focusCall(callId: string): void };
  /** Whether the chat shows a waiting call (a call of its agent) as an inline card. */
  inChat: (callId: string) => boolean;
  prompts: KeyPrompts;
}

/** A waiting call as a keyboard decision echoes it: "write_file src/a.ts", or a group's command. */
function described(call: PendingCallView): string {
  return call.group !== undefined ? `the changes of \`${call.group.command}\`` : `${call.tool} ${callWaiter(call, false).target}`;
}

export async function decideFocused(deps: KeyDecisionDeps, allow: boolean, reasonArg: string | undefined): Promise<KeyDecision> {
  const { gate, focus, chat, approvals, prompts } = deps;
  const shown = (view: 'chat' | 'approvals' | 'suggestions'): boolean => (view === 'chat' ? chat.visible : view === 'approvals' && approvals.visible);
  const pending = pendingViews(gate);
  const focused = focus.focusedCall(pending, shown);
  const call = focused ?? (allow ? undefined : pending[0]);
  if (!call) {
    const first = pending[0];
    if (!first) {
      prompts.info('Toolgate: no call is waiting for approval.');
      return { decided: false, why: 'no call is waiting' };
    }
    if (!(deps.inChat(first.callId) && chat.visible && chat.focusCall(first.callId))) {
      approvals.focusCall(first.callId);
    }
    prompts.status(`Toolgate: ${described(first)} is in view; press again to allow it`);
    return { decided: false, why: 'no card had the focus: the oldest waiting call was brought into view' };
  }
  let reason = reasonArg;
  if (!allow && reasonArg === undefined) {
    reason = await prompts.askReason(`Toolgate: deny ${described(call)}`);
    if (reason === undefined) {
      return { decided: false, why: 'the deny was cancelled' };
    }
  }
  const trimmed = reason?.trim();
  const outcome = gate.settle(call, allow ? { action: 'allow-once' } : { action: 'deny', ...(trimmed ? { reason: trimmed } : {}) });
  if (!outcome.ok) {
    prompts.warn(`Toolgate: ${outcome.error}`);
    return { decided: false, why: outcome.error };
  }
  const echo = `Toolgate: ${allow ? 'allowed once' : 'denied'}: ${described(call)}`;
  prompts.status(echo);
  chat.announce(echo);
  approvals.announce(echo);
  return { decided: true, callId: call.callId, tool: call.tool };
}

/**
 * Toolgate: Allow Once (no argument) or Deny (an optional reason) run as a command, its argument read already
 * (src/core/commandArgs.ts): a wrong one decides nothing, and the answer says why (as its other refusals do).
 */
export function decideFromCommand(deps: KeyDecisionDeps, allow: boolean, read: { ok: true; value: string | undefined } | { ok: false; error: string }): Promise<KeyDecision> {
  if (!read.ok) {
    deps.prompts.warn(`Toolgate: ${read.error}`);
    return Promise.resolve({ decided: false, why: read.error });
  }
  return decideFocused(deps, allow, read.value);
}
