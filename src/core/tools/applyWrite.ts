/**
 * How an allowed write reaches the disk (write_file, edit_file, a staged command's text change): the decision is the
 * core's, the editor's port only does what it is told.
 * - Never through a link put on the way since it was judged: just before handing the write over, the path is walked
 *   by descriptor beneath its workspace folder (../sandbox/beneath), and it must still resolve where it was judged.
 *   The editor then writes by path: a link swapped in within that instant is the window left (VS Code has no write
 *   relative to a descriptor); a staged command cannot make one then (it has ended), only a second writer.
 * - Never through a hard link: a file with more than one name is replaced (a new file written beside it and renamed
 *   over, by descriptor), so its other names (say `.vscode/settings.json`) keep their content. The editor's own write
 *   goes into the file's inode, which every name shares.
 */
import type { ResolvedPath } from '../approval/paths';
import { realpathOfNearest } from '../approval/paths';
import { encodeText, sha256Bytes, utf8Format } from '../files/encoding';
import { Beneath, beneathSupported } from '../sandbox/beneath';
import { ToolError, type ApplyOutcome, type FileSnapshot, type WorkspaceFiles } from './ports';

export async function applyWrite(files: WorkspaceFiles, target: ResolvedPath, base: FileSnapshot, text: string, label: string): Promise<ApplyOutcome> {
  if (target.root === undefined || target.relative === undefined || target.relative === '' || !beneathSupported) {
    return await files.apply(target.absolute, base, text, label);
  }
  // A workspace folder that is not on this disk (a virtual file system; in-memory files in tests): nothing here to
  // be redirected, the editor writes it as it knows how.
  const beneath = await Beneath.open(target.root).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw error;
  });
  if (beneath === undefined) {
    return await files.apply(target.absolute, base, text, label);
  }
  try {
    const link = await beneath.linkOnTheWay(target.relative);
    if (link !== undefined || realpathOfNearest(target.absolute) !== target.real) {
      throw new ToolError(`${label}: ${link?.message ?? 'its path now leads elsewhere than when it was shown'}; nothing was written`, 'link');
    }
    const now = await beneath.lstat(target.relative);
    if (now === undefined || !now.isFile() || now.nlink < 2) {
      return await files.apply(target.absolute, base, text, label);
    }
    // Another name shares this file: replaced, if it is still what the diff was of (an unsaved buffer is not: its
    // hash is of the buffer, so it asks again with the disk's version).
    const onDisk = await beneath.readFile(target.relative);
    if (!base.exists || sha256Bytes(onDisk) !== base.hash) {
      return { kind: 'changed', detail: `${label} changed after the diff was shown` };
    }
    const bytes = await encodeText(text, base.format.kind === 'text' ? base.format : utf8Format);
    await beneath.replaceFile(target.relative, bytes, now.mode & 0o7777);
    return { kind: 'written', savedToDisk: true };
  } finally {
    await beneath.close();
  }
}
