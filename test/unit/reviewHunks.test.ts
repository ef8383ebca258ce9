import * as assert from 'node:assert/strict';
import { diffText, type DiffHunk } from '../../src/core/diff/lineDiff';
import { splitLines, stripEnding } from '../../src/core/diff/lines';
import {
  applyHunks,
  applyHunksOf,
  checkApplyBinding,
  checkHunkDecisions,
  describeHunkDecisions,
  type FileVersion,
  type HunkDecision,
} from '../../src/core/review/hunks';
import { prng } from '../fixtures/prng';

const lf = (...items: string[]): string => items.map((item) => `${item}\n`).join('');
const crlf = (...items: string[]): string => items.map((item) => `${item}\r\n`).join('');
/** One line per letter. */
const chars = (letters: string): string[] => Array.from(letters);
const numbered = (count: number, eol = '\n'): string[] => Array.from({ length: count }, (_, i) => `line ${i + 1}${eol}`);

/** Random lines: a small alphabet (so lines repeat and alignments are ambiguous) or unique lines. */
function randomText(random: () => number, count: number, unique: { next: number } | undefined): string[] {
  const eols = ['\n', '\n', '\n', '\r\n'];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const body = unique ? `u${unique.next++}` : ['a', 'b', 'c', '', 'd', '}'][Math.floor(random() * 6)] ?? '';
    out.push(body + (eols[Math.floor(random() * eols.length)] ?? '\n'));
  }
  return out;
}

/** A random edit of `lines`: insertions, deletions and replacements at random places; maybe the final newline. */
function randomEdit(random: () => number, lines: string[], unique: { next: number } | undefined): string[] {
  const out = [...lines];
  const edits = 1 + Math.floor(random() * 6);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * (out.length + 1));
    const kind = random();
    const fresh = randomText(random, 1 + Math.floor(random() * 3), unique);
    if (kind < 0.35) {
      out.splice(at, 0, ...fresh);
    } else if (kind < 0.65) {
      out.splice(at, 1 + Math.floor(random() * 3));
    } else {
      out.splice(at, 1 + Math.floor(random() * 2), ...fresh);
    }
  }
  return out;
}

/** Joins lines; sometimes drops the final newline (or the whole ending of the last line). */
function join(random: () => number, lines: string[]): string {
  const text = lines.join('');
  return random() < 0.25 ? text.replace(/\r?\n$/, '') : text;
}

function subsets(count: number, random: () => number): Set<number>[] {
  if (count <= 6) {
    return Array.from({ length: 1 << count }, (_, mask) => new Set(Array.from({ length: count }, (_, i) => i).filter((i) => mask & (1 << i))));
  }
  const out = [new Set<number>(), new Set(Array.from({ length: count }, (_, i) => i))];
  for (let s = 0; s < 40; s++) {
    out.push(new Set(Array.from({ length: count }, (_, i) => i).filter(() => random() < 0.5)));
  }
  return out;
}

const changes = (hunks: readonly DiffHunk[]): { added: number; removed: number } => ({
  added: hunks.reduce((sum, hunk) => sum + hunk.lines.filter((line) => line.kind === 'add').length, 0),
  removed: hunks.reduce((sum, hunk) => sum + hunk.lines.filter((line) => line.kind === 'del').length, 0),
});

describe('per-hunk apply', () => {
  const cases: { name: string; base: string; proposed: string; hunks: number; accept: number[]; expected: string }[] = [
    {
      name: 'CRLF file, second of two hunks',
      base: crlf(...numbered(20, '').map((line) => line)),
      proposed: crlf(...numbered(20, '').map((line, i) => (i === 1 ? 'two' : i === 17 ? 'eighteen' : line))),
      hunks: 2,
      accept: [1],
      expected: crlf(...numbered(20, '').map((line, i) => (i === 17 ? 'eighteen' : line))),
    },
    {
      name: 'no final newline: the last line changed, hunk rejected keeps the missing newline',
      base: `${lf('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i')}j`,
      proposed: `${lf('A', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i')}J`,
      hunks: 2,
      accept: [0],
      expected: `${lf('A', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i')}j`,
    },
    {
      name: 'no final newline: adding one is a hunk of its own',
      base: `${lf('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i')}j`,
      proposed: lf('A', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'),
      hunks: 2,
      accept: [1],
      expected: lf('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'),
    },
    {
      name: 'additions at the top and at the bottom, top only',
      base: lf(...chars('abcdefghij')),
      proposed: lf('top', ...chars('abcdefghij'), 'bottom'),
      hunks: 2,
      accept: [0],
      expected: lf('top', ...chars('abcdefghij')),
    },
    {
      name: 'additions at the top and at the bottom, bottom only',
      base: lf(...chars('abcdefghij')),
      proposed: lf('top', ...chars('abcdefghij'), 'bottom'),
      hunks: 2,
      accept: [1],
      expected: lf(...chars('abcdefghij'), 'bottom'),
    },
    {
      name: 'deletions only',
      base: lf(...chars('abcdefghijklmnop')),
      proposed: lf(...chars('bcdefghijklmno')),
      hunks: 2,
      accept: [1],
      expected: lf(...chars('abcdefghijklmno')),
    },
    {
      name: 'changes 7 lines apart are adjacent hunks',
      base: lf(...chars('abcdefghijk')),
      proposed: lf('A', ...chars('bcdefgh'), 'I', 'j', 'k'),
      hunks: 2,
      accept: [1],
      expected: lf(...chars('abcdefgh'), 'I', 'j', 'k'),
    },
    {
      name: 'changes 6 lines apart share one hunk',
      base: lf(...chars('abcdefghijk')),
      proposed: lf('A', ...chars('bcdefg'), 'H', 'i', 'j', 'k'),
      hunks: 1,
      accept: [],
      expected: lf(...chars('abcdefghijk')),
    },
    { name: 'empty base, accepted', base: '', proposed: lf('x', 'y'), hunks: 1, accept: [0], expected: lf('x', 'y') },
    { name: 'empty base, rejected', base: '', proposed: lf('x', 'y'), hunks: 1, accept: [], expected: '' },
    { name: 'emptied file, accepted', base: lf('x', 'y'), proposed: '', hunks: 1, accept: [0], expected: '' },
    { name: 'identical texts', base: lf('x'), proposed: lf('x'), hunks: 0, accept: [], expected: lf('x') },
    {
      name: 'mixed endings survive on both sides',
      base: `a\r\nb\nc\r\nd\ne\nf\ng\nh\ni\r\nj`,
      proposed: `A\r\nb\nc\r\nd\ne\nf\ng\nh\ni\r\nJ\n`,
      hunks: 2,
      accept: [1],
      expected: `a\r\nb\nc\r\nd\ne\nf\ng\nh\ni\r\nJ\n`,
    },
    {
      name: 'a change of line ending only is a hunk',
      base: lf(...chars('abcdefghij')),
      proposed: `a\r\n${lf(...chars('bcdefghij'))}`,
      hunks: 1,
      accept: [0],
      expected: `a\r\n${lf(...chars('bcdefghij'))}`,
    },
    {
      name: 'unicode lines',
      base: lf('héllo', 'wörld', '日本語', 'c', 'd', 'e', 'f', 'g', 'h', '🙂'),
      proposed: lf('hello', 'wörld', '日本語', 'c', 'd', 'e', 'f', 'g', 'h', '🙃'),
      hunks: 2,
      accept: [1],
      expected: lf('héllo', 'wörld', '日本語', 'c', 'd', 'e', 'f', 'g', 'h', '🙃'),
    },
  ];
  for (const row of cases) {
    it(row.name, () => {
      const diff = diffText(row.base, row.proposed);
      assert.equal(diff.hunks.length, row.hunks, 'hunk count');
      assert.equal(applyHunks(row.base, row.proposed, new Set(row.accept)), row.expected);
      assert.equal(applyHunks(row.base, row.proposed, new Set(diff.hunks.keys())), row.proposed, 'all accepted');
      assert.equal(applyHunks(row.base, row.proposed, new Set()), row.base, 'none accepted');
    });
  }

  it('rejects indices that are not hunks and hunks of other texts', () => {
    const base = lf(...chars('abcdefghij'));
    const proposed = lf('A', ...chars('bcdefghij'));
    assert.throws(() => applyHunks(base, proposed, new Set([1])), RangeError);
    assert.throws(() => applyHunks(base, proposed, new Set([-1])), RangeError);
    assert.throws(() => applyHunks(base, proposed, new Set([0.5])), RangeError);
    const other = diffText(base, lf(...chars('abcdefghi'), 'J')).hunks;
    assert.throws(() => applyHunksOf(base, proposed, other, new Set([0])), /do not belong/);
    assert.throws(() => applyHunksOf(base, `${proposed}x\n`, diffText(base, proposed).hunks, new Set()), /do not belong/);
  });

  it('property: every subset applies exactly, on random texts with repeated lines and mixed endings', () => {
    const random = prng(1301);
    let checked = 0;
    for (let round = 0; round < 400; round++) {
      const baseLines = randomText(random, Math.floor(random() * 30), undefined);
      const base = join(random, baseLines);
      const proposed = join(random, randomEdit(random, splitLines(base), undefined));
      const diff = diffText(base, proposed);
      for (const accepted of subsets(diff.hunks.length, random)) {
        const written = applyHunksOf(base, proposed, diff.hunks, accepted);
        const acceptedHunks = diff.hunks.filter((_, i) => accepted.has(i));
        const rejectedHunks = diff.hunks.filter((_, i) => !accepted.has(i));
        // The accepted changes are a part of a minimal diff, so they are a minimal diff of what was written.
        const fromBase = diffText(base, written);
        assert.deepEqual({ added: fromBase.added, removed: fromBase.removed }, changes(acceptedHunks));
        const toProposed = diffText(written, proposed);
        assert.deepEqual({ added: toProposed.added, removed: toProposed.removed }, changes(rejectedHunks));
        checked++;
      }
      assert.equal(applyHunksOf(base, proposed, diff.hunks, new Set(diff.hunks.keys())), proposed);
      assert.equal(applyHunksOf(base, proposed, diff.hunks, new Set()), base);
    }
    assert.ok(checked > 800, `checked ${checked} subsets`);
  });

  it('property: with unique lines, diffing what was written against the base gives exactly the accepted changes', () => {
    const random = prng(1302);
    for (let round = 0; round < 150; round++) {
      const unique = { next: 0 };
      const base = join(random, randomText(random, 5 + Math.floor(random() * 40), unique));
      const proposed = join(random, randomEdit(random, splitLines(base), unique));
      const diff = diffText(base, proposed);
      for (const accepted of subsets(diff.hunks.length, random)) {
        const written = applyHunksOf(base, proposed, diff.hunks, accepted);
        const changed = (hunks: readonly DiffHunk[]): { deleted: number[]; added: string[] } => ({
          deleted: hunks.flatMap((hunk) => hunk.lines.flatMap((line) => (line.kind === 'del' ? [line.oldLine ?? -1] : []))),
          added: hunks.flatMap((hunk) => hunk.lines.flatMap((line) => (line.kind === 'add' ? [line.text] : []))),
        });
        assert.deepEqual(changed(diffText(base, written).hunks), changed(diff.hunks.filter((_, i) => accepted.has(i))));
      }
    }
  });

  it('property: the report\'s line numbers point at the lines in the file as written', () => {
    const random = prng(1303);
    for (let round = 0; round < 200; round++) {
      const base = join(random, randomText(random, Math.floor(random() * 40), undefined));
      const proposed = join(random, randomEdit(random, splitLines(base), undefined));
      const diff = diffText(base, proposed);
      for (const accepted of subsets(diff.hunks.length, random)) {
        const decisions: HunkDecision[] = diff.hunks.map((_, index) => ({ index, accepted: accepted.has(index) }));
        const report = describeHunkDecisions('f.txt', base, proposed, decisions, { hunks: diff.hunks });
        const written = splitLines(applyHunksOf(base, proposed, diff.hunks, accepted)).map(stripEnding);
        const original = splitLines(base).map(stripEnding);
        const slice = (lines: string[], range: { start: number; count: number }): string[] =>
          range.count === 0 ? [] : lines.slice(range.start - 1, range.start - 1 + range.count);
        for (const hunk of report.hunks) {
          if (hunk.kind === 'rejected') {
            assert.deepEqual(slice(written, hunk.written), hunk.kept, 'rejected: the kept lines are where the report says');
            assert.deepEqual(slice(original, hunk.original), hunk.kept, 'rejected: the original range');
          } else {
            // The hunk's new side without its leading and trailing context is what the written range holds.
            const shown = diff.hunks[hunk.index]?.lines ?? [];
            const first = shown.findIndex((line) => line.kind !== 'context');
            const last = shown.length - 1 - [...shown].reverse().findIndex((line) => line.kind !== 'context');
            const expected = shown.slice(first, last + 1).filter((line) => line.kind !== 'del').map((line) => line.text);
            assert.deepEqual(slice(written, hunk.written), expected, 'applied: the new lines are where the report says');
          }
          // Within the file: an empty range is a place between lines (0 = the top).
          const first = hunk.written.count === 0 ? hunk.written.start : hunk.written.start - 1;
          assert.ok(first >= 0 && first + hunk.written.count <= written.length, 'written range within the file');
        }
        assert.equal(report.applied, accepted.size);
        assert.equal(report.rejected, diff.hunks.length - accepted.size);
      }
    }
  });
});

describe('hunk decisions', () => {
  const rows: { name: string; count: number; decisions: HunkDecision[]; undecided: 'accept' | 'reject' | 'error'; kind: string; accepted?: number[] }[] = [
    { name: 'complete', count: 2, decisions: [{ index: 1, accepted: false }, { index: 0, accepted: true }], undecided: 'error', kind: 'ok', accepted: [0] },
    { name: 'undecided is an error', count: 2, decisions: [{ index: 0, accepted: true }], undecided: 'error', kind: 'undecided-hunk' },
    { name: 'undecided accepted (allow-once)', count: 3, decisions: [{ index: 1, accepted: false }], undecided: 'accept', kind: 'ok', accepted: [0, 2] },
    { name: 'undecided rejected', count: 2, decisions: [{ index: 1, accepted: true }], undecided: 'reject', kind: 'ok', accepted: [1] },
    { name: 'unknown index', count: 2, decisions: [{ index: 2, accepted: true }], undecided: 'accept', kind: 'unknown-hunk' },
    { name: 'negative index', count: 2, decisions: [{ index: -1, accepted: true }], undecided: 'accept', kind: 'unknown-hunk' },
    { name: 'twice', count: 2, decisions: [{ index: 0, accepted: true }, { index: 0, accepted: false }], undecided: 'accept', kind: 'duplicate-decision' },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const check = checkHunkDecisions(row.count, row.decisions, row.undecided);
      assert.equal(check.kind, row.kind);
      if (check.kind === 'ok') {
        assert.deepEqual([...check.accepted].sort(), row.accepted);
        assert.deepEqual(check.decisions.map((decision) => decision.index), Array.from({ length: row.count }, (_, i) => i));
      }
    });
  }
});

describe('what the model is told about hunk decisions', () => {
  const base = lf(...numbered(30, '').map((line) => line));
  const proposed = lf(
    ...numbered(30, '').flatMap((line, i) => (i === 1 ? ['line 2 changed'] : i === 14 ? [line, 'inserted'] : i === 27 ? [] : [line])),
  );

  it('says which hunks were applied and quotes each rejected one with its reason', () => {
    const report = describeHunkDecisions('src/a.ts', base, proposed, [
      { index: 0, accepted: true },
      { index: 1, accepted: false, reason: '  not this one  ' },
      { index: 2, accepted: true },
    ]);
    assert.equal(report.kind, 'partly-applied');
    assert.deepEqual(
      report.hunks.map((hunk) => ({ kind: hunk.kind, original: hunk.original, written: hunk.written })),
      [
        { kind: 'applied', original: { start: 2, count: 1 }, written: { start: 2, count: 1 } },
        { kind: 'rejected', original: { start: 15, count: 0 }, written: { start: 15, count: 0 } },
        { kind: 'applied', original: { start: 28, count: 1 }, written: { start: 27, count: 0 } },
      ],
    );
    const rejected = report.hunks[1];
    assert.ok(rejected?.kind === 'rejected');
    assert.deepEqual(rejected.kept, []);
    assert.deepEqual(rejected.rejected, ['inserted']);
    assert.equal(rejected.reason, 'not this one');
    assert.equal(
      report.text,
      [
        'src/a.ts: the person accepted 2 of 3 hunks and rejected 1. The file was written with only the accepted hunks; ' +
          'the rejected changes are not in it. Line numbers below are of the file as written unless marked "originally".',
        'Hunk 1 applied: now line 2.',
        'Hunk 2 rejected: an insertion after line 15 originally (after line 15 now). Reason: not this one',
        'The file has no lines there.',
        'Not written:\n```\ninserted\n```',
        'Hunk 3 applied: removed originally line 28.',
      ].join('\n'),
    );
  });

  it('quotes the replaced and the rejected text of a changed line, after an applied hunk shifted it', () => {
    const changed = lf(...numbered(30, '').flatMap((line, i) => (i === 0 ? ['new top', line] : i === 20 ? ['line 21 changed'] : [line])));
    const report = describeHunkDecisions('b.txt', base, changed, [
      { index: 0, accepted: true },
      { index: 1, accepted: false },
    ]);
    assert.equal(
      report.text.split('\n').slice(1).join('\n'),
      [
        'Hunk 1 applied: now line 1.',
        'Hunk 2 rejected: line 22 (originally line 21). No reason given.',
        'The file still has:\n```\nline 21\n```',
        'Not written:\n```\nline 21 changed\n```',
      ].join('\n'),
    );
  });

  it('all accepted, all rejected', () => {
    const all = describeHunkDecisions('a', base, proposed, [0, 1, 2].map((index) => ({ index, accepted: true })));
    assert.equal(all.kind, 'all-applied');
    assert.equal(all.text, 'a: the person accepted all 3 hunks; the edit was written as proposed.');
    const none = describeHunkDecisions('a', base, proposed, [0, 1, 2].map((index) => ({ index, accepted: false })));
    assert.equal(none.kind, 'none-applied');
    assert.match(none.text, /^a: the person rejected all 3 hunks; nothing was written and the file is unchanged\.\n/);
    assert.match(none.text, /Not written: the deletion of those lines\./);
  });

  it('fences a quote so that backticks inside cannot close it, and limits long quotes', () => {
    const report = describeHunkDecisions(
      'doc.md',
      lf('a'),
      lf('```', '````js', ...numbered(10, '')),
      [{ index: 0, accepted: false }],
      { maxQuotedLines: 3 },
    );
    assert.match(report.text, /Not written:\n`````\n```\n````js\nline 1\n`````\n\(9 more lines not shown\)/);
  });

  it('throws on decisions that do not fit the diff', () => {
    assert.throws(() => describeHunkDecisions('a', base, proposed, [{ index: 0, accepted: true }]), /hunk 1 has no decision/);
  });
});

describe('apply binding', () => {
  const v = (exists: boolean, hash: string): FileVersion => ({ exists, hash });
  const rows: { name: string; approved: FileVersion; current: FileVersion; kind: string; change?: string }[] = [
    { name: 'same content', approved: v(true, 'h1'), current: v(true, 'h1'), kind: 'apply' },
    { name: 'still missing (a new file)', approved: v(false, 'e'), current: v(false, 'e'), kind: 'apply' },
    { name: 'changed', approved: v(true, 'h1'), current: v(true, 'h2'), kind: 'ask-again', change: 'modified' },
    { name: 'created meanwhile, even empty', approved: v(false, 'e'), current: v(true, 'e'), kind: 'ask-again', change: 'created' },
    { name: 'deleted meanwhile', approved: v(true, 'h1'), current: v(false, 'e'), kind: 'ask-again', change: 'deleted' },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const result = checkApplyBinding('a.txt', row.approved, row.current);
      assert.equal(result.kind, row.kind);
      if (result.kind === 'ask-again') {
        assert.equal(result.change, row.change);
        assert.match(result.message, /^a\.txt .* nothing was written/);
      }
    });
  }
});
