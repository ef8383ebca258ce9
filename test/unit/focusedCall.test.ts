import * as assert from 'node:assert/strict';
import { FocusedCalls } from '../../src/core/views/focusedCall';
import type { ViewKind } from '../../src/shared/messages';

describe('FocusedCalls: the call a keyboard decision applies to', () => {
  const pending = [{ callId: 'c1' }, { callId: 'c2' }, { callId: 'c3' }];
  /** `focused`: the card holding the focus, which an Allow from the keyboard needs (none: it decides nothing unseen). */
  const rows: [title: string, reports: [ViewKind, string | undefined][], waiting: { callId: string }[], target: string | undefined, focused: string | undefined][] = [
    ['no card focused: the oldest waiting call (for Deny); none focused (for Allow)', [], pending, 'c1', undefined],
    ['a focused card in the panel', [['approvals', 'c2']], pending, 'c2', 'c2'],
    ['a focused card in the chat', [['chat', 'c3']], pending, 'c3', 'c3'],
    ['the card lost the focus: the oldest again', [['approvals', 'c2'], ['approvals', undefined]], pending, 'c1', undefined],
    ['the focused call was decided meanwhile: the oldest', [['chat', 'c2']], [{ callId: 'c1' }, { callId: 'c3' }], 'c1', undefined],
    ['focus moved from the chat to the panel: the panel card', [['chat', 'c3'], ['approvals', 'c2']], pending, 'c2', 'c2'],
    ['the later focus went, the earlier view still has one: that one', [['chat', 'c3'], ['approvals', 'c2'], ['approvals', undefined]], pending, 'c3', 'c3'],
    ['the most recent focus is gone, an earlier view keeps one that waits', [['chat', 'c3'], ['approvals', 'c9']], pending, 'c3', 'c3'],
    ['nothing waits', [['chat', 'c1']], [], undefined, undefined],
  ];
  for (const [title, reports, waiting, target, focused] of rows) {
    it(title, () => {
      const focus = new FocusedCalls();
      for (const [view, callId] of reports) {
        focus.report(view, callId);
      }
      assert.equal(focus.target(waiting)?.callId, target);
      assert.equal(focus.focusedCall(waiting)?.callId, focused);
    });
  }

  it('a view that is no longer shown (the panel was closed) holds no focus', () => {
    const focus = new FocusedCalls();
    focus.report('chat', 'c3');
    focus.report('approvals', 'c2');
    assert.equal(focus.target(pending, (view) => view !== 'approvals')?.callId, 'c3');
    assert.equal(focus.target(pending, () => false)?.callId, 'c1');
  });
});
