/**
 * The stage of a staged command (the first part of "see what a command changed before it lands"): the command sees
 * each workspace folder through a copy-on-write overlay, so what it writes goes to the stage and the workspace is
 * untouched until Toolgate lands the change set (./changeSet reads it, ./landing lands it).
 *
 * Debian 12's and Ubuntu 22.04's bubblewrap (0.8) cannot mount an overlay itself, so the command is started as
 *   unshare --user --map-root-user --mount -- sh -c <wrapper> … bwrap <the sandbox's arguments> -- bash …
 * In that user and mount namespace of its own (nothing on the host changes), the wrapper binds each folder to the
 * stage's `lower`, mounts an overlay (lower + the stage's `upper`) over the folder's own path, and runs bwrap, which
 * builds the sandbox as usual on top (protected paths are read-only in the overlay as they were in the folder) and
 * gives the command the person's own uid back. Unprivileged overlayfs needs Linux 5.11; where `unshare` or the overlay
 * is refused (AppArmor's user-namespace restriction on Ubuntu 24.04 applies to `unshare`, not to bwrap), the probe
 * says why, and the card says so before a command runs (./commandSandbox `stagingStatus`).
 *
 * Node cannot read the extended attribute that marks an opaque folder (one removed and made again), so after the
 * command the wrapper lists, in the still mounted overlay, each folder that `upper` and `lower` both hold (./changeSet
 * reads it). The wrapper outlasts the stop signals (a trap, not an ignore, which the command would inherit) so that
 * listing is written; the command, in the same process group, gets them as before.
 */
import { promises as fs, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
