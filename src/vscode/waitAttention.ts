/**
 * What tells the person that calls and questions wait, wired to the gate and the agent: the status bar, the badge and
 * the notifications (src/vscode/attention.ts), and what a notification's buttons do. Whether to notify is decided in
 * s../core/views/waitNotices.
 */
import { pendingViews } from '../core/views/pendingCall';
import * as vscode from 'vscode';
import type { AgentSession } from '../core/agent/session';
import type { Gate } from '../core/approval/gate';
import { callWaiters, questionWaiter, WaitNotifier, type Waiter, type Whereabouts } from '../core/views/waitNotices';
import type { PendingCallView } from '../shared/approvals';
import type { ApprovalsPanel } from './approvalsPanel';
import { Attention, type WaitNoticeHandlers } from './attention';
import type { ChatViewProvider } from './chatViewProvider';
import type { Settings } from './settings';

export interface WaitAttentionDeps {
  gate: Gate;
  agent: Pick<AgentSession, 'waitingQuestions' | 'questionViews'>;
  settings: Settings;
  chat: ChatViewProvider;
  approvals: ApprovalsPanel;
  /** The waiting calls the chat shows as inline cards. */
  chatPending: () => PendingCallView[];
}

const nowhere: Whereabouts = { enabled: false, windowFocused: true, visible: { chat: false, approvals: false } };

export class WaitAttention implements vscode.Disposable {
  private readonly attention: Attention;
  private readonly notifier = new WaitNotifier();
  private readonly handlers: WaitNoticeHandlers;

  constructor(private readonly deps: WaitAttentionDeps) {
    this.attention = new Attention((badge) => deps.chat.setBadge(badge));
    this.handlers = {
      'Allow once': (waiter) => this.settle(waiter, 'allow-once'),
      Deny: (waiter) => this.settle(waiter, 'deny'),
      Open: (waiter) => (waiter.kind === 'call' ? deps.approvals.show() : void vscode.commands.executeCommand('toolgate.chat.focus')),
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
        void vscode.window.showWarningMessage(`Toolgate: ${errors.join('; ')}`);
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
    const { gate, agent, settings, chat, approvals } = this.deps;
    this.attention.show({ calls: gate.waitingDecisions, questions: agent.waitingQuestions });
    const waiting = gate.waitingCount + agent.waitingQuestions === 0 ? [] : this.waiters();
    const whereabouts = (): Whereabouts => ({
      enabled: settings.get('notifications.whenHidden'),
      windowFocused: vscode.window.state.focused,
      visible: { chat: chat.visible, approvals: approvals.visible },
    });
    for (const notice of this.notifier.update(waiting, waiting.length === 0 ? nowhere : whereabouts())) {
      this.attention.notify(notice, this.handlers);
    }
  }

  dispose(): void {
    this.attention.dispose();
  }
}
