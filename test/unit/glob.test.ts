import * as assert from 'node:assert/strict';
import picomatch from 'picomatch';
import { globMatches } from '../../src/core/approval/glob';

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
  ];
  for (const row of rows) {
    it(`${row.glob} against ${JSON.stringify(row.path)}: ${row.why}`, () => {
      assert.equal(globMatches(row.glob, row.path), row.expected);
      assert.equal(globMatches(row.glob, row.path), picomatch(row.glob, { dot: true })(row.path), 'picomatch answers the same');
    });
  }
});
