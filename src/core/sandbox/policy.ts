/**
 * The sandbox's policy is Toolgate's policy: what a command may write, what it may not even read, and whether it may
 * reach a network, derived from the same settings the gate judges with (the workspace folders, toolgate.protectedPaths)
 * plus a floor of credential locations no setting can lower. This module is pure: the paths it is given are real
 * (symlinks followed) and exist; `gatherSandboxPolicy` (./gather) does the I/O.
 */
import path from 'node:path';

export interface HiddenPath {
  path: string;
  /** A folder is covered by an empty folder, a file by an empty file (/dev/null). */
  kind: 'dir' | 'file';
}

export interface WritableOnce {
  path: string;
  /** The descriptor bwrap gets it as (`--bind-fd`); absent on a stage, where it is bound by its path in the overlay. */
  fd?: number;
}

export interface SandboxPolicy {
  /** Folders the command may write: the workspace folders, the per-workspace cache, folders the person added. */
  writable: string[];
  /** Inside those, what stays read-only: the protected paths that exist when the command starts. */
  readOnly: string[];
  /**
   * Protected globs (absolute: each anchored at a workspace folder, none inside `.git`) for an engine that denies by
   * pattern (Seatbelt): a protected file made after the command starts is read-only too. Bubblewrap can mount only
   * over what exists, so its policies have none.
   */
  readOnlyPatterns?: string[];
  /**
   * Folders bound onto themselves (computed by `pinnedFolders`): every folder between a read-only entry and its
   * writable folder, so that none can be renamed or removed to put a planted one in its place.
   */
  pinned: string[];
  /**
   * Protected files the person allowed this one command to write on its card (./openOnce): each bound read-write over
   * the read-only entries, by the descriptor Toolgate opened without following links (`fd`, the command's file
   * descriptor number) or, on a stage, by its path in the stage (whose upper layer holds Toolgate's own copy). Only
   * these paths; their folders and siblings stay read-only, and the next command's policy has none.
   */
  writableOnce?: WritableOnce[];
  /** What the command cannot read at all: credentials, Toolgate's and VS Code's own storage. */
  hidden: HiddenPath[];
  /** `none`: no network at all, the host's loopback included (the default). */
  network: 'none' | 'host';
  /** Set for the command: a private temporary folder and the caches pointed at the writable cache folder. */
  env: Record<string, string>;
}

/**
 * Where credentials and keys live, relative to the home folder: hidden whatever the settings say (a floor; the
 * setting toolgate.sandbox.hiddenPaths adds to it). Browser profiles hold cookies and saved passwords; keyrings and
 * agent sockets sign and decrypt.
 */
export const credentialPaths: readonly string[] = [
  '.ssh',
  '.aws',
  '.azure',
  '.gnupg',
  '.config/gh',
  '.config/hub',
  '.config/gcloud',
  '.config/git/credentials',
  '.git-credentials',
  '.netrc',
  '.pgpass',
  '.pypirc',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.docker/config.json',
  '.kube',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.terraform.d/credentials.tfrc.json',
  '.password-store',
  '.local/share/keyrings',
  '.mozilla',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  '.config/vivaldi',
  'snap/chromium',
  'snap/firefox',
  'Library/Keychains',
  'Library/Application Support/Google/Chrome',
  'Library/Application Support/Firefox',
];

/** Folders outside the home that hold agent sockets and the like: `/run/user/<uid>` (ssh-agent, gpg-agent, D-Bus). */
export const runtimePaths = (uid: number | undefined): string[] => (uid === undefined ? [] : [`/run/user/${uid}`]);

/**
 * Whether a protected glob match is inside a `.git` folder (or is one): git itself writes there (index, objects,
 * refs), so in the sandbox only the parts of a `.git` folder that decide what git runs stay read-only.
 */
export const gitControlEntries: readonly string[] = ['config', 'config.worktree', 'hooks', 'info/attributes', 'commondir', 'objects/info/alternates'];

/**
 * The control entries made empty, with the kind git expects, where they are missing and the command writes the
 * workspace directly, so that they are read-only like the rest and a command cannot plant one: git reads an empty
 * config, hooks folder, attributes or alternates file as none. Made by Toolgate before the launch rather than left to
 * bwrap (which makes a missing mount point itself): a file bwrap would show is /dev/null, a device, which `cp -r .git`
 * and `tar` trip on. Not `commondir` (git dies on an empty one, and any content changes what the repository is) nor
 * `config.worktree` (git reads it only when the read-only config turns on extensions.worktreeConfig): one planted is
 * named after the command (CommandSandbox.newlyProtected).
 */
export const gitPlaceholders: readonly { entry: string; kind: HiddenPath['kind'] }[] = [
  { entry: 'config', kind: 'file' },
  { entry: 'hooks', kind: 'dir' },
  { entry: 'info/attributes', kind: 'file' },
  { entry: 'objects/info/alternates', kind: 'file' },
];

/**
 * The writable-folder environment: a private /tmp (bubblewrap's own; on macOS, which has none, `tmpDir`, a folder of
 * the per-workspace cache) and tool caches kept per workspace.
 */
export function sandboxEnvironment(cacheDir: string | undefined, tmpDir = '/tmp'): Record<string, string> {
  const env: Record<string, string> = { TMPDIR: tmpDir, TMP: tmpDir, TEMP: tmpDir };
  if (cacheDir !== undefined) {
    Object.assign(env, {
      XDG_CACHE_HOME: cacheDir,
      npm_config_cache: path.join(cacheDir, 'npm'),
      PIP_CACHE_DIR: path.join(cacheDir, 'pip'),
      CARGO_HOME: path.join(cacheDir, 'cargo'),
      GOCACHE: path.join(cacheDir, 'go-build'),
      GOMODCACHE: path.join(cacheDir, 'go-mod'),
      YARN_CACHE_FOLDER: path.join(cacheDir, 'yarn'),
    });
  }
  return env;
}

/** Whether `child` is `parent` or below it (absolute, normalised paths). */
export const inside = (child: string, parent: string): boolean => child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);

/**
 * Puts a policy in a form bubblewrap can apply without surprises: no writable folder that a hidden path contains (the
 * folder would be hidden with it, so it is dropped from `hidden` and said in `conflicts`), duplicates removed, and
 * read-only paths only where they are inside a writable folder (elsewhere everything is read-only anyway).
 */
export function normalisePolicy(policy: Omit<SandboxPolicy, 'pinned'>): { policy: SandboxPolicy; conflicts: string[] } {
  const writable = [...new Set(policy.writable)].sort();
  const conflicts: string[] = [];
  const hidden = dedupe(policy.hidden, (entry) => entry.path).filter((entry) => {
    const covers = writable.find((folder) => inside(folder, entry.path));
    if (covers !== undefined) {
      conflicts.push(`${entry.path} holds the writable folder ${covers}, so it is not hidden`);
      return false;
    }
    return true;
  });
  // A hidden path inside a hidden folder is hidden already (and bwrap could not make its mount point in the empty,
  // read-only folder that covers it).
  const outermost = hidden.filter((entry) => !hidden.some((other) => other !== entry && other.kind === 'dir' && other.path !== entry.path && inside(entry.path, other.path)));
  const writableInside = (entry: string): boolean => writable.some((folder) => inside(entry, folder));
  // A protected file opened for this run stays read-only no more, but only where it is inside a writable folder and
  // not hidden: never a way out of the policy's other rules.
  const once = dedupe(policy.writableOnce ?? [], (entry) => entry.path).filter((entry) => {
    const refused = !writableInside(entry.path) || outermost.some((hiddenEntry) => inside(entry.path, hiddenEntry.path));
    if (refused) {
      conflicts.push(`${entry.path} is not inside a writable folder, so it is not opened`);
    }
    return !refused;
  });
  const readOnly = [...new Set(policy.readOnly)].filter((entry) => writableInside(entry) && !once.some((opened) => opened.path === entry)).sort();
  const pinned = pinnedFolders([...readOnly, ...once.map((entry) => entry.path)], writable);
  // Built field by field: an opened file the checks above refused must not come back with the rest of the input.
  const normalised: SandboxPolicy = { writable, readOnly, pinned, hidden: outermost, network: policy.network, env: policy.env };
  const patterns = [...new Set(policy.readOnlyPatterns ?? [])].filter((pattern) => writableInside(pattern)).sort();
  if (patterns.length > 0) {
    normalised.readOnlyPatterns = patterns;
  }
  if (once.length > 0) {
    normalised.writableOnce = once;
  }
  return { policy: normalised, conflicts };
}

/**
 * The folders to bind onto themselves so that no protected entry can be replaced through a folder above it: Linux lets
 * a folder that holds mount points be renamed (the read-only mounts move with it, and a new folder takes its name), but
 * refuses to rename or remove a mount point itself (EBUSY). So every folder between each entry and the innermost
 * writable folder holding it, outermost first; not the writable folder (a mount already) nor a folder inside another
 * entry (read-only already). Binding a folder onto itself keeps it writable: git still writes its objects in `.git`.
 */
export function pinnedFolders(entries: readonly string[], writable: readonly string[]): string[] {
  const pinned = new Set<string>();
  for (const entry of entries) {
    const holder = writable.filter((folder) => folder !== entry && inside(entry, folder)).sort((a, b) => b.length - a.length)[0];
    if (holder === undefined) {
      continue;
    }
    for (let folder = path.dirname(entry); folder !== holder && inside(folder, holder); folder = path.dirname(folder)) {
      if (!entries.some((other) => inside(folder, other))) {
        pinned.add(folder);
      }
    }
  }
  // A folder sorts before what it holds: its bind is made first, the inner ones on top of it.
  return [...pinned].sort();
}

function dedupe<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const id = key(item);
    if (seen.has(id)) {
      return false;
    }
    seen.add(id);
    return true;
  });
}
