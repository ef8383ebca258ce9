import * as assert from 'node:assert/strict';
import { editDecision, HeldEdits, type EditChoice, type HeldEdit } from '../../src/core/review/heldEdits';

describe('the held edit: what an Allow from a view applies', () => {
  const edited: HeldEdit = { text: 'mine', where: 'diff-editor', revision: 3 };
  const undone: HeldEdit = { revision: 4 };
  const never: HeldEdit = { revision: 0 };
  const rows: [title: string, held: HeldEdit | undefined, choice: EditChoice, expected: ReturnType<typeof editDecision>['kind'], error?: RegExp][] = [
    ['a call that cannot be edited: as chosen', undefined, { action: 'allow' }, 'as-chosen'],
    ['never edited, shown as such: as chosen', never, { action: 'allow', shownRevision: 0 }, 'as-chosen'],
    ['never edited, from a surface that shows no edit (a key, a notification): as chosen', never, { action: 'allow' }, 'as-chosen'],
    ['edited, and the view showed that edit: the edit is applied', edited, { action: 'allow', shownRevision: 3 }, 'apply'],
    ['edited after the view showed the call: refused', edited, { action: 'allow', shownRevision: 0 }, 'refused', /edited in the diff editor after this view showed it/],
    ['edited, from a surface that shows no edit: refused', edited, { action: 'allow' }, 'refused', /decide it on a card that shows the edit/],
    ['edited, and a grant: refused (it would allow the original)', edited, { action: 'grant', shownRevision: 3 }, 'refused', /a grant would allow the original/],
    ['edited, and Deny: as chosen', edited, { action: 'deny' }, 'as-chosen'],
    ['edited, and allow-edited with the text in hand: as chosen', edited, { action: 'allow-edited', shownRevision: 0 }, 'as-chosen'],
    ['the edit undone after the view showed it: refused', undone, { action: 'allow', shownRevision: 3 }, 'refused', /undone after this view showed it/],
    ['the edit undone, and the view showed that: as chosen', undone, { action: 'allow', shownRevision: 4 }, 'as-chosen'],
    ['the edit undone, from a surface that shows no edit: as chosen', undone, { action: 'allow' }, 'as-chosen'],
  ];
  for (const [title, held, choice, expected, error] of rows) {
    it(title, () => {
      const decision = editDecision(held, choice);
      assert.equal(decision.kind, expected);
      if (decision.kind === 'refused') {
        assert.match(decision.error, error ?? /./);
      }
      if (decision.kind === 'apply') {
        assert.equal(decision.text, 'mine');
      }
    });
  }

  it('holds one edit per waiting call, bound to the hash shown; the original text undoes it; every change is a new revision', () => {
    const edits = new HeldEdits();
    edits.open('c1', 'h1', 'proposed');
    assert.deepEqual(edits.get('c1'), { revision: 0 });
    assert.deepEqual(edits.set({ callId: 'c1', argsHash: 'other' }, 'x', 'panel'), { ok: false, error: 'call c1: the arguments hash does not match what was shown' });
    assert.deepEqual(edits.set({ callId: 'c2', argsHash: 'h1' }, 'x', 'panel').ok, false);
    assert.deepEqual(edits.set({ callId: 'c1', argsHash: 'h1' }, 'mine', 'panel'), { ok: true, changed: true });
    assert.deepEqual(edits.get('c1'), { text: 'mine', where: 'panel', revision: 1 });
    assert.deepEqual(edits.set({ callId: 'c1', argsHash: 'h1' }, 'mine', 'chat'), { ok: true, changed: false });
    assert.deepEqual(edits.set({ callId: 'c1', argsHash: 'h1' }, 'proposed', 'diff-editor'), { ok: true, changed: true });
    assert.deepEqual(edits.get('c1'), { where: 'diff-editor', revision: 2 });
    edits.close('c1');
    assert.equal(edits.get('c1'), undefined);
  });
});
