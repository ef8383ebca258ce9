import * as assert from 'node:assert/strict';
import picomatch from 'picomatch';
import { firstMatchingGlob, globMatches } from '../../src/core/approval/glob';
import { isInside } from '../../src/core/approval/paths';

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
