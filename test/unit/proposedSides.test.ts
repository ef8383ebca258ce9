import * as assert from 'node:assert/strict';
import type { HeldEdit } from '../../src/core/review/heldEdits';
import { DiffEditorEdits } from '../../src/core/views/diffEditorEdits';
import { pendingView } from '../../src/core/views/pendingCall';
import { ProposedSides, type ShownProposal } from '../../src/core/views/proposedSides';
import { PathResolver } from '../../src/core/approval/paths';
import { gateCall } from '../../src/core/tools/gateCall';
import { createMemoryGate } from '../fixtures/memoryGate';

const started = 1_000;
const proposal = (exists: boolean): ShownProposal => ({
  target: { input: 'src/a.ts', absolute: '/ws/src/a.ts', relative: 'src/a.ts' },
  base: { exists, text: exists ? 'one\ntwo\n' : '' },
  newText: 'one\nTWO\n',
});

/** Sides over one waiting call `c1` (undefined: decided) and a held edit the test sets. */
function sidesOf(exists = true) {
  const state: { waiting: boolean; held: HeldEdit | undefined } = { waiting: true, held: undefined };
  const sides = new ProposedSides((callId) => (callId === 'c1' && state.waiting ? proposal(exists) : undefined), {
    get: () => state.held,
    set: (_callId, text) => (state.held = { text, where: 'diff-editor', revision: (state.held?.revision ?? 0) + 1 }),
  }, started);
  return { sides, state };
}

describe("what the diff editor's sides hold", () => {
  const rows: { name: string; side: 'proposed' | 'original'; held?: HeldEdit; exists?: boolean; text: string }[] = [
    { name: 'the proposed side: the proposal', side: 'proposed', text: 'one\nTWO\n' },
    { name: 'the proposed side: the held edit, wherever it was made', side: 'proposed', held: { text: 'mine\n', where: 'panel', revision: 3 }, text: 'mine\n' },
    { name: 'the proposed side edited back: the proposal', side: 'proposed', held: { where: 'chat', revision: 4 }, text: 'one\nTWO\n' },
    { name: "a new file's original: empty", side: 'original', exists: false, text: '' },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const { sides, state } = sidesOf(row.exists);
      state.held = row.held;
      assert.equal(sides.text({ callId: 'c1', side: row.side }), row.text);
    });
  }

  it('a side of a call that no longer waits is not found, but its proposed side still takes a closing save', () => {
    const { sides, state } = sidesOf();
    state.waiting = false;
    assert.equal(sides.text({ callId: 'c1', side: 'proposed' }), undefined);
    assert.equal(sides.stat({ callId: 'c1', side: 'original' }), undefined);
    assert.deepEqual(sides.stat({ callId: 'c1', side: 'proposed' }), { ctime: started, mtime: started, size: 0 });
  });

  it('the proposed side looks newer only when its edit changed on another surface, never by its own typing', () => {
    const { sides, state } = sidesOf();
    const mtime = (): number | undefined => sides.stat({ callId: 'c1', side: 'proposed' })?.mtime;
    assert.equal(mtime(), started);
    state.held = { text: 'typed here', where: 'diff-editor', revision: 5 };
    assert.equal(mtime(), started);
    state.held = { text: 'from the panel', where: 'panel', revision: 7 };
    assert.equal(mtime(), started + 7);
    state.held = { text: 'typed here again', where: 'diff-editor', revision: 9 };
    assert.equal(mtime(), started + 7);
    assert.equal(sides.stat({ callId: 'c1', side: 'proposed' })?.size, Buffer.byteLength('typed here again'));
  });

  it("the diff: the file against the proposed side (a new file's empty original), on the first change", () => {
    assert.deepEqual(sidesOf().sides.diff('c1'), { file: '/ws/src/a.ts', newFile: false, title: 'src/a.ts ↔ proposed by the agent', line: 1 });
    assert.equal(sidesOf(false).sides.diff('c1')?.newFile, true);
    assert.equal(sidesOf().sides.diff('c2'), undefined);
    assert.deepEqual(sidesOf().sides.parts('c1', 'proposed'), { authority: 'c1', path: '/src/a.ts', query: 'call=c1' });
  });
});

describe("the diff editor's typing kept as the call's edit", () => {
  it('is the held edit; a refusal is logged each time and told once per call', () => {
    const { gate } = createMemoryGate();
    const resolver = new PathResolver(['/ws']);
    // A command cannot be edited as content: the gate refuses what is typed for it.
    void gate.request([{ call: gateCall('run_in_terminal', { command: 'ls' }, resolver), preview: { kind: 'none' }, source: 'agent' }], { chatId: 'c' });
    const callId = gate.waitingCalls()[0]?.callId ?? '';
    const logged: string[] = [];
    const told: string[] = [];
    const edits = new DiffEditorEdits(gate, { info: () => undefined, warn: (line) => logged.push(line), error: () => undefined }, (warning) => told.push(warning));
    edits.set(callId, 'typed');
    edits.set(callId, 'typed more');
    edits.set('gone', 'typed');
    assert.equal(logged.length, 3);
    assert.equal(told.length, 1);
    assert.match(told[0] ?? '', /^Toolgate: what you typed in the diff editor is not kept for run_in_terminal : .*An Allow writes the proposal as it is\./);
    assert.equal(edits.get(callId), gate.heldEdit(callId));
    assert.ok(pendingView(gate, callId));
    edits.dispose();
  });
});
