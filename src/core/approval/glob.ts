import picomatch from 'picomatch';

const cache = new Map<string, (path: string) => boolean>();

/** Whether a workspace-relative path matches a glob (dotfiles included); compiled globs are cached. */
export function globMatches(glob: string, relativePath: string): boolean {
  let matcher = cache.get(glob);
  if (!matcher) {
    if (cache.size > 2000) {
      cache.clear();
    }
    matcher = picomatch(glob, { dot: true });
    cache.set(glob, matcher);
  }
  return matcher(relativePath);
}
