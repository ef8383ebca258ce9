/**
 * What tells the person that calls and questions wait, wired to the gate and the agent: the counts (the status bar,
 * the badge), the notifications for what started waiting where the person would not see it (whether to notify is
 * decided in ./waitNotices), and what a notification's buttons do. The editor's part is a port (src/vscode/statusBar/waitingStatus.ts).
 */
import type { Gate } from '../approval/gate';
import type { PendingCallView } from '../../shared/approvals';
import { pendingViews, type GateState } from './pendingCall';
import { callWaiters, questionWaiter, WaitNotifier, type WaitNotice, type WaitNoticeAction, type Waiter, type Whereabouts } from './waitNotices';

/** What each button of a notification does, for the call or question it names. */
export type WaitNoticeHandlers = Record<WaitNoticeAction, (waiter: Waiter) => void>;

export interface WaitingCounts {
  calls: number;
  questions: number;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** What waits, in words: "Toolgate: 2 calls waiting for approval and 1 question from the agent". */
export function describeWaiting({ calls, questions }: WaitingCounts): string {
  const parts = [calls > 0 ? `${plural(calls, 'call')} waiting for approval` : undefined, questions > 0 ? `${plural(questions, 'question')} from the agent` : undefined];
  return `Toolgate: ${parts.filter((part) => part !== undefined).join(' and ')}`;
}

/** The counts as short as the status bar shows them: "2 waiting, 1 question". */
export function shortCounts({ calls, questions }: WaitingCounts): string {
  return [calls > 0 ? `${calls} waiting` : undefined, questions > 0 ? plural(questions, 'question') : undefined].filter((count) => count !== undefined).join(', ');
}

/** Where the editor shows what waits: the counts, and a notification whose button runs its handler. */
export interface WaitingSignals {
  show(waiting: WaitingCounts): void;
  notify(notice: WaitNotice, handlers: WaitNoticeHandlers): void;
  warn(text: string): void;
  /** Whether the editor's window has the focus now. */
  readonly windowFocused: boolean;
}

export interface WaitAttentionDeps {
  gate: GateState & Pick<Gate, 'settle' | 'waitingDecisions' | 'waitingCount'>;
  agent: { readonly waitingQuestions: number; questionViews(): readonly { id: string; question: string }[] };
  /** Whether notifications are on (toolgate.notifications.whenHidden). */
  enabled: () => boolean;
  chat: { readonly visible: boolean; reveal(): void };
  approvals: { readonly visible: boolean; show(): void };
  /** The waiting calls the chat shows as inline cards. */
  chatPending: () => PendingCallView[];
  signals: WaitingSignals;
}

const nowhere: Whereabouts = { enabled: false, windowFocused: true, visible: { chat: false, approvals: false } };

export class WaitAttention {
  private readonly notifier = new WaitNotifier();
  private readonly handlers: WaitNoticeHandlers;

  constructor(private readonly deps: WaitAttentionDeps) {
    this.handlers = {
      'Allow once': (waiter) => this.settle(waiter, 'allow-once'),
      Deny: (waiter) => this.settle(waiter, 'deny'),
      Open: (waiter) => (waiter.kind === 'call' ? deps.approvals.show() : deps.chat.reveal()),
    };
  }

  private settle(waiter: Waiter, choice: 'allow-once' | 'deny'): void {
    if (waiter.kind === 'call') {
      // A batch's Deny denies each of its calls; Allow once is offered only for a lone call.
      const refs = waiter.refs ?? [{ callId: waiter.id, argsHash: waiter.argsHash }];
      const errors = (choice === 'deny' ? refs : refs.slice(0, 1)).flatMap((ref) => {
        const outcome = this.deps.gate.settle(ref, { action: choice });
        return outcome.ok ? [] : [outcome.error];
      });
      if (errors.length > 0) {
        this.deps.signals.warn(`Toolgate: ${errors.join('; ')}`);
      }
    }
  }

  private waiters(): Waiter[] {
    const { gate, agent, chatPending } = this.deps;
    const inChat = new Set(chatPending().map((call) => call.callId));
    return [...callWaiters(pendingViews(gate), (callId) => inChat.has(callId)), ...agent.questionViews().map(({ id, question }) => questionWaiter(id, question))];
  }

  /**
   * Counts what waits, and notifies what started waiting where the person would not see it. Called before the panel
   * is revealed for a new call: whether the person could see the call is read as it was when it started waiting.
   */
  refresh(): void {
    const { gate, agent, enabled, chat, approvals, signals } = this.deps;
    signals.show({ calls: gate.waitingDecisions, questions: agent.waitingQuestions });
    const waiting = gate.waitingCount + agent.waitingQuestions === 0 ? [] : this.waiters();
    const whereabouts = (): Whereabouts => ({ enabled: enabled(), windowFocused: signals.windowFocused, visible: { chat: chat.visible, approvals: approvals.visible } });
    for (const notice of this.notifier.update(waiting, waiting.length === 0 ? nowhere : whereabouts())) {
      signals.notify(notice, this.handlers);
    }
  }
}
