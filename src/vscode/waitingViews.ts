/**
 * What follows the gate's waiting calls on screen: the attention (status bar, badge, notifications), the Approvals
 * panel opened for new calls, the diff tabs, and the chat's and the panel's state. Refreshed once per burst of changes, not once per change.
 */
import * as vscode from 'vscode';
import type { Gate } from '../core/approval/gate';
import { DisposableStore } from '../core/disposable';
import type { PendingCallView } from '../shared/approvals';
import type { ApprovalsPanel } from './approvalsPanel';
import type { ChatViewProvider } from './chatViewProvider';
import type { Log } from './log';
import type { DiffTabs } from './proposedDiffs';
import type { Settings } from './settings';
import type { WaitAttention } from './waitAttention';

/** The views are refreshed at most this often while calls keep arriving or settling (a lone change shows at once). */
const refreshSpacingMs = 100;

export interface WaitingViewsDeps {
  gate: Gate;
  settings: Settings;
  log: Log;
  chat: ChatViewProvider;
  approvals: ApprovalsPanel;
  attention: WaitAttention;
  diffTabs: DiffTabs;
}

export class WaitingViews implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private lastWaiting = 0;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private lastRefresh = 0;

  constructor(private readonly deps: WaitingViewsDeps) {
    const { gate, settings } = deps;
    // At the end of this turn of the event loop, and no sooner than refreshSpacingMs after the last refresh, however
    // many calls a burst adds or settles: each refresh reads every waiting call and posts to the views, so one per
    // change made a burst of N calls cost N × N (once per turn still did, when the calls arrived a few per turn).
    this.store.add(
      gate.onDidChange(() => {
        this.refreshTimer ??= setTimeout(
          () => {
            this.refreshTimer = undefined;
            this.lastRefresh = performance.now();
            this.refresh();
          },
          Math.max(0, this.lastRefresh + refreshSpacingMs - performance.now()),
        );
      }),
    );
    this.store.add({ dispose: () => clearTimeout(this.refreshTimer) });
    this.store.add(settings.onDidChange(() => this.refresh()));
    this.store.add(vscode.workspace.onDidGrantWorkspaceTrust(() => this.refresh()));
  }

  refresh(): void {
    const { gate, attention, diffTabs, chat, approvals } = this.deps;
    const waiting = gate.pendingViews();
    attention.refresh();
    this.revealPanel(waiting);
    diffTabs.update(waiting);
    chat.refresh();
    approvals.refresh();
  }

  /** Opens the panel, keeping the focus, when more calls wait than at the last refresh. */
  private revealPanel(waiting: readonly PendingCallView[]): void {
    if (waiting.length > this.lastWaiting) {
      this.deps.approvals.show(true);
    }
    this.lastWaiting = waiting.length;
  }

  dispose(): void {
    this.store.dispose();
  }
}
