import * as assert from 'node:assert/strict';
import type { GateInput } from '../../src/core/approval/gate';
import { PathResolver } from '../../src/core/approval/paths';
import { diffText } from '../../src/core/diff/lineDiff';
import { diffPreview } from '../../src/core/review/diffPreview';
import { gateCall } from '../../src/core/tools/gateCall';
import { DiffDecisions, type DiffActionResult, type ProposedCursor } from '../../src/core/views/diffDecisions';
import { hunkMarks } from '../../src/core/views/hunkMarks';
import { pendingView } from '../../src/core/views/pendingCall';
import { createMemoryGate } from '../fixtures/memoryGate';

const resolver = new PathResolver(['/ws']);
const lines = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`);
const before = `${lines.join('\n')}\n`;
const after = `${lines.map((line, index) => (index === 1 || index === 17 ? line.toUpperCase() : line)).join('\n')}\n`;

/** A waiting write of a.txt with two hunks (lines 2 and 18), editable as content. */
function waitingWrite() {
  const { gate } = createMemoryGate();
  const input: GateInput = {
    call: gateCall('write_file', { path: 'a.txt', content: after }, resolver),
    preview: diffPreview('a.txt', false, diffText(before, after)),
    source: 'agent',
    editable: { kind: 'content', text: after },
  };
  const [result] = gate.request([input], { chatId: 'c' });
  const callId = gate.waitingCalls()[0]?.callId ?? '';
  return { gate, callId, result };
}

/** The decisions with scripted prompts: `typed` answers each input box in turn (undefined: Escape). */
function decisionsOf(gate: ReturnType<typeof waitingWrite>['gate'], typed: (string | undefined)[] = []) {
  const said: string[] = [];
  const asked: string[] = [];
  const decisions = new DiffDecisions(gate, {
    askReason: (title, _prompt, value) => (asked.push(`${title}${value !== undefined ? ` [${value}]` : ''}`), Promise.resolve(typed.shift())),
    warn: (text) => void said.push(text),
  });
  return { decisions, said, asked };
}

describe("the diff editor's decisions", () => {
  const rows: {
    name: string;
    run: (decisions: DiffDecisions, callId: string) => DiffActionResult | Promise<DiffActionResult>;
    typed?: (string | undefined)[];
    done: boolean;
    why?: string;
    said: string[];
    asked: string[];
    /** Each hunk's choice after it, or the call's end. */
    after: string;
  }[] = [
    { name: 'Allow settles the call shown', run: (d, id) => d.allow(id, () => Promise.resolve()), done: true, said: [], asked: [], after: 'allow' },
    { name: 'Allow with no proposed diff active is refused', run: (d) => d.allow(undefined, () => Promise.resolve()), done: false, why: 'no proposed diff is active', said: ['Toolgate: no proposed diff is active'], asked: [], after: 'waiting' },
    { name: 'Allow of a call that no longer waits is refused', run: (d) => d.allow('gone', () => Promise.resolve()), done: false, why: 'call gone is no longer waiting', said: ['Toolgate: call gone is no longer waiting'], asked: [], after: 'waiting' },
    { name: 'Deny with the reason given asks nothing', run: (d, id) => d.deny(id, 'no'), done: true, said: [], asked: [], after: 'deny: no' },
    { name: 'Deny asks a reason', run: (d, id) => d.deny(id, undefined), typed: ['  too much  '], done: true, said: [], asked: ['Toolgate: deny write_file a.txt'], after: 'deny: too much' },
    { name: 'Escape in the deny keeps the call waiting, unsaid', run: (d, id) => d.deny(id, undefined), typed: [undefined], done: false, why: 'the deny was cancelled', said: [], asked: ['Toolgate: deny write_file a.txt'], after: 'waiting' },
    { name: 'Accept hunk by its call and index', run: (d, id) => d.acceptHunk(id, 1, undefined), done: true, said: [], asked: [], after: 'accepted,accepted' },
    {
      name: 'Reject hunk asks its reason',
      run: (d, id) => d.rejectHunk(id, 1, undefined, undefined),
      typed: [' not this '],
      done: true,
      said: [],
      asked: ['Toolgate: reject hunk 2 of a.txt []'],
      after: 'accepted,rejected: not this',
    },
    {
      name: 'Reject hunk under the cursor of the proposed side',
      run: (d, id) => d.rejectHunk(undefined, undefined, 'why', { callId: id, side: 'proposed', line: 17 }),
      done: true,
      said: [],
      asked: [],
      after: 'accepted,rejected: why',
    },
    {
      name: 'a hunk command with the cursor elsewhere is refused',
      run: (d, id) => d.acceptHunk(undefined, undefined, { callId: id, side: 'original', line: 0 } satisfies ProposedCursor),
      done: false,
      why: "put the cursor in a waiting call's proposed side first",
      said: ["Toolgate: put the cursor in a waiting call's proposed side first"],
      asked: [],
      after: 'accepted,accepted',
    },
    { name: 'Escape in the reject leaves the hunk as it is', run: (d, id) => d.rejectHunk(id, 0, undefined, undefined), typed: [undefined], done: false, why: 'the reject was cancelled', said: [], asked: ['Toolgate: reject hunk 1 of a.txt []'], after: 'accepted,accepted' },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const { gate, callId, result } = waitingWrite();
      const { decisions, said, asked } = decisionsOf(gate, row.typed);
      const outcome = await row.run(decisions, callId);
      assert.deepEqual(outcome.done ? true : outcome.why, row.done ? true : row.why);
      const view = pendingView(gate, callId);
      const decided = view === undefined ? await result : undefined;
      const after =
        decided !== undefined
          ? `${decided.verdict}${decided.verdict === 'deny' ? `: ${decided.reason.replace(/^.*: /, '')}` : ''}`
          : row.after === 'waiting'
            ? 'waiting'
            : (view?.hunkChoices ?? []).map((choice) => (choice.accepted ? 'accepted' : `rejected: ${choice.reason}`)).join(',');
      assert.deepEqual({ said, asked, after }, { said: row.said, asked: row.asked, after: row.after });
    });
  }

  it("Edit takes the cursor to the proposed side's first change; a call without a proposed side is refused", () => {
    const { gate, callId } = waitingWrite();
    const { decisions, said } = decisionsOf(gate);
    assert.deepEqual(decisions.editable(callId, (id) => `uri:${id}`), { callId, uri: `uri:${callId}`, line: 1 });
    assert.deepEqual(decisions.editable(callId, () => undefined), { done: false, why: `call ${callId} cannot be edited` });
    assert.deepEqual(said, [`Toolgate: call ${callId} cannot be edited`]);
  });
});

describe("the marks of a proposed side's hunks", () => {
  it('one per hunk, on its first changed line within the document, with its choice and the commands', () => {
    const { gate, callId } = waitingWrite();
    gate.chooseHunk(pendingView(gate, callId)!, 1, false, 'no');
    const marks = hunkMarks(gate, { callId, side: 'proposed' }, 21, false);
    assert.deepEqual(
      marks.map((mark) => [mark.line, mark.choice, mark.accept.title, mark.reject.title, mark.reject.tooltip]),
      [
        [1, 'Hunk 1 of 2: accepted', '$(check) Accept hunk', 'Reject hunk', 'Reject hunk 1 of 2 (asks an optional reason)'],
        [17, 'Hunk 2 of 2: rejected (no)', 'Accept hunk', '$(close) Reject hunk', 'Reject hunk 2 of 2 (asks an optional reason)'],
      ],
    );
    const args = encodeURIComponent(JSON.stringify([callId, 0]));
    assert.equal(marks[0]?.hover, `Hunk 1 of 2: accepted. [Accept hunk](command:toolgate.diff.acceptHunk?${args}) · [Reject hunk](command:toolgate.diff.rejectHunk?${args})`);
    assert.deepEqual(hunkMarks(gate, { callId, side: 'proposed' }, 3, false).map((mark) => mark.line), [1, 2], 'within a shorter document');
  });

  const none: [string, (callId: string) => Parameters<typeof hunkMarks>[1], boolean][] = [
    ['on the original side', (callId) => ({ callId, side: 'original' }), false],
    ['once the side was edited', (callId) => ({ callId, side: 'proposed' }), true],
    ['for a call that no longer waits', () => ({ callId: 'gone', side: 'proposed' }), false],
    ['for any other document', () => undefined, false],
  ];
  for (const [name, document, edited] of none) {
    it(`none ${name}`, () => {
      const { gate, callId } = waitingWrite();
      assert.deepEqual(hunkMarks(gate, document(callId), 21, edited), []);
    });
  }
});
