/**
 * What a staged command changed, read from its stage (./stage) after it ended. What the kernel leaves in `upper` is the
 * change set: files created or modified (whole copies), deletions (whiteouts, character devices 0/0), and folders that
 * were removed and made again ("opaque": every lower entry hidden), which the stage's wrapper listed as the command
 * left them.
 */
import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import type { Stage } from './stage';

export type StagedChange =
  /** `mode` is left out for a file in a new folder (not read, to keep an `npm install` fast): it is the staged file's. */
  | { kind: 'created' | 'modified'; folder: string; path: string; staged: string; mode?: number }
  | { kind: 'mode'; folder: string; path: string; mode: number }
  | { kind: 'symlink'; folder: string; path: string; target: string }
  /** A new folder; `staged` is its copy in the stage, whose content is listed as changes of their own. */
  | { kind: 'folder'; folder: string; path: string; staged: string }
  | { kind: 'deleted'; folder: string; path: string };

export interface ChangeSet {
  changes: StagedChange[];
  /**
   * False when the wrapper's listing of the overlay is missing (the command was killed outright): deletions inside a
   * folder that was removed and made again may be missing from `changes`.
   */
  complete: boolean;
}

const isWhiteout = (stat: Stats): boolean => stat.isCharacterDevice() && stat.rdev === 0;

async function lstatOrUndefined(file: string): Promise<Stats | undefined> {
  try {
    return await fs.lstat(file);
  } catch {
    return undefined;
  }
}

async function sameContent(a: string, b: string, sizeA: number, sizeB: number): Promise<boolean> {
  if (sizeA !== sizeB) {
    return false;
  }
  const [left, right] = await Promise.all([fs.readFile(a), fs.readFile(b)]);
  return left.equals(right);
}

/** Every file and folder under `dir` (relative, `/` separators), deepest first, for a deleted folder. */
async function treeOf(dir: string, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const relative = `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      found.push(...(await treeOf(path.join(dir, entry.name), relative)));
    }
    found.push(relative);
  }
  return found;
}

/**
 * What the command changed, read from the stage after it ended (its overlays unmounted with its namespace): `lower`
 * is then the workspace folder itself again. Files whose bytes and mode are unchanged (opened for writing, touched)
 * are not changes.
 */
export async function readChangeSet(stage: Stage): Promise<ChangeSet> {
  const changes: StagedChange[] = [];
  let complete = true;
  for (const { folder, dir } of stage.folders) {
    const upper = path.join(dir, 'upper');
    let listed: Set<string> | undefined;
    let both = new Set<string>();
    try {
      const merged = (await fs.readFile(path.join(dir, 'merged'), 'utf8')).split('\n');
      // The wrapper's last line: without it the listing was cut short (the command was killed outright).
      if (merged.at(-2) === '#end') {
        listed = new Set(merged.slice(0, -2).map((line) => line.replace(/^\.\//, '')));
        both = new Set((await fs.readFile(path.join(dir, 'dirs'), 'utf8')).split('\n').filter((line) => line !== '').map((line) => line.replace(/^\.\//, '')));
      } else {
        complete = false;
      }
    } catch {
      complete = false;
    }
    // Inside a folder the workspace did not have, everything is new: no lower to look at, no content to compare.
    const walkNew = async (relative: string): Promise<void> => {
      for (const entry of await fs.readdir(path.join(upper, relative), { withFileTypes: true })) {
        const rel = `${relative}/${entry.name}`;
        const staged = path.join(upper, rel);
        if (entry.isDirectory()) {
          changes.push({ kind: 'folder', folder, path: rel, staged });
          await walkNew(rel);
        } else if (entry.isSymbolicLink()) {
          changes.push({ kind: 'symlink', folder, path: rel, target: await fs.readlink(staged) });
        } else if (entry.isFile()) {
          changes.push({ kind: 'created', folder, path: rel, staged });
        }
      }
    };
    const walk = async (relative: string): Promise<void> => {
      const here = relative === '' ? upper : path.join(upper, relative);
      const entries = await fs.readdir(here);
      for (const name of entries) {
        const rel = relative === '' ? name : `${relative}/${name}`;
        const staged = path.join(upper, rel);
        const lower = path.join(folder, rel);
        const [stat, before] = [await fs.lstat(staged), await lstatOrUndefined(lower)];
        if (isWhiteout(stat)) {
          if (before?.isDirectory()) {
            changes.push(...(await treeOf(lower, rel)).map((entry): StagedChange => ({ kind: 'deleted', folder, path: entry })));
          }
          changes.push({ kind: 'deleted', folder, path: rel });
          continue;
        }
        if (before !== undefined && !before.isDirectory() !== !stat.isDirectory()) {
          // A file replaced by a folder or the other way round: the old one goes first.
          if (before.isDirectory()) {
            changes.push(...(await treeOf(lower, rel)).map((entry): StagedChange => ({ kind: 'deleted', folder, path: entry })));
          }
          changes.push({ kind: 'deleted', folder, path: rel });
        }
        if (stat.isDirectory()) {
          if (before === undefined || !before.isDirectory()) {
            changes.push({ kind: 'folder', folder, path: rel, staged });
            await walkNew(rel);
            continue;
          } else if (listed !== undefined && both.has(rel)) {
            // In the overlay as the command left it, a lower entry that is gone was deleted (a folder removed and
            // made again hides everything below it without a whiteout per entry).
            for (const name of await fs.readdir(lower)) {
              const child = `${rel}/${name}`;
              if (!listed.has(child) && (await lstatOrUndefined(path.join(upper, child))) === undefined) {
                const childStat = await lstatOrUndefined(path.join(folder, child));
                if (childStat?.isDirectory()) {
                  changes.push(...(await treeOf(path.join(folder, child), child)).map((entry): StagedChange => ({ kind: 'deleted', folder, path: entry })));
                }
                changes.push({ kind: 'deleted', folder, path: child });
              }
            }
          }
          await walk(rel);
        } else if (stat.isSymbolicLink()) {
          const target = await fs.readlink(staged);
          const was = before?.isSymbolicLink() ? await fs.readlink(lower) : undefined;
          if (was !== target) {
            changes.push({ kind: 'symlink', folder, path: rel, target });
          }
        } else if (stat.isFile()) {
          const mode = stat.mode & 0o7777;
          if (before === undefined || !before.isFile()) {
            changes.push({ kind: 'created', folder, path: rel, staged, mode });
          } else if (!(await sameContent(staged, lower, stat.size, before.size))) {
            changes.push({ kind: 'modified', folder, path: rel, staged, mode });
          } else if ((before.mode & 0o7777) !== mode) {
            changes.push({ kind: 'mode', folder, path: rel, mode });
          }
        }
      }
    };
    await walk('');
  }
  // The top-level folders deleted were walked above; the same path may come twice from a whiteout over a deleted tree.
  const seen = new Set<string>();
  return {
    changes: changes.filter((change) => {
      const key = `${change.kind} ${change.folder} ${change.path}`;
      return seen.has(key) ? false : (seen.add(key), true);
    }),
    complete,
  };
}
