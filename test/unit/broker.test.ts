import * as assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { Broker, type ResolveResult, type Resolution, type Waiting } from '../../src/core/approval/broker';

/** The refusal message of a decision that must have been refused. */
function errorOf(result: ResolveResult): string {
  if (result.ok) {
    assert.fail('the decision was accepted');
  }
  return result.error;
}

const hashA = 'a'.repeat(64);
const hashB = 'b'.repeat(64);
const item = (callId: string, argsHash = hashA, chatId = 'chat'): Waiting => ({ callId, batchId: 'b1', chatId, argsHash });

describe('approval broker', () => {
  it('holds calls until decided, then resolves each exactly once', async () => {
    const broker = new Broker<Waiting, string>();
    const [first, second] = broker.add([item('c1'), item('c2')], { timeoutSeconds: 0 });
    assert.deepEqual(broker.waiting().map((w) => w.callId), ['c1', 'c2']);
    assert.deepEqual(broker.resolveByPerson('c1', hashA, 'yes'), { ok: true });
    assert.deepEqual(await first, { kind: 'person', decision: 'yes' });
    assert.deepEqual(broker.waiting().map((w) => w.callId), ['c2']);
    broker.cancel('stop');
    assert.deepEqual(await second, { kind: 'cancel', reason: 'stop' });
  });

  it('a batch of 500 adds one abort listener to the task, gone once the last call is settled; an abort cancels every call', async () => {
    const broker = new Broker<Waiting, string>();
    const controller = new AbortController();
    const ids = Array.from({ length: 500 }, (_, index) => `c${index}`);
    const promises = broker.add(ids.map((id) => item(id)), { timeoutSeconds: 0, signal: controller.signal });
    assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
    for (const id of ids.slice(0, 499)) {
      broker.resolveByPerson(id, hashA, 'yes');
    }
    assert.equal(getEventListeners(controller.signal, 'abort').length, 1, 'one call still waits');
    controller.abort();
    assert.deepEqual(await promises[499], { kind: 'cancel', reason: 'the task was cancelled' });
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);

    const again = new AbortController();
    const second = broker.add([item('d1'), item('d2')], { timeoutSeconds: 0, signal: again.signal });
    broker.resolveByPerson('d1', hashA, 'yes');
    broker.resolveByPerson('d2', hashA, 'no');
    assert.deepEqual(await Promise.all(second), [{ kind: 'person', decision: 'yes' }, { kind: 'person', decision: 'no' }]);
    assert.equal(getEventListeners(again.signal, 'abort').length, 0, 'all settled: the listener is removed');
  });

  it('ignores a forged call id', () => {
    const broker = new Broker<Waiting, string>();
    void broker.add([item('c1')], { timeoutSeconds: 0 });
    const result = broker.resolveByPerson('c-forged', hashA, 'yes');
    assert.match(errorOf(result), /not waiting/);
    assert.equal(broker.waiting().length, 1);
  });

  it('ignores a decision for the wrong arguments hash', () => {
    const broker = new Broker<Waiting, string>();
    void broker.add([item('c1', hashA)], { timeoutSeconds: 0 });
    const result = broker.resolveByPerson('c1', hashB, 'yes');
    assert.match(errorOf(result), /hash does not match/);
    assert.equal(broker.waiting().length, 1);
  });

  it('refuses a second decision for a decided call', async () => {
    const broker = new Broker<Waiting, string>();
    const [wait] = broker.add([item('c1')], { timeoutSeconds: 0 });
    broker.resolveByPerson('c1', hashA, 'deny');
    const again = broker.resolveByPerson('c1', hashA, 'allow');
    assert.match(errorOf(again), /already decided/);
    assert.deepEqual(await wait, { kind: 'person', decision: 'deny' });
  });

  it('times a call out after the configured seconds', async () => {
    const broker = new Broker<Waiting, string>();
    const [wait] = broker.add([item('c1')], { timeoutSeconds: 0.02 });
    const resolution: Resolution<string> | undefined = await wait;
    assert.deepEqual(resolution, { kind: 'timeout', afterSeconds: 0.02 });
    assert.equal(broker.waiting().length, 0);
    assert.equal(broker.resolveByPerson('c1', hashA, 'yes').ok, false, 'a timed-out call cannot be approved later');
  });

  it('waits for ever when the timeout is 0', async () => {
    const broker = new Broker<Waiting, string>();
    const [wait] = broker.add([item('c1')], { timeoutSeconds: 0 });
    const raced = await Promise.race([wait, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 50))]);
    assert.equal(raced, 'still waiting');
    broker.cancel('done');
  });

  it('cancels the waiting calls of a batch when its signal aborts', async () => {
    const broker = new Broker<Waiting, string>();
    const controller = new AbortController();
    const waits = broker.add([item('c1'), item('c2')], { timeoutSeconds: 0, signal: controller.signal });
    controller.abort();
    assert.deepEqual((await Promise.all(waits)).map((r) => r.kind), ['cancel', 'cancel']);
    assert.equal(broker.waiting().length, 0);
  });

  it('cancels at once when the signal was already aborted', async () => {
    const broker = new Broker<Waiting, string>();
    const controller = new AbortController();
    controller.abort();
    const waits = broker.add([item('c1')], { timeoutSeconds: 0, signal: controller.signal });
    assert.deepEqual((await Promise.all(waits)).map((r) => r.kind), ['cancel']);
  });

  it('cancels only the matching calls', async () => {
    const broker = new Broker<Waiting, string>();
    const waits = broker.add([item('c1', hashA, 'x'), item('c2', hashA, 'y')], { timeoutSeconds: 0 });
    assert.equal(broker.cancel('x stopped', (w) => w.chatId === 'x'), 1);
    assert.deepEqual(broker.waiting().map((w) => w.callId), ['c2']);
    broker.resolveByPerson('c2', hashA, 'ok');
    assert.deepEqual((await Promise.all(waits)).map((r) => r.kind), ['cancel', 'person']);
  });

  it('tells listeners when the waiting set changes', () => {
    const broker = new Broker<Waiting, string>();
    let changes = 0;
    broker.onDidChange(() => changes++);
    void broker.add([item('c1')], { timeoutSeconds: 0 });
    broker.resolveByPerson('c1', hashA, 'ok');
    assert.equal(changes, 2);
  });
});
