import * as assert from 'node:assert/strict';
import type { GateInput } from '../../src/core/approval/gate';
import { grantInForce, type Grant } from '../../src/core/approval/grants';
import { PathResolver } from '../../src/core/approval/paths';
import { gateCall } from '../../src/core/tools/gateCall';
import { createMemoryGate } from '../fixtures/memoryGate';
import { pendingViews } from '../../src/core/views/pendingCall';
import { grantViews } from '../../src/core/views/grants';

const resolver = new PathResolver(['/ws']);
const write = (relative: string): GateInput => ({
  call: gateCall('write_file', { path: relative, content: 'x' }, resolver),
  preview: { kind: 'none' },
  source: 'agent',
});

/** A gate whose clock the test moves. */
function clockedGate() {
  let now = Date.UTC(2026, 10, 22, 12, 0, 0);
  const parts = createMemoryGate({}, undefined, { now: () => new Date(now) });
  return { ...parts, advance: (minutes: number) => (now += minutes * 60_000) };
}

/** Requests one call of a task; if it waits, the person decides it with `choice`. Resolves with the verdict. */
async function ask(gate: ReturnType<typeof clockedGate>['gate'], input: GateInput, taskId: string | undefined, choice?: Parameters<ReturnType<typeof clockedGate>['gate']['settle']>[1]): Promise<string> {
  const [promise] = gate.request([input], { chatId: 'c', ...(taskId !== undefined ? { turn: { taskId } } : {}) });
  assert.ok(promise);
  const [pending] = pendingViews(gate);
  if (pending) {
    const outcome = gate.settle(pending, choice ?? { action: 'deny' });
    assert.deepEqual(outcome, { ok: true });
    await promise;
    return choice === undefined ? 'asked' : `asked, then ${choice.action}`;
  }
  return (await promise).verdict;
}

describe('time-boxed grants', () => {
  describe('grantInForce', () => {
    const base: Grant = { id: 'g', tool: 'write_file', matcher: { kind: 'tool' }, scope: 'session', createdAt: '2026-11-22T12:00:00.000Z' };
    const rows: { name: string; grant: Grant; now: string; taskId?: string; inForce: boolean }[] = [
      { name: 'a session grant', grant: base, now: '2026-11-23T12:00:00Z', inForce: true },
      { name: 'a task grant in its task', grant: { ...base, scope: 'task', taskId: 't1' }, now: '2026-11-22T12:00:00Z', taskId: 't1', inForce: true },
      { name: 'a task grant in another task', grant: { ...base, scope: 'task', taskId: 't1' }, now: '2026-11-22T12:00:00Z', taskId: 't2', inForce: false },
      { name: 'a task grant outside any task', grant: { ...base, scope: 'task', taskId: 't1' }, now: '2026-11-22T12:00:00Z', inForce: false },
      { name: 'a timed grant before its end', grant: { ...base, scope: 'timed', expiresAt: '2026-11-22T12:15:00.000Z' }, now: '2026-11-22T12:14:59.999Z', inForce: true },
      { name: 'a timed grant at its end', grant: { ...base, scope: 'timed', expiresAt: '2026-11-22T12:15:00.000Z' }, now: '2026-11-22T12:15:00.000Z', inForce: false },
      { name: 'a timed grant without an end', grant: { ...base, scope: 'timed' }, now: '2026-11-22T12:00:00Z', inForce: false },
    ];
    for (const row of rows) {
      it(`${row.name}: ${row.inForce ? 'in force' : 'not in force'}`, () => {
        assert.equal(grantInForce(row.grant, { now: new Date(row.now), taskId: row.taskId }), row.inForce);
      });
    }
  });

  it('"for the next 15 minutes" covers the file until the clock passes its end, then asks again; the panel lists it with its end', async () => {
    const { gate, advance, entries, audit } = clockedGate();
    assert.equal(await ask(gate, write('a.txt'), 't1', { action: 'allow-minutes', grantOption: 'path', minutes: 15 }), 'asked, then allow-minutes');
    const [listed] = grantViews(gate, ['c']);
    assert.deepEqual([listed?.scope, listed?.expiresAt], ['timed', '2026-11-22T12:15:00.000Z']);
    advance(14);
    assert.equal(await ask(gate, write('a.txt'), 't2'), 'allow', 'another task, 14 minutes later');
    advance(1);
    assert.equal(await ask(gate, write('a.txt'), 't2'), 'asked', 'at 15 minutes it has ended');
    assert.deepEqual(grantViews(gate, ['c']), [], 'an ended grant is not listed');
    await audit.flush();
    assert.equal(entries.find((entry) => entry.scope === 'timed')?.reason, 'allowed by the person: new timed (until 12:15 UTC) grant for write_file: a.txt');
  });

  it('"for this task" covers the calls of that task only', async () => {
    const { gate } = clockedGate();
    assert.equal(await ask(gate, write('b.txt'), 't1', { action: 'allow-task', grantOption: 'path' }), 'asked, then allow-task');
    assert.equal(await ask(gate, write('b.txt'), 't1'), 'allow');
    assert.equal(grantViews(gate, ['c'])[0]?.scope, 'task');
    assert.equal(await ask(gate, write('b.txt'), 't2'), 'asked', 'the next task asks again');
    assert.deepEqual(grantViews(gate, ['c']), [], 'the old task grant is no longer listed');
    assert.equal(await ask(gate, write('b.txt'), undefined), 'asked', 'an API call is in no task');
  });

  it('refuses a task grant outside a task and minutes out of range', () => {
    const { gate } = clockedGate();
    void gate.request([write('c.txt')], { chatId: 'c' });
    const [pending] = pendingViews(gate);
    assert.ok(pending);
    const refused = gate.settle(pending, { action: 'allow-task', grantOption: 'path' });
    assert.equal(refused.ok, false);
    const tooLong = gate.settle(pending, { action: 'allow-minutes', grantOption: 'path', minutes: 100_000 });
    assert.equal(tooLong.ok, false);
    gate.cancel('done');
  });
});
