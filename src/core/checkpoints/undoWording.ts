/**
 * What an undo says, to the person and the audit log: before (the preview: each file's fate, what it cannot undo) and
 * after (one line for a notification, then everything, one item a line). undoRunner.ts carries the undo out.
 */
import type { LeftWhy, RevertedHow } from '../audit/auditLog';
import { landedWords } from './landedUnreviewed';
import type { TaskRecord } from './schema';
import type { FileUndo, UndoPlan, UnreviewedUndoNote } from './undo';

/** A file an undo put back, left, or found already as before, with what it says of it. */
interface FileOutcomeBase {
  path: string;
  relativePath?: string;
  turns: number[];
  message: string;
}
export type RevertedFile = FileOutcomeBase & { how: RevertedHow };
export type LeftFile = FileOutcomeBase & { why: LeftWhy };
export type UnchangedFile = FileOutcomeBase;

/** One line of an undo's preview: a file it would put back, one it would ask about, one it would keep, a command it cannot undo. */
export interface PreviewLine {
  group: 'revert' | 'ask' | 'keep' | 'command';
  file?: string;
  command?: string;
  text: string;
}

export interface UndoPreview {
  kind: 'preview';
  chatId: string;
  taskId: string;
  turns: number[];
  lines: PreviewLine[];
  notes: string[];
}

/** Whether undoing would change anything (a file put back, or asked about): only then is Undo offered. */
export const undoWouldChange = (lines: readonly Pick<PreviewLine, 'group'>[]): boolean => lines.some((line) => line.group === 'revert' || line.group === 'ask');

/** What undoing would do to one file, said before it is done. */
function previewLine(file: FileUndo): PreviewLine {
  const name = file.relativePath ?? file.path;
  const [group, what] = previewWords[file.kind];
  return { group, file: name, text: `${name}: ${what}` };
}

/** Each fate's group in the preview, and its words. */
const previewWords: Record<FileUndo['kind'], [PreviewLine['group'], string]> = {
  revert: ['revert', "put back as it was before the agent's change"],
  merge: ['revert', "the agent's change taken out; your later edits elsewhere in the file kept"],
  restore: ['revert', 'restored (the agent deleted it)'],
  delete: ['revert', 'deleted (the agent created it, and it is unchanged since)'],
  conflict: ['ask', "your later edits overlap the agent's change: you will be asked to keep yours or write a merge"],
  'confirm-delete': ['ask', 'created by the agent and changed since: you will be asked before it is deleted'],
  'already-reverted': ['keep', "already as before the agent's change; nothing to write"],
  'deleted-since': ['keep', 'deleted since the agent changed it; left deleted'],
};

/** The preview's lines: each file's fate, then what landed without review (kept), then the commands (they ran). */
export function previewLines(planned: UndoPlan): PreviewLine[] {
  return [
    ...planned.files.map(previewLine),
    ...planned.unreviewed.map((note): PreviewLine => ({ group: 'keep', ...(note.path !== '' ? { file: note.path } : {}), text: note.message })),
    ...planned.commands.map((command): PreviewLine => ({ group: 'command', command: command.command, text: `${command.command}: a terminal command; it ran, and cannot be undone` })),
  ];
}

/** "dist/bundle.js", "dist/bundle.js, 3 files in out/ and 12 more files": the first groups named, for one line. */
function keptWords(notes: readonly UnreviewedUndoNote[]): string {
  const groups = notes.filter((note) => note.path !== '').map((note) => ({ path: note.path, files: note.files }));
  const more = notes.filter((note) => note.path === '').reduce((sum, note) => sum + note.files, 0);
  return landedWords(groups, more, 3);
}

const turnList = (turns: readonly number[]): string => turns.map((turn) => turn + 1).join(', ');
export const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** What an undo that was carried out says: one line for a notification, and everything, one item a line. */
export function undoneWords(
  scope: 'turn' | 'task',
  task: TaskRecord,
  turns: readonly number[],
  plan: UndoPlan,
  decided: { reverted: readonly RevertedFile[]; left: readonly LeftFile[]; unchanged: readonly UnchangedFile[] },
): { summary: string; text: string } {
  const what = scope === 'task' ? `task "${task.title ?? task.taskId}"` : `turn ${turnList(turns)} of "${task.title ?? task.taskId}"`;
  const notDone = new Set(decided.left.filter((file) => file.why === 'not-carried-out').map((file) => file.path));
  const leftAlone = new Set(decided.left.filter((file) => file.why !== 'not-carried-out').map((file) => file.path));
  const parts = [
    decided.reverted.length > 0 ? `${plural(decided.reverted.length, 'file')} put back` : 'no file put back',
    ...(notDone.size > 0 ? [`${plural(notDone.size, 'file')} NOT put back though the edit was applied (see the details)`] : []),
    ...(leftAlone.size > 0 ? [`${plural(leftAlone.size, 'file')} left as they are`] : []),
    ...(plan.unreviewed.length > 0 ? [`kept ${keptWords(plan.unreviewed)}: landed without review, not kept for undo`] : []),
    ...(plan.commands.length > 0 ? [`${plural(plan.commands.length, 'terminal command')} cannot be undone`] : []),
  ];
  const summary = `Undid ${what}: ${parts.join('; ')}.`;
  const text = [
    summary,
    ...decided.reverted.map((file) => file.message),
    ...decided.left.map((file) => file.message),
    ...decided.unchanged.map((file) => file.message),
    ...plan.commands.map((command) => command.message),
    ...plan.unreviewed.map((note) => note.message),
    ...plan.notes,
  ].join('\n');
  return { summary, text };
}
