import * as assert from 'node:assert/strict';
import { describeWaiting, shortCounts, type WaitingCounts } from '../../src/core/views/waitAttention';

describe('what the status bar and the badge say waits', () => {
  const rows: { counts: WaitingCounts; words: string; short: string }[] = [
    { counts: { calls: 1, questions: 0 }, words: 'Toolgate: 1 call waiting for approval', short: '1 waiting' },
    { counts: { calls: 3, questions: 0 }, words: 'Toolgate: 3 calls waiting for approval', short: '3 waiting' },
    { counts: { calls: 0, questions: 1 }, words: 'Toolgate: 1 question from the agent', short: '1 question' },
    { counts: { calls: 2, questions: 2 }, words: 'Toolgate: 2 calls waiting for approval and 2 questions from the agent', short: '2 waiting, 2 questions' },
  ];
  for (const row of rows) {
    it(`${row.counts.calls} call(s), ${row.counts.questions} question(s)`, () => {
      assert.equal(describeWaiting(row.counts), row.words);
      assert.equal(shortCounts(row.counts), row.short);
    });
  }
});
