/** The rules of what a staged command's changes land without a card, each as a table. */
import * as assert from 'node:assert/strict';
import { emptyFolderLands, foldersLandingWhole, landingOrder, mayLandAsIgnored, type WriteJudged } from '../../src/core/sandbox/landingRules';
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
});
