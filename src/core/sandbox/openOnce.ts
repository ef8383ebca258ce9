/**
 * A protected file the person allowed a command to write, on the command's own card, opened for that one run (issue
 * 36: one approval is enough). Only that file: its folder and siblings stay read-only, and the next command's policy
 * has none of it. Opened without ever following a link:
 * - on the workspace (a command that is not staged), the file is opened O_PATH|O_NOFOLLOW from a descriptor of its
 *   workspace folder (./beneath), made empty first with the folders on its way when it is missing, and bwrap binds
 *   that descriptor (`--bind-fd`), never a path it would resolve: a link planted there later binds nothing else;
 * - on a stage, Toolgate's own copy of it (or an empty file) is put in the stage's upper layer, which no command can
 *   reach, so the path in the overlay is that copy whatever the workspace holds there; bwrap binds that path.
 * Refused (and named on the command's result as kept read-only): a link at its place or on its way, something that is
 * not a regular file, a file with another name (a hard link: writing one writes the other), anything inside `.git`
 * (git's config and hooks decide what git runs: they are never opened this way, whatever the card said).
 * After the run an empty file Toolgate made that the command did not touch is removed again, with the folders made for it.
 */
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Beneath, BeneathRefusal } from './beneath';
import type { Stage } from './stage';

/** Why a protected path the card allowed was not opened. */
export type OpenRefusalKind = 'git' | 'outside' | 'link' | 'not-a-file' | 'hard-link' | 'failed' | 'seatbelt';

export interface OpenRefusal {
  path: string;
  kind: OpenRefusalKind;
}

/** One protected file opened for one run. */
export interface OpenedOnce {
  /** Its absolute path in the workspace. */
  path: string;
  /** The descriptor bwrap gets (a command on the workspace). */
  handle?: FileHandle;
  /** Toolgate's copy in the stage's upper layer (a staged command). */
  inUpper?: string;
  /** Made empty by Toolgate for this run (it was missing), with the folders made on its way, outermost first. */
  created?: { folders: string[]; mtimeNs: bigint; ctimeNs: bigint };
}

/** The refusal words for each kind, completing "kept … read-only (protected path; …)". */
export const openRefusalWords: Record<OpenRefusalKind, string> = {
  git: "git's own files are never opened for a command",
  outside: 'it is not inside a workspace folder',
  link: 'a symbolic link is there or on its way, and links are never opened',
  'not-a-file': 'it is not a regular file',
  'hard-link': 'it has another name (a hard link), which writing it would write too',
  failed: 'it could not be opened',
  seatbelt: "macOS's sandbox cannot open one protected file for one run",
};

/** Where `absolute` is in the workspace folders (innermost), or why it cannot be opened whatever is on disk. */
export function openablePlace(absolute: string, folders: readonly string[]): { folder: string; relative: string } | { refused: OpenRefusalKind } {
  const folder = [...folders].sort((a, b) => b.length - a.length).find((candidate) => absolute.startsWith(`${candidate}/`));
  if (folder === undefined) {
    return { refused: 'outside' };
  }
  const relative = absolute.slice(folder.length + 1);
  const parts = relative.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..')) {
    return { refused: 'outside' };
  }
  if (parts.some((part) => part === '.git')) {
    return { refused: 'git' };
  }
  return { folder, relative };
}

/**
 * The command card's line on the protected files it writes: what its Allow once opens in the sandbox, for this run
 * only, and what stays read-only whatever the person clicks (git's files). Undefined when it writes none.
 */
export function protectedWritesNotice(files: readonly { absolute: string; relative: string }[], folders: readonly string[]): string | undefined {
  const quote = (entries: readonly { relative: string }[]): string => entries.map((entry) => `\`${entry.relative}\``).join(', ');
  const opened = files.filter((file) => !('refused' in openablePlace(file.absolute, folders)));
  const kept = files.filter((file) => 'refused' in openablePlace(file.absolute, folders));
  const lines = [
    ...(opened.length > 0 ? [`Allow once lets this command write the protected ${opened.length === 1 ? 'file' : 'files'} ${quote(opened)}: the sandbox opens ${opened.length === 1 ? 'that file' : 'those files'} alone, for this run only.`] : []),
    ...(kept.length > 0 ? [`The sandbox keeps ${quote(kept)} read-only even if you allow it: git's own files are never opened for a command.`] : []),
  ];
  return lines.length === 0 ? undefined : lines.join(' ');
}

const refusalOf = (error: unknown): OpenRefusalKind => (error instanceof BeneathRefusal ? (error.kind === 'link' ? 'link' : 'not-a-file') : 'failed');

/** The folders on the way to `relative` that are missing now, outermost first. */
async function missingFolders(beneath: Beneath, relative: string): Promise<string[]> {
  const parts = relative.split('/').slice(0, -1);
  const missing: string[] = [];
  for (let index = 1; index <= parts.length; index++) {
    const folder = parts.slice(0, index).join('/');
    if (missing.length > 0 || (await beneath.lstat(folder)) === undefined) {
      missing.push(folder);
    }
  }
  return missing;
}

/** Opens each path on the workspace for a command that is not staged (see above). Close what it opened with `releaseOpened`. */
export async function openInWorkspace(paths: readonly string[], folders: readonly string[]): Promise<{ opened: OpenedOnce[]; refused: OpenRefusal[] }> {
  const opened: OpenedOnce[] = [];
  const refused: OpenRefusal[] = [];
  for (const absolute of [...new Set(paths)]) {
    const place = openablePlace(absolute, folders);
    if ('refused' in place) {
      refused.push({ path: absolute, kind: place.refused });
      continue;
    }
    let beneath: Beneath | undefined;
    let handle: FileHandle | undefined;
    try {
      beneath = await Beneath.open(place.folder);
      const made = await missingFolders(beneath, place.relative);
      const result = await beneath.openPath(place.relative, true);
      handle = result.handle;
      const stat = await handle.stat({ bigint: true });
      const kind: OpenRefusalKind | undefined = stat.isSymbolicLink() ? 'link' : !stat.isFile() ? 'not-a-file' : stat.nlink > 1n ? 'hard-link' : undefined;
      if (kind !== undefined) {
        refused.push({ path: absolute, kind });
        await handle.close();
        continue;
      }
      opened.push({
        path: absolute,
        handle,
        ...(result.created ? { created: { folders: made.map((folder) => path.join(place.folder, folder)), mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs } } : {}),
      });
    } catch (error) {
      await handle?.close().catch(() => undefined);
      refused.push({ path: absolute, kind: refusalOf(error) });
    } finally {
      await beneath?.close();
    }
  }
  return { opened, refused };
}

/**
 * Puts Toolgate's copy of each path (read from the workspace without following links), or an empty file, in the
 * stage's upper layer before a staged command starts (see above).
 */
export async function openInStage(paths: readonly string[], stage: Stage): Promise<{ opened: OpenedOnce[]; refused: OpenRefusal[] }> {
  const opened: OpenedOnce[] = [];
  const refused: OpenRefusal[] = [];
  const folders = stage.folders.map((entry) => entry.folder);
  for (const absolute of [...new Set(paths)]) {
    const place = openablePlace(absolute, folders);
    const staged = 'refused' in place ? undefined : stage.folders.find((entry) => entry.folder === place.folder);
    if ('refused' in place || staged === undefined) {
      refused.push({ path: absolute, kind: 'refused' in place ? place.refused : 'outside' });
      continue;
    }
    let beneath: Beneath | undefined;
    try {
      beneath = await Beneath.open(place.folder);
      const link = await beneath.linkOnTheWay(place.relative);
      if (link !== undefined) {
        throw link;
      }
      const stat = await beneath.lstat(place.relative);
      const kind: OpenRefusalKind | undefined = stat === undefined ? undefined : stat.isSymbolicLink() ? 'link' : !stat.isFile() ? 'not-a-file' : stat.nlink > 1 ? 'hard-link' : undefined;
      if (kind !== undefined) {
        refused.push({ path: absolute, kind });
        continue;
      }
      const upper = path.join(staged.dir, 'upper');
      const inUpper = path.join(upper, place.relative);
      // The upper layer is Toolgate's own (a fresh stage): folders are made where missing, and remembered.
      const made: string[] = [];
      for (let folder = path.dirname(inUpper); folder !== upper; folder = path.dirname(folder)) {
        if ((await fs.lstat(folder).catch(() => undefined)) === undefined) {
          made.unshift(folder);
        }
      }
      await fs.mkdir(path.dirname(inUpper), { recursive: true });
      const content = stat === undefined ? Buffer.alloc(0) : await beneath.readFile(place.relative);
      await fs.writeFile(inUpper, content, { flag: 'wx', mode: stat === undefined ? 0o644 : stat.mode & 0o7777 });
      const written = await fs.lstat(inUpper, { bigint: true });
      opened.push({ path: absolute, inUpper, ...(stat === undefined ? { created: { folders: made, mtimeNs: written.mtimeNs, ctimeNs: written.ctimeNs } } : {}) });
    } catch (error) {
      refused.push({ path: absolute, kind: refusalOf(error) });
    } finally {
      await beneath?.close();
    }
  }
  return { opened, refused };
}

/**
 * After the run: each descriptor closed, and an empty file Toolgate made that the command did not touch (same times,
 * still empty) removed with the folders made for it, if they are empty: nothing is left of an allowance not used.
 */
export async function releaseOpened(opened: readonly OpenedOnce[], folders: readonly string[]): Promise<void> {
  for (const entry of opened) {
    const created = entry.created;
    try {
      const stat = created === undefined ? undefined : entry.handle !== undefined ? await entry.handle.stat({ bigint: true }) : await fs.lstat(entry.inUpper ?? '', { bigint: true });
      const untouched = created !== undefined && stat !== undefined && stat.size === 0n && stat.mtimeNs === created.mtimeNs && stat.ctimeNs === created.ctimeNs;
      if (!untouched) {
        continue;
      }
      if (entry.inUpper !== undefined) {
        await fs.rm(entry.inUpper, { force: true });
        for (const folder of [...created.folders].reverse()) {
          await fs.rmdir(folder).catch(() => undefined);
        }
        continue;
      }
      const place = openablePlace(entry.path, folders);
      if ('refused' in place) {
        continue;
      }
      const beneath = await Beneath.open(place.folder);
      try {
        await beneath.remove(place.relative);
        for (const folder of [...created.folders].reverse()) {
          await beneath.rmdir(path.relative(place.folder, folder)).catch(() => undefined);
        }
      } finally {
        await beneath.close();
      }
    } catch {
      // Left as it is: an empty file where the card allowed one.
    } finally {
      await entry.handle?.close().catch(() => undefined);
    }
  }
}
