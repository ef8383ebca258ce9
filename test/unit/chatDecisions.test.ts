import * as assert from 'node:assert/strict';
import { decideFromChat, parseChatDecision, planChatDecision, type ChatDecisionPorts, type WaitingInChat } from '../../src/core/agent/chatDecisions';
import type { GateInput } from '../../src/core/approval/gate';

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

describe('what is typed in the chat while a task runs: an answer to its question, or a decision on the calls the chat shows', () => {
  const agentCall = (id: string, path: string): { callId: string; input: GateInput } => ({
    callId: id,
    input: { source: 'agent', call: { tool: 'write_file', args: { path }, argsHash: `h-${id}` }, preview: { kind: 'diff', path, isNewFile: true, added: 1, removed: 0, hunks: [] } },
  });
  const apiCall: { callId: string; input: GateInput } = {
    callId: 'api1',
    input: { source: 'api', call: { tool: 'run_in_terminal', args: {}, argsHash: 'h-api1' }, preview: { kind: 'command', command: 'ls', cwd: '/ws', analysis: [] } },
  };
  const rows: { name: string; typed: string; waiting: { callId: string; input: GateInput }[]; question?: boolean; refuse?: boolean; did: string[] }[] = [
    { name: 'a question waits alone: the text answers it', typed: '2', waiting: [], question: true, did: ['answer 2'] },
    { name: 'a question and a call wait: "yes" decides the call', typed: 'yes', waiting: [agentCall('c1', 'a.txt')], question: true, did: ['settle c1 h-c1 allow-once'] },
    { name: 'a question and a call wait: other text answers the question', typed: 'rename it', waiting: [agentCall('c1', 'a.txt')], question: true, did: ['answer rename it'] },
    { name: 'one call waits: "no, because …" denies it with the reason', typed: 'no, because wrong file', waiting: [agentCall('c1', 'a.txt')], did: ['settle c1 h-c1 deny wrong file'] },
    { name: 'two calls wait: "yes all" allows both', typed: 'yes all', waiting: [agentCall('c1', 'a.txt'), agentCall('c2', 'b.txt')], did: ['settle c1 h-c1 allow-once', 'settle c2 h-c2 allow-once'] },
    {
      name: 'two calls wait: a plain "yes" asks which',
      typed: 'yes',
      waiting: [agentCall('c1', 'a.txt'), agentCall('c2', 'b.txt')],
      did: ['info: Which call? 1: write_file a.txt; 2: write_file b.txt. Say "yes 1", "no 2 because …" or "yes all".'],
    },
    { name: "another caller's call is not the chat's to decide", typed: 'yes', waiting: [apiCall], did: ['info: A task is running; wait for it or press Stop before giving a new one.'] },
    { name: 'the gate refuses the decision: the chat says why', typed: 'yes', waiting: [agentCall('c1', 'a.txt')], refuse: true, did: ['settle c1 h-c1 allow-once', 'error: call c1 is not waiting'] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const did: string[] = [];
      const pushed: string[] = [];
      const ports: ChatDecisionPorts = {
        gate: {
          waitingCalls: () => row.waiting,
          settle: (ref, choice) => {
            did.push(`settle ${ref.callId} ${ref.argsHash} ${choice.action}${choice.reason !== undefined ? ` ${choice.reason}` : ''}`);
            return row.refuse === true ? { ok: false, error: `call ${ref.callId} is not waiting` } : { ok: true };
          },
        },
        chats: {
          push: (entry) => {
            pushed.push(entry.kind === 'user' ? entry.text : entry.kind);
            return entry;
          },
          notice: (text, level) => did.push(level === 'error' ? `error: ${text}` : `info: ${text}`),
        },
        questions: { size: row.question === true ? 1 : 0, answerTyped: (text) => did.push(`answer ${text}`) },
      };
      decideFromChat(row.typed, ports);
      assert.deepEqual(pushed, [row.typed], 'what was typed shows in the chat as the person said it');
      assert.deepEqual(did, row.did);
    });
  }
});
