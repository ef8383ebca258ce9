import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { diffText, formatUnified, type DiffOptions, type LineDiff } from '../../src/core/diff/lineDiff';
import { prng } from '../fixtures/prng';


/** The lines of a text with their endings, as the old and new files hold them. */
function rawLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function stripEnding(line: string): string {
  return line.replace(/\r?\n$/, '');
}

const lines = (...items: string[]): string => items.map((item) => `${item}\n`).join('');
const numbered = (count: number): string[] => Array.from({ length: count }, (_, i) => String(i + 1));

/**
 * Applies the hunks to the old text and checks that this yields the new text exactly: every line that comes from the
 * old text (outside hunks, or context) must equal the new line byte for byte, ending included; every added line must
 * have the new line's text (a DiffLine carries no line ending, so an added line's ending is the new file's). Also
 * checks the numbering, the hunk headers and the counts.
 */
function assertApplies(oldText: string, newText: string, diff: LineDiff): void {
  const oldRaw = rawLines(oldText);
  const newRaw = rawLines(newText);
  assert.equal(diff.oldLineCount, oldRaw.length, 'oldLineCount');
  assert.equal(diff.newLineCount, newRaw.length, 'newLineCount');
  assert.equal(diff.identical, oldText === newText, 'identical');
  if (diff.identical) {
    assert.deepEqual(diff.hunks, []);
  }
  const out: { raw?: string; text: string }[] = [];
  let oldAt = 0; // 0-based index of the next old line not yet used
  let added = 0;
  let removed = 0;
  const copyUpTo = (oldStop: number): void => {
    for (; oldAt < oldStop; oldAt++) {
      const raw = oldRaw[oldAt] ?? assert.fail(`old line ${oldAt + 1} is missing`);
      out.push({ raw, text: stripEnding(raw) });
    }
  };
  for (const hunk of diff.hunks) {
    const first = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1; // 0-based index of the hunk's first old line
    assert.ok(first >= oldAt, 'hunks are in order and do not overlap');
    copyUpTo(first);
    const newFirst = hunk.newLines === 0 ? hunk.newStart : hunk.newStart - 1;
    assert.equal(newFirst, out.length, 'newStart agrees with the lines before the hunk');
    let oldCount = 0;
    let newCount = 0;
    for (const line of hunk.lines) {
      if (line.kind === 'add') {
        assert.equal(line.oldLine, undefined);
        assert.equal(line.newLine, out.length + 1, 'newLine of an added line');
        out.push({ text: line.text });
        added++;
        newCount++;
        continue;
      }
      const raw = oldRaw[oldAt] ?? assert.fail(`hunk uses old line ${oldAt + 1}, which does not exist`);
      assert.equal(line.text, stripEnding(raw), `text of old line ${oldAt + 1}`);
      assert.equal(line.oldLine, oldAt + 1, 'oldLine');
      oldAt++;
      oldCount++;
      if (line.kind === 'del') {
        assert.equal(line.newLine, undefined);
        removed++;
      } else {
        assert.equal(line.newLine, out.length + 1, 'newLine of a context line');
        out.push({ raw, text: line.text });
        newCount++;
      }
    }
    assert.equal(oldCount, hunk.oldLines, 'oldLines');
    assert.equal(newCount, hunk.newLines, 'newLines');
    assert.ok(hunk.lines.some((line) => line.kind !== 'context'), 'a hunk holds a change');
  }
  copyUpTo(oldRaw.length);
  assert.equal(added, diff.added, 'added counts the add lines');
  assert.equal(removed, diff.removed, 'removed counts the del lines');
  assert.equal(out.length, newRaw.length, 'line count after applying');
  out.forEach((line, k) => {
    const expected = newRaw[k] ?? '';
    if (line.raw !== undefined) {
      assert.equal(line.raw, expected, `new line ${k + 1} (kept from the old text)`);
    } else {
      assert.equal(line.text, stripEnding(expected), `new line ${k + 1} (added)`);
    }
  });
  const rebuilt = out.map((line, k) => line.raw ?? line.text + (newRaw[k] ?? '').slice(line.text.length)).join('');
  assert.equal(rebuilt, newText);
}

/** Length of the longest common subsequence of two line lists (quadratic; small inputs only). */
function lcsLength(a: string[], b: string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    const current = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) {
      current[j] = x === b[j - 1] ? (previous[j - 1] ?? 0) + 1 : Math.max(previous[j] ?? 0, current[j - 1] ?? 0);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

describe('diffText', () => {
  const cases: { name: string; old: string; new: string; options?: DiffOptions; unified: string }[] = [
    { name: 'identical texts', old: lines('a', 'b'), new: lines('a', 'b'), unified: '' },
    { name: 'two empty texts', old: '', new: '', unified: '' },
    { name: 'empty -> content (a new file)', old: '', new: lines('a', 'b'), unified: '@@ -0,0 +1,2 @@\n+a\n+b\n' },
    { name: 'content -> empty', old: lines('a', 'b'), new: '', unified: '@@ -1,2 +0,0 @@\n-a\n-b\n' },
    {
      name: 'a change on the first line',
      old: lines(...numbered(10)),
      new: lines('one', ...numbered(10).slice(1)),
      unified: '@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n',
    },
    {
      name: 'a change in the middle',
      old: lines(...numbered(10)),
      new: lines(...numbered(4), 'five', ...numbered(10).slice(5)),
      unified: '@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n',
    },
    {
      name: 'a change on the last line',
      old: lines(...numbered(10)),
      new: lines(...numbered(9), 'ten'),
      unified: '@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+ten\n',
    },
    {
      name: 'an insertion without context is placed after the line before it',
      old: lines('a', 'b', 'c'),
      new: lines('a', 'b', 'x', 'y', 'c'),
      options: { context: 0 },
      unified: '@@ -2,0 +3,2 @@\n+x\n+y\n',
    },
    {
      name: 'a deletion without context',
      old: lines('a', 'b', 'c', 'd'),
      new: lines('a', 'd'),
      options: { context: 0 },
      unified: '@@ -2,2 +1,0 @@\n-b\n-c\n',
    },
    {
      name: 'CRLF on both sides: lines split at \\r\\n, texts without \\r',
      old: 'a\r\nb\r\nc\r\n',
      new: 'a\r\nB\r\nc\r\n',
      unified: '@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n',
    },
    {
      name: 'CRLF -> LF changes every line (as in git)',
      old: 'a\r\nb\r\n',
      new: 'a\nb\n',
      unified: '@@ -1,2 +1,2 @@\n-a\n-b\n+a\n+b\n',
    },
    {
      name: 'a lone \\r stays in the text',
      old: 'a\rb\n',
      new: 'a\rc\n',
      unified: '@@ -1,1 +1,1 @@\n-a\rb\n+a\rc\n',
    },
    {
      name: 'no newline at the end of the old text',
      old: 'a\nb',
      new: 'a\nb\n',
      unified: '@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n',
    },
    {
      name: 'no newline at the end of the new text',
      old: 'a\nb\n',
      new: 'a\nb',
      unified: '@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n',
    },
    {
      name: 'no newline at the end of either, last line changed',
      old: 'a\nb',
      new: 'a\nc',
      unified: '@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n',
    },
    {
      name: 'no newline at the end of either, change before it',
      old: 'a\nb',
      new: 'x\nb',
      unified: '@@ -1,2 +1,2 @@\n-a\n+x\n b\n\\ No newline at end of file\n',
    },
    {
      name: 'repeated lines: one of many closing braces removed',
      old: lines('f() {', '  if (x) {', '    y();', '  }', '}', 'g() {', '  }', '}', '}'),
      new: lines('f() {', '  if (x) {', '    y();', '  }', '}', 'g() {', '}', '}'),
      options: { context: 1 },
      unified: '@@ -6,3 +6,2 @@\n g() {\n-  }\n }\n',
    },
    {
      name: 'nearby changes (6 lines apart with context 3) share one hunk',
      old: lines(...numbered(10)),
      new: lines('1', 'two', ...numbered(8).slice(2), 'nine', '10'),
      unified: '@@ -1,10 +1,10 @@\n 1\n-2\n+two\n 3\n 4\n 5\n 6\n 7\n 8\n-9\n+nine\n 10\n',
    },
    {
      name: 'changes 7 lines apart with context 3 make two hunks',
      old: lines(...numbered(12)),
      new: lines('1', 'two', ...numbered(9).slice(2), 'ten', '11', '12'),
      unified:
        '@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n' + '@@ -7,6 +7,6 @@\n 7\n 8\n 9\n-10\n+ten\n 11\n 12\n',
    },
    {
      name: 'context 1',
      old: lines(...numbered(6)),
      new: lines('1', '2', 'three', '4', '5', '6'),
      options: { context: 1 },
      unified: '@@ -2,3 +2,3 @@\n 2\n-3\n+three\n 4\n',
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const diff = diffText(c.old, c.new, c.options);
      assert.equal(formatUnified(diff), c.unified);
      assertApplies(c.old, c.new, diff);
      assert.equal(diff.note, undefined);
    });
  }

  it('reports identical texts with their line counts and no hunks', () => {
    const diff = diffText('a\r\nb\r\nc', 'a\r\nb\r\nc');
    assert.deepEqual(diff, { hunks: [], added: 0, removed: 0, identical: true, oldLineCount: 3, newLineCount: 3 });
    assert.equal('note' in diff, false, 'note is left out, not undefined');
  });

  it('numbers both sides from 1, shifted by insertions before', () => {
    const diff = diffText(lines('a', 'b', 'c', 'd', 'e', 'f'), lines('new1', 'new2', 'a', 'b', 'c', 'd', 'E', 'f'));
    assert.equal(diff.hunks.length, 1);
    const hunk = diff.hunks[0] ?? assert.fail('no hunk');
    assert.deepEqual(
      { oldStart: hunk.oldStart, oldLines: hunk.oldLines, newStart: hunk.newStart, newLines: hunk.newLines },
      { oldStart: 1, oldLines: 6, newStart: 1, newLines: 8 },
    );
    assert.deepEqual(hunk.lines, [
      { kind: 'add', newLine: 1, text: 'new1' },
      { kind: 'add', newLine: 2, text: 'new2' },
      { kind: 'context', oldLine: 1, newLine: 3, text: 'a' },
      { kind: 'context', oldLine: 2, newLine: 4, text: 'b' },
      { kind: 'context', oldLine: 3, newLine: 5, text: 'c' },
      { kind: 'context', oldLine: 4, newLine: 6, text: 'd' },
      { kind: 'del', oldLine: 5, text: 'e' },
      { kind: 'add', newLine: 7, text: 'E' },
      { kind: 'context', oldLine: 6, newLine: 8, text: 'f' },
    ]);
    for (const line of hunk.lines) {
      assert.equal(Object.values(line).includes(undefined), false, 'optional line numbers are left out');
    }
  });

  it('writes file headers when names are given', () => {
    const diff = diffText('a\n', 'b\n');
    assert.equal(formatUnified(diff, 'a/x.ts', 'b/x.ts'), '--- a/x.ts\n+++ b/x.ts\n@@ -1,1 +1,1 @@\n-a\n+b\n');
  });

  it('falls back to replacing the changed region, with a note, when the edit budget is exhausted', () => {
    const oldText = lines('head', 'a', 'b', 'c', 'tail');
    const newText = lines('head', 'c', 'b', 'a', 'tail');
    const exact = diffText(oldText, newText);
    assert.equal(exact.note, undefined);
    assert.equal(exact.removed, 2);
    const bounded = diffText(oldText, newText, { maxEditLength: 1 });
    assert.equal(typeof bounded.note, 'string');
    assert.match(bounded.note ?? '', /too large to align/);
    assert.equal(bounded.removed, 3);
    assert.equal(bounded.added, 3);
    assert.equal(formatUnified(bounded), '@@ -1,5 +1,5 @@\n head\n-a\n-b\n-c\n+c\n+b\n+a\n tail\n');
    assertApplies(oldText, newText, bounded);
  });

  it('when one region between unique lines cannot be aligned, only that region is replaced whole', () => {
    const random = prng(5);
    const few = ['}', '', '{', '  return;', '  i++;'];
    const shuffled = (): string[] => Array.from({ length: 2000 }, () => few[Math.floor(random() * few.length)] ?? '');
    const head = numbered(50).map((n) => `head ${n}`);
    const tail = numbered(50).map((n) => `tail ${n}`);
    const oldText = lines(...head, ...shuffled(), ...tail);
    const edit = (line: string, which: string): string => (line === which ? `${line} edited` : line);
    const newText = lines(
      ...head.map((line) => edit(line, 'head 10')),
      ...shuffled(),
      ...tail.map((line) => edit(line, 'tail 40')),
    );
    const diff = diffText(oldText, newText, { maxEditLength: 500 });
    assertApplies(oldText, newText, diff);
    assert.match(diff.note ?? '', /too large to align/);
    // The shuffled middle is removed and added nearly whole (matching lines at its very ends may still be kept).
    assert.ok(diff.removed > 1990 && diff.removed <= 2002, `removed ${diff.removed}`);
    assert.equal(diff.added, diff.removed);
    const first = diff.hunks[0] ?? assert.fail('no hunk');
    const last = diff.hunks[diff.hunks.length - 1] ?? assert.fail('no hunk');
    assert.deepEqual(
      first.lines.filter((line) => line.kind !== 'context'),
      [
        { kind: 'del', oldLine: 10, text: 'head 10' },
        { kind: 'add', newLine: 10, text: 'head 10 edited' },
      ],
    );
    assert.deepEqual(
      last.lines.filter((line) => line.kind !== 'context'),
      [
        { kind: 'del', oldLine: 2090, text: 'tail 40' },
        { kind: 'add', newLine: 2090, text: 'tail 40 edited' },
      ],
    );
  });

  it('random edits on small texts: applying the hunks yields the new text, and the diff is minimal', () => {
    const random = prng(20240611);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] ?? assert.fail('empty');
    const alphabet = ['a', 'b', 'c', '}', '', '  return x;', 'const y = 1;', '{'];
    const ending = (): string => (random() < 0.1 ? '\r\n' : '\n');
    for (let run = 0; run < 400; run++) {
      const oldRaw = Array.from({ length: Math.floor(random() * 30) }, () => pick(alphabet) + ending());
      const newRaw = [...oldRaw];
      const edits = Math.floor(random() * 8);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(random() * (newRaw.length + 1));
        const what = random();
        if (what < 0.35) {
          newRaw.splice(at, 0, pick(alphabet) + ending());
        } else if (what < 0.7) {
          newRaw.splice(at, 1 + Math.floor(random() * 3));
        } else {
          newRaw.splice(at, 1, `${pick(alphabet)}${random() < 0.5 ? ' changed' : ''}${ending()}`);
        }
      }
      const oldText = oldRaw.join('').replace(random() < 0.2 ? /\r?\n$/ : /$^/, '');
      const newText = newRaw.join('').replace(random() < 0.2 ? /\r?\n$/ : /$^/, '');
      const context = Math.floor(random() * 5);
      const diff = diffText(oldText, newText, { context });
      const label = `run ${run}: ${JSON.stringify(oldText)} -> ${JSON.stringify(newText)}, context ${context}`;
      try {
        assertApplies(oldText, newText, diff);
      } catch (error) {
        assert.fail(`${label}\n${String(error)}`);
      }
      const common = lcsLength(rawLines(oldText), rawLines(newText));
      assert.equal(diff.removed, rawLines(oldText).length - common, `${label}: removed is minimal`);
      assert.equal(diff.added, rawLines(newText).length - common, `${label}: added is minimal`);
      assert.equal(diff.note, undefined, label);
    }
  });

  it('random large edits (cut at unique lines, and with tiny edit budgets) still apply exactly', () => {
    const random = prng(7);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] ?? assert.fail('empty');
    const common = ['}', '', '  }', '  return x;', '{'];
    let serial = 0;
    const line = (): string => (random() < 0.5 ? pick(common) : `statement ${serial++};`);
    for (let run = 0; run < 40; run++) {
      const oldLines = Array.from({ length: 300 + Math.floor(random() * 700) }, line);
      const newLines = [...oldLines];
      for (let e = 0; e < 300; e++) {
        const at = Math.floor(random() * (newLines.length + 1));
        const what = random();
        if (what < 0.3) {
          newLines.splice(at, 0, line());
        } else if (what < 0.6) {
          newLines.splice(at, 1 + Math.floor(random() * 4));
        } else if (what < 0.8) {
          newLines.splice(at, 1, line());
        } else {
          // Move a block: many equal lines in a different order.
          const block = newLines.splice(at, 10);
          newLines.splice(Math.floor(random() * (newLines.length + 1)), 0, ...block);
        }
      }
      const oldText = lines(...oldLines);
      const newText = lines(...newLines);
      for (const options of [{}, { maxEditLength: Math.floor(random() * 300) }, { context: 0, maxEditLength: 0 }]) {
        const diff = diffText(oldText, newText, options);
        assertApplies(oldText, newText, diff);
        if (diff.note !== undefined) {
          assert.match(diff.note, /too large to align/);
        }
      }
    }
  });

  it('a fully rewritten 10,000-line file: everything removed and added, in one hunk', () => {
    const oldLines = Array.from({ length: 10_000 }, (_, i) => `  const value${i} = compute(${i});`);
    const newLines = Array.from({ length: 10_000 }, (_, i) => `  let v${i} = other(${i * 7});`);
    const diff = diffText(lines(...oldLines), lines(...newLines));
    assert.equal(diff.removed, 10_000);
    assert.equal(diff.added, 10_000);
    assert.equal(diff.hunks.length, 1);
    assert.equal(diff.note, undefined);
    assertApplies(lines(...oldLines), lines(...newLines), diff);
  });

  it('a pathological pair (20,000 lines each of a few repeated lines, shuffled) returns a correct diff', () => {
    const random = prng(99);
    const few = ['}', '', '{', '  return;', '  i++;'];
    const make = (): string =>
      lines(...Array.from({ length: 20_000 }, () => few[Math.floor(random() * few.length)] ?? ''));
    const oldText = make();
    const newText = make();
    const diff = diffText(oldText, newText);
    assertApplies(oldText, newText, diff);
    assert.equal(diff.removed - diff.added, 0);
  });

  describe('against git diff --no-index', () => {
    let dir = '';
    before(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'toolgate-linediff-'));
    });
    after(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    it('counts no more changed lines than git on scattered changes, and applies exactly', () => {
      const random = prng(4242);
      const words = ['user', 'item', 'count', 'value', 'result', 'index', 'config', 'path', 'name', 'data'];
      const word = (): string => words[Math.floor(random() * words.length)] ?? 'x';
      const oldLines: string[] = [];
      while (oldLines.length < 3000) {
        oldLines.push(`export function ${word()}${Math.floor(random() * 1000)}(${word()}: string): number {`);
        for (let k = Math.floor(random() * 8); k >= 0; k--) {
          oldLines.push(random() < 0.2 ? '' : `  const ${word()} = ${word()}(${Math.floor(random() * 100)});`);
        }
        oldLines.push(`  return ${word()};`, '}', '');
      }
      const newLines = [...oldLines];
      for (let e = 0; e < 60; e++) {
        const at = Math.floor(random() * newLines.length);
        const what = random();
        if (what < 0.6) {
          newLines[at] = `${newLines[at] ?? ''} // edited`;
        } else if (what < 0.8) {
          newLines.splice(at, 0, `  log(${word()});`, '');
        } else {
          newLines.splice(at, 2);
        }
      }
      const oldText = lines(...oldLines);
      const newText = lines(...newLines);
      const oldFile = path.join(dir, 'old.ts');
      const newFile = path.join(dir, 'new.ts');
      writeFileSync(oldFile, oldText);
      writeFileSync(newFile, newText);
      const git = spawnSync(
        'git',
        ['diff', '--no-index', '--no-color', '--diff-algorithm=myers', '--numstat', oldFile, newFile],
        { encoding: 'utf8' },
      );
      assert.equal(git.status, 1, `git diff found differences: ${git.stderr}`);
      const [gitAdded, gitRemoved] = git.stdout.split('\t').map(Number);
      assert.ok(gitAdded !== undefined && gitRemoved !== undefined && gitAdded > 0, git.stdout);

      const diff = diffText(oldText, newText);
      assertApplies(oldText, newText, diff);
      // A small change is aligned exactly (minimal), git's is at least as long; net line change is the same for any
      // correct diff.
      assert.ok(
        diff.added + diff.removed <= gitAdded + gitRemoved,
        `ours +${diff.added} -${diff.removed}, git +${gitAdded} -${gitRemoved}`,
      );
      assert.equal(diff.added - diff.removed, gitAdded - gitRemoved);
      const common = lcsLength(rawLines(oldText), rawLines(newText));
      assert.equal(diff.removed, oldLines.length - common, 'minimal');
    });
  });
});
