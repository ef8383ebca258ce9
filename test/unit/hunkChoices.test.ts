import * as assert from 'node:assert/strict';
import { HunkChoices, hunkAnchorLine, hunkAtLine } from '../../src/core/review/hunkChoices';
import type { DiffRow } from '../../src/shared/approvals';

describe('host-held hunk choices (the state behind every view)', () => {
  const ref = { callId: 'c1', argsHash: 'a'.repeat(64) };

  it('opens with every hunk accepted, and reports no decisions until one is rejected', () => {
    const choices = new HunkChoices();
    choices.open(ref.callId, ref.argsHash, 2);
    assert.deepEqual(choices.view('c1'), [{ accepted: true, reason: '' }, { accepted: true, reason: '' }]);
    assert.equal(choices.decisions('c1'), undefined);
    assert.deepEqual(choices.choose(ref, 1, false, '  not this  '), { ok: true, changed: true });
    assert.deepEqual(choices.decisions('c1'), [{ index: 1, accepted: false, reason: 'not this' }]);
  });

  it('keeps a reason when only the choice changes, and says when nothing changed', () => {
    const choices = new HunkChoices();
    choices.open(ref.callId, ref.argsHash, 1);
    choices.choose(ref, 0, false, 'why');
    assert.deepEqual(choices.choose(ref, 0, true), { ok: true, changed: true });
    assert.deepEqual(choices.choose(ref, 0, true), { ok: true, changed: false });
    assert.deepEqual(choices.view('c1'), [{ accepted: true, reason: 'why' }]);
  });

  const refusals: [string, () => ReturnType<HunkChoices['choose']>, string][] = [
    ['an unknown call', () => new HunkChoices().choose(ref, 0, false), 'unknown-call'],
    ['a stale hash', () => opened().choose({ ...ref, argsHash: 'b'.repeat(64) }, 0, false), 'stale-hash'],
    ['a negative index', () => opened().choose(ref, -1, false), 'unknown-hunk'],
    ['an index past the last hunk', () => opened().choose(ref, 2, false), 'unknown-hunk'],
    ['a closed call', () => {
      const choices = opened();
      choices.close(ref.callId);
      return choices.choose(ref, 0, false);
    }, 'unknown-call'],
  ];
  function opened(): HunkChoices {
    const choices = new HunkChoices();
    choices.open(ref.callId, ref.argsHash, 2);
    return choices;
  }
  for (const [name, run, kind] of refusals) {
    it(`refuses a choice for ${name}`, () => {
      const outcome = run();
      assert.equal(outcome.ok ? 'ok' : outcome.kind, kind);
    });
  }
});

describe("where the diff editor anchors a hunk (0-based line of the proposed side)", () => {
  const rows: [string, DiffRow[], number][] = [
    ['a change: its first added line', [['c', 4, 4, 'x'], ['d', 5, null, 'a'], ['a', null, 5, 'b'], ['c', 6, 6, 'y']], 4],
    ['an insertion at the top', [['a', null, 1, 'new'], ['c', 1, 2, 'x']], 0],
    ['a removal: the line after it', [['c', 1, 1, 'x'], ['d', 2, null, 'gone'], ['c', 3, 2, 'y']], 1],
    ['a removal at the end: the line before it', [['c', 9, 9, 'x'], ['d', 10, null, 'gone']], 8],
    ['a whole file removed', [['d', 1, null, 'gone']], 0],
  ];
  for (const [name, hunkRows, line] of rows) {
    it(name, () => {
      assert.equal(hunkAnchorLine(hunkRows), line);
    });
  }
});

describe('the hunk under the cursor of the proposed side', () => {
  const hunks: { rows: DiffRow[] }[] = [
    { rows: [['c', 2, 2, 'x'], ['a', null, 3, 'new'], ['c', 3, 4, 'y']] },
    { rows: [['c', 20, 21, 'x'], ['d', 21, null, 'old'], ['c', 22, 22, 'y']] },
  ];
  const rows: [string, number, number | undefined][] = [
    ['above the first hunk: the first', 0, 0],
    ['in the first hunk', 2, 0],
    ['between the hunks: the one before', 10, 0],
    ['on the second hunk\'s first context line', 20, 1],
    ['below the last hunk: the last', 100, 1],
  ];
  for (const [name, line, index] of rows) {
    it(name, () => {
      assert.equal(hunkAtLine(hunks, line), index);
    });
  }
  it('none without hunks', () => {
    assert.equal(hunkAtLine([], 3), undefined);
  });
});
