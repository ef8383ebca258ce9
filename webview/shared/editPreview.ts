/**
 * Edit then allow, shown: the person's edit as a diff against the proposal (content) or as the command that will
 * run instead, and the controls that would allow the original turned off while the edit is pending.
 */
import { structuredPatch } from 'diff';
import type { DiffPreview, DiffRow, PendingCallView } from '../../src/shared/approvals';
import { h } from './elements';
import { renderDiff } from './diffView';

/** Past this size the edit is not diffed in the webview (it stays editable; the host diffs what it writes). */
const maxDiffChars = 2_000_000;
const editDiffRows = 12;

/** The edit as a unified diff preview: what the person changed in the proposed content. */
export function editDiff(path: string, proposed: string, edited: string): DiffPreview {
  const patch = structuredPatch('proposal', 'edit', proposed, edited, '', '', { context: 3 });
  let added = 0;
  let removed = 0;
  const hunks = patch.hunks.map((hunk) => {
    let oldNo = hunk.oldStart;
    let newNo = hunk.newStart;
    const rows: DiffRow[] = [];
    for (const line of hunk.lines) {
      const sign = line.charAt(0);
      const text = line.slice(1);
      if (sign === '+') {
        rows.push(['a', null, newNo++, text]);
        added += 1;
      } else if (sign === '-') {
        rows.push(['d', oldNo++, null, text]);
        removed += 1;
      } else if (sign === ' ') {
        rows.push(['c', oldNo++, newNo++, text]);
      }
    }
    return { header: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, rows };
  });
  return { kind: 'diff', path: `${path} (your edit against the proposal)`, isNewFile: false, added, removed, hunks };
}

/** What the edit area shows under the editor while the edit differs from the proposal. */
export function editOfProposal(call: Pick<PendingCallView, 'preview'>, editable: NonNullable<PendingCallView['editable']>, edited: string, onOpenDiff: (() => void) | undefined): HTMLElement {
  if (editable.kind === 'command') {
    return h('div', { class: 'edit-command' }, h('div', { class: 'label' }, 'Runs instead of the proposed command'), h('pre', { class: 'command-text', 'data-field': 'edited-command' }, edited));
  }
  if (!('text' in editable)) {
    // A large file comes without its proposal (npm run bench): the diff editor shows the edit.
    const open = h('a', { href: '#', 'data-action': 'open-diff' }, "Open it in VS Code's diff editor");
    open.addEventListener('click', (event) => {
      event.preventDefault();
      onOpenDiff?.();
    });
    return h('p', { class: 'muted', 'data-field': 'edit-in-diff-editor' }, 'The file is large: your edit is not shown as a diff here. ', open, '.');
  }
  if (edited.length + editable.text.length > maxDiffChars) {
    return h('p', { class: 'muted' }, 'Your edit is too large to show as a diff here; what is written is your version.');
  }
  const path = call.preview.kind === 'diff' ? call.preview.path : 'content';
  return renderDiff(editDiff(path, editable.text, edited), onOpenDiff, undefined, editDiffRows).element;
}
