/**
 * What tells the person something waits for them, wherever they are: a status-bar item (calls and questions; a click
 * opens what waits), a badge on the Toolgate activity-bar icon (through the chat view), the `toolgate.waiting`
 * context key the keybindings use, and notifications (whether to show one is decided in src/core/views/waitNotices).
 */
import * as vscode from 'vscode';
import type { WaitNotice, WaitNoticeAction, Waiter } from '../core/views/waitNotices';

/** What each button of a notification does, for the call or question it names. */
export type WaitNoticeHandlers = Record<WaitNoticeAction, (waiter: Waiter) => void>;

export interface WaitingCounts {
  calls: number;
  questions: number;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

export function describeWaiting({ calls, questions }: WaitingCounts): string {
  const parts = [calls > 0 ? `${plural(calls, 'call')} waiting for approval` : undefined, questions > 0 ? `${plural(questions, 'question')} from the agent` : undefined];
  return `Toolgate: ${parts.filter((part) => part !== undefined).join(' and ')}`;
}

export class Attention implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('toolgate.waiting', vscode.StatusBarAlignment.Left, 1000);
  private last: WaitingCounts = { calls: -1, questions: -1 };

  constructor(private readonly setBadge: (badge: vscode.ViewBadge | undefined) => void) {
    this.item.name = 'Toolgate: waiting calls and questions';
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  }

  show(waiting: WaitingCounts): void {
    if (waiting.calls === this.last.calls && waiting.questions === this.last.questions) {
      return;
    }
    this.last = waiting;
    const total = waiting.calls + waiting.questions;
    void vscode.commands.executeCommand('setContext', 'toolgate.waiting', waiting.calls > 0);
    if (total === 0) {
      this.item.hide();
      this.setBadge(undefined);
      return;
    }
    const text = describeWaiting(waiting);
    const counts = [waiting.calls > 0 ? `${waiting.calls} waiting` : undefined, waiting.questions > 0 ? plural(waiting.questions, 'question') : undefined];
    this.item.text = `$(shield) ${counts.filter((count) => count !== undefined).join(', ')}`;
    this.item.tooltip = `${text}: ${waiting.calls > 0 ? 'open the Approvals panel' : 'open the chat'}`;
    this.item.command = waiting.calls > 0 ? 'toolgate.openApprovals' : 'toolgate.chat.focus';
    this.item.show();
    this.setBadge({ value: total, tooltip: text });
  }

  /** Shows a notification; a click on one of its buttons runs that button's handler. */
  notify(notice: WaitNotice, handlers: WaitNoticeHandlers): void {
    void vscode.window.showInformationMessage(notice.text, ...notice.actions).then((choice) => {
      if (choice !== undefined) {
        handlers[choice](notice.waiter);
      }
    });
  }

  dispose(): void {
    this.item.dispose();
  }
}
