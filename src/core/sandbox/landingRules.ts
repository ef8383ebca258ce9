/**
 * Why a file a command wrote reaches the workspace without a card: every answer, in one place. The sandbox's policy
 * (./policy, ./gather) says what a command may touch; these rules say what of that lands unseen. There are no others:
 *
 * 1. The command was not staged, so it wrote the workspace directly: review turned off, staging unavailable here, a
 *    folder path an overlay cannot take (./commandSandbox `stagingStatus`, said on the command's card before it runs),
 *    the person's Run without sandbox, and MCP servers, which run for as long as they run. Their protected paths stay
 *    read-only (./bwrap) and cannot be renamed away (./policy `pinnedFolders`).
 * 2. `git-data`: git's own data inside `.git` (./gitData `classifyGitPath`): new objects, the index, logs, scratch.
 * 3. `git-ref`: a ref or HEAD moving to a commit whose tree changes no protected path (./gitData `judgeRefChange`).
 * 4. `ignored`: ignored by the workspace folder's own repository, with toolgate.sandbox.landIgnoredFiles on, and a write
 *    there would be allowed or ask only because writes are gated (`mayLandAsIgnored`): never a protected path, a
 *    `false` rule, an untrusted workspace. The folder's own repository is the work tree it belongs to: a folder that
 *    is in none, or that its repository ignores as a whole (a project inside a parent repository that ignores it, a
 *    home folder's repository with `*`), has no ignored files (`ignoredInFolder`).
 * 5. `folder`: a new folder whose every file lands by 2 to 4 (`foldersLandingWhole`), moved in whole.
 * 6. `empty-folder`: a new empty folder where a write would be allowed, or git ignores it (`emptyFolderLands`).
 * 7. What is left goes to the gate as a write of that file, where the person's own rules and grants may allow it
 *    without a card (the audit log says which).
 * Pure: the I/O behind each fact (git's check-ignore, the trees of a ref move) is done by the caller.
 */
import path from 'node:path';
import type { StagedChange } from './changeSet';
import { gitPathOf } from './gitData';

export type UnaskedWhy = 'git-data' | 'git-ref' | 'ignored' | 'folder' | 'empty-folder';

/** How the gate would judge a write of the file, as far as these rules need to know. */
export interface WriteJudged {
  /** It would be allowed as it is (a rule or grant). */
  allowed: boolean;
  /** It would ask only because writes are gated: nothing about the path itself asks. */
  gatedOnly: boolean;
}

/** Rule 4: whether a file git ignores may land unasked, the setting being on. */
export const mayLandAsIgnored = (judged: WriteJudged): boolean => judged.allowed || judged.gatedOnly;

/**
 * Rule 4's repository: the folder's place in the git work tree that holds it, as `git rev-parse --show-prefix` says
 * (`''` at its top, `a/b/` below it); undefined when it is in none.
 */
export type FolderPrefix = string | undefined;

/** The folders from the top of the work tree down to the folder itself (`a/b/` -> `a/`, `a/b/`), each ending in `/`. */
export function folderAncestors(prefix: string): string[] {
  const parts = prefix.split('/').filter((part) => part !== '');
  return parts.map((_, index) => `${parts.slice(0, index + 1).join('/')}/`);
}

/** What git is asked, relative to the top of the work tree: the folder and its parents, then each path. */
export function checkIgnoreQuery(prefix: string, paths: readonly string[]): string[] {
  return [...folderAncestors(prefix), ...paths.map((entry) => `${prefix}${entry}`)];
}

/** Whether git's answer (the entries it named) ignores the folder or a folder above it: the folder is ignored whole. */
export const ignoredAsWhole = (prefix: string, answered: ReadonlySet<string>): boolean => folderAncestors(prefix).some((folder) => answered.has(folder));

/**
 * Of `paths` (relative to the folder), those its own repository ignores, from git's answer to `checkIgnoreQuery`
 * (`answered`: the entries git named). None when the folder is in no work tree, or when git ignores the folder or a
 * folder above it: then it is ignored as a whole, and every file in it would count as ignored, which says nothing
 * about the files themselves.
 */
export function ignoredInFolder(prefix: FolderPrefix, paths: readonly string[], answered: ReadonlySet<string>): Set<string> {
  if (prefix === undefined || ignoredAsWhole(prefix, answered)) {
    return new Set();
  }
  return new Set(paths.filter((entry) => answered.has(`${prefix}${entry}`)));
}

/** Rule 6: whether a new empty folder is made. */
export const emptyFolderLands = (ignored: boolean, judged: WriteJudged): boolean => ignored || judged.allowed;

/**
 * Rule 5: of the new folders among `changes`, those that land whole with the files that land unasked: every file under
 * them (at any depth) is one of `unasked`, and there is at least one; a folder inside such a folder goes with it. Keys
 * are `folder\0path`. Outermost first, as the change set lists them.
 */
export function foldersLandingWhole(changes: readonly StagedChange[], unasked: ReadonlySet<StagedChange>): Set<string> {
  const key = (change: StagedChange): string => `${change.folder}\0${change.path}`;
  const folders = changes.filter((change) => change.kind === 'folder');
  const newFolders = new Set(folders.map(key));
  const files = new Map<string, { all: number; unasked: number }>();
  for (const change of changes) {
    if (change.kind === 'folder') {
      continue;
    }
    for (let parent = path.posix.dirname(change.path); parent !== '.' && parent !== '/' && parent !== ''; parent = path.posix.dirname(parent)) {
      const at = `${change.folder}\0${parent}`;
      if (newFolders.has(at)) {
        const count = files.get(at) ?? { all: 0, unasked: 0 };
        count.all += 1;
        count.unasked += unasked.has(change) ? 1 : 0;
        files.set(at, count);
      }
    }
  }
  const whole = new Set<string>();
  for (const folder of folders) {
    const count = files.get(key(folder));
    const parent = `${folder.folder}\0${path.posix.dirname(folder.path)}`;
    if ((count !== undefined && count.all > 0 && count.all === count.unasked) || whole.has(parent)) {
      whole.add(key(folder));
    }
  }
  return whole;
}

/** Where a change lands among those that land unasked: objects first, refs last (git never reads a ref to nothing). */
export function landingOrder(change: StagedChange): number {
  const inner = gitPathOf(change.path)?.inner;
  if (inner === undefined) {
    return 1;
  }
  return inner === 'objects' || inner.startsWith('objects/') ? 0 : inner === 'HEAD' || inner === 'packed-refs' || inner.startsWith('refs/') ? 2 : 1;
}
