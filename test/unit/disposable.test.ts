import * as assert from 'node:assert/strict';
import { DisposableStore, Emitter } from '../../src/core/disposable';

describe('DisposableStore', () => {
  it('disposes everything once, newest first', () => {
    const order: string[] = [];
    const store = new DisposableStore();
    store.add({ dispose: () => order.push('a') });
    store.add({ dispose: () => order.push('b') });
    store.dispose();
    store.dispose();
    assert.deepEqual(order, ['b', 'a']);
    assert.equal(store.isDisposed, true);
  });

  it('disposes at once what is added after it was disposed', () => {
    const store = new DisposableStore();
    store.dispose();
    let disposed = false;
    store.add({ dispose: () => (disposed = true) });
    assert.equal(disposed, true);
  });

  it('disposes the rest when one throws, then reports the failure', () => {
    const store = new DisposableStore();
    let second = false;
    store.add({ dispose: () => (second = true) });
    store.add({
      dispose: () => {
        throw new Error('boom');
      },
    });
    assert.throws(() => store.dispose(), /1 disposable\(s\) failed/);
    assert.equal(second, true);
  });
});

describe('Emitter', () => {
  it('delivers to listeners until they are disposed', () => {
    const emitter = new Emitter<number>();
    const seen: number[] = [];
    const subscription = emitter.event((value) => seen.push(value));
    emitter.fire(1);
    subscription.dispose();
    emitter.fire(2);
    assert.deepEqual(seen, [1]);
  });
});
