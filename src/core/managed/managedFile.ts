/**
 * Where the managed settings file lives, and whether it is honoured: only when the person cannot write it. A file the
 * person could change is a policy the person sets, so it is ignored, with a warning that says why.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseManagedSettings, unreadablePolicy, type ManagedPolicy } from './managedSettings';

/** The file on each platform (the public contract); undefined where Toolgate knows none. */
export function systemManagedFile(platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>): string | undefined {
  switch (platform) {
    case 'linux':
      return '/etc/toolgate/managed-settings.json';
    case 'darwin':
      return '/Library/Application Support/Toolgate/managed-settings.json';
    case 'win32':
      return path.win32.join(env['ProgramData'] ?? env['PROGRAMDATA'] ?? 'C:\\ProgramData', 'Toolgate', 'managed-settings.json');
    default:
      return undefined;
  }
}

/**
 * `TOOLGATE_MANAGED_SETTINGS_FILE` names another file, for tests and for trying a policy out before it is rolled out.
 * It is read only while the system's file does not exist, so no environment can set a team's policy aside; and it is
 * held to the same ownership rule.
 */
export const managedFileVariable = 'TOOLGATE_MANAGED_SETTINGS_FILE';

/** What is known of one path on the way to the file: its owner and mode bits (POSIX `stat`). */
export interface PathFacts {
  path: string;
  uid: number;
  mode: number;
  directory: boolean;
}

/**
 * Why a file with these facts could be changed by someone other than root, or undefined when only root can: the
 * file and every folder above it owned by root and writable by no group or other (a root-owned folder with the sticky
 * bit, such as /tmp, may be: no one else can replace what root keeps there). `chain`: the file first, then each folder
 * up to the root. Windows has no such check here (see the README).
 */
export function ownershipProblem(chain: readonly PathFacts[]): string | undefined {
  for (const facts of chain) {
    const what = facts.directory ? 'the folder' : 'the file';
    if (facts.uid !== 0) {
      return `${what} ${facts.path} is owned by user ${facts.uid}, not root, so that user could change the policy`;
    }
    const sticky = facts.directory && (facts.mode & 0o1000) !== 0;
    if ((facts.mode & 0o022) !== 0 && !sticky) {
      return `${what} ${facts.path} can be written by others (mode ${(facts.mode & 0o7777).toString(8)}), so they could change the policy`;
    }
  }
  return undefined;
}

/** What became of the managed settings file. */
export type ManagedFileState =
  | { state: 'absent'; file: string | undefined }
  | { state: 'ignored'; file: string; why: string }
  | { state: 'honoured'; file: string; policy: ManagedPolicy; problems: string[] };

const missing = (error: unknown): boolean => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
};

/** Which file applies: the system's if it exists, else the variable's (if set). */
export function chosenManagedFile(platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>, system = systemManagedFile(platform, env)): string | undefined {
  if (system !== undefined) {
    try {
      fs.lstatSync(system);
      return system;
    } catch (error) {
      if (!missing(error)) {
        return system; // there, but not readable to us: reported below as such
      }
    }
  }
  const other = env[managedFileVariable];
  return other !== undefined && other !== '' && path.isAbsolute(other) ? other : system;
}

/** The file's real path and every folder above it, each with its owner and mode. */
function pathChain(real: string): PathFacts[] {
  const chain: PathFacts[] = [];
  let current = real;
  for (;;) {
    const stats = fs.statSync(current);
    chain.push({ path: current, uid: stats.uid, mode: stats.mode, directory: stats.isDirectory() });
    const parent = path.dirname(current);
    if (parent === current) {
      return chain;
    }
    current = parent;
  }
}

/**
 * Reads the managed settings file now, synchronously (a few stats and a small file): the window's first decision is
 * judged with it, never before it is known. A file that exists but cannot be read or checked is honoured as the
 * narrowest policy there is (unreadablePolicy): a team's file must never stop applying because reading it failed.
 */
export function readManagedFile(
  platform: NodeJS.Platform = process.platform,
  env: Readonly<Record<string, string | undefined>> = process.env,
  /** The system's file; another only in tests. */
  system = systemManagedFile(platform, env),
): ManagedFileState {
  const file = chosenManagedFile(platform, env, system);
  if (file === undefined) {
    return { state: 'absent', file };
  }
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch (error) {
    if (missing(error)) {
      return { state: 'absent', file };
    }
    return { state: 'honoured', file, policy: unreadablePolicy(file), problems: [`${file} exists but could not be read (${String(error)}): the narrowest policy applies until it can be`] };
  }
  if (platform !== 'win32') {
    let problem: string | undefined;
    try {
      problem = ownershipProblem(pathChain(real));
    } catch (error) {
      return { state: 'honoured', file, policy: unreadablePolicy(file), problems: [`${file} could not be checked (${String(error)}): the narrowest policy applies until it can be`] };
    }
    if (problem !== undefined) {
      return { state: 'ignored', file, why: `${problem}. A managed settings file is honoured only when only root can change it (chown root and chmod 644 it, and its folders).` };
    }
  }
  let text: string;
  try {
    text = fs.readFileSync(real, 'utf8');
  } catch (error) {
    return { state: 'honoured', file, policy: unreadablePolicy(file), problems: [`${file} could not be read (${String(error)}): the narrowest policy applies until it can be`] };
  }
  const parsed = parseManagedSettings(text, file);
  return { state: 'honoured', file, policy: parsed.policy, problems: parsed.problems };
}
