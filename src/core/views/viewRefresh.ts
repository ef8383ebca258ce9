/**
 * What follows the gate's waiting calls on screen: the attention (status bar, badge, notifications), the Approvals
 * panel opened for a call nothing else shows (the rule: ./panelReveal.ts), the diff tabs, and the chat's and the
 * panel's state. Refreshed once per burst of changes, not once per change. The views are ports (src/vscode).
 */
import type { Gate } from '../approval/gate';
import { DisposableStore, type Disposable } from '../disposable';
import type { LogPort } from '../logPort';
import type { RevealPanel } from '../settings';
import type { PendingCallView } from '../../shared/approvals';
import { NewCalls, panelReveal, type PanelHold } from './panelReveal';
import { pendingViews, type GateState } from './pendingCall';
import type { WaitAttention } from './waitAttention';

/** The views are refreshed at most this often while calls keep arriving or settling (a lone change shows at once). */
const refreshSpacingMs = 100;

export interface ViewRefreshDeps {
  gate: GateState & Pick<Gate, 'onDidChange'>;
  /** toolgate.approvals.revealPanel. */
  revealSetting: () => RevealPanel;
  /** Other changes that change what the views show (the settings, the workspace's trust). */
  changes: readonly ((listener: () => void) => Disposable)[];
  log: LogPort;
  chat: { readonly visible: boolean; refresh(): void };
  approvals: { readonly visible: boolean; refresh(now: boolean): void; show(preserveFocus: boolean): void; onDidClose(listener: () => void): Disposable };
  /** The waiting calls the chat shows as inline cards. */
  chatPending: () => PendingCallView[];
  attention: Pick<WaitAttention, 'refresh'>;
  /** The diff editor's tabs of waiting writes (src/vscode/diffEditor/proposedDiffs.ts). */
  diffTabs: { update(waiting: readonly PendingCallView[]): void };
  /** Whether the person closed the panel during the running task. */
  hold: PanelHold;
}

export class ViewRefresh implements Disposable {
  private readonly store = new DisposableStore();
  private readonly newCalls = new NewCalls();
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private lastRefresh = 0;
  private afterPostTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly deps: ViewRefreshDeps) {
    const { gate, approvals, hold } = deps;
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
    this.store.add({ dispose: () => [this.refreshTimer, this.afterPostTimer].forEach((timer) => clearTimeout(timer)) });
    this.store.add(
      approvals.onDidClose(() => {
        hold.closedByPerson();
        deps.log.info(`the person closed the Approvals panel ${hold.closedForTask ? 'during a task: it stays closed for the rest of it' : 'while no task runs'}`);
      }),
    );
    for (const change of deps.changes) {
      this.store.add(change(() => this.refresh()));
    }
  }

  refresh(): void {
    const { chat, approvals } = this.deps;
    // The panel's patch first and at once: the workbench handles the extension host's messages in order, and a post
    // behind the status bar, the badge and the context key cost the card ~20 ms (npm run bench). The rest follows in
    // the next turn: done in this one, it still held the card back ~3 ms (transport 12 -> 9 ms). The chat keeps its
    // short delay: its transcript is saved at the end of this turn, and a chat that showed a call waiting before that
    // let a reload right then find it running ("may have run in part") rather than waiting (chatProgress.e2e.ts).
    approvals.refresh(true);
    chat.refresh();
    this.afterPostTimer ??= setTimeout(() => {
      this.afterPostTimer = undefined;
      const { gate, attention, diffTabs } = this.deps;
      const waiting = pendingViews(gate);
      attention.refresh();
      this.revealPanel(waiting);
      diffTabs.update(waiting);
    }, 0);
  }

  /** Opens the panel, keeping the focus, for new calls that ask for it (see panelReveal). */
  private revealPanel(waiting: readonly PendingCallView[]): void {
    const { revealSetting, log, chat, approvals, chatPending, hold } = this.deps;
    const fresh = new Set(this.newCalls.since(waiting.map((call) => call.callId)));
    if (fresh.size === 0) {
      return;
    }
    const inVisibleChat = new Set(chat.visible ? chatPending().map((call) => call.callId) : []);
    const closedForTask = hold.closedForTask;
    const decision = panelReveal({
      setting: revealSetting(),
      newCalls: waiting.filter((call) => fresh.has(call.callId)).map((call) => ({ inVisibleChat: inVisibleChat.has(call.callId), closedForTask })),
      panelVisible: approvals.visible,
    });
    if (decision.reveal) {
      approvals.show(decision.preserveFocus);
    } else if (decision.why !== 'already visible') {
      log.info(`the Approvals panel stays closed for ${fresh.size} new call(s): ${decision.why}`);
    }
  }

  dispose(): void {
    this.store.dispose();
  }
}
