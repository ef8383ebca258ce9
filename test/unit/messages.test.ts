import * as assert from 'node:assert/strict';
import { HostToWebview, WebviewToHost, describeIssues } from '../../src/shared/messages';

describe('the host <-> webview contract', () => {
  const valid: unknown[] = [
    { type: 'ready', requestId: 'approvals-1', view: 'approvals' },
    { type: 'ready', requestId: 'c_2-x', view: 'chat' },
    { type: 'command', requestId: 'r1', command: 'openApprovals' },
  ];
  for (const message of valid) {
    it(`accepts ${JSON.stringify(message)}`, () => {
      assert.equal(WebviewToHost.safeParse(message).success, true);
    });
  }

  const invalid: [string, unknown][] = [
    ['a string', 'ready'],
    ['null', null],
    ['an unknown type', { type: 'grant-everything', requestId: 'r', view: 'chat' }],
    ['a known type without its fields', { type: 'decide', callId: 'x', argsHash: 'y' }],
    ['a request id with spaces', { type: 'ready', requestId: 'a b', view: 'chat' }],
    ['an empty request id', { type: 'ready', requestId: '', view: 'chat' }],
    ['an overlong request id', { type: 'ready', requestId: 'x'.repeat(65), view: 'chat' }],
    ['an unknown view', { type: 'ready', requestId: 'r', view: 'terminal' }],
    ['an extra field', { type: 'ready', requestId: 'r', view: 'chat', grant: 'workspace' }],
    ['a command outside the contract', { type: 'command', requestId: 'r', command: 'workbench.action.terminal.new' }],
    ['a prototype-polluting key', JSON.parse('{"type":"ready","requestId":"r","view":"chat","__proto__":{"x":1}}')],
  ];
  for (const [label, message] of invalid) {
    it(`rejects ${label}`, () => {
      assert.equal(WebviewToHost.safeParse(message).success, false);
    });
  }

  it('describes why a message failed, on one line', () => {
    const result = WebviewToHost.safeParse({ type: 'ready', requestId: 'a b', view: 'chat' });
    assert.ok(result.error, 'the message should have failed');
    const text = describeIssues(result.error);
    assert.match(text, /^requestId: /);
    assert.doesNotMatch(text, /\n/);
  });

  it('checks what the host sends as well', () => {
    assert.equal(
      HostToWebview.safeParse({
        type: 'init',
        requestId: 'r',
        sentAt: 1,
        state: { view: 'approvals', waitingCalls: 0, trusted: true, pending: [], grants: [] },
      }).success,
      true,
    );
    assert.equal(
      HostToWebview.safeParse({ type: 'state', sentAt: 1, state: { view: 'approvals', waitingCalls: -1, trusted: true, pending: [], grants: [] } }).success,
      false,
    );
  });
});
