import * as assert from 'node:assert/strict';
import { diff3Merge } from 'node-diff3';
import { splitLines } from '../../src/core/diff/lines';
import { merge3, type MergeLabels } from '../../src/core/diff/merge3';
import { prng } from '../fixtures/prng';

const lf = (...items: string[]): string => items.map((item) => `${item}\n`).join('');
const labels: MergeLabels = { ours: 'ours', base: 'base', theirs: 'theirs' };

/** Edits of a base, as non-overlapping replacements in base coordinates, so two sides can share some of them. */
interface Op {
  from: number;
  to: number;
  insert: string[];
}

function randomOps(random: () => number, length: number, fresh: () => string): Op[] {
  const ops: Op[] = [];
  let at = Math.floor(random() * 4);
  while (at <= length) {
    const remove = random() < 0.3 ? 0 : Math.min(length - at, Math.floor(random() * 3));
    const insert = Array.from({ length: remove === 0 ? 1 + Math.floor(random() * 2) : Math.floor(random() * 3) }, fresh);
    ops.push({ from: at, to: at + remove, insert });
    at += remove + 1 + Math.floor(random() * 8);
  }
  return ops;
}

function applyOps(lines: readonly string[], ops: readonly Op[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const op of ops) {
    out.push(...lines.slice(at, op.from), ...op.insert);
    at = op.to;
  }
  out.push(...lines.slice(at));
  return out;
}

/** node-diff3's merge of the same three texts, written out with our conflict markers. */
function oracle(base: string, ours: string, theirs: string): { conflict: boolean; text: string } {
  const regions = diff3Merge(splitLines(ours), splitLines(base), splitLines(theirs), { excludeFalseConflicts: true });
  let conflict = false;
  const out: string[] = [];
  for (const region of regions) {
    if (region.ok) {
      out.push(...region.ok);
    } else if (region.conflict) {
      conflict = true;
      out.push('<<<<<<< ours\n', ...region.conflict.a, '||||||| base\n', ...region.conflict.o, '=======\n', ...region.conflict.b, '>>>>>>> theirs\n');
    }
  }
  return { conflict, text: out.join('') };
}

describe('three-way merge', () => {
  const rows: { name: string; base: string; ours: string; theirs: string; kind: 'clean' | 'conflict'; text: string }[] = [
    {
      name: 'edits far apart both survive',
      base: lf('a', 'b', 'c', 'd', 'e', 'f'),
      ours: lf('A', 'b', 'c', 'd', 'e', 'f'),
      theirs: lf('a', 'b', 'c', 'd', 'e', 'F'),
      kind: 'clean',
      text: lf('A', 'b', 'c', 'd', 'e', 'F'),
    },
    {
      name: 'the same line changed differently is a conflict',
      base: lf('a', 'b', 'c'),
      ours: lf('a', 'B1', 'c'),
      theirs: lf('a', 'B2', 'c'),
      kind: 'conflict',
      text: lf('a', '<<<<<<< ours', 'B1', '||||||| base', 'b', '=======', 'B2', '>>>>>>> theirs', 'c'),
    },
    {
      name: 'adjacent lines changed is a conflict (as in git)',
      base: lf('a', 'b', 'c', 'd'),
      ours: lf('a', 'B', 'c', 'd'),
      theirs: lf('a', 'b', 'C', 'd'),
      kind: 'conflict',
      text: lf('a', '<<<<<<< ours', 'B', 'c', '||||||| base', 'b', 'c', '=======', 'b', 'C', '>>>>>>> theirs', 'd'),
    },
    {
      name: 'the same change on both sides is clean',
      base: lf('a', 'b', 'c'),
      ours: lf('a', 'X', 'c'),
      theirs: lf('a', 'X', 'c'),
      kind: 'clean',
      text: lf('a', 'X', 'c'),
    },
    {
      name: 'the same change on both sides next to a change of one side',
      base: lf('a', 'b', 'c', 'd', 'e', 'f', 'g'),
      ours: lf('a', 'X', 'c', 'd', 'e', 'f', 'G'),
      theirs: lf('a', 'X', 'c', 'd', 'e', 'f', 'g'),
      kind: 'clean',
      text: lf('a', 'X', 'c', 'd', 'e', 'f', 'G'),
    },
    {
      name: 'two insertions at the same place are a conflict',
      base: lf('a', 'b'),
      ours: lf('a', 'x', 'b'),
      theirs: lf('a', 'y', 'b'),
      kind: 'conflict',
      text: lf('a', '<<<<<<< ours', 'x', '||||||| base', '=======', 'y', '>>>>>>> theirs', 'b'),
    },
    {
      name: 'CRLF texts get CRLF markers, and lines keep their endings',
      base: 'a\r\nb\r\nc\r\n',
      ours: 'a\r\nB1\r\nc\r\n',
      theirs: 'a\r\nB2\r\nc\r\n',
      kind: 'conflict',
      text: 'a\r\n<<<<<<< ours\r\nB1\r\n||||||| base\r\nb\r\n=======\r\nB2\r\n>>>>>>> theirs\r\nc\r\n',
    },
    {
      name: 'a missing final newline survives a clean merge',
      base: 'a\nb\nc\nd\ne',
      ours: 'A\nb\nc\nd\ne',
      theirs: 'a\nb\nc\nd\nE',
      kind: 'clean',
      text: 'A\nb\nc\nd\nE',
    },
    {
      name: 'a side without a final newline in a conflict still gets its markers on lines of their own',
      base: 'a\nb',
      ours: 'a\nB1',
      theirs: 'a\nB2',
      kind: 'conflict',
      text: lf('a', '<<<<<<< ours', 'B1', '||||||| base', 'b', '=======', 'B2', '>>>>>>> theirs'),
    },
    {
      name: 'unicode',
      base: lf('α', 'β', 'γ', 'δ', 'ε', '🙂'),
      ours: lf('α', 'Β', 'γ', 'δ', 'ε', '🙂'),
      theirs: lf('α', 'β', 'γ', 'δ', 'ε', '🙃'),
      kind: 'clean',
      text: lf('α', 'Β', 'γ', 'δ', 'ε', '🙃'),
    },
    { name: 'from nothing, one side', base: '', ours: '', theirs: lf('x'), kind: 'clean', text: lf('x') },
    { name: 'from nothing, both sides', base: '', ours: lf('y'), theirs: lf('x'), kind: 'conflict', text: lf('<<<<<<< ours', 'y', '||||||| base', '=======', 'x', '>>>>>>> theirs') },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const result = merge3(row.base, row.ours, row.theirs, labels);
      assert.equal(result.kind, row.kind);
      assert.equal(result.text, row.text);
    });
  }

  it('reports each conflict with its base lines, its three versions and where its marker is', () => {
    const result = merge3(lf('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), lf('a', 'B', 'c', 'd', 'e', 'f', 'G', 'h'), lf('a', 'b2', 'c', 'd', 'e', 'f', 'g2', 'h'), labels);
    assert.ok(result.kind === 'conflict');
    assert.deepEqual(
      result.conflicts.map(({ baseFrom, baseTo, markerLine, ours, base, theirs }) => ({ baseFrom, baseTo, markerLine, ours, base, theirs })),
      [
        { baseFrom: 1, baseTo: 2, markerLine: 2, ours: ['B\n'], base: ['b\n'], theirs: ['b2\n'] },
        { baseFrom: 6, baseTo: 7, markerLine: 13, ours: ['G\n'], base: ['g\n'], theirs: ['g2\n'] },
      ],
    );
    assert.equal(splitLines(result.text)[12], '<<<<<<< ours\n');
  });

  it('agrees with node-diff3 wherever the alignment is unambiguous (unique lines; 400 seeded cases)', () => {
    const random = prng(1313);
    let conflicts = 0;
    let falseConflicts = 0;
    for (let round = 0; round < 400; round++) {
      let next = 0;
      const fresh = (): string => `n${next++}\n`;
      const baseLines = Array.from({ length: Math.floor(random() * 40) }, (_, i) => `b${i}\n`);
      const oursOps = randomOps(random, baseLines.length, fresh);
      // The other side shares some of the same edits (which must merge cleanly) and makes some of its own.
      const shared = oursOps.filter(() => random() < 0.3);
      const own = randomOps(random, baseLines.length, fresh).filter((op) => !shared.some((s) => op.from <= s.to && s.from <= op.to));
      const theirsOps = [...shared, ...own].sort((x, y) => x.from - y.from);
      falseConflicts += shared.length;
      const base = baseLines.join('');
      const ours = applyOps(baseLines, oursOps).join('');
      const theirs = applyOps(baseLines, theirsOps).join('');
      const expected = oracle(base, ours, theirs);
      const result = merge3(base, ours, theirs, labels);
      assert.equal(result.kind === 'conflict', expected.conflict, `round ${round}: conflict`);
      assert.equal(result.text, expected.text, `round ${round}: text`);
      conflicts += result.kind === 'conflict' ? 1 : 0;
    }
    assert.ok(conflicts > 50 && conflicts < 350, `both outcomes are exercised (${conflicts} conflicts)`);
    assert.ok(falseConflicts > 100, `shared edits are exercised (${falseConflicts})`);
  });

  it('property: identities and symmetry on texts with repeated lines and mixed endings', () => {
    const random = prng(1314);
    const pick = (): string => (['a', 'b', '}', '', 'c'][Math.floor(random() * 5)] ?? '') + (random() < 0.2 ? '\r\n' : '\n');
    for (let round = 0; round < 300; round++) {
      const baseLines = Array.from({ length: Math.floor(random() * 30) }, pick);
      const base = baseLines.join('');
      const ours = applyOps(baseLines, randomOps(random, baseLines.length, pick)).join('');
      const theirs = applyOps(baseLines, randomOps(random, baseLines.length, pick)).join('');
      assert.deepEqual(merge3(base, ours, base), { kind: 'clean', text: ours });
      assert.deepEqual(merge3(base, base, theirs), { kind: 'clean', text: theirs });
      assert.deepEqual(merge3(base, ours, ours), { kind: 'clean', text: ours });
      const forward = merge3(base, ours, theirs, labels);
      const backward = merge3(base, theirs, ours, labels);
      assert.equal(forward.kind, backward.kind, `round ${round}`);
      if (forward.kind === 'clean') {
        assert.equal(forward.text, backward.text, `round ${round}`);
      }
    }
  });
});
