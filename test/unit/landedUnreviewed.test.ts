/** How files that landed without review are named: each while few, by top folder when many. */
import * as assert from 'node:assert/strict';
import { groupLanded, landedWords } from '../../src/core/checkpoints/landedUnreviewed';

const many = (folder: string, count: number): string[] => Array.from({ length: count }, (_, index) => `${folder}/f${index}.js`);

describe('what landed without review, in words', () => {
  const cases: { name: string; paths: string[]; more?: number; words: string }[] = [
    { name: 'a few files: each named, sorted, once', paths: ['src/b.ts', 'a.txt', 'a.txt'], words: 'a.txt, src/b.ts' },
    { name: 'many: grouped by top folder, a lone file named', paths: ['a.txt', ...many('node_modules', 1204), 'dist/x.js'], words: 'a.txt, dist/x.js, 1,204 files in node_modules/' },
    { name: 'files a record no longer names are counted', paths: ['a.txt'], more: 3, words: 'a.txt and 3 more files' },
    { name: 'past fifty groups: the rest counted', paths: Array.from({ length: 60 }, (_, index) => `d${String(index).padStart(2, '0')}/x`), words: `${Array.from({ length: 50 }, (_, index) => `d${String(index).padStart(2, '0')}/x`).join(', ')} and 10 more files` },
  ];
  for (const { name, paths, more, words } of cases) {
    it(name, () => assert.equal(landedWords(groupLanded(paths), more), words));
  }
});
