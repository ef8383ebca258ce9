import * as assert from 'node:assert/strict';
import { parseChatDecision, planChatDecision, type WaitingInChat } from '../../src/core/agent/chatDecisions';

describe('decisions typed in the chat', () => {
  const cases: [string, ReturnType<typeof parseChatDecision>][] = [
    ['yes', { kind: 'decide', allow: true, target: 'only' }],
    ['Approve.', { kind: 'decide', allow: true, target: 'only' }],
    ['ok', { kind: 'decide', allow: true, target: 'only' }],
    ['yes 2', { kind: 'decide', allow: true, target: 2 }],
    ['yes to all', { kind: 'decide', allow: true, target: 'all' }],
    ['no', { kind: 'decide', allow: false, target: 'only' }],
    ['deny, because it should go in docs/', { kind: 'decide', allow: false, target: 'only', reason: 'it should go in docs/' }],
    ['No: use pnpm instead', { kind: 'decide', allow: false, target: 'only', reason: 'use pnpm instead' }],
    ['no #1 because wrong file', { kind: 'decide', allow: false, target: 1, reason: 'wrong file' }],
    ['no all', { kind: 'decide', allow: false, target: 'all' }],
    ['yes but rename it first', { kind: 'none' }],
    ['notes please', { kind: 'none' }],
    ['yesterday it worked', { kind: 'none' }],
    ['what does this do?', { kind: 'none' }],
  ];
  for (const [input, expected] of cases) {
    it(`reads ${JSON.stringify(input)}`, () => {
      assert.deepEqual(parseChatDecision(input), expected);
    });
  }
});

describe('which waiting calls a typed decision settles', () => {
  const waiting = (count: number): WaitingInChat[] =>
    Array.from({ length: count }, (_, index) => ({
      callId: `c${index + 1}`,
      argsHash: 'h'.repeat(64),
      tool: index % 2 === 0 ? 'write_file' : 'run_in_terminal',
      preview: index % 2 === 0 ? { kind: 'diff', path: `f${index + 1}.txt`, isNewFile: true, added: 1, removed: 0, hunks: [] } : { kind: 'command', command: 'npm test', cwd: '/ws', analysis: [] },
    }));
  const rows: [string, number, { settle: string[]; allow?: boolean; reason?: string } | RegExp][] = [
    ['yes', 0, /^A task is running; wait for it or press Stop/],
    ['yes', 1, { settle: ['c1'], allow: true }],
    ['no because wrong file', 1, { settle: ['c1'], allow: false, reason: 'wrong file' }],
    ['yes', 2, /^Which call\? 1: write_file f1\.txt; 2: run_in_terminal npm test\. Say "yes 1"/],
    ['yes all', 2, { settle: ['c1', 'c2'], allow: true }],
    ['no 2 because flaky', 2, { settle: ['c2'], allow: false, reason: 'flaky' }],
    ['yes 3', 2, /^There is no call 3; 2 wait\.$/],
    ['tell me more', 1, /^1 call waits: answer "yes" or "no, because …"/],
    ['tell me more', 3, /^3 calls wait: /],
  ];
  for (const [typed, count, expected] of rows) {
    it(`${JSON.stringify(typed)} with ${count} waiting`, () => {
      const plan = planChatDecision(typed, waiting(count));
      if (expected instanceof RegExp) {
        assert.ok(plan.kind === 'notice');
        assert.match(plan.text, expected);
        return;
      }
      assert.ok(plan.kind === 'settle');
      assert.deepEqual(plan.targets.map((call) => call.callId), expected.settle);
      assert.equal(plan.allow, expected.allow);
      assert.equal(plan.reason, expected.reason);
    });
  }
});
