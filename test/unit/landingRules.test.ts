/** The rules of what a staged command's changes land without a card, each as a table. */
import * as assert from 'node:assert/strict';
import { checkIgnoreQuery, emptyFolderLands, foldersLandingWhole, ignoredInFolder, landingOrder, mayLandAsIgnored, type FolderPrefix, type WriteJudged } from '../../src/core/sandbox/landingRules';
import type { StagedChange } from '../../src/core/sandbox/changeSet';

const ws = '/ws';
const folder = (at: string): StagedChange => ({ kind: 'folder', folder: ws, path: at, staged: `/stage/${at}` });
const file = (at: string): StagedChange => ({ kind: 'created', folder: ws, path: at, staged: `/stage/${at}` });

describe('what lands without review: the rules', () => {
  const judged: [string, WriteJudged, boolean, boolean][] = [
    // name, judgement, an ignored file lands, an empty folder (not ignored) lands
    ['allowed by a rule', { allowed: true, gatedOnly: false }, true, true],
    ['asks only because writes are gated', { allowed: false, gatedOnly: true }, true, false],
    ['asks for the path itself (protected, a false rule, untrusted)', { allowed: false, gatedOnly: false }, false, false],
  ];
  for (const [name, judgement, ignored, empty] of judged) {
    it(`${name}: an ignored file ${ignored ? 'lands' : 'asks'}, an empty folder ${empty ? 'is made' : 'is not'}`, () => {
      assert.equal(mayLandAsIgnored(judgement), ignored);
      assert.equal(emptyFolderLands(false, judgement), empty);
      assert.equal(emptyFolderLands(true, judgement), true, 'an empty folder git ignores is made');
    });
  }

  const wholeCases: { name: string; changes: StagedChange[]; unasked: string[]; whole: string[] }[] = [
    { name: 'every file unasked: the folder and its subfolder go whole', changes: [folder('nm'), folder('nm/a'), file('nm/a/x.js'), file('nm/y.js')], unasked: ['nm/a/x.js', 'nm/y.js'], whole: ['nm', 'nm/a'] },
    { name: 'one file asks: the folder does not go whole, its all-unasked subfolder does', changes: [folder('nm'), folder('nm/a'), file('nm/a/x.js'), file('nm/y.js')], unasked: ['nm/a/x.js'], whole: ['nm/a'] },
    { name: 'an empty new folder is not moved with nothing', changes: [folder('empty')], unasked: [], whole: [] },
    { name: 'a folder holding only an empty subfolder is not moved', changes: [folder('a'), folder('a/b')], unasked: [], whole: [] },
    { name: 'an empty subfolder goes with its whole parent', changes: [folder('a'), folder('a/b'), file('a/x')], unasked: ['a/x'], whole: ['a', 'a/b'] },
  ];
  for (const { name, changes, unasked, whole } of wholeCases) {
    it(name, () => {
      const set = new Set(changes.filter((change) => unasked.includes(change.path)));
      assert.deepEqual([...foldersLandingWhole(changes, set)].map((key) => key.split('\0')[1]).sort(), whole);
    });
  }

  const order: [string, number][] = [
    ['.git/objects/ab/cdef', 0],
    ['sub/.git/objects/pack/p.pack', 0],
    ['.git/index', 1],
    ['src/a.ts', 1],
    ['.git/refs/heads/main', 2],
    ['.git/HEAD', 2],
    ['.git/packed-refs', 2],
  ];
  for (const [at, rank] of order) {
    it(`lands ${at} ${rank === 0 ? 'first' : rank === 2 ? 'last' : 'between'}`, () => assert.equal(landingOrder(file(at)), rank));
  }

  // Rule 4's repository (issue 36): what git names ignored counts only when it does not ignore the folder itself.
  const paths = ['a.txt', 'src/b.ts', 'debug.log'];
  const places: { name: string; prefix: FolderPrefix; named: string[]; ignored: string[] }[] = [
    { name: 'in no repository', prefix: undefined, named: [], ignored: [] },
    { name: 'at the top of its own repository', prefix: '', named: ['debug.log'], ignored: ['debug.log'] },
    { name: 'a subfolder its repository keeps', prefix: 'pkg/', named: ['pkg/debug.log'], ignored: ['debug.log'] },
    { name: 'inside a parent that ignores the folder (.tmp/)', prefix: '.tmp/demo/', named: ['.tmp/', '.tmp/demo/', '.tmp/demo/a.txt', '.tmp/demo/src/b.ts', '.tmp/demo/debug.log'], ignored: [] },
    { name: 'inside a parent that ignores a folder above it only', prefix: '.tmp/demo/', named: ['.tmp/', '.tmp/demo/debug.log'], ignored: [] },
    { name: "in a home folder's repository with `*`", prefix: 'proj/', named: ['proj/', 'proj/a.txt', 'proj/src/b.ts', 'proj/debug.log'], ignored: [] },
  ];
  for (const { name, prefix, named, ignored } of places) {
    it(`ignored files of a folder ${name}: ${ignored.length === 0 ? 'none' : ignored.join(', ')}`, () => {
      assert.deepEqual([...ignoredInFolder(prefix, paths, new Set(named))], ignored);
    });
  }
  it('asks git of the folder and each folder above it, then of each path, all from the top of the work tree', () => {
    assert.deepEqual(checkIgnoreQuery('', ['a.txt']), ['a.txt']);
    assert.deepEqual(checkIgnoreQuery('.tmp/demo/', ['a.txt', 'src/b.ts']), ['.tmp/', '.tmp/demo/', '.tmp/demo/a.txt', '.tmp/demo/src/b.ts']);
  });
});
