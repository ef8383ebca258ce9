/**
 * Whether to notify the person that a call or an ask_user question started waiting for them: only when they would
 * not see it otherwise (no Toolgate view that shows it is visible, or the window is not focused): a call of the
 * chat's agent shows in the chat and the approvals panel, another call (the API's, another chat's) only in the panel,
 * a question only in the chat. Only once per call or question, and only while `toolgate.notifications.whenHidden` is on. A notification
 * says "Toolgate: <tool> <target> waits for you" and offers Allow once / Deny / Open for a call, Open for a question.
 * Decisions from it go through the gate like any other (the call must still wait, with the hash shown).
 */
import type { PendingCallView } from '../../shared/approvals';
import type { ViewKind } from '../../shared/messages';

/** What waits: a gated call (with what identifies it to the gate) or a question of the agent; where it shows. */
export type Waiter = (
  /** `unconfined`: it would run without the sandbox, which only its card's own button allows (no Allow once here). */
  /** `review`: a group's changes (a staged command's files): never allowed from a notification, which shows no diff. */
  | { kind: 'call'; id: string; tool: string; target: string; argsHash: string; unconfined?: boolean; review?: true }
  | { kind: 'question'; id: string; tool: 'ask_user'; target: string }
) & { shownIn: readonly ViewKind[] };

/** Where the person is, as the editor reports it when something starts waiting. */
export interface Whereabouts {
  /** `toolgate.notifications.whenHidden`. */
  enabled: boolean;
  windowFocused: boolean;
  /** The Toolgate views on screen. */
  visible: Readonly<Partial<Record<ViewKind, boolean>>>;
}

export type WaitNoticeAction = 'Allow once' | 'Deny' | 'Open';

export interface WaitNotice {
  waiter: Waiter;
  text: string;
  actions: WaitNoticeAction[];
}

export function shouldNotify(waiter: Pick<Waiter, 'shownIn'>, where: Whereabouts): boolean {
  return where.enabled && (!where.windowFocused || !waiter.shownIn.some((view) => where.visible[view]));
}

const maxTargetChars = 80;

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > maxTargetChars ? `${line.slice(0, maxTargetChars - 1)}…` : line;
}

/**
 * A waiting call as the notification names it: the file, the command, else the compact arguments. `inChat`: it is a
 * call of the chat's agent, which the chat shows as an inline card (else only the panel shows it).
 */
export function callWaiter(call: PendingCallView, inChat: boolean): Waiter {
  const preview = call.preview;
  const target = preview.kind === 'diff' ? preview.path : preview.kind === 'command' ? preview.command : call.argsJson;
  return {
    kind: 'call',
    id: call.callId,
    tool: call.tool,
    target: clip(target),
    argsHash: call.argsHash,
    ...(call.unconfined === true ? { unconfined: true } : {}),
    shownIn: inChat ? ['chat', 'approvals'] : ['approvals'],
  };
}

/**
 * The waiting calls as the notifications name them: each call on its own, and a group (a staged command's changed
 * files) once, as its first member, whose Deny denies the group: "`npm run format` changed 12 files: 3 wait for you".
 */
export function callWaiters(pending: readonly PendingCallView[], inChat: (callId: string) => boolean): Waiter[] {
  const waiters: Waiter[] = [];
  const counted = new Map<string, { waiter: Extract<Waiter, { kind: 'call' }>; members: number; command: string; changed: number }>();
  for (const call of pending) {
    const group = call.group;
    if (group === undefined) {
      waiters.push(callWaiter(call, inChat(call.callId)));
      continue;
    }
    const seen = counted.get(group.id);
    if (seen) {
      seen.members += 1;
      continue;
    }
    const waiter: Extract<Waiter, { kind: 'call' }> = { ...(callWaiter(call, inChat(call.callId)) as Extract<Waiter, { kind: 'call' }>), review: true };
    counted.set(group.id, { waiter, members: 1, command: group.command, changed: group.changed });
    waiters.push(waiter);
  }
  for (const { waiter, members, command, changed } of counted.values()) {
    waiter.tool = 'run_in_terminal';
    waiter.target = `\`${clip(command)}\` changed ${changed} file${changed === 1 ? '' : 's'}: ${members} of them`;
  }
  return waiters;
}

export function questionWaiter(id: string, question: string): Waiter {
  return { kind: 'question', id, tool: 'ask_user', target: clip(question), shownIn: ['chat'] };
}

export function waitNotice(waiter: Waiter): WaitNotice {
  return {
    waiter,
    text: waiter.kind === 'call' && waiter.review === true ? `Toolgate: ${waiter.target} wait for you` : `Toolgate: ${waiter.tool} ${waiter.target} waits for you`,
    actions: waiter.kind !== 'call' ? ['Open'] : waiter.unconfined === true || waiter.review === true ? ['Deny', 'Open'] : ['Allow once', 'Deny', 'Open'],
  };
}

/** Remembers what already waited, so that each call or question is notified at most once, when it starts waiting. */
export class WaitNotifier {
  private known = new Set<string>();

  /** The notices for what started waiting since the last update (none when the person would see it anyway). */
  update(waiting: readonly Waiter[], where: Whereabouts): WaitNotice[] {
    const fresh = waiting.filter((waiter) => !this.known.has(waiter.id));
    this.known = new Set(waiting.map((waiter) => waiter.id));
    return fresh.filter((waiter) => shouldNotify(waiter, where)).map(waitNotice);
  }
}
