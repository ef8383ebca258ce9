/**
 * Which waiting call a keyboard decision (Toolgate: Allow Once / Deny, and their keybindings) applies to: the call
 * whose card holds the keyboard focus in the chat or the approvals panel, as the views report it; else the oldest
 * waiting call. A view's report is only a hint of where the person is: the call must still be waiting, and the gate
 * checks it as for any decision.
 */
import type { ViewKind } from '../../shared/messages';

export class FocusedCalls {
  private readonly focused = new Map<ViewKind, { callId: string; order: number }>();
  private reports = 0;

  /** A view says a card got the focus (`callId`), or that no card of it holds the focus any more (`undefined`). */
  report(view: ViewKind, callId: string | undefined): void {
    this.reports += 1;
    if (callId === undefined) {
      this.focused.delete(view);
    } else {
      this.focused.set(view, { callId, order: this.reports });
    }
  }

  /**
   * The focused call if it still waits (the most recently focused view first), else the oldest of `pending`. A view
   * that is not `shown` holds no focus (a closed webview says nothing when it goes).
   */
  target<T extends { callId: string }>(pending: readonly T[], shown: (view: ViewKind) => boolean = () => true): T | undefined {
    return this.focusedCall(pending, shown) ?? pending[0];
  }

  /** The focused call if it still waits (the most recently focused view first); undefined when no card holds the focus. */
  focusedCall<T extends { callId: string }>(pending: readonly T[], shown: (view: ViewKind) => boolean = () => true): T | undefined {
    const candidates = [...this.focused.entries()]
      .filter(([view]) => shown(view))
      .map(([, focused]) => focused)
      .sort((a, b) => b.order - a.order);
    for (const { callId } of candidates) {
      const call = pending.find((candidate) => candidate.callId === callId);
      if (call) {
        return call;
      }
    }
    return undefined;
  }
}
