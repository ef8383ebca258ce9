/**
 * The diff of a proposed write: unified or side by side, with line numbers. Long diffs are virtualised (only the
 * rows in view are in the DOM), so a 10,000-line file scrolls smoothly.
 */
import type { DiffPreview, DiffRow } from '../../src/shared/approvals';
import { h } from '../shared/bridge';

export const rowHeight = 18;
const maxViewportRows = 30;
const overscan = 20;
/** Below this many rows everything is rendered; above it only what is visible. */
const virtualiseAbove = 300;

type UnifiedRow = { kind: 'header'; text: string } | { kind: 'line'; row: DiffRow };
type SplitCell = { no: number | null; text: string; kind: 'c' | 'a' | 'd' | 'empty' };
type SplitRow = { kind: 'header'; text: string } | { kind: 'pair'; left: SplitCell; right: SplitCell };

function unifiedRows(preview: DiffPreview): UnifiedRow[] {
  const rows: UnifiedRow[] = [];
  for (const hunk of preview.hunks) {
    rows.push({ kind: 'header', text: hunk.header });
    for (const row of hunk.rows) {
      rows.push({ kind: 'line', row });
    }
  }
  return rows;
}

function splitRows(preview: DiffPreview): SplitRow[] {
  const rows: SplitRow[] = [];
  const empty: SplitCell = { no: null, text: '', kind: 'empty' };
  for (const hunk of preview.hunks) {
    rows.push({ kind: 'header', text: hunk.header });
    let dels: DiffRow[] = [];
    let adds: DiffRow[] = [];
    const flush = (): void => {
      const count = Math.max(dels.length, adds.length);
      for (let i = 0; i < count; i++) {
        const del = dels[i];
        const add = adds[i];
        rows.push({
          kind: 'pair',
          left: del ? { no: del[1], text: del[3], kind: 'd' } : empty,
          right: add ? { no: add[2], text: add[3], kind: 'a' } : empty,
        });
      }
      dels = [];
      adds = [];
    };
    for (const row of hunk.rows) {
      if (row[0] === 'd') {
        if (adds.length > 0) {
          flush();
        }
        dels.push(row);
      } else if (row[0] === 'a') {
        adds.push(row);
      } else {
        flush();
        rows.push({ kind: 'pair', left: { no: row[1], text: row[3], kind: 'c' }, right: { no: row[2], text: row[3], kind: 'c' } });
      }
    }
    flush();
  }
  return rows;
}

const signs: Record<'c' | 'a' | 'd', string> = { c: ' ', a: '+', d: '-' };

function renderUnified(row: UnifiedRow): HTMLElement {
  if (row.kind === 'header') {
    return h('div', { class: 'diff-row hunk-header' }, h('span', { class: 'hunk' }, row.text));
  }
  const [kind, oldNo, newNo, text] = row.row;
  return h(
    'div',
    { class: `diff-row ${kind}` },
    h('span', { class: 'no' }, oldNo === null ? '' : String(oldNo)),
    h('span', { class: 'no' }, newNo === null ? '' : String(newNo)),
    h('span', { class: 'sign' }, signs[kind]),
    h('span', { class: 'text' }, text),
  );
}

function renderSplit(row: SplitRow): HTMLElement {
  if (row.kind === 'header') {
    return h('div', { class: 'diff-row hunk-header split' }, h('span', { class: 'hunk' }, row.text));
  }
  const cell = (value: SplitCell): HTMLElement[] => [
    h('span', { class: `no ${value.kind}` }, value.no === null ? '' : String(value.no)),
    h('span', { class: `text ${value.kind}` }, value.text),
  ];
  return h('div', { class: 'diff-row split' }, ...cell(row.left), ...cell(row.right));
}

/** A scrolling list that renders only the rows in view once it is long. */
function virtualList<T>(rows: T[], render: (row: T) => HTMLElement, label: string): HTMLElement {
  const viewport = h('div', { class: 'diff-body', role: 'region', 'aria-label': label, tabindex: '0' });
  viewport.style.maxHeight = `${maxViewportRows * rowHeight}px`;
  viewport.dataset['rows'] = String(rows.length);
  if (rows.length <= virtualiseAbove) {
    viewport.append(...rows.map(render));
    return viewport;
  }
  viewport.dataset['virtual'] = 'true';
  const spacer = h('div', { class: 'diff-spacer' });
  spacer.style.height = `${rows.length * rowHeight}px`;
  const windowEl = h('div', { class: 'diff-window' });
  spacer.append(windowEl);
  viewport.append(spacer);
  let first = -1;
  let last = -1;
  const paint = (): void => {
    const start = Math.max(0, Math.floor(viewport.scrollTop / rowHeight) - overscan);
    const visible = Math.ceil((viewport.clientHeight || maxViewportRows * rowHeight) / rowHeight);
    const end = Math.min(rows.length, start + visible + overscan * 2);
    if (start === first && end === last) {
      return;
    }
    first = start;
    last = end;
    windowEl.style.transform = `translateY(${start * rowHeight}px)`;
    windowEl.replaceChildren(...rows.slice(start, end).map(render));
  };
  let scheduled = false;
  viewport.addEventListener('scroll', () => {
    if (!scheduled) {
      scheduled = true;
      requestAnimationFrame(() => {
        scheduled = false;
        paint();
      });
    }
  });
  paint();
  return viewport;
}

export function renderDiff(preview: DiffPreview, onOpenDiff: () => void): HTMLElement {
  let mode: 'unified' | 'split' = 'unified';
  const body = h('div', { class: 'diff-holder' });
  const draw = (): void => {
    body.replaceChildren(
      mode === 'unified'
        ? virtualList(unifiedRows(preview), renderUnified, `Unified diff of ${preview.path}`)
        : virtualList(splitRows(preview), renderSplit, `Side-by-side diff of ${preview.path}`),
    );
    body.dataset['mode'] = mode;
  };
  const toggle = h('vscode-button', { secondary: true, 'data-action': 'toggle-diff-mode', title: 'Switch between unified and side-by-side' }, 'Side by side');
  toggle.addEventListener('click', () => {
    mode = mode === 'unified' ? 'split' : 'unified';
    toggle.textContent = mode === 'unified' ? 'Side by side' : 'Unified';
    draw();
  });
  const open = h('vscode-button', { secondary: true, 'data-action': 'open-diff', title: "Open in VS Code's diff editor" },
    h('vscode-icon', { name: 'diff', slot: 'content-before' }), 'Open in diff editor');
  open.addEventListener('click', onOpenDiff);
  draw();
  return h(
    'section',
    { class: 'diff', 'data-field': 'diff' },
    h(
      'div',
      { class: 'diff-toolbar' },
      h('span', { class: 'diff-path' }, h('vscode-icon', { name: preview.isNewFile ? 'new-file' : 'file', 'aria-hidden': 'true' }), ' ', preview.path,
        preview.isNewFile ? ' (new file)' : ''),
      h('span', { class: 'counts', 'data-field': 'diff-counts' },
        h('span', { class: 'added' }, `+${preview.added}`), ' ', h('span', { class: 'removed' }, `−${preview.removed}`)),
      h('span', { class: 'spacer' }),
      toggle,
      open,
    ),
    preview.note !== undefined ? h('p', { class: 'notice', role: 'note' }, preview.note) : '',
    preview.hunks.length === 0 ? h('p', { class: 'muted' }, 'No change: the proposed content is identical.') : body,
  );
}
