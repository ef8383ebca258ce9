/**
 * Whether to notify the person that a call or an ask_user question started waiting for them: only when they would
 * not see it otherwise (neither the Toolgate chat view nor the approvals panel is visible, or the window is not
 * focused), only once per call or question, and only while `toolgate.notifications.whenHidden` is on. A notification
 * says "Toolgate: <tool> <target> waits for you" and offers Allow once / Deny / Open for a call, Open for a question.
 * Decisions from it go through the gate like any other (the call must still wait, with the hash shown).
 */
import type { PendingCallView } from '../../shared/approvals';

/** What waits: a gated call (with what identifies it to the gate) or a question of the agent. */
export type Waiter =
  | { kind: 'call'; id: string; tool: string; target: string; argsHash: string }
  | { kind: 'question'; id: string; tool: 'ask_user'; target: string };

/** Where the person is, as the editor reports it when something starts waiting. */
export interface Whereabouts {
  /** `toolgate.notifications.whenHidden`. */
  enabled: boolean;
  windowFocused: boolean;
  chatVisible: boolean;
  panelVisible: boolean;
}

export type WaitNoticeAction = 'Allow once' | 'Deny' | 'Open';

export interface WaitNotice {
  waiter: Waiter;
  text: string;
  actions: WaitNoticeAction[];
}

export function shouldNotify(where: Whereabouts): boolean {
  return where.enabled && (!where.windowFocused || (!where.chatVisible && !where.panelVisible));
}

const maxTargetChars = 80;

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > maxTargetChars ? `${line.slice(0, maxTargetChars - 1)}…` : line;
}

/** A waiting call as the notification names it: the file, the command, else the compact arguments. */
export function callWaiter(call: PendingCallView): Waiter {
  const preview = call.preview;
  const target = preview.kind === 'diff' ? preview.path : preview.kind === 'command' ? preview.command : call.argsJson;
  return { kind: 'call', id: call.callId, tool: call.tool, target: clip(target), argsHash: call.argsHash };
}

export function questionWaiter(id: string, question: string): Waiter {
  return { kind: 'question', id, tool: 'ask_user', target: clip(question) };
}

export function waitNotice(waiter: Waiter): WaitNotice {
  return {
    waiter,
    text: `Toolgate: ${waiter.tool} ${waiter.target} waits for you`,
    actions: waiter.kind === 'call' ? ['Allow once', 'Deny', 'Open'] : ['Open'],
  };
}

/** Remembers what already waited, so that each call or question is notified at most once, when it starts waiting. */
export class WaitNotifier {
  private known = new Set<string>();

  /** The notices for what started waiting since the last update (none when the person would see it anyway). */
  update(waiting: readonly Waiter[], where: Whereabouts): WaitNotice[] {
    const fresh = waiting.filter((waiter) => !this.known.has(waiter.id));
    this.known = new Set(waiting.map((waiter) => waiter.id));
    return fresh.length > 0 && shouldNotify(where) ? fresh.map(waitNotice) : [];
  }
}
