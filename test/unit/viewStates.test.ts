import * as assert from 'node:assert/strict';
import type { GateInput } from '../../src/core/approval/gate';
import { PathResolver } from '../../src/core/approval/paths';
import { gateCall } from '../../src/core/tools/gateCall';
import { approvalsState, chatCalls } from '../../src/core/views/viewStates';
import { createMemoryGate } from '../fixtures/memoryGate';

const resolver = new PathResolver(['/ws']);
const write = (relative: string, source: string): GateInput => ({ call: gateCall('write_file', { path: relative, content: 'x' }, resolver), preview: { kind: 'none' }, source });

describe("the views' states", () => {
  it("the chat shows its own agent's calls only; the panel shows every waiting call", async () => {
    const { gate } = createMemoryGate();
    const waits = [...gate.request([write('a.txt', 'agent'), write('b.txt', 'api')], { chatId: 'c' }), ...gate.request([write('c.txt', 'agent')], { chatId: 'd' })];
    assert.deepEqual(chatCalls(gate, 'c').map((call) => call.source), ['agent']);
    const state = approvalsState({ gate, trusted: () => true, grantChats: () => ['c'], agent: { questionViews: () => [] }, storedDiffMode: () => undefined });
    assert.equal(state.pending.length, 3);
    gate.cancel('test over');
    await Promise.all(waits);
  });

  const modes: { stored: unknown; shown: string }[] = [
    { stored: undefined, shown: 'unified' },
    { stored: 'split', shown: 'split' },
    { stored: 'sideways', shown: 'unified' },
    { stored: 42, shown: 'unified' },
  ];
  for (const row of modes) {
    it(`a stored diff mode of ${JSON.stringify(row.stored)} shows ${row.shown}`, () => {
      const { gate } = createMemoryGate();
      const state = approvalsState({ gate, trusted: () => false, grantChats: () => [], agent: { questionViews: () => [] }, storedDiffMode: () => row.stored });
      assert.equal(state.diffMode, row.shown);
      assert.equal(state.trusted, false);
    });
  }
});
