/**
 * Where a path really points: resolved against the first workspace folder, with symlinks of the target (or of its
 * nearest existing parent, for a file that does not exist yet) followed, and which workspace root holds it.
 */
import { lstatSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';

export interface ResolvedPath {
  /** As the caller gave it. */
  input: string;
  /** Absolute, normalised, symlinks not followed. */
  absolute: string;
  /** Absolute with symlinks followed (of the target, or of its nearest existing parent). */
  real: string;
  /** The workspace root (real path) that contains `real`, if any. */
  root?: string;
  /** `real` relative to that root with `/` separators, if inside one. */
  relative?: string;
  /**
   * A file with more than one name (hard links): its other names inside the workspace folders (relative to theirs),
   * and whether the search found them all. Only looked for when the file has other names: most never do.
   */
  sameFile?: { names: number; others: string[]; complete: boolean };
}

/** Of a path, what finding its other names needs: nothing for most (one name), else its inode. */
export type LinkStat = (real: string) => Pick<Stats, 'nlink' | 'ino' | 'dev' | 'isFile'> | undefined;

/** How many entries the search for a file's other names reads before it gives up (and the write asks). */
const maxEntriesSearched = 50_000;

/**
 * The other names, inside `roots`, of the file `real` (which has `stat.nlink` names): a walk that never follows a link
 * and stays on the file's disk (a hard link cannot cross one), stopping when all are found or after a bounded number
 * of entries.
 */
function otherNames(real: string, stat: NonNullable<ReturnType<LinkStat>>, roots: readonly string[]): NonNullable<ResolvedPath['sameFile']> {
  const others: string[] = [];
  let left = maxEntriesSearched;
  const walk = (root: string, dir: string): boolean => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return true;
    }
    for (const entry of entries) {
      if (--left < 0) {
        return false;
      }
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!walk(root, full)) {
          return false;
        }
      } else if (entry.isFile() && full !== real) {
        const found = lstatSync(full, { throwIfNoEntry: false });
        if (found?.ino === stat.ino && found.dev === stat.dev) {
          others.push(path.relative(root, full).split(path.sep).join('/'));
          if (others.length >= stat.nlink - 1) {
            return true;
          }
        }
      }
    }
    return true;
  };
  const complete = roots.every((root) => walk(root, root)) && others.length >= stat.nlink - 1;
  return { names: stat.nlink, others, complete };
}

export type RealPath = (p: string) => string;

/** realpath of the nearest existing ancestor, with the missing tail appended. */
export function realpathOfNearest(absolute: string, realpath: RealPath = realpathSync.native): string {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = realpath(current);
      return missing.length === 0 ? real : path.join(real, ...missing.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) {
        return absolute;
      }
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Where the kernel lands for an absolute path that may hold `..`: each symlink is followed before the `..` after it
 * applies (`vsub/../x` with `vsub` -> `.vscode/sub` is `.vscode/x`), as open(2) does. From the first missing
 * component on, the rest is joined as written (the kernel would fail there; nothing is reached).
 */
export function resolveLikeKernel(absolute: string, realpath: RealPath = realpathSync.native): string {
  const root = path.parse(absolute).root;
  let current = root;
  let exists = true;
  for (const part of absolute.slice(root.length).split(/[\\/]+/)) {
    if (part === '' || part === '.') {
      continue;
    }
    if (part === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, part);
    if (exists) {
      try {
        current = realpath(next);
        continue;
      } catch {
        exists = false;
      }
    }
    current = next;
  }
  return current;
}

/** A POSIX path that `path.resolve` leaves as it is: absolute, no empty, `.` or `..` segment, no trailing slash. */
const normalPosix = /^\/(?!.*(?:\/\/|\/\.\.?(?:\/|$)|\/$))/s;

export function isInside(root: string, candidate: string): boolean {
  // Both as path.resolve leaves them (real paths are): a prefix test is the same answer, without path.relative's work.
  if (path.sep === '/' && root.length > 1 && normalPosix.test(root) && normalPosix.test(candidate)) {
    return candidate === root || (candidate.startsWith(root) && candidate.charCodeAt(root.length) === 47);
  }
  const relative = path.relative(root, candidate);
  // `..` as a whole segment leaves the root; a name that starts with dots (`..config`) is inside it.
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

export class PathResolver {
  /** The workspace folders with symlinks followed. */
  readonly realRoots: string[];

  constructor(
    readonly roots: readonly string[],
    private readonly realpath: RealPath = realpathSync.native,
    private readonly linkStat: LinkStat = (real) => statSync(real, { throwIfNoEntry: false }),
  ) {
    this.realRoots = roots.map((root) => realpathOfNearest(path.resolve(root), realpath));
  }

  resolve(input: string): ResolvedPath {
    // No `~` expansion: the tools write exactly the path resolved here, so the policy judges that same path.
    const first = this.roots[0];
    const absolute = path.isAbsolute(input) ? path.normalize(input) : path.resolve(first ?? '/', input);
    return this.place(input, absolute, realpathOfNearest(absolute, this.realpath));
  }

  /** An absolute path a shell hands to the kernel (`..` not yet applied), resolved as the kernel would. */
  locate(absolute: string): ResolvedPath {
    return this.place(absolute, path.normalize(absolute), resolveLikeKernel(absolute, this.realpath));
  }

  private place(input: string, absolute: string, real: string): ResolvedPath {
    for (const root of this.realRoots) {
      if (isInside(root, real)) {
        const resolved: ResolvedPath = { input, absolute, real, root, relative: path.relative(root, real).split(path.sep).join('/') };
        // One stat; the workspace is searched only for a file with other names (a hard link can hide a protected file).
        const stat = this.linkStat(real);
        if (stat !== undefined && stat.nlink > 1 && stat.isFile()) {
          resolved.sameFile = otherNames(real, stat, this.realRoots);
        }
        return resolved;
      }
    }
    return { input, absolute, real };
  }
}
