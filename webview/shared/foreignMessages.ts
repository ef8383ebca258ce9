/**
 * Messages posted into a view by anyone but VS Code: told apart from the host's, and reported without flooding the host.
 *
 * The browser delivers into the view's frame whatever any frame of the window posts to it, and every frame can reach it
 * (`window.top.frames[i].frames[j]`): another extension's webview, a web page in the Simple Browser, the view's own page.
 * The host's messages come one way only: VS Code's frame around the view (pre/index.html) forwards each with
 * `contentWindow.postMessage`, so the message's `source` is the view's parent window. `window.parent` cannot say which
 * window that is: VS Code's script in the view sets `window.parent = window` (seen in code-server 4.139), so a message
 * the view posts to itself would pass for the host's. The parent is known instead as the one window whose frames hold
 * this one: `frames` and `length` are readable across origins, and no other window has this frame as its child.
 * The origin is not checked: VS Code's frame has the view's own origin, the same as the view posting to itself.
 */
import type { DropReason } from '../../src/shared/messages';

/** A message event as far as the decision reads it: who posted it, and whether the browser delivered it. */
export interface Delivery {
  readonly source: unknown;
  /** False for an event a script made and dispatched itself (which can name any window as its source). */
  readonly isTrusted: boolean;
}

/**
 * VS Code's frame holds the view's frame and, while it swaps in new content, a pending one: a window with more frames
 * than this is not it, and is not searched (a forger could hold thousands).
 */
const maxHostFrames = 8;

/** Who posted a message into the view whose window is `self`: the host (through VS Code's frame), or why it is not. */
export function senderOf(event: Delivery, self: unknown): 'host' | DropReason {
  if (!event.isTrusted || event.source === self) {
    return 'own-frame';
  }
  return isParentOf(event.source, self) ? 'host' : 'other-frame';
}

function isParentOf(source: unknown, child: unknown): boolean {
  if (typeof source !== 'object' || source === null) {
    return false;
  }
  try {
    const frames = source as { readonly length?: unknown; readonly [index: number]: unknown };
    const count = frames.length;
    if (typeof count !== 'number' || count > maxHostFrames) {
      return false;
    }
    for (let index = 0; index < count; index++) {
      if (frames[index] === child) {
        return true;
      }
    }
  } catch {
    // A source that cannot be read as a window is not VS Code's frame.
  }
  return false;
}

/**
 * Counts dropped messages and reports them at most once per `intervalMs` (a report for each reason seen): the first
 * drop at once (the log says so when it happens), the ones after it counted into the next report. So a flood of forged
 * messages costs the host a line or two a second, not a line each.
 */
export class DropReports {
  private readonly counts = new Map<DropReason, number>();
  /** A report went out less than `intervalMs` ago: drops wait for the next. */
  private resting = false;

  constructor(
    private readonly report: (reason: DropReason, count: number) => void,
    private readonly intervalMs = 1_000,
    private readonly later: (callback: () => void, ms: number) => void = (callback, ms) => {
      setTimeout(callback, ms);
    },
  ) {}

  add(reason: DropReason): void {
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + 1);
    if (!this.resting) {
      this.flush();
    }
  }

  private flush(): void {
    if (this.counts.size === 0) {
      this.resting = false;
      return;
    }
    for (const [reason, count] of this.counts) {
      this.report(reason, count);
    }
    this.counts.clear();
    this.resting = true;
    this.later(() => this.flush(), this.intervalMs);
  }
}
