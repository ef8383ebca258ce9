import picomatch from 'picomatch';

/**
 * picomatch's own matcher builds a result object for every test; judge() tests dozens of globs per call, so the
 * compiled regex is tested directly, keeping picomatch's rules exactly: an empty path never matches, the glob's own
 * text matches literally, and on Windows backslashes read as `/` (picomatch's `windows` default).
 */
const windows = process.platform === 'win32';
const posixSlashes = (path: string): string => (windows ? path.replace(/\\/g, '/') : path);

const cache = new Map<string, (path: string) => boolean>();

function compile(glob: string): (path: string) => boolean {
  const regex = picomatch.makeRe(glob, { dot: true, windows });
  return (path) => {
    if (path === '') {
      return false;
    }
    if (path === glob) {
      return true;
    }
    const output = posixSlashes(path);
    return output === glob || regex.test(output);
  };
}

/** Whether a workspace-relative path matches a glob (dotfiles included); compiled globs are cached. */
export function globMatches(glob: string, relativePath: string): boolean {
  let matcher = cache.get(glob);
  if (!matcher) {
    if (cache.size > 2000) {
      cache.clear();
    }
    matcher = compile(glob);
    cache.set(glob, matcher);
  }
  return matcher(relativePath);
}
