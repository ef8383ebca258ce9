/**
 * A file's UTF-8 text as it is on disk, for records that keep texts (the checkpoints of a command that ran unstaged):
 * `null` when nothing is there, undefined when it is not a regular file, is larger than `maxBytes` or is not UTF-8.
 */
import { lstat, readFile } from 'node:fs/promises';

export async function readUtf8File(absolute: string, maxBytes = 8 * 1024 * 1024): Promise<string | null | undefined> {
  const info = await lstat(absolute).catch((error: unknown) => ((error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined));
  if (info === null || info === undefined) {
    return info;
  }
  if (!info.isFile() || info.size > maxBytes) {
    return undefined;
  }
  try {
    // The byte order mark stays in the text, so writing the text back gives the same bytes.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(await readFile(absolute));
  } catch {
    return undefined;
  }
}
