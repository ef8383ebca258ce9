/**
 * When a failed model request is tried again, and after how long: the rules the openai package applies (408, 409,
 * 429 and 5xx, connection failures, the endpoint's `x-should-retry`, `retry-after-ms` / `retry-after`), made ours so
 * that the chat can say that it waits and count the wait down instead of going quiet. The package's own retries are
 * off (it reports none of them).
 */

export interface FailedAttempt {
  /** The HTTP status, when the endpoint answered. */
  status: number | undefined;
  headers: Headers | undefined;
  /** No answer: the connection failed or timed out. */
  connection: boolean;
}

/** The longest wait an endpoint's Retry-After is followed for; past it the person decides (Retry). */
export const maxRetryWaitMs = 60_000;
const baseBackoffMs = 500;
const maxBackoffMs = 8_000;

function retryAfterMs(headers: Headers | undefined, now: number): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms)) {
    return ms;
  }
  const value = headers?.get('retry-after');
  if (value === null || value === undefined || value.trim() === '') {
    return undefined;
  }
  const seconds = Number(value);
  if (Number.isFinite(seconds)) {
    return seconds * 1000;
  }
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : date - now;
}

/** The wait before attempt `attempt + 1` (attempt: 0-based, of the one that failed), or undefined: do not retry. */
export function retryDelayMs(failed: FailedAttempt, attempt: number, now = Date.now()): number | undefined {
  const should = failed.headers?.get('x-should-retry');
  if (should === 'false') {
    return undefined;
  }
  const status = failed.status;
  const retryable = should === 'true' || failed.connection || status === 408 || status === 409 || status === 429 || (status !== undefined && status >= 500);
  if (!retryable) {
    return undefined;
  }
  const asked = retryAfterMs(failed.headers, now);
  if (asked !== undefined && asked >= 0) {
    return asked <= maxRetryWaitMs ? Math.round(asked) : undefined;
  }
  return Math.min(baseBackoffMs * 2 ** attempt, maxBackoffMs);
}

/** Resolves after `ms`, or at once when `signal` aborts (the caller checks it). */
export function waitFor(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
