/**
 * The diff view's DOM parts (happy-dom): a hunk's rows painted as a window as they come in view, and a hunk's block
 * with its review controls (the contract's `data-hunk-index`, Accept / Reject, the reason box) in step with the review.
 */
import * as assert from 'node:assert/strict';
import { dom } from './dom';
import type { DiffHunkView, DiffRow } from '../../src/shared/approvals';
import { hunkBlock, syncControls } from '../../webview/shared/hunkBlock';
import { HunkReview } from '../../webview/shared/hunkReview';
import { rowHeight, rowsBlock } from '../../webview/shared/virtualRows';

const render = (row: number): HTMLElement => {
  const element = dom.document.createElement('div');
  element.textContent = `row ${row}`;
  return element;
};
const numbers = (count: number): number[] => Array.from({ length: count }, (_, index) => index);
const painted = (element: HTMLElement): string[] => [...element.querySelectorAll('.diff-window > div')].map((row) => row.textContent);

describe('the diff view: a hunk\'s rows', () => {
  it('a short hunk draws every row at once', () => {
    const block = rowsBlock(numbers(5), render, false);
    assert.equal(block.element.children.length, 5);
    assert.equal(block.height, 5 * rowHeight);
    assert.equal(block.paint, undefined);
  });

  it('a virtual hunk keeps the height of all its rows and paints only the window in view, with a margin', () => {
    const block = rowsBlock(numbers(1_000), render, true);
    assert.equal(block.element.style.height, `${1_000 * rowHeight}px`);
    assert.deepEqual(painted(block.element), []);
    block.paint?.(0, 10 * rowHeight);
    // The ten rows in view and 20 more below.
    assert.equal(painted(block.element).length, 30);
    assert.equal(painted(block.element)[0], 'row 0');
  });

  /** From the first window (rows 0–29), the view moved to `top` (in rows). */
  const scrolls: { name: string; top: number; redraws: boolean; first?: string }[] = [
    { name: 'a short scroll within the margin draws nothing again', top: 5, redraws: false },
    { name: 'a scroll past the margin draws the new window, placed where its rows are', top: 500, redraws: true, first: 'row 480' },
    { name: 'a view below the hunk (it scrolled out of sight) keeps none of its rows', top: 2_000, redraws: true },
    { name: 'a view above the hunk (not reached yet) keeps none of its rows', top: -500, redraws: true },
  ];
  for (const scroll of scrolls) {
    it(scroll.name, () => {
      const block = rowsBlock(numbers(1_000), render, true);
      block.paint?.(0, 10 * rowHeight);
      const before = block.element.querySelector('.diff-window > div');
      block.paint?.(scroll.top * rowHeight, (scroll.top + 10) * rowHeight);
      const windowEl = block.element.querySelector<HTMLElement>('.diff-window');
      assert.equal(block.element.querySelector('.diff-window > div') !== before, scroll.redraws);
      if (scroll.first !== undefined) {
        assert.equal(painted(block.element)[0], scroll.first);
        assert.equal(windowEl?.style.transform, `translateY(${Number(scroll.first.slice(4)) * rowHeight}px)`);
      } else if (scroll.redraws) {
        assert.deepEqual(painted(block.element), []);
      }
    });
  }
});

const rows: DiffRow[] = [['c', 9, 9, 'before'], ['d', 10, null, 'old'], ['a', null, 10, 'new'], ['a', null, 11, 'more']];
const hunk: DiffHunkView = { header: '@@ -9,2 +9,3 @@', rows };
const renderRow = (row: DiffRow): HTMLElement => {
  const element = dom.document.createElement('div');
  element.textContent = row[3];
  return element;
};

describe('the diff view: a hunk\'s block', () => {
  afterEach(() => dom.clear());

  it('without a review: the bar and the rows, nothing to decide', () => {
    const block = hunkBlock(hunk, 0, rows, renderRow, false, undefined);
    assert.equal(block.element.hasAttribute('data-hunk-index'), false);
    assert.equal(block.element.querySelector('[data-action]'), null);
    assert.equal(block.element.querySelector('.hunk')?.textContent, '@@ -9,2 +9,3 @@');
  });

  it('reviewed: named by its index and lines; its controls come with the focus, not before', () => {
    const review = new HunkReview(3);
    const block = hunkBlock(hunk, 1, rows, renderRow, false, review);
    dom.attach(block.element);
    assert.equal(block.element.dataset['hunkIndex'], '1');
    assert.equal(block.element.getAttribute('aria-label'), 'Hunk 2 of 3, lines 10–11');
    assert.equal(block.element.dataset['state'], 'accepted');
    assert.equal(block.element.querySelector('[data-action="accept-hunk"]'), null);
    block.element.focus();
    const accept = block.element.querySelector<HTMLElement>('[data-action="accept-hunk"]');
    const reject = block.element.querySelector<HTMLElement>('[data-action="reject-hunk"]');
    assert.ok(accept && reject);
    assert.equal(reject.getAttribute('aria-label'), 'Reject hunk 2 of 3, lines 10–11');
    assert.equal(accept.getAttribute('aria-pressed'), 'true');
  });

  it('a click decides the hunk in the review; the review\'s state shows in the block, with its reason box', () => {
    const review = new HunkReview(2);
    const block = hunkBlock(hunk, 0, rows, renderRow, false, review);
    review.onDidChange((index) => index === 0 && syncControls(block, review.isAccepted(0), review.reason(0)));
    dom.attach(block.element);
    const controls = block.ensureControls?.();
    assert.ok(controls);
    assert.equal(controls.reasonArea.hidden, true);
    controls.reject.click();
    assert.equal(review.isAccepted(0), false);
    assert.equal(block.element.dataset['state'], 'rejected');
    assert.equal(block.state?.textContent, 'rejected: not applied');
    assert.equal(controls.reject.getAttribute('aria-pressed'), 'true');
    assert.equal(controls.reasonArea.hidden, false);
    // A reason typed here goes to the review; one from another view shows, unless the person is typing in the box.
    controls.reasonBox.value = 'keep it';
    controls.reasonBox.dispatchEvent(new Event('input'));
    assert.equal(review.reason(0), 'keep it');
    controls.reasonBox.focus();
    syncControls(block, false, 'from the chat');
    assert.equal(controls.reasonBox.value, 'keep it');
    controls.reasonBox.blur();
    syncControls(block, false, 'from the chat');
    assert.equal(controls.reasonBox.value, 'from the chat');
    controls.accept.click();
    assert.equal(block.element.dataset['state'], 'accepted');
    assert.equal(controls.reasonArea.hidden, true);
  });

  it('a hunk that came with its first rows says how many more come', () => {
    const block = hunkBlock({ ...hunk, rowCount: 1_204 }, 0, rows, renderRow, false, undefined);
    assert.equal(block.element.querySelector('[data-field="rows-loading"]')?.textContent, ' Loading 1,200 more lines…');
  });
});
