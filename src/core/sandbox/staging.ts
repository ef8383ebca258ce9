/**
 * Staged commands (the first part of "see what a command changed before it lands"): the command sees each workspace
 * folder through a copy-on-write overlay, so what it writes goes to a staging folder and the workspace is untouched
 * until Toolgate lands the change set.
 *
 * Debian 12's and Ubuntu 22.04's bubblewrap (0.8) cannot mount an overlay itself, so the command is started as
 *   unshare --user --map-root-user --mount -- sh -c <wrapper> … bwrap <the sandbox's arguments> -- bash …
 * In that user and mount namespace of its own (nothing on the host changes), the wrapper binds each folder to the
 * stage's `lower`, mounts an overlay (lower + the stage's `upper`) over the folder's own path, and runs bwrap, which
 * builds the sandbox as usual on top (protected paths are read-only in the overlay as they were in the folder) and
 * gives the command the person's own uid back. Unprivileged overlayfs needs Linux 5.11; where `unshare` or the overlay
 * is refused (AppArmor's user-namespace restriction on Ubuntu 24.04 applies to `unshare`, not to bwrap), the probe
 * says why and commands write directly, as before.
 *
 * What the kernel leaves in `upper` is the change set: files created or modified (whole copies), deletions (whiteouts,
 * character devices 0/0), and folders that were removed and made again ("opaque": every lower entry hidden). Node
 * cannot read the extended attribute that marks an opaque folder, so after the command the wrapper lists, in the still
 * mounted overlay, each folder that `upper` and `lower` both hold; a lower entry missing from that listing was deleted.
 * The wrapper outlasts the stop signals (a trap, not an ignore, which the command would inherit) so that listing is
 * written; the command, in the same process group, gets them as before.
 */
import { promises as fs, readdirSync, readFileSync, type Stats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Beneath, BeneathFolders, BeneathRefusal } from './beneath';
import { bwrapArgs } from './bwrap';
import { confinementProblem, findBwrap, isExecutable, probePolicy } from './sandbox';
import { isAlive } from '../processes';

/** One workspace folder of a stage: where its lower view, upper layer and overlay work folder are. */
interface StagedFolder {
  folder: string;
  dir: string;
}

export interface Stage {
  /** The stage's own folder (one per command). */
  root: string;
  folders: StagedFolder[];
  /** When the stage was made: a workspace file modified after this was changed while the command ran. */
  startedMs: number;
}

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

/**
 * Runs in the new namespaces: `$1` the stage's folder, `$2` the number of workspace folders, then the folders, then
 * the command (bwrap …). Each folder `i` has `$root/i/{lower,upper,work}`; `$root/i/dirs` and `$root/i/merged` are
 * written after the command (folders both layers hold, and their entries as the command left them).
 */
export const stageWrapper = String.raw`trap : INT TERM HUP
root=$1; n=$2; shift 2
i=0
while [ "$i" -lt "$n" ]; do
  d="$root/$i"
  mount --bind "$1" "$d/lower" && mount -t overlay toolgate-stage -o "lowerdir=$d/lower,upperdir=$d/upper,workdir=$d/work,userxattr" "$1" || { echo "toolgate: the staging overlay could not be mounted on $1" >&2; exit 125; }
  printf '%s\n' "$1" > "$d/folder"
  shift; i=$((i+1))
done
"$@"
code=$?
# Builtins only (no find, no subshell): this runs after every staged command. Only folders the lower also has are
# entered; below a new folder everything is new.
walk() {
  for entry in "$d/upper/$1"/* "$d/upper/$1"/.[!.]* "$d/upper/$1"/..?*; do
    if [ -d "$entry" ] && [ ! -L "$entry" ] && [ -d "$d/lower/$1/\${entry##*/}" ]; then
      rel="$1/\${entry##*/}"
      printf '%s\n' "$rel" >&3
      for merged in "$folder/$rel"/* "$folder/$rel"/.[!.]* "$folder/$rel"/..?*; do
        if [ -e "$merged" ] || [ -L "$merged" ]; then printf '%s\n' "$rel/\${merged##*/}"; fi
      done
      walk "$rel"
    fi
  done
}
i=0
while [ "$i" -lt "$n" ]; do
  d="$root/$i"
  IFS= read -r folder < "$d/folder"
  { walk .; echo '#end'; } > "$d/merged" 3> "$d/dirs"
  i=$((i+1))
done
exit $code
`.replaceAll('\\${', '${');

/** Why a folder cannot be staged, or undefined: overlay options cannot carry these characters in a path. */
export function unstageable(folder: string): string | undefined {
  return /[,:\\\n]/.test(folder) ? `${folder} has a comma, colon, backslash or line break in its path, which an overlay mount cannot take` : undefined;
}

/** A new stage for one command, under `parent` (the per-workspace cache folder: on the same disk as most workspaces). */
export async function createStage(parent: string, folders: readonly string[]): Promise<Stage> {
  await fs.mkdir(parent, { recursive: true, mode: 0o700 });
  // Named after this process, so a later start can tell the stages of a window that is gone from those still in use.
  const root = await fs.mkdtemp(path.join(parent, `stage-${process.pid}-`));
  const staged: StagedFolder[] = [];
  for (const [index, folder] of folders.entries()) {
    const dir = path.join(root, String(index));
    for (const part of ['lower', 'upper', 'work']) {
      await fs.mkdir(path.join(dir, part), { recursive: true });
    }
    staged.push({ folder, dir });
  }
  return { root, folders: staged, startedMs: Date.now() };
}

/**
 * The program and arguments that start `inner` (bwrap and its arguments) with the stage's overlays mounted. bwrap is
 * told the person's uid and gid: in the outer namespace they are root, and the command should not think it is.
 */
export function stagedLaunch(
  stage: Stage,
  unshare: string,
  inner: { program: string; args: readonly string[] },
  ids: { uid: number; gid: number } = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
): { program: string; args: string[] } {
  const bwrap = [inner.program, '--uid', String(ids.uid), '--gid', String(ids.gid), ...inner.args];
  return {
    program: unshare,
    args: ['--user', '--map-root-user', '--mount', '--', '/bin/sh', '-c', stageWrapper, 'toolgate-stage', stage.root, String(stage.folders.length), ...stage.folders.map((entry) => entry.folder), ...bwrap],
  };
}

/** Removes the stage (the overlay's work folder is left unreadable by the kernel: opened up first). */
export async function discardStage(stage: Stage): Promise<void> {
  for (const entry of stage.folders) {
    await fs.chmod(path.join(entry.dir, 'work', 'work'), 0o700).catch(() => undefined);
  }
  await fs.rm(stage.root, { recursive: true, force: true });
}

/**
 * Removes the stages left under `parent` by processes that are gone (a window closed or crashed while a command ran or
 * its changes waited for review: what they held never landed). Another window's stages, in use, are kept.
 */
export async function sweepStages(parent: string, alive: (pid: number) => boolean = isAlive): Promise<string[]> {
  const swept: string[] = [];
  for (const name of await fs.readdir(parent).catch(() => [])) {
    const pid = /^stage-(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && !alive(Number(pid))) {
      const root = path.join(parent, name);
      const folders = await fs.readdir(root).catch(() => []);
      await discardStage({ root, folders: folders.map((folder) => ({ folder: '', dir: path.join(root, folder) })), startedMs: 0 });
      swept.push(root);
    }
  }
  return swept;
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

/** util-linux's `unshare`, in the system's places only (never a PATH entry the workspace could have put first). */
export function findUnshare(exists: (file: string) => boolean = isExecutable): string | undefined {
  return ['/usr/bin/unshare', '/bin/unshare'].find(exists);
}

/** Whether staging works here, or why not (typed: the views say what fixes each). */
export type StagingProbe = { available: true } | { available: false; reason: string; why: 'no-unshare' | 'no-bwrap' | 'apparmor' | 'overlay-refused' | 'does-not-hold' };

/** Ubuntu 23.10 and later: AppArmor lets only programs with a profile saying `userns` make user namespaces. */
function apparmorRestrictsUserns(): boolean {
  try {
    return readFileSync('/proc/sys/kernel/apparmor_restrict_unprivileged_userns', 'utf8').trim() === '1';
  } catch {
    return false;
  }
}

/**
 * Whether commands can be staged here: a stage of an empty folder is made and `confinementCheck` runs in it exactly as
 * a staged command would (`unshare`, the overlay, bwrap with the arguments every command gets), so an overlay the
 * kernel refuses and a sandbox that does not hold in this path (bwrap is root of the outer namespace here) both say so.
 */
export async function probeStaging(unshare: string | undefined, parent = os.tmpdir(), locateBwrap: () => string | undefined = findBwrap, apparmorRestricts = apparmorRestrictsUserns): Promise<StagingProbe> {
  const bwrap = locateBwrap();
  if (unshare === undefined) {
    return { available: false, why: 'no-unshare', reason: "util-linux's unshare is missing" };
  }
  if (bwrap === undefined) {
    return { available: false, why: 'no-bwrap', reason: 'bubblewrap is not installed' };
  }
  let root: string | undefined;
  let stage: Stage | undefined;
  try {
    root = await fs.mkdtemp(path.join(parent, 'toolgate-stage-probe-'));
    const folder = path.join(root, 'folder');
    await fs.mkdir(folder);
    stage = await createStage(path.join(root, 'stages'), [folder]);
    const launch = stagedLaunch(stage, unshare, { program: bwrap, args: bwrapArgs({ ...probePolicy, writable: [folder] }, folder) });
    const problem = await confinementProblem(launch.program, launch.args);
    return problem === undefined ? { available: true } : { available: false, why: 'does-not-hold', reason: `the staged sandbox does not hold: ${problem}` };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return apparmorRestricts()
      ? { available: false, why: 'apparmor', reason: `AppArmor keeps unshare from making a user namespace (${message})` }
      : { available: false, why: 'overlay-refused', reason: `an overlay mount in a user namespace failed (${message})` };
  } finally {
    if (stage !== undefined) {
      await discardStage(stage);
    }
    if (root !== undefined) {
      await fs.rm(root, { recursive: true, force: true });
    }
  }
}
