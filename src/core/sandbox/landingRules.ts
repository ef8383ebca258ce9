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
 *    `false` rule, an untrusted workspace.
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
