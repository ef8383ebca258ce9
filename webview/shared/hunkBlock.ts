/**
 * One hunk of the diff: its bar (header, state), its rows and, when the person decides hunk by hunk, its Accept /
 * Reject toggles and a rejected hunk's reason box, kept in step with the `HunkReview`. A long diff's controls are built
 * as their hunks come near the view (or get the focus), not all with the first paint.
 */
import type { DiffHunkView } from '../../src/shared/approvals';
import { button, h, icon } from './elements';
import { hunkLines, type HunkReview } from './hunkReview';
import { rowsBlock, type RowsBlock } from './virtualRows';

/** What a hunk block shows of the review: its toggles and reason box, kept in step with the `HunkReview`. */
interface HunkControls {
  accept: HTMLElement;
  reject: HTMLElement;
  reasonBox: HTMLTextAreaElement;
  reasonArea: HTMLElement;
}

export interface HunkBlock {
  element: HTMLElement;
  rows: RowsBlock;
  /** "rejected: not applied", built with the block (its state shows before its controls are built). */
  state?: HTMLElement;
  controls?: HunkControls;
  /** Builds the block's Accept / Reject and reason box if they are not yet (see `eagerControlsUpTo`). */
  ensureControls?: () => HunkControls;
}

/**
 * Up to this many hunks, every hunk's Accept / Reject and reason box are built with the diff; past it, each hunk's
 * when it comes near the view, gets the focus or is decided by key: 100 hunks' 200 buttons and 100 boxes were most of
 * the time a 10,000-line diff took to paint (npm run bench).
 */
export const eagerControlsUpTo = 10;

function hunkControls(review: HunkReview, index: number, lines: string): HunkControls {
  const which = `hunk ${index + 1} of ${review.count}, ${lines}`;
  const toggle = (action: 'accept-hunk' | 'reject-hunk', label: string, iconName: string): HTMLElement => {
    const accepted = action === 'accept-hunk';
    const toggleButton = button({ 'data-action': action, secondary: true, 'aria-label': `${label} ${which}`, title: `${label} ${which}` },
      icon(iconName), label);
    toggleButton.addEventListener('click', () => review.set(index, accepted));
    return toggleButton;
  };
  const reasonBox = h('textarea', {
    'data-field': 'hunk-reason',
    rows: '2',
    placeholder: 'Why not this hunk? (optional, sent to the model)',
    'aria-label': `Reason for rejecting ${which}`,
  });
  reasonBox.value = review.reason(index);
  reasonBox.addEventListener('input', () => review.setReason(index, reasonBox.value));
  return {
    accept: toggle('accept-hunk', 'Accept', 'check'),
    reject: toggle('reject-hunk', 'Reject', 'close'),
    reasonBox,
    reasonArea: h('div', { class: 'hunk-reason' }, reasonBox),
  };
}

export function syncControls(block: HunkBlock, accepted: boolean, reason?: string): void {
  block.element.dataset['state'] = accepted ? 'accepted' : 'rejected';
  if (block.state) {
    block.state.textContent = accepted ? '' : 'rejected: not applied';
  }
  const controls = block.controls;
  if (!controls) {
    return;
  }
  // A reason chosen in another view shows here, unless the person is typing in this box.
  if (reason !== undefined && controls.reasonBox.value !== reason && document.activeElement !== controls.reasonBox) {
    controls.reasonBox.value = reason;
  }
  controls.accept.setAttribute('aria-pressed', String(accepted));
  controls.reject.setAttribute('aria-pressed', String(!accepted));
  controls.reasonArea.hidden = accepted;
}

/** Under a hunk the card got the first rows of: how many more come (the card asked for them as it painted). */
function moreRows(hunk: DiffHunkView): HTMLElement | string {
  const more = hunk.rowCount === undefined ? 0 : hunk.rowCount - hunk.rows.length;
  return more > 0 ? h('p', { class: 'muted rows-loading', 'data-field': 'rows-loading', role: 'status' }, icon('loading', { spin: true }), ` Loading ${more.toLocaleString('en-US')} more lines…`) : '';
}

export function hunkBlock<T>(hunk: DiffHunkView, index: number, rows: T[], render: (row: T) => HTMLElement, virtual: boolean, review: HunkReview | undefined): HunkBlock {
  const body = rowsBlock(rows, render, virtual);
  const header = h('span', { class: 'hunk' }, hunk.header);
  if (!review) {
    return { element: h('div', { class: 'hunk-block' }, h('div', { class: 'hunk-bar' }, header), body.element, moreRows(hunk)), rows: body };
  }
  const lines = hunkLines(hunk);
  const state = h('span', { class: 'hunk-state' });
  const actions = h('span', { class: 'hunk-actions' });
  const element = h('div', {
    class: 'hunk-block',
    'data-hunk-index': String(index),
    role: 'group',
    tabindex: '0',
    'aria-label': `Hunk ${index + 1} of ${review.count}, ${lines}`,
  },
  h('div', { class: 'hunk-bar' }, header, state, actions),
  body.element,
  moreRows(hunk));
  const block: HunkBlock = { element, rows: body, state };
  block.ensureControls = () => {
    if (!block.controls) {
      const controls = hunkControls(review, index, lines);
      actions.append(controls.accept, controls.reject);
      element.append(controls.reasonArea);
      block.controls = controls;
      syncControls(block, review.isAccepted(index), review.reason(index));
    }
    return block.controls;
  };
  // The focus (by key or by a screen reader) brings the hunk's controls.
  element.addEventListener('focusin', () => block.ensureControls?.());
  syncControls(block, review.isAccepted(index));
  return block;
}

/** Builds each block's controls when it comes near the viewport, or all of them at once where no observer exists. */
export function buildControlsNearView(viewport: HTMLElement, blocks: HunkBlock[]): (() => void) | undefined {
  if (blocks.length <= eagerControlsUpTo || typeof IntersectionObserver === 'undefined') {
    for (const block of blocks) {
      block.ensureControls?.();
    }
    return undefined;
  }
  const byElement = new Map(blocks.map((block) => [block.element, block]));
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (entry.isIntersecting) {
        byElement.get(entry.target as HTMLElement)?.ensureControls?.();
        observer.unobserve(entry.target);
      }
    }
  }, { root: viewport, rootMargin: '600px 0px' });
  for (const block of blocks) {
    observer.observe(block.element);
  }
  return () => observer.disconnect();
}
