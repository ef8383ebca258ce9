import * as assert from 'node:assert/strict';
import { FocusedCalls } from '../../src/core/approval/focusedCall';
import type { ViewKind } from '../../src/shared/messages';

describe('FocusedCalls: the call a keyboard decision applies to', () => {
  const pending = [{ callId: 'c1' }, { callId: 'c2' }, { callId: 'c3' }];
  const rows: [title: string, reports: [ViewKind, string | undefined][], waiting: { callId: string }[], target: string | undefined][] = [
    ['no card focused: the oldest waiting call', [], pending, 'c1'],
    ['a focused card in the panel', [['approvals', 'c2']], pending, 'c2'],
    ['a focused card in the chat', [['chat', 'c3']], pending, 'c3'],
    ['the card lost the focus: the oldest again', [['approvals', 'c2'], ['approvals', undefined]], pending, 'c1'],
    ['the focused call was decided meanwhile: the oldest', [['chat', 'c2']], [{ callId: 'c1' }, { callId: 'c3' }], 'c1'],
    ['focus moved from the chat to the panel: the panel card', [['chat', 'c3'], ['approvals', 'c2']], pending, 'c2'],
    ['the later focus went, the earlier view still has one: that one', [['chat', 'c3'], ['approvals', 'c2'], ['approvals', undefined]], pending, 'c3'],
    ['the most recent focus is gone, an earlier view keeps one that waits', [['chat', 'c3'], ['approvals', 'c9']], pending, 'c3'],
    ['nothing waits', [['chat', 'c1']], [], undefined],
  ];
  for (const [title, reports, waiting, target] of rows) {
    it(title, () => {
      const focus = new FocusedCalls();
      for (const [view, callId] of reports) {
        focus.report(view, callId);
      }
      assert.equal(focus.target(waiting)?.callId, target);
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
