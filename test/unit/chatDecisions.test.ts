import * as assert from 'node:assert/strict';
import { parseChatDecision, planChatDecision, planQuestionAnswer, type WaitingInChat } from '../../src/core/agent/chatDecisions';

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

describe('what typed text answers to a waiting question', () => {
  const choose = { options: ['Keep the old API', 'Rename it', 'Ask me later'], allowFreeText: false };
  const free = { options: ['Yes', 'No'], allowFreeText: true };
  const rows: [string, typeof choose, string | RegExp][] = [
    ['rename it', choose, 'Rename it'],
    ['Rename it.', choose, 'Rename it'],
    ['2', choose, 'Rename it'],
    ['#3', choose, 'Ask me later'],
    ['option 1', choose, 'Keep the old API'],
    ['keep', choose, 'Keep the old API'],
    ['later', choose, 'Ask me later'],
    ['it', choose, /^The agent asks you to choose: 1: Keep the old API; 2: Rename it; 3: Ask me later\./],
    ['4', choose, /choose/],
    ['something else entirely', choose, /choose/],
    ['yes', free, 'Yes'],
    ['2', free, 'No'],
    ['no, use tabs instead', free, 'no, use tabs instead'],
    ['   ', free, /choose/],
  ];
  for (const [typed, question, expected] of rows) {
    it(`${JSON.stringify(typed)} with ${question.allowFreeText ? 'free text' : 'options only'}`, () => {
      const plan = planQuestionAnswer(typed, question);
      if (typeof expected === 'string') {
        assert.deepEqual(plan, { kind: 'answer', answer: expected });
      } else {
        assert.equal(plan.kind, 'notice');
        assert.match(plan.text, expected);
      }
    });
  }
});
