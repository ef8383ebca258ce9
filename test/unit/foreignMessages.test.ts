import * as assert from 'node:assert/strict';
import type { DropReason } from '../../src/shared/messages';
import { DropReports, senderOf } from '../../webview/shared/foreignMessages';

/** Windows as the decision sees them: their frames by index and their count, nothing else. */
function windowHolding(...children: unknown[]): Record<number | 'length', unknown> {
  return Object.assign({ length: children.length }, children);
}

describe('messages posted into a view by anyone but VS Code', () => {
  const view = windowHolding();
  const vscodeFrame = windowHolding(view);
  // VS Code's frame while it swaps in new content: the view's frame and a pending one.
  const swapping = windowHolding(windowHolding(), view);
  const otherView = windowHolding();
  const otherWebview = windowHolding(otherView);
  const crowded = Object.assign(windowHolding(...Array.from({ length: 9 }, () => windowHolding())), { 8: view });
  const unreadable = Object.defineProperty({}, 'length', {
    get: () => {
      throw new Error('Blocked a frame from accessing a cross-origin frame');
    },
  });

  const rows: [string, { source: unknown; isTrusted: boolean }, 'host' | DropReason][] = [
    ["VS Code's frame around the view (it forwards the host's messages)", { source: vscodeFrame, isTrusted: true }, 'host'],
    ["VS Code's frame while it holds a pending frame too", { source: swapping, isTrusted: true }, 'host'],
    ["the view's own page (window.postMessage inside it, where window.parent is the view itself)", { source: view, isTrusted: true }, 'own-frame'],
    ["an event a script of the view made, naming VS Code's frame as its source", { source: vscodeFrame, isTrusted: false }, 'own-frame'],
    ['an event a script of the view made, naming no source', { source: null, isTrusted: false }, 'own-frame'],
    ['another webview or a web page (reaching the view through window.top.frames)', { source: otherWebview, isTrusted: true }, 'other-frame'],
    ["the view of another webview", { source: otherView, isTrusted: true }, 'other-frame'],
    ['a window that holds the view past the frames VS Code has', { source: crowded, isTrusted: true }, 'other-frame'],
    ['a window whose frames cannot be read', { source: unreadable, isTrusted: true }, 'other-frame'],
    ['no source', { source: null, isTrusted: true }, 'other-frame'],
    ['a source that is not a window', { source: 'top', isTrusted: true }, 'other-frame'],
  ];
  for (const [label, event, expected] of rows) {
    it(`${label}: ${expected}`, () => {
      assert.equal(senderOf(event, view), expected);
    });
  }

  describe('reporting the drops', () => {
    /** A clock the test moves: the reports' waits, run when the test says the interval passed. */
    function setup() {
      const reports: [DropReason, number][] = [];
      const waits: (() => void)[] = [];
      const drops = new DropReports((reason, count) => reports.push([reason, count]), 1_000, (callback, ms) => {
        assert.equal(ms, 1_000);
        waits.push(callback);
      });
      const pass = (): void => waits.shift()?.();
      return { reports, waits, drops, pass };
    }

    it('reports the first drop at once, counts a flood into one report an interval later, then rests', () => {
      const { reports, waits, drops, pass } = setup();
      drops.add('other-frame');
      assert.deepEqual(reports, [['other-frame', 1]]);
      for (let index = 0; index < 999; index++) {
        drops.add('other-frame');
      }
      assert.deepEqual(reports, [['other-frame', 1]], 'nothing more within the interval');
      pass();
      assert.deepEqual(reports, [['other-frame', 1], ['other-frame', 999]]);
      pass();
      assert.equal(reports.length, 2, 'no drops, no report');
      assert.equal(waits.length, 0, 'and nothing scheduled');
      drops.add('other-frame');
      assert.deepEqual(reports.at(-1), ['other-frame', 1], 'after a quiet interval, a drop is reported at once again');
    });

    it('reports each reason on its own line, with its own count', () => {
      const { reports, drops, pass } = setup();
      drops.add('own-frame');
      drops.add('other-frame');
      drops.add('own-frame');
      drops.add('other-frame');
      drops.add('other-frame');
      pass();
      assert.deepEqual(reports, [['own-frame', 1], ['other-frame', 3], ['own-frame', 1]]);
    });
  });
});
