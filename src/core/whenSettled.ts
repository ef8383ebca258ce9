/**
 * Waiting for a state another party changes, by its change events rather than by asking again on a timer: `settled()`
 * says the answer once there is one (undefined until then), asked now and after every change `onChange` reports; the
 * wait gives up with `fallback` after `timeoutMs`. The listener and the timer are gone once it has answered.
 */
import type { Disposable } from './disposable';

export function whenSettled<T>(onChange: (listener: () => void) => Disposable, settled: () => T | undefined, timeoutMs: number, fallback: T): Promise<T> {
  const now = settled();
  if (now !== undefined) {
    return Promise.resolve(now);
  }
  return new Promise((resolve) => {
    const finish = (value: T): void => {
      listener.dispose();
      clearTimeout(timer);
      resolve(value);
    };
    const listener = onChange(() => {
      const answer = settled();
      if (answer !== undefined) {
        finish(answer);
      }
    });
    const timer = setTimeout(() => finish(fallback), timeoutMs);
  });
}
