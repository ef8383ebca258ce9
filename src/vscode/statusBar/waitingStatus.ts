/**
 * Where VS Code shows that something waits for the person: a status-bar item (calls and questions; a click opens
 * what waits), a badge on the Toolgate activity-bar icon (through the chat view), the `toolgate.waiting` context key
 * the keybindings use, and notifications. What they say and when is src/core/views/waitAttention.ts.
 */
import * as vscode from 'vscode';
import { describeWaiting, shortCounts, type WaitingCounts, type WaitingSignals, type WaitNoticeHandlers } from '../../core/views/waitAttention';
import type { WaitNotice } from '../../core/views/waitNotices';

export class WaitingStatus implements WaitingSignals, vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('toolgate.waiting', vscode.StatusBarAlignment.Left, 1000);
  private last: WaitingCounts = { calls: -1, questions: -1 };

  constructor(private readonly setBadge: (badge: vscode.ViewBadge | undefined) => void) {
    this.item.name = 'Toolgate: waiting calls and questions';
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  }

  get windowFocused(): boolean {
    return vscode.window.state.focused;
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
    this.item.text = `$(shield) ${shortCounts(waiting)}`;
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

  warn(text: string): void {
    void vscode.window.showWarningMessage(text);
  }

  dispose(): void {
    this.item.dispose();
  }
}
