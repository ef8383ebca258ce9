/** whenSettled: an answer now, after the change that brings it, or the fallback when none comes in time; nothing left listening. */
import * as assert from 'node:assert/strict';
import { Emitter } from '../../src/core/disposable';
import { whenSettled } from '../../src/core/whenSettled';

describe('whenSettled: waits for a change, not on a timer', () => {
  // `states`: what settled() says at each question; `changes`: how many are fired after the first question.
  const cases: { name: string; states: (string | undefined)[]; changes: number; timeoutMs: number; answer: string; asked: number }[] = [
    { name: 'settled already: answers at once, without listening', states: ['now'], changes: 2, timeoutMs: 10_000, answer: 'now', asked: 1 },
    { name: 'settled by the first change; later changes ask nothing', states: [undefined, 'changed'], changes: 3, timeoutMs: 10_000, answer: 'changed', asked: 2 },
    { name: 'a change that settles nothing, then one that does', states: [undefined, undefined, 'second'], changes: 3, timeoutMs: 10_000, answer: 'second', asked: 3 },
    { name: 'no change comes in time: the fallback', states: [undefined], changes: 0, timeoutMs: 5, answer: 'fallback', asked: 1 },
  ];
  for (const { name, states, changes: fired, timeoutMs, answer, asked } of cases) {
    it(name, async () => {
      const changes = new Emitter<void>();
      let listening = 0;
      const onChange = (listener: () => void) => {
        listening++;
        const subscription = changes.event(listener);
        return {
          dispose: () => {
            listening--;
            subscription.dispose();
          },
        };
      };
      let calls = 0;
      const settled = (): string | undefined => states[Math.min(calls++, states.length - 1)];
      const waiting = whenSettled(onChange, settled, timeoutMs, 'fallback');
      for (let change = 0; change < fired; change++) {
        changes.fire();
      }
      assert.equal(await waiting, answer);
      assert.equal(calls, asked, 'asked now and once per change heard');
      assert.equal(listening, 0, 'nothing is left listening');
    });
  }
});
