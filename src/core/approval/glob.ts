import picomatch from 'picomatch';
import { floorGlobSources } from './floorGlobSources';

/**
 * picomatch's own matcher builds a result object for every test; judge() tests dozens of globs per call, so the
 * compiled regex is tested directly, keeping picomatch's rules exactly: an empty path never matches, the glob's own
 * text matches literally, and on Windows backslashes read as `/` (picomatch's `windows` default).
 */
const windows = process.platform === 'win32';
const posixSlashes = (path: string): string => (windows ? path.replace(/\\/g, '/') : path);

const cache = new Map<string, (path: string) => boolean>();

/** picomatch's regex of a glob: the floor's from their sources (./floorGlobSources), any other compiled here. */
function regexOf(glob: string): RegExp {
  const source = windows ? undefined : floorGlobSources.get(glob);
  return source !== undefined ? new RegExp(source) : picomatch.makeRe(glob, { dot: true, windows });
}

/** Characters that make a glob's base more than plain text (picomatch escapes, classes, braces, extglobs). */
const special = /[\\*?[\]{}()!+@|]/;

function compile(glob: string): (path: string) => boolean {
  const regex = regexOf(glob);
  // A glob with a plain folder before its first wildcard (`pkg12/**`) matches only paths in that folder: most paths
  // are told apart by that prefix, without the regex (judge() tries every file grant's glob on every write).
  const { base, isGlob, negated } = picomatch.scan(glob);
  const folder = isGlob && !negated && base !== '' && !special.test(base) ? base : undefined;
  return (path) => {
    if (path === '') {
      return false;
    }
    if (path === glob) {
      return true;
    }
    const output = posixSlashes(path);
    if (folder !== undefined && !(output.startsWith(folder) && (output.length === folder.length || output.charCodeAt(folder.length) === 47))) {
      return output === glob;
    }
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

/** A list of globs as one test: the literal texts, and one sticky regex of every glob's, tried at the path's start. */
interface GlobList {
  literals: ReadonlySet<string>;
  any: RegExp | undefined;
}

const lists = new Map<string, GlobList>();
/** By the array too: the settings hand out the same (frozen) array until they change. */
const byArray = new WeakMap<readonly string[], GlobList>();

function listOf(globs: readonly string[]): GlobList {
  const known = Object.isFrozen(globs) ? byArray.get(globs) : undefined;
  if (known !== undefined) {
    return known;
  }
  const key = globs.join('\u0000');
  let list = lists.get(key);
  if (!list) {
    if (lists.size > 200) {
      lists.clear();
    }
    const sources = globs.map(regexOf);
    // Each source is anchored on its own (^…$); one with a flag or a back-reference is not combined (tested alone).
    const combinable = sources.every((regex) => regex.flags === '' && !/\\[1-9]/.test(regex.source));
    list = { literals: new Set(globs), any: combinable ? new RegExp(sources.map((regex) => `(?:${regex.source})`).join('|'), 'y') : undefined };
    lists.set(key, list);
  }
  if (Object.isFrozen(globs)) {
    byArray.set(globs, list);
  }
  return list;
}

/**
 * The first of `globs` that a workspace-relative path matches, or undefined; the same answer as trying each with
 * `globMatches` in order. judge() tries the protected paths and the edit rules on every write: most paths match none,
 * which one combined regex tells at once, and only a path that matches one is tried glob by glob for which.
 */
export function firstMatchingGlob(globs: readonly string[], relativePath: string): string | undefined {
  if (globs.length === 0 || relativePath === '') {
    return undefined;
  }
  const list = listOf(globs);
  const output = posixSlashes(relativePath);
  if (list.any !== undefined && !list.literals.has(relativePath) && !list.literals.has(output)) {
    list.any.lastIndex = 0;
    if (!list.any.test(output)) {
      return undefined;
    }
  }
  return globs.find((glob) => globMatches(glob, relativePath));
}
