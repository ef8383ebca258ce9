/** The panel's view of a line diff: compact rows per hunk, cut (with a note) past a size the webview can paint. */
import type { LineDiff } from '../diff/lineDiff';
import type { DiffPreview, DiffRow } from './preview';

const maxPreviewRows = 200_000;

export function hunkHeader(hunk: { oldStart: number; oldLines: number; newStart: number; newLines: number }): string {
  return `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
}

export function diffPreview(relativePath: string, isNewFile: boolean, diff: LineDiff): DiffPreview {
  let rows = 0;
  const hunks = [];
  for (const hunk of diff.hunks) {
    if (rows > maxPreviewRows) {
      break;
    }
    rows += hunk.lines.length;
    hunks.push({
      header: hunkHeader(hunk),
      rows: hunk.lines.map((line): DiffRow => [line.kind === 'context' ? 'c' : line.kind === 'add' ? 'a' : 'd', line.oldLine ?? null, line.newLine ?? null, line.text]),
    });
  }
  const notes = [diff.note, rows > maxPreviewRows ? `the diff is cut after ${maxPreviewRows} lines; open it in the diff editor to see all` : undefined].filter(
    (note): note is string => note !== undefined,
  );
  return {
    kind: 'diff',
    path: relativePath,
    isNewFile,
    added: diff.added,
    removed: diff.removed,
    hunks,
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  };
}
