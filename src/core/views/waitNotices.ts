/**
 * Whether to notify the person that a call or an ask_user question started waiting for them: only when they would
 * not see it otherwise (no Toolgate view that shows it is visible, or the window is not focused): a call of the
 * chat's agent shows in the chat and the approvals panel, another call (the API's, another chat's) only in the panel,
 * a question only in the chat. Only once per call or question, and only while `toolgate.notifications.whenHidden` is on. A notification
 * says "Toolgate: <tool> <target> waits for you" and offers Allow once / Deny / Open for a lone call that is not a file
 * change, Deny / Open for a write or edit (allowed only where its diff is seen), a batch or a group (one notification
 * each), and Open for a question. Decisions from it go through the gate like any other (the call must still wait, with
 * the hash shown; an edited call is not allowed from here).
 */
import type { PendingCallView } from '../../shared/approvals';
import type { ViewKind } from '../../shared/messages';

/** What waits: a gated call (with what identifies it to the gate) or a question of the agent; where it shows. */
export type Waiter = (
  /** `unconfined`: it would run without the sandbox, which only its card's own button allows (no Allow once here). */
  /**
   * `review`: a group's changes (a staged command's files); `diff`: a file change. Neither is allowed from a
   * notification, which shows no diff. `refs`: the calls its Deny denies (a batch's, a group's first member, itself).
   */
  | { kind: 'call'; id: string; tool: string; target: string; argsHash: string; unconfined?: boolean; review?: true; diff?: true; refs?: { callId: string; argsHash: string }[] }
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
    // A write or an edit is approved where its diff is seen: a notification only opens it or denies it.
    ...(preview.kind === 'diff' ? { diff: true as const } : {}),
    shownIn: inChat ? ['chat', 'approvals'] : ['approvals'],
  };
}

/**
 * The waiting calls as the notifications name them, one notification per batch (a model turn's calls, a group):
 * a batch of one call is that call ("write_file src/a.ts"); a batch of several is "3 calls: write_file src/a.ts,
 * run_in_terminal npm test, …", whose Deny denies them all; a group (a staged command's changed files) is
 * "`npm run format` changed 12 files: 3 of them". Only a lone call that is not a file change offers Allow once.
 */
export function callWaiters(pending: readonly PendingCallView[], inChat: (callId: string) => boolean): Waiter[] {
  const batches = new Map<string, PendingCallView[]>();
  for (const call of pending) {
    const key = call.group !== undefined ? `group:${call.group.id}` : `batch:${call.batchId}`;
    const members = batches.get(key) ?? [];
    members.push(call);
    batches.set(key, members);
  }
  return [...batches].map(([key, members]): Waiter => {
    const [first, ...rest] = members;
    if (first === undefined) {
      throw new Error('a batch with no call');
    }
    const waiter = callWaiter(first, members.some((call) => inChat(call.callId))) as Extract<Waiter, { kind: 'call' }>;
    const refs = members.map(({ callId, argsHash }) => ({ callId, argsHash }));
    const group = first.group;
    if (group !== undefined) {
      // Deny through the first member denies the group.
      return { ...waiter, id: key, review: true, refs: [refs[0] ?? first], tool: 'run_in_terminal', target: `\`${clip(group.command)}\` changed ${group.changed} file${group.changed === 1 ? '' : 's'}: ${members.length} of them` };
    }
    if (rest.length === 0) {
      return { ...waiter, id: key, refs };
    }
    const named = members.slice(0, 2).map((call) => `${call.tool} ${callWaiter(call, false).target}`);
    return { ...waiter, id: key, refs, target: clip(`${members.length} calls: ${named.join(', ')}${members.length > 2 ? ', …' : ''}`) };
  });
}

export function questionWaiter(id: string, question: string): Waiter {
  return { kind: 'question', id, tool: 'ask_user', target: clip(question), shownIn: ['chat'] };
}

export function waitNotice(waiter: Waiter): WaitNotice {
  return {
    waiter,
    text: waiter.kind === 'call' && (waiter.review === true || (waiter.refs?.length ?? 1) > 1) ? `Toolgate: ${waiter.target} wait for you` : `Toolgate: ${waiter.tool} ${waiter.target} waits for you`,
    actions:
      waiter.kind !== 'call'
        ? ['Open']
        : waiter.unconfined === true || waiter.review === true || waiter.diff === true || (waiter.refs?.length ?? 1) > 1
          ? ['Deny', 'Open']
          : ['Allow once', 'Deny', 'Open'],
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
