import * as assert from 'node:assert/strict';
import { parseChatDecision } from '../../src/core/agent/chatDecisions';

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
