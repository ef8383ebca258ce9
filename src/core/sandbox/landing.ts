/**
 * The landing of a staged command's changes in the workspace, never by path (./beneath): what the person allowed,
 * and what lands without review (../tools/stagedLanding judges which), as the command left it.
 */
import { promises as fs, readdirSync } from 'node:fs';
import path from 'node:path';
import { type Beneath, BeneathFolders, BeneathRefusal } from './beneath';
import type { StagedChange } from './changeSet';
import type { Stage } from './stage';

/** Why a change did not land: the person changed its file meanwhile, a link is now on its way, or the step failed. */
export type ConflictKind = 'changed' | 'link' | 'failed';
export type LandOutcome = { landed: StagedChange[]; conflicts: { change: StagedChange; kind: ConflictKind; why: string }[] };

/**
 * Lands changes in the workspace, in order (deletions of a tree come deepest first), never by path: each step walks
 * from the workspace folder's descriptor and refuses a link on its way (./beneath), so a folder swapped for a link
 * meanwhile cannot carry a change outside. A file the person changed while the command ran (modified after the stage
 * was made) is not overwritten nor deleted. Each change that cannot land is a conflict of its own; the rest land.
 */
export async function landChanges(stage: Stage, changes: readonly StagedChange[]): Promise<LandOutcome> {
  const landed: StagedChange[] = [];
  const conflicts: LandOutcome['conflicts'] = [];
  // A new folder that lands whole (everything under it is in `changes`) is moved at once rather than file by file.
  let moved: string | undefined;
  const under = changesUnderNewFolders(changes);
  const folders = new BeneathFolders();
  try {
    for (const change of changes) {
      const target = path.join(change.folder, change.path);
      if (moved !== undefined && target.startsWith(`${moved}/`)) {
        landed.push(change);
        continue;
      }
      try {
        const how = await landOne(await folders.of(change.folder), stage, change, under);
        if (how === 'changed') {
          conflicts.push({ change, kind: 'changed', why: `${change.path} was changed while the command ran` });
          continue;
        }
        moved = how === 'moved' ? target : moved;
        landed.push(change);
      } catch (error) {
        conflicts.push(
          error instanceof BeneathRefusal && error.kind === 'link'
            ? { change, kind: 'link', why: `${error.relative}, on the way to ${change.path}, is a symbolic link` }
            : { change, kind: 'failed', why: `landing it failed: ${error instanceof Error ? error.message : String(error)}` },
        );
      }
    }
  } finally {
    await folders.close();
  }
  return { landed, conflicts };
}

/** Lands one change beneath its workspace folder: 'moved' when a new folder went in whole, 'changed' when it may not. */
async function landOne(beneath: Beneath, stage: Stage, change: StagedChange, under: ReadonlyMap<StagedChange, number>): Promise<'landed' | 'moved' | 'changed'> {
  const now = await beneath.lstat(change.path);
  if (change.kind === 'folder') {
    if (now === undefined && (under.get(change) ?? 0) === countStaged(change.staged) && (await beneath.moveIn(change.staged, change.path))) {
      return 'moved';
    }
    await beneath.mkdir(change.path);
    return 'landed';
  }
  if (now !== undefined && !now.isDirectory() && now.mtimeMs > stage.startedMs) {
    return 'changed';
  }
  switch (change.kind) {
    case 'deleted':
      await beneath.remove(change.path);
      break;
    case 'mode':
      await beneath.chmod(change.path, change.mode);
      break;
    case 'symlink':
      await beneath.symlink(change.target, change.path);
      break;
    case 'created':
    case 'modified':
      // Moved from the stage (the same disk) or written beside it, then renamed over it: a reader never sees half a
      // file, and another name of the old file (a hard link) keeps the old content.
      if (!(await beneath.moveIn(change.staged, change.path))) {
        await beneath.replaceFile(change.path, { copyOf: change.staged }, change.mode ?? (await fs.stat(change.staged)).mode & 0o7777);
      }
      break;
  }
  return 'landed';
}

/**
 * For each new folder among `changes`, how many of `changes` lie under it: a folder whose every staged entry is among
 * them (nothing under it was left out, say by the person's review) can be moved into the workspace whole. One pass over
 * the changes and their parent folders, not one per folder: an `npm install` stages thousands of folders.
 */
export function changesUnderNewFolders(changes: readonly StagedChange[]): Map<StagedChange, number> {
  const byPath = new Map<string, StagedChange>();
  for (const change of changes) {
    if (change.kind === 'folder') {
      byPath.set(`${change.folder}\0${change.path}`, change);
    }
  }
  const counts = new Map<StagedChange, number>();
  for (const change of changes) {
    for (let parent = path.posix.dirname(change.path); parent !== '.' && parent !== '/' && parent !== ''; parent = path.posix.dirname(parent)) {
      const folder = byPath.get(`${change.folder}\0${parent}`);
      if (folder !== undefined) {
        counts.set(folder, (counts.get(folder) ?? 0) + 1);
      }
    }
  }
  return counts;
}

function countStaged(dir: string): number {
  let count = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    count += 1 + (entry.isDirectory() ? countStaged(path.join(dir, entry.name)) : 0);
  }
  return count;
}
