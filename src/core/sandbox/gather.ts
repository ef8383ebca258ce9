/**
 * The I/O behind a SandboxPolicy, done when a command is about to start (so a protected file created by the previous
 * command is read-only for the next): which protected paths exist in the workspace folders, which credential
 * locations exist, and the per-workspace cache folder.
 */
import { createHash } from 'node:crypto';
import { promises as fs, type Dirent } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import picomatch from 'picomatch';
import { credentialPaths, gitControlEntries, gitPlaceholders, normalisePolicy, runtimePaths, sandboxEnvironment, type HiddenPath, type SandboxPolicy, type WritableOnce } from './policy';

export interface SandboxInputs {
  /** Real paths of the workspace folders. */
  workspaceFolders: readonly string[];
  /** toolgate.protectedPaths with the built-in floor (globs relative to a workspace folder). */
  protectedGlobs: readonly string[];
  /** toolgate.sandbox.hiddenPaths: more paths nothing may read (absolute or `~/…`). */
  extraHidden: readonly string[];
  /** toolgate.sandbox.writablePaths: more folders commands may write (absolute or `~/…`). */
  extraWritable: readonly string[];
  /** Toolgate's own storage and VS Code's user data (secrets, state): never readable. */
  ownStorage: readonly string[];
  network: 'none' | 'host';
  /**
   * toolgate.sandbox.allowedDomains: with `network: 'none'`, a command may still reach these through the filtering
   * proxy (./domainProxy). Entries that do not parse are left out (the setting's schema refuses them first).
   */
  allowedDomains?: readonly string[];
  /**
   * A managed settings file's ceiling: what a command may reach never goes past it, whatever is added for one run (the
   * "Allow once for this command" of a refused host).
   */
  allowedDomainsCeiling?: readonly string[];
  home?: string;
  /** The account's home in the password database, when HOME names another folder: its credentials are hidden too. */
  accountHome?: string;
  uid?: number;
  /** Where tool caches go (default: `$XDG_CACHE_HOME/toolgate-sandbox/<hash of the first folder>`). */
  cacheRoot?: string;
  /**
   * The command sees the workspace through a stage (./stage), whose review judges what it creates: git's missing
   * control entries are not made empty first (`gitPlaceholders`), and the workspace stays untouched until it lands.
   */
  staged?: boolean;
  /** Protected files opened for this one run (./openOnce): read-write over the read-only entries. */
  writableOnce?: readonly WritableOnce[];
  /**
   * The engine the policy is for. `seatbelt` (macOS) denies by path, not by mount: protected paths and credentials
   * that do not exist yet are in the policy too (as paths, and protected globs outside `.git` as patterns), git's
   * missing control entries are not made first, and TMPDIR is a folder of the cache (there is no private /tmp).
   */
  engine?: 'bwrap' | 'seatbelt';
}

export interface GatheredPolicy {
  policy: SandboxPolicy;
  /** What could not be applied as asked, for the log (a hidden path that holds the workspace; a walk cut short). */
  notes: string[];
}

/** Entries looked at per workspace folder before the walk for protected paths stops (and says so). */
export const maxWalkEntries = 100_000;
/** Folders the walk does not enter: installed dependencies, not the project's own configuration. */
const skippedFolders = new Set(['node_modules']);

const expandHome = (entry: string, home: string): string => (entry === '~' ? home : entry.startsWith('~/') ? path.join(home, entry.slice(2)) : entry);

function accountHome(): string {
  try {
    return os.userInfo().homedir;
  } catch {
    return os.homedir();
  }
}

export async function gatherSandboxPolicy(inputs: SandboxInputs): Promise<GatheredPolicy> {
  const home = inputs.home ?? os.homedir();
  const notes: string[] = [];
  const cacheDir = inputs.workspaceFolders.length > 0 ? await ensureCache(inputs, home) : undefined;
  const extraWritable = (await Promise.all(inputs.extraWritable.map((entry) => existingReal(expandHome(entry, home))))).flatMap((entry) => (entry?.kind === 'dir' ? [entry.path] : []));
  const seatbelt = inputs.engine === 'seatbelt';
  const readOnly: string[] = [];
  const readOnlyPatterns: string[] = [];
  for (const folder of inputs.workspaceFolders) {
    const walked = await protectedIn(folder, inputs.protectedGlobs);
    readOnly.push(...walked.paths);
    if (seatbelt) {
      const candidates = protectedCandidates(folder, inputs.protectedGlobs);
      // Git's control entries of the folder's own repository, made yet or not (a planted `commondir` included).
      const gitEntries = picomatch([...inputs.protectedGlobs], { dot: true })('.git/config') ? gitControlEntries.map((entry) => path.join(folder, '.git', entry)) : [];
      readOnly.push(...candidates.paths, ...walked.missing.map((entry) => entry.path), ...gitEntries);
      readOnlyPatterns.push(...candidates.patterns);
    } else if (inputs.staged !== true) {
      const made = await makeEmpty(walked.missing);
      readOnly.push(...made.paths);
      notes.push(...made.notes);
    }
    if (walked.truncated) {
      notes.push(`${folder} has more than ${maxWalkEntries} entries: protected paths past them are not read-only in the sandbox`);
    }
  }
  const hiddenCandidates = [
    ...[...new Set([home, inputs.accountHome ?? accountHome()])].flatMap((folder) => credentialPaths.map((relative) => path.join(folder, relative))),
    ...runtimePaths(inputs.uid ?? process.getuid?.()),
    ...inputs.extraHidden.map((entry) => expandHome(entry, home)),
    ...inputs.ownStorage,
  ].filter((entry) => path.isAbsolute(entry));
  // Seatbelt denies a path whether or not it exists: one made later (a first `~/.aws`) is hidden too.
  const hidden = (await Promise.all(hiddenCandidates.map(async (entry) => (await existingReal(entry)) ?? (seatbelt ? { path: entry, kind: 'dir' as const } : undefined)))).filter(
    (entry): entry is HiddenPath => entry !== undefined,
  );
  const tmpDir = seatbelt && cacheDir !== undefined ? await ensureFolder(path.join(cacheDir, 'tmp')) : undefined;
  const normalised = normalisePolicy({
    writable: [...inputs.workspaceFolders, ...(cacheDir === undefined ? [] : [cacheDir]), ...extraWritable],
    readOnly,
    ...(readOnlyPatterns.length > 0 ? { readOnlyPatterns } : {}),
    hidden,
    ...(inputs.writableOnce !== undefined && inputs.writableOnce.length > 0 ? { writableOnce: [...inputs.writableOnce] } : {}),
    network: inputs.network,
    env: sandboxEnvironment(cacheDir, tmpDir),
  });
  return { policy: normalised.policy, notes: [...notes, ...normalised.conflicts] };
}

async function ensureCache(inputs: SandboxInputs, home: string): Promise<string | undefined> {
  const root = inputs.cacheRoot ?? path.join(process.env['XDG_CACHE_HOME'] ?? path.join(home, '.cache'), 'toolgate-sandbox');
  const key = createHash('sha256').update(inputs.workspaceFolders[0] ?? '').digest('hex').slice(0, 16);
  const dir = path.join(root, key);
  try {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    return await fs.realpath(dir);
  } catch {
    return undefined;
  }
}

async function ensureFolder(folder: string): Promise<string | undefined> {
  try {
    await fs.mkdir(folder, { recursive: true, mode: 0o700 });
    return folder;
  } catch {
    return undefined;
  }
}

/** Characters that make a protected entry a pattern. */
const globCharacters = /[*?[\]{}!()+@]/;

/**
 * For an engine that denies by path (Seatbelt): what the protected globs name in one workspace folder whether or not
 * it exists yet. A glob that is a path once its trailing `/**` is dropped (`.vscode/**`, `.github/workflows/**`,
 * `.gitlab-ci.yml`) is that path; another (`**\/.env*`, `**\/.vscode/**`) is a pattern anchored at the folder, its
 * trailing `/**` dropped (a deny covers what is below). Nothing inside `.git`: there only git's control entries are
 * protected (`protectedIn`), since git writes the rest on every commit; and no pattern with braces or negations,
 * which the library does not read as picomatch does (those are guarded where they exist, as on Linux).
 */
export function protectedCandidates(folder: string, globs: readonly string[]): { paths: string[]; patterns: string[] } {
  const paths: string[] = [];
  const patterns: string[] = [];
  for (const glob of globs) {
    const trimmed = glob.replace(/^\.\//, '').replace(/(\/\*\*)+$/, '');
    if (trimmed === '' || trimmed === '**' || trimmed.startsWith('/') || trimmed.split('/').some((segment) => segment === '.git' || segment === '..')) {
      continue;
    }
    if (!globCharacters.test(trimmed)) {
      paths.push(path.join(folder, trimmed));
    } else if (!/[{}!()+@]/.test(trimmed)) {
      patterns.push(`${folder}/${trimmed}`);
    }
  }
  return { paths, patterns };
}

async function existingReal(entry: string): Promise<HiddenPath | undefined> {
  try {
    const real = await fs.realpath(entry);
    const stat = await fs.stat(real);
    return { path: real, kind: stat.isDirectory() ? 'dir' : 'file' };
  } catch {
    return undefined;
  }
}

/**
 * The protected paths that exist in one workspace folder, as real paths: a folder every path under which is protected
 * is one entry; inside a `.git` folder only the entries that decide what git runs (its config, hooks, attributes,
 * alternates), since git writes the rest on every commit. Symbolic links are not followed (the link can be replaced,
 * its target is judged where it is). `missing`: the control entries of those `.git` folders that do not exist yet and
 * are made empty before a command that writes the workspace directly (`gitPlaceholders`).
 */
export async function protectedIn(folder: string, globs: readonly string[]): Promise<{ paths: string[]; missing: HiddenPath[]; truncated: boolean }> {
  const matches = picomatch([...globs], { dot: true });
  const paths: string[] = [];
  const missing: HiddenPath[] = [];
  let seen = 0;
  const queue: string[] = [''];
  while (queue.length > 0) {
    const relativeDir = queue.shift() as string;
    let entries: Dirent[];
    try {
      entries = await fs.readdir(path.join(folder, relativeDir), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      seen += 1;
      if (seen > maxWalkEntries) {
        return { paths, missing, truncated: true };
      }
      const relative = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`;
      const absolute = path.join(folder, relative);
      if (entry.isSymbolicLink()) {
        continue;
      }
      if (entry.name === '.git') {
        if (matches(relative) || matches(`${relative}/config`)) {
          const control = entry.isDirectory() ? await gitControl(absolute) : { found: [absolute], missing: [] };
          paths.push(...control.found);
          missing.push(...control.missing);
        }
        continue;
      }
      if (entry.isDirectory()) {
        // Everything under it protected: the folder is one read-only entry (new files in it included).
        if (matches(relative) && matches(`${relative}/toolgate-probe`) && matches(`${relative}/a/toolgate-probe`)) {
          paths.push(absolute);
        } else if (!skippedFolders.has(entry.name)) {
          queue.push(relative);
        }
      } else if (matches(relative)) {
        paths.push(absolute);
      }
    }
  }
  return { paths, missing, truncated: false };
}

/**
 * The entries of a `.git` folder (and of the repositories of its submodules) that decide what git runs: those that
 * exist, and the placeholders for those that do not.
 */
async function gitControl(gitDir: string, depth = 0): Promise<{ found: string[]; missing: HiddenPath[] }> {
  const found: string[] = [];
  const missing: HiddenPath[] = [];
  for (const entry of gitControlEntries) {
    const candidate = path.join(gitDir, entry);
    if (await exists(candidate)) {
      found.push(candidate);
    } else {
      const placeholder = gitPlaceholders.find((known) => known.entry === entry);
      missing.push(...(placeholder === undefined ? [] : [{ path: candidate, kind: placeholder.kind }]));
    }
  }
  if (depth < 3) {
    let modules: Dirent[] = [];
    try {
      modules = await fs.readdir(path.join(gitDir, 'modules'), { withFileTypes: true });
    } catch {
      // No submodules.
    }
    for (const module of modules) {
      if (module.isDirectory()) {
        const inner = await gitControl(path.join(gitDir, 'modules', module.name), depth + 1);
        found.push(...inner.found);
        missing.push(...inner.missing);
      }
    }
  }
  return { found, missing };
}

/** Makes each missing control entry, empty (see `gitPlaceholders`): those made are read-only in the sandbox. */
async function makeEmpty(missing: readonly HiddenPath[]): Promise<{ paths: string[]; notes: string[] }> {
  const paths: string[] = [];
  const notes: string[] = [];
  for (const entry of missing) {
    try {
      if (entry.kind === 'dir') {
        await fs.mkdir(entry.path, { recursive: true });
      } else {
        await fs.mkdir(path.dirname(entry.path), { recursive: true });
        // `wx`: never over something that appeared meanwhile.
        await (await fs.open(entry.path, 'wx')).close();
      }
      paths.push(entry.path);
    } catch (error) {
      notes.push(`${entry.path} could not be made empty, so a command can create it: ${String(error)}`);
    }
  }
  return { paths, notes };
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch {
    return false;
  }
}
