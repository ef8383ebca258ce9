/**
 * The diff of a proposed write: unified or side by side, with line numbers, one block per hunk. When the host lets
 * the content be chosen (`review`), each hunk block is focusable and carries Accept/Reject toggles and, once
 * rejected, a reason box; the choices live in the `HunkReview`, so they survive switching views. Long diffs are
 * virtualised (every hunk block is in the DOM, but only the rows in view are), so a 10,000-line file scrolls smoothly.
 */
import { diffWordsWithSpace } from 'diff';
import type { DiffHunkView, DiffMode, DiffPreview, DiffRow, PendingCallView } from '../../src/shared/approvals';
import { button, h, icon, whenAnswered, type Bridge } from '../shared/bridge';
import { hunkKeyAction, hunkLines, type HunkReview } from './hunkReview';

export const rowHeight = 18;
const maxViewportRows = 30;
const overscan = 20;
/** About the height of a hunk's bar and of a rejected hunk's reason box (media/webview.css). */
const hunkBarHeight = 32;
const reasonHeight = 60;
/** Below this many rows everything is rendered; above it only what is visible. */
const virtualiseAbove = 300;

type SplitCell = { no: number | null; text: string; kind: 'c' | 'a' | 'd' | 'empty' };
type SplitPair = { left: SplitCell; right: SplitCell };

/**
 * A hunk's rows as lines side by side: a context line on both sides, and in each run of removed lines followed by added
 * ones, the i-th removed line beside the i-th added line (the one that replaces it), the longer run's rest alone.
 */
function rowPairs(rows: readonly DiffRow[]): { left?: DiffRow; right?: DiffRow }[] {
  const pairs: { left?: DiffRow; right?: DiffRow }[] = [];
  let dels: DiffRow[] = [];
  let adds: DiffRow[] = [];
  const flush = (): void => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) {
      pairs.push({ ...(dels[i] ? { left: dels[i] } : {}), ...(adds[i] ? { right: adds[i] } : {}) });
    }
    dels = [];
    adds = [];
  };
  for (const row of rows) {
    if (row[0] === 'd') {
      if (adds.length > 0) {
        flush();
      }
      dels.push(row);
    } else if (row[0] === 'a') {
      adds.push(row);
    } else {
      flush();
      pairs.push({ left: row, right: row });
    }
  }
  flush();
  return pairs;
}

function splitPairs(hunk: DiffHunkView): SplitPair[] {
  const empty: SplitCell = { no: null, text: '', kind: 'empty' };
  return rowPairs(hunk.rows).map(({ left, right }) => {
    const context = left !== undefined && left === right;
    return {
      left: left ? { no: left[1], text: left[3], kind: context ? 'c' : 'd' } : empty,
      right: right ? { no: right[2], text: right[3], kind: context ? 'c' : 'a' } : empty,
    };
  });
}

const signs: Record<'c' | 'a' | 'd', string> = { c: ' ', a: '+', d: '-' };

/** Past this length a changed line is not diffed word by word (its whole line stays marked). */
const maxWordDiffChars = 2_000;

/**
 * A changed line's text with the words that changed marked (`data-field="word-change"`), against the line it replaced
 * (or that replaced it): a change at the end of a long line, or of one character, is not lost in a wholly coloured row.
 */
function changedText(text: string, partner: string | undefined, side: 'a' | 'd'): (HTMLElement | string)[] {
  if (partner === undefined || text.length + partner.length > maxWordDiffChars) {
    return [text];
  }
  const parts = side === 'a' ? diffWordsWithSpace(partner, text) : diffWordsWithSpace(text, partner);
  return parts
    .filter((part) => (side === 'a' ? !part.removed : !part.added))
    .map((part) => (part.added || part.removed ? h('span', { class: `word-change ${side}`, 'data-field': 'word-change' }, part.value) : part.value));
}

/** Each changed row's partner: the line it replaces, or that replaces it (see `rowPairs`). */
function partners(rows: readonly DiffRow[]): Map<DiffRow, string> {
  const found = new Map<DiffRow, string>();
  for (const { left, right } of rowPairs(rows)) {
    if (left !== undefined && right !== undefined && left !== right) {
      found.set(left, right[3]);
      found.set(right, left[3]);
    }
  }
  return found;
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

/** The rows of one hunk: all of them, or (virtual) a window of them painted on demand. */
interface RowsBlock {
  element: HTMLElement;
  /** The rows' height in pixels. */
  height: number;
  /**
   * Virtual only: makes sure the rows that fall between `top` and `bottom` (pixels from the top of this block's rows),
   * and a margin, are painted; draws nothing when they already are.
   */
  paint?: (top: number, bottom: number) => void;
}

function rowsBlock<T>(rows: T[], render: (row: T) => HTMLElement, virtual: boolean): RowsBlock {
  const element = h('div', { class: 'hunk-rows' });
  const height = rows.length * rowHeight;
  if (!virtual) {
    element.append(...rows.map(render));
    return { element, height };
  }
  element.classList.add('virtual');
  element.style.height = `${height}px`;
  const windowEl = h('div', { class: 'diff-window' });
  element.append(windowEl);
  let first = -1;
  let last = -1;
  const row = (pixels: number, round: (value: number) => number, by: number): number =>
    Math.min(rows.length, Math.max(0, round(pixels / rowHeight) + by));
  return {
    element,
    height,
    paint(top, bottom) {
      // The rows in view and half the overscan must be there; they are painted with the whole overscan, so a short
      // scroll, or the first frame's estimated offsets being a few pixels out, draws nothing again.
      const needFrom = row(top, Math.floor, -overscan / 2);
      const needTo = row(bottom, Math.ceil, overscan / 2);
      if (needFrom >= needTo ? first === last : first <= needFrom && needTo <= last) {
        return;
      }
      const start = row(top, Math.floor, -overscan);
      const end = Math.max(start, row(bottom, Math.ceil, overscan));
      if (start === first && end === last) {
        return;
      }
      first = start;
      last = end;
      windowEl.style.transform = `translateY(${start * rowHeight}px)`;
      windowEl.replaceChildren(...rows.slice(start, end).map(render));
    },
  };
}

/** What a hunk block shows of the review: its toggles and reason box, kept in step with the `HunkReview`. */
interface HunkControls {
  accept: HTMLElement;
  reject: HTMLElement;
  reasonBox: HTMLTextAreaElement;
  reasonArea: HTMLElement;
}

interface HunkBlock {
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
const eagerControlsUpTo = 10;

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

function syncControls(block: HunkBlock, accepted: boolean, reason?: string): void {
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

function hunkBlock<T>(hunk: DiffHunkView, index: number, rows: T[], render: (row: T) => HTMLElement, virtual: boolean, review: HunkReview | undefined): HunkBlock {
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
function buildControlsNearView(viewport: HTMLElement, blocks: HunkBlock[]): (() => void) | undefined {
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
export function loadWholeDiff(call: PendingCallView, bridge: Pick<Bridge, 'send'>, onWhole: (whole: DiffPreview) => void): void {
  const preview = call.preview;
  if (preview.kind !== 'diff' || !preview.hunks.some((hunk) => hunk.rowCount !== undefined)) {
    return;
  }
  requestAnimationFrame(() => setTimeout(() => {
    const requestId = bridge.send({ type: 'loadDiffRows', callId: call.callId, argsHash: call.argsHash });
    whenAnswered(requestId, (answer) => {
      const rows = answer.diffRows;
      if (answer.ok && rows?.length === preview.hunks.length) {
        onWhole({ ...preview, hunks: preview.hunks.map((hunk, index) => ({ header: hunk.header, rows: rows[index] ?? [] })) });
      }
    });
  }, 0));
}
