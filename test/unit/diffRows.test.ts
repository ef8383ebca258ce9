/**
 * The diff view's row layout without a DOM, table by table: which removed line sits beside which added one, each
 * changed line's partner, and the words marked as changed between the two.
 */
import * as assert from 'node:assert/strict';
import type { DiffRow } from '../../src/shared/approvals';
import { maxWordDiffChars, partners, rowPairs, splitPairs, wordChanges } from '../../webview/shared/diffRows';

const c = (old: number, now: number, text: string): DiffRow => ['c', old, now, text];
const d = (old: number, text: string): DiffRow => ['d', old, null, text];
const a = (now: number, text: string): DiffRow => ['a', null, now, text];

/** A pair as text: "left | right", `-` for a side with no line. */
const shown = (pair: { left?: DiffRow; right?: DiffRow }): string => `${pair.left?.[3] ?? '-'} | ${pair.right?.[3] ?? '-'}`;

describe('the diff view: lines side by side', () => {
  const rows: { name: string; rows: DiffRow[]; pairs: string[] }[] = [
    { name: 'context lines sit on both sides', rows: [c(1, 1, 'x'), c(2, 2, 'y')], pairs: ['x | x', 'y | y'] },
    { name: 'a replaced line sits beside its replacement', rows: [c(1, 1, 'x'), d(2, 'old'), a(2, 'new'), c(3, 3, 'z')], pairs: ['x | x', 'old | new', 'z | z'] },
    { name: 'more removed than added: the rest alone on the left', rows: [d(1, 'o1'), d(2, 'o2'), d(3, 'o3'), a(1, 'n1')], pairs: ['o1 | n1', 'o2 | -', 'o3 | -'] },
    { name: 'more added than removed: the rest alone on the right', rows: [d(1, 'o1'), a(1, 'n1'), a(2, 'n2')], pairs: ['o1 | n1', '- | n2'] },
    { name: 'added only (a new file)', rows: [a(1, 'n1'), a(2, 'n2')], pairs: ['- | n1', '- | n2'] },
    { name: 'an added run then a removed one are not paired backwards', rows: [a(1, 'n1'), d(1, 'o1')], pairs: ['- | n1', 'o1 | -'] },
    { name: 'two runs split by context pair each within its own run', rows: [d(1, 'o1'), a(1, 'n1'), c(2, 2, 'k'), d(3, 'o3'), a(3, 'n3')], pairs: ['o1 | n1', 'k | k', 'o3 | n3'] },
    { name: 'no rows', rows: [], pairs: [] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(rowPairs(row.rows).map(shown), row.pairs);
    });
  }

  it('side-by-side cells: each side its own line number and kind, an empty cell where a side has none', () => {
    const pairs = splitPairs({ header: '@@', rows: [c(4, 5, 'k'), d(5, 'old'), d(6, 'gone'), a(6, 'new')] });
    assert.deepEqual(pairs, [
      { left: { no: 4, text: 'k', kind: 'c' }, right: { no: 5, text: 'k', kind: 'c' } },
      { left: { no: 5, text: 'old', kind: 'd' }, right: { no: 6, text: 'new', kind: 'a' } },
      { left: { no: 6, text: 'gone', kind: 'd' }, right: { no: null, text: '', kind: 'empty' } },
    ]);
  });

  it('partners: a replaced line and its replacement name each other; lone and context lines have none', () => {
    const old = d(1, 'old');
    const gone = d(2, 'gone');
    const now = a(1, 'new');
    const context = c(3, 2, 'k');
    const found = partners([old, gone, now, context]);
    assert.equal(found.get(old), 'new');
    assert.equal(found.get(now), 'old');
    assert.equal(found.has(gone), false);
    assert.equal(found.has(context), false);
  });
});

describe('the diff view: the words that changed in a line', () => {
  const long = 'x'.repeat(maxWordDiffChars);
  const rows: { name: string; text: string; partner: string | undefined; side: 'a' | 'd'; marked: string[] | undefined }[] = [
    { name: 'an added line marks the words it brings', text: 'const x = 500;', partner: 'const x = 5;', side: 'a', marked: ['500'] },
    { name: 'a removed line marks the words it loses', text: 'const x = 5;', partner: 'const x = 500;', side: 'd', marked: ['5'] },
    { name: 'a change at the end of a long line is found', text: `${'word '.repeat(50)}end`, partner: `${'word '.repeat(50)}finish`, side: 'a', marked: ['end'] },
    { name: 'a line without a partner stays whole', text: 'alone', partner: undefined, side: 'a', marked: undefined },
    { name: 'lines too long to diff stay whole', text: long, partner: 'y', side: 'd', marked: undefined },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const pieces = wordChanges(row.text, row.partner, row.side);
      assert.deepEqual(pieces?.filter((piece) => piece.changed).map((piece) => piece.text), row.marked);
      // The pieces are the line, exactly.
      if (pieces) {
        assert.equal(pieces.map((piece) => piece.text).join(''), row.text);
      }
    });
  }
});
