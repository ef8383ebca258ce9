/**
 * At the end of a task, what it changed: "Changed 2 files (+12 −3)", then each file with its lines added and removed
 * and whether the task created or removed it, as a link that opens its diff (the text before the task against the text
 * after it, both from the host's checkpoints).
 */
import type { ChatEntry } from '../../src/shared/messages';
import type { HostChannel } from '../shared/hostChannel';
import { h, icon } from '../shared/elements';

type ChangesEntry = Extract<ChatEntry, { kind: 'changes' }>;

const plural = (count: number, word: string): string => `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;
/** "+12 −3" in the diff's colours. */
const counts = (added: number, removed: number): HTMLElement =>
  h('span', { class: 'counts' }, h('span', { class: 'added' }, `+${added.toLocaleString('en-US')}`), ' ', h('span', { class: 'removed' }, `−${removed.toLocaleString('en-US')}`));
const changeWords: Record<ChangesEntry['files'][number]['change'], string> = { created: 'created', modified: '', deleted: 'removed' };
const changeIcons: Record<ChangesEntry['files'][number]['change'], string> = { created: 'diff-added', modified: 'diff-modified', deleted: 'diff-removed' };

/** "landed without review: a.txt, 1,204 files in node_modules/": no diffs to open, said so. */
function unreviewedLine(unreviewed: NonNullable<ChangesEntry['unreviewed']>): HTMLElement {
  const named = unreviewed.groups.map((group) => (group.path.endsWith('/') ? `${plural(group.files, 'file')} in ${group.path}` : group.path));
  const more = unreviewed.more > 0 ? ` and ${plural(unreviewed.more, 'more file')}` : '';
  return h('p', { class: 'changes-unreviewed', 'data-field': 'unreviewed' }, icon('warning'), ` Landed without review (nobody saw them; they cannot be undone): ${named.join(', ')}${more}`);
}

export function taskChangesEntry(entry: ChangesEntry, channel: Pick<HostChannel, 'send'>): HTMLElement {
  const unseen = (entry.unreviewed?.groups ?? []).reduce((sum, group) => sum + group.files, 0) + (entry.unreviewed?.more ?? 0);
  const files = entry.files.length + (entry.more ?? 0) + unseen;
  const added = entry.files.reduce((sum, file) => sum + file.added, 0);
  const removed = entry.files.reduce((sum, file) => sum + file.removed, 0);
  const title = files === 0 ? h('p', { class: 'changes-title' }, icon('discard'), ' No changes left: undone') : h('p', { class: 'changes-title' }, icon('files'), ` Changed ${plural(files, 'file')} `,
    counts(added, removed),
    entry.commands > 0 ? ` · ran ${plural(entry.commands, 'command')}` : '');
  const list = h('ul', { class: 'changes-list', 'aria-label': 'Files the task changed: each opens its diff' }, ...entry.files.map((file) => {
    const link = h('a', { href: '#', 'data-action': 'open-task-change', 'data-file': file.file, title: `Open the diff of ${file.file}: before the task, and after it` }, file.file);
    link.addEventListener('click', (event) => {
      event.preventDefault();
      channel.send({ type: 'openTaskChange', entryId: entry.id, file: file.file });
    });
    return h('li', { 'data-change': file.change },
      icon(changeIcons[file.change]), ' ', link, ' ',
      counts(file.added, file.removed),
      changeWords[file.change] === '' ? '' : h('span', { class: 'muted' }, ` ${changeWords[file.change]}`));
  }));
  return h('div', { class: 'entry changes', 'data-entry': 'changes', role: 'group', 'aria-label': `What the task changed: ${plural(files, 'file')}` },
    title, list, entry.more !== undefined ? h('p', { class: 'muted' }, `and ${plural(entry.more, 'more file')} (Undo Agent's Task lists them all)`) : '',
    entry.unreviewed !== undefined ? unreviewedLine(entry.unreviewed) : '');
}
