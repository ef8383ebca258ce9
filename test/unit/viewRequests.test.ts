import * as assert from 'node:assert/strict';
import type { AgentSession } from '../../src/core/agent/session';
import type { GateInput } from '../../src/core/approval/gate';
import { PathResolver } from '../../src/core/approval/paths';
import { gateCall } from '../../src/core/tools/gateCall';
import { chatRequests } from '../../src/vscode/viewRequests';
import { pendingViews } from '../../src/core/views/pendingCall';
import { createMemoryGate } from '../fixtures/memoryGate';

const resolver = new PathResolver(['/ws']);
const write = (relative: string, source: string): GateInput => ({ call: gateCall('write_file', { path: relative, content: 'x' }, resolver), preview: { kind: 'none' }, source });

describe("the chat's requests", () => {
  it("Allow all from the chat settles only the chat's own agent calls: a batch naming another call is refused whole", async () => {
    const { gate } = createMemoryGate();
    const waits = gate.request([write('a.txt', 'agent'), write('b.txt', 'agent'), write('c.txt', 'api')], { chatId: 'c' });
    // Only what decideAll reads of the session and the views' ports: the boundary is faked, the gate is real.
    const handle = chatRequests(({ chatId: 'c' } as unknown) as AgentSession, gate, {} as never, {} as never, {} as never, {} as never);
    const views = pendingViews(gate, 'c');
    const refs = views.map(({ callId, argsHash }) => ({ callId, argsHash }));
    const api = views.find((view) => view.source === 'api');
    assert.ok(api);
    const refused = await handle({ type: 'decideAll', requestId: 'r1', action: 'allow-all', calls: refs });
    assert.deepEqual(refused, { ok: false, error: `call ${api.callId} is not one this chat shows` });
    assert.equal(gate.waitingCount, 3, 'nothing was settled');
    const allowed = await handle({ type: 'decideAll', requestId: 'r2', action: 'deny-all', calls: refs.filter((ref) => ref.callId !== api.callId) });
    assert.deepEqual(allowed, { ok: true });
    assert.deepEqual(pendingViews(gate, 'c').map((view) => view.source), ['api']);
    gate.cancel('test over');
    await Promise.all(waits);
  });
});
