/**
 * Files a command wrote that landed without review (its repository ignores them, or git's own data): named to the
 * model in the command's report and counted in the task's changed files, so nothing is said to be accepted that no one
 * saw. Many are grouped by their top folder: "1,204 files in node_modules/". Pure.
 */

/** One file, or a folder's files (`path` ends in `/`). */
export interface LandedGroup {
  path: string;
  files: number;
}

/** Files past which they are grouped by their top folder. */
const namedFiles = 20;
/** Groups kept (in a record, in a line); the rest are counted. */
export const maxGroups = 50;

/** `paths` as groups: each file while there are few, else by top folder (a folder's lone file is named). Sorted. */
export function groupLanded(paths: readonly string[]): LandedGroup[] {
  const sorted = [...new Set(paths)].sort();
  if (sorted.length <= namedFiles) {
    return sorted.map((path) => ({ path, files: 1 }));
  }
  const byTop = new Map<string, string[]>();
  for (const path of sorted) {
    const slash = path.indexOf('/');
    const top = slash < 0 ? path : path.slice(0, slash + 1);
    byTop.set(top, [...(byTop.get(top) ?? []), path]);
  }
  return [...byTop].map(([top, files]) => (files.length === 1 ? { path: files[0] ?? top, files: 1 } : { path: top, files: files.length }));
}

/** Files in the groups. */
export const landedFiles = (groups: readonly LandedGroup[]): number => groups.reduce((sum, group) => sum + group.files, 0);

/** "1 file", "1,204 files". */
export const fileCount = (files: number): string => `${files.toLocaleString('en-US')} file${files === 1 ? '' : 's'}`;

/**
 * "a.txt, 1,204 files in node_modules/ and 3 more files": at most `shown` groups named, the rest (and `more`, files
 * a record no longer names) counted.
 */
export function landedWords(groups: readonly LandedGroup[], more = 0, shown = maxGroups): string {
  const named = groups.slice(0, shown).map((group) => (group.path.endsWith('/') ? `${fileCount(group.files)} in ${group.path}` : group.path));
  const rest = landedFiles(groups.slice(shown)) + more;
  return rest === 0 ? named.join(', ') : `${named.join(', ')} and ${rest.toLocaleString('en-US')} more file${rest === 1 ? '' : 's'}`;
}
