/**
 * The diff of a proposed write: unified or side by side, with line numbers, one block per hunk. When the host lets
 * the content be chosen (`review`), each hunk block is focusable and carries Accept/Reject toggles and, once
 * rejected, a reason box; the choices live in the `HunkReview`, so they survive switching views. Long diffs are
 * virtualised (every hunk block is in the DOM, but only the rows in view are), so a 10,000-line file scrolls smoothly.
 * Its parts: the rows' layout without a DOM (diffRows), a hunk's rows painted as they come in view (virtualRows), a
 * hunk's bar and controls (hunkBlock); here, the rows drawn, the hunks listed and painted together, the toolbar and keys.
 */
import type { DiffMode, DiffPreview, DiffRow, PendingCallView } from '../../src/shared/approvals';
import { button, h, icon } from './elements';
import { whenAnswered, type HostChannel } from './hostChannel';
import { partners, splitPairs, wordChanges, type SplitCell, type SplitPair } from './diffRows';
import { buildControlsNearView, hunkBlock, syncControls, type HunkBlock } from './hunkBlock';
import { hunkKeyAction, type HunkReview } from './hunkReview';
import { rowHeight } from './virtualRows';

const maxViewportRows = 30;
/** About the height of a hunk's bar and of a rejected hunk's reason box (media/webview.css). */
const hunkBarHeight = 32;
const reasonHeight = 60;
/** Below this many rows everything is rendered; above it only what is visible. */
const virtualiseAbove = 300;

const signs: Record<'c' | 'a' | 'd', string> = { c: ' ', a: '+', d: '-' };

/**
 * A changed line's text with the words that changed marked (`data-field="word-change"`), against the line it replaced
 * (or that replaced it).
 */
function changedText(text: string, partner: string | undefined, side: 'a' | 'd'): (HTMLElement | string)[] {
  const pieces = wordChanges(text, partner, side);
  if (pieces === undefined) {
    return [text];
  }
  return pieces.map((piece) => (piece.changed ? h('span', { class: `word-change ${side}`, 'data-field': 'word-change' }, piece.text) : piece.text));
}

function renderUnified(row: DiffRow, partner?: string): HTMLElement {
  const [kind, oldNo, newNo, text] = row;
  return h(
    'div',
    { class: `diff-row ${kind}` },
    h('span', { class: 'no' }, oldNo === null ? '' : String(oldNo)),
    h('span', { class: 'no' }, newNo === null ? '' : String(newNo)),
    h('span', { class: 'sign' }, signs[kind]),
    h('span', { class: 'text' }, ...(kind === 'c' ? [text] : changedText(text, partner, kind))),
  );
}

function renderSplit(pair: SplitPair): HTMLElement {
  const paired = pair.left.kind === 'd' && pair.right.kind === 'a';
  const cell = (value: SplitCell, other: SplitCell): HTMLElement[] => [
    h('span', { class: `no ${value.kind}` }, value.no === null ? '' : String(value.no)),
    h('span', { class: `text ${value.kind}` }, ...(paired && (value.kind === 'a' || value.kind === 'd') ? changedText(value.text, other.text, value.kind) : [value.text])),
  ];
  return h('div', { class: 'diff-row split' }, ...cell(pair.left, pair.right), ...cell(pair.right, pair.left));
}

/** Renders a hunk's unified rows, each changed line marked word by word against its partner (found once per hunk). */
function rowRenderer(rows: readonly DiffRow[]): (row: DiffRow) => HTMLElement {
  const found = partners(rows);
  return (row) => renderUnified(row, found.get(row));
}

/** The scrolling body of the diff in one mode, one block per hunk. */
interface HunkList {
  viewport: HTMLElement;
  blocks: HunkBlock[];
  /** Virtual only: paints again in the next frame (a reason box opening or closing moves the hunks below it). */
  repaint?: () => void;
  /** Stops building controls near the view (the list is drawn again). */
  dispose?: () => void;
}

function hunkList(preview: DiffPreview, mode: 'unified' | 'split', review: HunkReview | undefined, maxRows: number): HunkList {
  const label = `${mode === 'unified' ? 'Unified' : 'Side-by-side'} diff of ${preview.path}`;
  const viewport = h('div', { class: 'diff-body', role: 'region', 'aria-label': label, ...(review ? {} : { tabindex: '0' }) });
  // Room for 30 rows plus the bars of the first few hunks and a reason box, so a small diff shows whole.
  const shown = maxRows * rowHeight + Math.min(preview.hunks.length, 4) * hunkBarHeight + (review ? reasonHeight : 0);
  // At most the view's share the card sets (`--diff-max-height`, of the viewport), so a card's header and its buttons
  // are on screen together at 900x700 and a long diff scrolls inside it.
  viewport.style.maxHeight = `min(${shown}px, var(--diff-max-height, ${shown}px))`;
  const pairs = mode === 'split' ? preview.hunks.map(splitPairs) : undefined;
  const total = (pairs ?? preview.hunks.map((hunk) => hunk.rows)).reduce((sum, rows) => sum + rows.length, 0);
  viewport.dataset['rows'] = String(total);
  // A diff that came with its first rows is as long as its rows to come: drawn as a window from the first paint.
  const coming = preview.hunks.reduce((sum, hunk) => sum + (hunk.rowCount === undefined ? 0 : hunk.rowCount - hunk.rows.length), 0);
  const virtual = total + coming > virtualiseAbove;
  const blocks = preview.hunks.map((hunk, index) =>
    pairs
      ? hunkBlock(hunk, index, pairs[index] ?? [], renderSplit, virtual, review)
      : hunkBlock(hunk, index, hunk.rows, rowRenderer(hunk.rows), virtual, review),
  );
  viewport.append(...blocks.map((block) => block.element));
  const dispose = review ? buildControlsNearView(viewport, blocks) : undefined;
  if (!virtual) {
    return { viewport, blocks, ...(dispose ? { dispose } : {}) };
  }
  viewport.dataset['virtual'] = 'true';
  let scheduled = false;
  const paint = (): void => {
    scheduled = false;
    const top = viewport.scrollTop;
    const bottom = top + (viewport.clientHeight || maxRows * rowHeight);
    // Read every offset first, then write, so painting one hunk does not force a layout for the next.
    const offsets = blocks.map((block) => block.rows.element.offsetTop);
    blocks.forEach((block, index) => {
      const offset = offsets[index] ?? 0;
      block.rows.paint?.(top - offset, bottom - offset);
    });
  };
  const schedule = (): void => {
    if (!scheduled) {
      scheduled = true;
      requestAnimationFrame(paint);
    }
  };
  viewport.addEventListener('scroll', schedule);
  // The first window is drawn now, at offsets estimated from each hunk's bar and rows, so the first frame lays the
  // diff out once (waiting for the real offsets laid it out twice: 100 hunks, +15 ms). The next frame checks the
  // window against the real offsets, which mostly draws nothing.
  let estimated = 0;
  for (const block of blocks) {
    estimated += hunkBarHeight;
    block.rows.paint?.(-estimated, shown - estimated);
    estimated += block.rows.height + (block.element.dataset['state'] === 'rejected' ? reasonHeight : 0);
  }
  schedule();
  return { viewport, blocks, repaint: schedule, ...(dispose ? { dispose } : {}) };
}

export interface DiffView {
  readonly element: HTMLElement;
  /**
   * The whole diff of which the view was drawn with the first rows (the same hunks): drawn again in place, at the same
   * scroll position, the focus kept on its hunk.
   */
  setPreview(whole: DiffPreview): void;
  /**
   * A key pressed in the card that holds this diff, outside any text field: j/k or Alt+Down/Alt+Up move the focus
   * between hunks, a accepts and r rejects the focused hunk. Returns whether the key was one of these.
   */
  handleKey(event: KeyboardEvent): boolean;
}

/** `maxRows`: how many rows show before the diff scrolls (the chat's inline cards show fewer than the panel). */
export function renderDiff(
  first: DiffPreview,
  /** Opens the diff in VS Code's diff editor; undefined: a change with no text to show there (no button). */
  onOpenDiff: (() => void) | undefined,
  review?: HunkReview,
  maxRows = maxViewportRows,
  /** Where the person's choice of unified or side by side is remembered, across calls and reloads. */
  modeMemory?: { get(): DiffMode | undefined; set(mode: DiffMode): void },
  /** More on the diff's toolbar, after its path and counts (a group's file: its state and Accept / Reject file). */
  toolbarExtras: (HTMLElement | string)[] = [],
): DiffView {
  let preview = first;
  let mode: 'unified' | 'split' = modeMemory?.get() ?? 'unified';
  let list: HunkList | undefined;
  const body = h('div', { class: 'diff-holder' });
  const draw = (): void => {
    list?.dispose?.();
    list = hunkList(preview, mode, review, maxRows);
    body.replaceChildren(list.viewport);
    body.dataset['mode'] = mode;
  };
  review?.onDidChange((index) => {
    const block = list?.blocks[index];
    if (block) {
      syncControls(block, review.isAccepted(index), review.reason(index));
    }
    list?.repaint?.();
  });
  const toggle = button({ secondary: true, 'data-action': 'toggle-diff-mode', title: 'Switch between unified and side-by-side' },
    mode === 'unified' ? 'Side by side' : 'Unified');
  toggle.addEventListener('click', () => {
    mode = mode === 'unified' ? 'split' : 'unified';
    toggle.textContent = mode === 'unified' ? 'Side by side' : 'Unified';
    modeMemory?.set(mode);
    draw();
  });
  let open: HTMLElement | string = '';
  if (onOpenDiff !== undefined) {
    open = button({ secondary: true, 'data-action': 'open-diff', title: "Open in VS Code's diff editor" },
      icon('diff'), 'Open in diff editor');
    open.addEventListener('click', onOpenDiff);
  }
  draw();
  const keys = (...names: string[]): (HTMLElement | string)[] => names.flatMap((name, i) => [i > 0 ? ' / ' : '', h('kbd', {}, name)]);
  const element = h(
    'section',
    { class: 'diff', 'data-field': 'diff' },
    h(
      'div',
      { class: 'diff-toolbar' },
      h('span', { class: 'diff-path' }, icon(preview.isNewFile ? 'new-file' : 'file'), ' ', preview.path,
        preview.isNewFile ? ' (new file)' : ''),
      h('span', { class: 'counts', 'data-field': 'diff-counts' },
        h('span', { class: 'added' }, `+${preview.added}`), ' ', h('span', { class: 'removed' }, `−${preview.removed}`)),
      ...toolbarExtras,
      h('span', { class: 'spacer' }),
      toggle,
      open,
    ),
    preview.note !== undefined ? h('p', { class: 'notice', role: 'note' }, preview.note) : '',
    review && preview.hunks.length > 0
      ? h('p', { class: 'hunk-keys muted', 'data-field': 'hunk-keys' },
          'Review hunk by hunk: ', ...keys('j', 'Alt+↓'), ' next, ', ...keys('k', 'Alt+↑'), ' previous, ', ...keys('a'), ' accept, ',
          ...keys('r'), ' reject.')
      : '',
    preview.hunks.length === 0 ? h('p', { class: 'muted' }, 'No change: the proposed content is identical.') : body,
  );

  const handleKey = (event: KeyboardEvent): boolean => {
    const action = review ? hunkKeyAction(event) : undefined;
    const blocks = list?.blocks ?? [];
    if (!review || action === undefined || blocks.length === 0) {
      return false;
    }
    const active = document.activeElement;
    const current = blocks.findIndex((block) => active !== null && block.element.contains(active));
    const focusAt = (index: number): void => {
      const block = blocks[index];
      block?.element.focus();
      block?.element.scrollIntoView({ block: 'nearest' });
    };
    switch (action) {
      case 'next':
        focusAt(current < 0 ? 0 : Math.min(current + 1, blocks.length - 1));
        return true;
      case 'previous':
        focusAt(current < 0 ? blocks.length - 1 : Math.max(current - 1, 0));
        return true;
      case 'accept':
      case 'reject':
        if (current < 0) {
          return false;
        }
        review.set(current, action === 'accept');
        if (action === 'reject') {
          blocks[current]?.ensureControls?.().reasonBox.focus();
        }
        return true;
    }
  };
  const setPreview = (whole: DiffPreview): void => {
    const scrollTop = list?.viewport.scrollTop ?? 0;
    const active = document.activeElement;
    const focused = list?.blocks.findIndex((block) => active !== null && block.element.contains(active)) ?? -1;
    preview = whole;
    draw();
    if (list) {
      list.viewport.scrollTop = scrollTop;
      list.repaint?.();
    }
    if (focused >= 0) {
      list?.blocks[focused]?.element.focus({ preventScroll: true });
    }
  };
  return { element, handleKey, setPreview };
}

/**
 * A call whose diff came with its first rows only (`rowCount` on a hunk): asks the host for every hunk's rows once the
 * first rows are on screen, and hands over the whole diff when they come. Asked sooner, the answer (a rewritten
 * 10,000-line file's is about 1 MB) was read and drawn before the first frame and held it back. A refusal (the call
 * was decided meanwhile) leaves the card as it is.
 */
export function loadWholeDiff(call: PendingCallView, channel: Pick<HostChannel, 'send'>, onWhole: (whole: DiffPreview) => void): void {
  const preview = call.preview;
  if (preview.kind !== 'diff' || !preview.hunks.some((hunk) => hunk.rowCount !== undefined)) {
    return;
  }
  requestAnimationFrame(() => setTimeout(() => {
    const requestId = channel.send({ type: 'loadDiffRows', callId: call.callId, argsHash: call.argsHash });
    whenAnswered(requestId, (answer) => {
      const rows = answer.diffRows;
      if (answer.ok && rows?.length === preview.hunks.length) {
        onWhole({ ...preview, hunks: preview.hunks.map((hunk, index) => ({ header: hunk.header, rows: rows[index] ?? [] })) });
      }
    });
  }, 0));
}
