import * as assert from 'node:assert/strict';
import { HunkChoices, hunkAnchorLine } from '../../src/core/review/hunkChoices';
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
