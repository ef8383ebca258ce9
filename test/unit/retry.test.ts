import * as assert from 'node:assert/strict';
import { retryDelayMs, type FailedAttempt } from '../../src/core/llm/retry';

describe('when a failed model request is tried again', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  const answered = (status: number, headers: Record<string, string> = {}): FailedAttempt => ({ status, headers: new Headers(headers), connection: false });
  const rows: [string, FailedAttempt, number, number | undefined][] = [
    ['503, first retry: backoff 0.5 s', answered(503), 0, 500],
    ['503, second retry: 1 s', answered(503), 1, 1000],
    ['500 after many: capped at 8 s', answered(500), 10, 8000],
    ['429 with retry-after-ms', answered(429, { 'retry-after-ms': '1234.4' }), 0, 1234],
    ['429 with retry-after seconds', answered(429, { 'retry-after': '7' }), 0, 7000],
    ['429 with retry-after as a date', answered(429, { 'retry-after': new Date(now + 12_000).toUTCString() }), 0, 12_000],
    ['429 asking for more than a minute: not waited for', answered(429, { 'retry-after': '600' }), 0, undefined],
    ['408 and 409 are retried', answered(408), 0, 500],
    ['409', answered(409), 1, 1000],
    ['401 is not', answered(401), 0, undefined],
    ['400 is not', answered(400), 0, undefined],
    ['x-should-retry: false wins over 503', answered(503, { 'x-should-retry': 'false' }), 0, undefined],
    ['x-should-retry: true makes a 400 retried', answered(400, { 'x-should-retry': 'true' }), 0, 500],
    ['a connection failure is retried', { status: undefined, headers: undefined, connection: true }, 2, 2000],
  ];
  for (const [name, failed, attempt, expected] of rows) {
    it(name, () => assert.equal(retryDelayMs(failed, attempt, now), expected));
  }
});
