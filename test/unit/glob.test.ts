import * as assert from 'node:assert/strict';
import picomatch from 'picomatch';
import { firstMatchingGlob, globMatches } from '../../src/core/approval/glob';
import { isInside } from '../../src/core/approval/paths';
import { defaultProtectedPaths } from '../../src/core/settings';
import nodePath from 'node:path';

/**
 * globMatches tests picomatch's compiled regex directly (its matcher builds an object per test); these rows pin that
 * it answers exactly as picomatch's own matcher with `{ dot: true }` does, edge cases included.
 */
describe('globMatches: the same answers as picomatch', () => {
  const rows: { glob: string; path: string; expected: boolean; why: string }[] = [
    { glob: '.vscode/**', path: '.vscode/settings.json', expected: true, why: 'a dot folder matches with dot: true' },
    { glob: '**/.env*', path: 'pkg/.env.local', expected: true, why: 'a nested dotfile' },
    { glob: 'src/**/*.test.ts', path: 'src/a/b.test.ts', expected: true, why: 'globstar in the middle' },
    { glob: 'src/**/*.test.ts', path: 'src/a/b.ts', expected: false, why: 'not the pattern' },
    { glob: 'pkg1/**', path: 'pkg10/a.ts', expected: false, why: 'a folder name is matched whole' },
    { glob: 'src/[x].ts', path: 'src/[x].ts', expected: true, why: 'the glob\'s own text matches literally' },
    { glob: 'src/[x].ts', path: 'src/x.ts', expected: true, why: 'a class matches its member' },
    { glob: '**', path: '', expected: false, why: 'an empty path never matches' },
    { glob: '*.log', path: 'a\\b.log', expected: true, why: 'a backslash is a file name character on POSIX' },
    { glob: 'docs/**', path: 'docs', expected: true, why: 'the folder itself' },
    { glob: '**/*.lock', path: 'x.lock', expected: true, why: 'globstar matches no folder' },
    { glob: 'src/**/*.test.ts', path: 'srcx/a.test.ts', expected: false, why: 'a longer folder name is not the folder' },
    { glob: 'pkg1/**', path: 'pkg1', expected: true, why: 'the plain folder before the wildcard, itself' },
    { glob: 'a.b/*.ts', path: 'a.b/c.ts', expected: true, why: 'a dot in the folder is plain text' },
    { glob: 'a.b/*.ts', path: 'axb/c.ts', expected: false, why: 'and matches only a dot' },
    { glob: '{src,lib}/*.ts', path: 'lib/a.ts', expected: true, why: 'braces before the first wildcard' },
    { glob: 'src/**', path: './src/a.ts', expected: false, why: 'a leading ./ is not stripped' },
  ];
  for (const row of rows) {
    it(`${row.glob} against ${JSON.stringify(row.path)}: ${row.why}`, () => {
      assert.equal(globMatches(row.glob, row.path), row.expected);
      assert.equal(globMatches(row.glob, row.path), picomatch(row.glob, { dot: true })(row.path), 'picomatch answers the same');
    });
  }
});

describe('firstMatchingGlob: the first glob that matches, as trying each in order', () => {
  const protectedGlobs = ['.vscode/**', '**/.env*', '**/*.code-workspace', '.git/**', 'src/[x].ts', '**/*.lock'];
  const paths = ['src/a.ts', '.vscode/settings.json', 'pkg/.env.local', 'a.code-workspace', 'src/[x].ts', 'src/x.ts', 'yarn.lock', '', 'docs', '.git', '.github/x.yml', 'a\\b.lock'];
  for (const globs of [protectedGlobs, ['src/[x].ts'], [], ['**', 'docs/**']]) {
    for (const path of paths) {
      it(`${JSON.stringify(globs)} against ${JSON.stringify(path)}`, () => {
        assert.equal(firstMatchingGlob(globs, path), globs.find((glob) => globMatches(glob, path)));
      });
    }
  }
});

describe('isInside: a path in a folder, or the folder itself', () => {
  const rows: { root: string; path: string; inside: boolean; why: string }[] = [
    { root: '/s/store', path: '/s/store', inside: true, why: 'the folder itself' },
    { root: '/s/store', path: '/s/store/audit.jsonl', inside: true, why: 'a file in it' },
    { root: '/s/store', path: '/s/store/..config', inside: true, why: 'a name that starts with two dots is inside' },
    { root: '/s/store', path: '/s/store2/a', inside: false, why: 'a sibling with a longer name' },
    { root: '/s/store', path: '/s/store/../x', inside: false, why: '.. leaves it' },
    { root: '/s/store', path: '/s', inside: false, why: 'its parent' },
    { root: '/s/store/', path: '/s/store//a/./b', inside: true, why: 'unnormalised paths, as path.resolve reads them' },
    { root: '/s/store', path: '/s/store/a/..', inside: true, why: 'back to the folder itself' },
    { root: '/', path: '/anything', inside: true, why: 'the file system root' },
  ];
  for (const row of rows) {
    it(`${row.path} in ${row.root}: ${row.why}`, () => {
      assert.equal(isInside(row.root, row.path), row.inside);
    });
  }
});

/**
 * The shortcuts judge() takes (a glob's plain folder checked before its regex, a list of globs as one regex, folders
 * compared as strings) tried against the plain way on every path built from awkward segments: none may answer
 * differently, or a protected path or a `false` rule could be slipped past.
 */
describe('the fast glob and folder checks answer as the plain ones, on 2,600 awkward paths', () => {
  const segments = ['.vscode', '.git', 'src', 'pkg1', 'pkg10', '..config', '..', '.', '.env', '.env.local', 'a.lock', 'x.code-workspace', '.github', 'workflows', 'a\\b', '[x].ts', 'x.ts', 'docs', 'mcp.json', 'src.test.ts', 'ä'];
  const paths: string[] = [''];
  for (const a of segments) {
    paths.push(a);
    for (const b of segments) {
      paths.push(`${a}/${b}`);
      for (const c of ['x.ts', '.env', 'settings.json', 'a.test.ts', '']) {
        paths.push(`${a}/${b}/${c}`);
      }
    }
  }
  const globs = [...defaultProtectedPaths, 'src/**/*.test.ts', '**/*.lock', 'docs/**', 'pkg1/**', 'src/[x].ts', '{src,lib}/*.ts', 'a.b/*.ts', '.vscode/mcp.json', './src/**', 'src/**/', '**'];
  /** globMatches as it was, with the regex alone. */
  const plain = new Map(globs.map((glob) => {
    const regex = picomatch.makeRe(glob, { dot: true });
    return [glob, (path: string): boolean => path !== '' && (path === glob || regex.test(path))] as const;
  }));
  it(`${paths.length} paths against ${globs.length} globs, one by one and as lists`, () => {
    for (const path of paths) {
      for (const glob of globs) {
        assert.equal(globMatches(glob, path), plain.get(glob)?.(path), `${glob} against ${JSON.stringify(path)}`);
      }
      for (const list of [globs, [...defaultProtectedPaths], ['pkg1/**', 'docs/**']]) {
        assert.equal(firstMatchingGlob(list, path), list.find((glob) => plain.get(glob)?.(path)), `the list against ${JSON.stringify(path)}`);
      }
    }
  });
  it('folders: the prefix test answers as path.relative does, for every pair', () => {
    const absolute = paths.map((path) => `/w/${path}`);
    for (const root of ['/w', '/w/src', '/w/.git', '/w/..config', '/w/pkg1']) {
      for (const candidate of absolute) {
        const relative = nodePath.relative(root, candidate);
        const expected = relative === '' || (relative !== '..' && !relative.startsWith('../') && !nodePath.isAbsolute(relative));
        assert.equal(isInside(root, candidate), expected, `${candidate} in ${root}`);
      }
    }
  });
});
