import * as assert from 'node:assert/strict';
import { DecideMessage, type DiffHunkView } from '../../src/shared/approvals';
import { HunkReview, hunkKeyAction, hunkLines, type KeyLike } from '../../webview/shared/hunkReview';

describe('the panel\'s per-hunk review state', () => {
  it('starts with every hunk accepted and reports no hunks, so allow-once is the whole change as before', () => {
    const review = new HunkReview(3);
    assert.equal(review.summary(), '3 of 3 hunks accepted');
    assert.equal(review.decisions(), undefined);
    assert.equal(review.allRejected, false);
  });

  it('reports the rejected hunks with their trimmed reasons, in file order, as the contract reads them', () => {
    const review = new HunkReview(3);
    review.set(2, false);
    review.set(1, false);
    review.setReason(1, '  keep the old name \n');
    assert.equal(review.summary(), '1 of 3 hunks accepted');
    const hunks = review.decisions();
    assert.deepEqual(hunks, [{ index: 1, accepted: false, reason: 'keep the old name' }, { index: 2, accepted: false }]);
    const message = { type: 'decide', requestId: 'r1', callId: 'c1', argsHash: 'a'.repeat(64), action: 'allow-once', hunks };
    assert.equal(DecideMessage.safeParse(message).success, true);
  });

  it('accepting a rejected hunk again takes it out of the message, and keeps its reason for a later reject', () => {
    const review = new HunkReview(2);
    review.set(0, false);
    review.setReason(0, 'no');
    review.set(0, true);
    assert.equal(review.decisions(), undefined);
    review.set(0, false);
    assert.deepEqual(review.decisions(), [{ index: 0, accepted: false, reason: 'no' }]);
  });

  it('knows when every hunk is rejected, and says "hunk" for one', () => {
    const review = new HunkReview(1);
    review.set(0, false);
    assert.equal(review.allRejected, true);
    assert.equal(review.summary(), '0 of 1 hunk accepted');
  });

  it('tells listeners of real changes only, and ignores indexes that are not hunks', () => {
    const review = new HunkReview(2);
    const heard: number[] = [];
    review.onDidChange((index) => heard.push(index));
    review.set(1, true);
    review.set(1, false);
    review.set(1, false);
    review.set(5, false);
    assert.deepEqual(heard, [1]);
    assert.equal(review.acceptedCount, 1);
  });
});

describe('a hunk\'s label', () => {
  const hunk = (rows: DiffHunkView['rows']): DiffHunkView => ({ header: '@@ -8,5 +8,6 @@', rows });
  const rows: [string, DiffHunkView, string][] = [
    ['added lines of the proposed file', hunk([['c', 9, 9, 'x'], ['d', 10, null, 'a'], ['a', null, 10, 'b'], ['a', null, 11, 'c'], ['c', 11, 12, 'y']]), 'lines 10–11'],
    ['one added line', hunk([['c', 9, 9, 'x'], ['a', null, 10, 'b']]), 'line 10'],
    ['a removal: the old lines', hunk([['c', 9, 9, 'x'], ['d', 10, null, 'a'], ['d', 11, null, 'b']]), 'removed lines 10–11'],
    ['no change at all: the header', hunk([['c', 9, 9, 'x']]), '@@ -8,5 +8,6 @@'],
  ];
  for (const [label, value, expected] of rows) {
    it(label, () => {
      assert.equal(hunkLines(value), expected);
    });
  }
});

describe('the review keys', () => {
  const key = (name: string, mods: Partial<KeyLike> = {}): KeyLike => ({ key: name, altKey: false, ctrlKey: false, metaKey: false, shiftKey: false, ...mods });
  const rows: [string, KeyLike, ReturnType<typeof hunkKeyAction>][] = [
    ['j', key('j'), 'next'],
    ['k', key('k'), 'previous'],
    ['Alt+Down', key('ArrowDown', { altKey: true }), 'next'],
    ['Alt+Up', key('ArrowUp', { altKey: true }), 'previous'],
    ['a', key('a'), 'accept'],
    ['r', key('r'), 'reject'],
    ['Down without Alt', key('ArrowDown'), undefined],
    ['Ctrl+j', key('j', { ctrlKey: true }), undefined],
    ['Cmd+a', key('a', { metaKey: true }), undefined],
    ['Alt+a', key('a', { altKey: true }), undefined],
    ['Shift+R', key('R', { shiftKey: true }), undefined],
    ['Enter', key('Enter'), undefined],
  ];
  for (const [label, event, expected] of rows) {
    it(`${label} -> ${expected ?? 'not a review key'}`, () => {
      assert.equal(hunkKeyAction(event), expected);
    });
  }

  it('reports each choice made in the view to the host, and takes the host\'s state without reporting it back', () => {
    const sent: [number, boolean, string][] = [];
    const review = new HunkReview(3, (index, accepted, reason, answered) => {
      sent.push([index, accepted, reason]);
      answered();
    });
    const heard: number[] = [];
    review.onDidChange((index) => heard.push(index));
    review.set(1, false);
    review.setReason(1, 'keep');
    review.setReason(1, 'keep');
    assert.deepEqual(sent, [[1, false, ''], [1, false, 'keep']]);
    review.apply([{ accepted: false, reason: 'from the chat' }, { accepted: false, reason: 'keep' }, { accepted: true, reason: '' }]);
    assert.deepEqual(sent.length, 2, 'the host\'s own state is not sent back');
    assert.deepEqual(heard, [1, 0]);
    assert.deepEqual(review.decisions(), [{ index: 0, accepted: false, reason: 'from the chat' }, { index: 1, accepted: false, reason: 'keep' }]);
  });

  it('keeps a choice made here until the host has answered it: a state pushed meanwhile may predate it', () => {
    const answers: (() => void)[] = [];
    const review = new HunkReview(2, (_index, _accepted, _reason, answered) => answers.push(answered));
    review.set(0, false);
    review.apply([{ accepted: true, reason: '' }, { accepted: false, reason: 'from the panel' }]);
    assert.equal(review.isAccepted(0), false, 'the stale push does not undo the reject');
    assert.equal(review.isAccepted(1), false, 'another hunk takes the host state');
    answers.forEach((answered) => answered());
    review.apply([{ accepted: true, reason: '' }, { accepted: false, reason: 'from the panel' }]);
    assert.equal(review.isAccepted(0), true, 'once answered, the host state counts again');
  });
});
