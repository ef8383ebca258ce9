import * as assert from 'node:assert/strict';
import { ChatState, HostToWebview, WebviewToHost, describeIssues, inboundTypes, type ViewKind } from '../../src/shared/messages';
import { DiffHunkView, DiffRow, isDiffRow } from '../../src/shared/approvals';

describe('the host <-> webview contract', () => {
  const valid: unknown[] = [
    { type: 'ready', requestId: 'approvals-1', view: 'approvals' },
    { type: 'ready', requestId: 'c_2-x', view: 'chat' },
    { type: 'command', requestId: 'r1', command: 'openApprovals' },
    { type: 'retry', requestId: 'chat-3' },
    { type: 'focusCall', requestId: 'r2', callId: 'call-1' },
    { type: 'focusCall', requestId: 'r3', callId: null },
    { type: 'dropped', requestId: 'r4', reason: 'other-frame', count: 3 },
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
    ['a retry with extra history', { type: 'retry', requestId: 'r', messages: [] }],
    ['a focus report without a call field', { type: 'focusCall', requestId: 'r' }],
    ['a focus report with a malformed call id', { type: 'focusCall', requestId: 'r', callId: 'a b' }],
    ['a drop report of no message', { type: 'dropped', requestId: 'r', reason: 'own-frame', count: 0 }],
    ['a drop report for a reason outside the contract', { type: 'dropped', requestId: 'r', reason: 'trusted-frame', count: 1 }],
    ['a prototype-polluting key', JSON.parse('{"type":"ready","requestId":"r","view":"chat","__proto__":{"x":1}}')],
  ];
  for (const [label, message] of invalid) {
    it(`rejects ${label}`, () => {
      assert.equal(WebviewToHost.safeParse(message).success, false);
    });
  }

  // Every kind the host posts parses (a schema that cannot be built, such as two variants with one type, fails here).
  const fromHost: [string, unknown, boolean][] = [
    ['focus the prompt', { type: 'focus', field: 'prompt' }, true],
    ["bring a call's card into view, focused", { type: 'focusCard', callId: 'c-1' }, true],
    ['a focus of a malformed call id', { type: 'focusCard', callId: 'a b' }, false],
    ['an announcement for a screen reader', { type: 'announce', text: 'Toolgate: allowed once: write_file a.txt' }, true],
    ['an overlong announcement', { type: 'announce', text: 'x'.repeat(501) }, false],
    ['a result', { type: 'result', requestId: 'r1', ok: false, error: 'no' }, true],
  ];
  for (const [label, message, ok] of fromHost) {
    it(`from the host: ${ok ? 'accepts' : 'rejects'} ${label}`, () => {
      assert.equal(HostToWebview.safeParse(message).success, ok);
    });
  }

  it('a setEdit of a waiting call: text, or null to undo it; nothing else', () => {
    const edit = { type: 'setEdit', requestId: 'r', callId: 'c-1', argsHash: 'a'.repeat(64) };
    assert.equal(WebviewToHost.safeParse({ ...edit, text: 'mine' }).success, true);
    assert.equal(WebviewToHost.safeParse({ ...edit, text: null }).success, true);
    assert.equal(WebviewToHost.safeParse(edit).success, false, 'no text field');
    assert.equal(WebviewToHost.safeParse({ ...edit, text: 'mine', where: 'diff-editor' }).success, false, 'where is the host\'s to say');
  });

  describe('a hunk choice (chooseHunk)', () => {
    const choose = (extra: Record<string, unknown>): Record<string, unknown> => ({
      type: 'chooseHunk',
      requestId: 'chat-3',
      callId: 'c1',
      argsHash: 'a'.repeat(64),
      index: 2,
      choice: 'reject',
      ...extra,
    });
    const rows: [string, Record<string, unknown>, boolean][] = [
      ['valid: a reject with a reason', choose({ reason: 'keep the old name' }), true],
      ['valid: an accept without a reason', choose({ choice: 'accept' }), true],
      ['valid: an empty reason (the box was cleared)', choose({ reason: '' }), true],
      ['a choice that is not accept or reject', choose({ choice: 'allow' }), false],
      ['a negative index', choose({ index: -1 }), false],
      ['a fractional index', choose({ index: 1.5 }), false],
      ['an index past 10,000', choose({ index: 10_001 }), false],
      ['a too long reason', choose({ reason: 'x'.repeat(4001) }), false],
      ['a hash that is not a SHA-256', choose({ argsHash: 'abc' }), false],
      ['an extra field (the hunk\'s text)', choose({ text: 'rewrite' }), false],
    ];
    for (const [label, message, ok] of rows) {
      it(`${ok ? 'accepts' : 'rejects'} ${label}`, () => {
        const result = WebviewToHost.safeParse(message);
        assert.equal(result.success, ok, result.error ? describeIssues(result.error) : 'parsed');
      });
    }
    it('is sent by both views', () => {
      for (const view of ['chat', 'approvals'] as const) {
        assert.ok((inboundTypes[view] as readonly string[]).includes('chooseHunk'), view);
      }
    });
  });

  describe('the model setup form (modelSetup)', () => {
    const setup = (extra: Record<string, unknown>): Record<string, unknown> => ({
      type: 'modelSetup',
      requestId: 'chat-9',
      action: 'test',
      provider: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-4.1-mini',
      ...extra,
    });
    // The values are as typed (the host checks them and says what is wrong in the form), but bounded and shaped.
    const rows: [string, Record<string, unknown>, boolean][] = [
      ['valid: a test', setup({}), true],
      ['valid: an address still being typed', setup({ action: 'models', baseUrl: 'http://127.0' }), true],
      ['valid: VS Code models, no address', setup({ provider: 'vscode-lm', baseUrl: '' }), true],
      ['an unknown action', setup({ action: 'delete' }), false],
      ['an unknown provider', setup({ provider: 'anthropic-direct' }), false],
      ['a key in the message (keys go through the password box only)', setup({ apiKey: 'sk-1' }), false],
      ['an address past 2048 characters', setup({ baseUrl: `https://x/${'a'.repeat(2048)}` }), false],
      ['a model past 256 characters', setup({ model: 'm'.repeat(257) }), false],
    ];
    for (const [label, message, ok] of rows) {
      it(`${ok ? 'accepts' : 'rejects'} ${label}`, () => {
        const result = WebviewToHost.safeParse(message);
        assert.equal(result.success, ok, result.error ? describeIssues(result.error) : 'parsed');
      });
    }
  });

  describe('a remedy chosen on decide', () => {
    const decide = (extra: Record<string, unknown>): Record<string, unknown> => ({ type: 'decide', requestId: 'approvals-1', callId: 'c1', argsHash: 'a'.repeat(64), ...extra });
    const rows: [string, Record<string, unknown>, boolean][] = [
      ['valid: allow-remedy naming its remedy', decide({ action: 'allow-remedy', remedy: 'allow-hosts' }), true],
      ['allow-remedy without a remedy', decide({ action: 'allow-remedy' }), false],
      ['a remedy with another action', decide({ action: 'allow-once', remedy: 'allow-hosts' }), false],
      ['a remedy id that is not one (spaces, capitals)', decide({ action: 'allow-remedy', remedy: 'Allow Everything' }), false],
      ['a remedy id too long', decide({ action: 'allow-remedy', remedy: 'x'.repeat(41) }), false],
    ];
    for (const [label, message, ok] of rows) {
      it(`${ok ? 'accepts' : 'rejects'} ${label}`, () => {
        const result = WebviewToHost.safeParse(message);
        assert.equal(result.success, ok, result.error ? describeIssues(result.error) : 'parsed');
      });
    }
  });

  describe('per-hunk decisions on decide', () => {
    const decide = (extra: Record<string, unknown>): Record<string, unknown> => ({
      type: 'decide',
      requestId: 'approvals-1',
      callId: 'c1',
      argsHash: 'a'.repeat(64),
      action: 'allow-once',
      ...extra,
    });
    const rows: [string, Record<string, unknown>, boolean][] = [
      ['valid: one hunk rejected with a reason, one accepted', decide({ hunks: [{ index: 1, accepted: false, reason: 'keep the old name' }, { index: 0, accepted: true }] }), true],
      ['valid: no hunks (the whole change, as before)', decide({}), true],
      ['valid: an empty list', decide({ hunks: [] }), true],
      ['valid: a reason of exactly 4000 characters', decide({ hunks: [{ index: 0, accepted: false, reason: 'x'.repeat(4000) }] }), true],
      ['a duplicate index', decide({ hunks: [{ index: 2, accepted: true }, { index: 2, accepted: false }] }), false],
      ['a wrong action (deny)', decide({ action: 'deny', hunks: [{ index: 0, accepted: false }] }), false],
      ['a wrong action (allow-session)', decide({ action: 'allow-session', hunks: [{ index: 0, accepted: true }] }), false],
      ['a wrong action (allow-edited)', decide({ action: 'allow-edited', edited: 'x', hunks: [{ index: 0, accepted: false }] }), false],
      ['a negative index', decide({ hunks: [{ index: -1, accepted: false }] }), false],
      ['a fractional index', decide({ hunks: [{ index: 0.5, accepted: false }] }), false],
      ['a too long reason', decide({ hunks: [{ index: 0, accepted: false, reason: 'x'.repeat(4001) }] }), false],
      ['an extra field in a hunk', decide({ hunks: [{ index: 0, accepted: false, text: 'rewrite' }] }), false],
      ['accepted missing', decide({ hunks: [{ index: 0 }] }), false],
      ['more than 10,000 hunks', decide({ hunks: Array.from({ length: 10_001 }, (_, index) => ({ index, accepted: true })) }), false],
    ];
    for (const [label, message, ok] of rows) {
      it(`${ok ? 'accepts' : 'rejects'} ${label}`, () => {
        const result = WebviewToHost.safeParse(message);
        assert.equal(result.success, ok, result.error ? describeIssues(result.error) : 'parsed');
      });
    }

    it('says which hunk is listed twice, and that hunks need allow-once', () => {
      const twice = WebviewToHost.safeParse(decide({ hunks: [{ index: 2, accepted: true }, { index: 2, accepted: false }] }));
      assert.ok(twice.error);
      assert.match(describeIssues(twice.error), /^hunks\.1\.index: hunk 2 is listed twice$/);
      const wrong = WebviewToHost.safeParse(decide({ action: 'deny', hunks: [] }));
      assert.ok(wrong.error);
      assert.match(describeIssues(wrong.error), /^hunks: hunk decisions go only with allow-once, not deny$/);
    });
  });

  describe('inline decisions in the chat', () => {
    const hash = 'b'.repeat(64);
    const pendingCall = {
      callId: 'call-1',
      batchId: 'batch-1',
      tool: 'write_file',
      source: 'agent',
      callerLabel: "Toolgate's agent",
      reason: 'asks: write_file is gated',
      warnings: [],
      argsHash: hash,
      argsJson: '{"path":"hello.txt","content":"hi"}',
      preview: { kind: 'diff', path: 'hello.txt', isNewFile: true, added: 1, removed: 0, hunks: [{ header: '@@ -0,0 +1 @@', rows: [['a', null, 1, 'hi']] }] },
      grantable: true,
      grantsOffered: ['allow-session', 'allow-task', 'allow-minutes', 'allow-workspace'],
      grantOptions: [{ id: 'exact', label: 'this exact call' }],
      waitingSince: '2026-11-22T22:00:00.000Z',
    };
    const chatState = (extra: Record<string, unknown>): Record<string, unknown> => ({
      view: 'chat',
      model: { baseUrl: 'http://127.0.0.1:1/v1', name: 'm', provider: 'openai' },
      waitingCalls: 1,
      trusted: true,
      chatId: 'chat-1',
      running: true,
      entries: [],
      chats: [],
      pending: [pendingCall],
      setup: {},
      turns: [],
      ...extra,
    });
    const stateRows: [string, Record<string, unknown>, boolean][] = [
      ['valid: one waiting call with its diff', chatState({}), true],
      ['valid: nothing waiting', chatState({ pending: [] }), true],
      ['valid: a command with its analysis, not grantable', chatState({ pending: [{ ...pendingCall, grantable: false, grantsOffered: [], grantOptions: [], preview: { kind: 'command', command: 'rm -rf build', cwd: '/w', analysis: [{ text: 'rm deletes', verdict: 'ask' }] } }] }), true],
      ['pending missing', chatState({ pending: undefined }), false],
      ['valid: the setup with a key, models, a test and a save', chatState({ setup: { keyFor: 'https://api.openai.com', models: { baseUrl: 'https://api.openai.com/v1', status: 'loaded', ids: ['gpt-4.1'] }, test: { id: 1, baseUrl: 'x', model: 'm', running: false, checks: [{ kind: 'key', result: 'pass', text: 'ok' }] }, saved: { ok: true, text: 'Saved' } } }), true],
      ['the setup missing', chatState({ setup: undefined }), false],
      ['the setup carrying a key (no such field)', chatState({ setup: { key: 'sk-secret' } }), false],
      ['a check of an unknown kind', chatState({ setup: { test: { id: 2, baseUrl: 'x', model: 'm', running: false, checks: [{ kind: 'money', result: 'pass', text: '' }] } } }), false],
      ['a waiting call without its args hash', chatState({ pending: [{ ...pendingCall, argsHash: undefined }] }), false],
      ['a waiting call with a malformed args hash', chatState({ pending: [{ ...pendingCall, argsHash: 'xyz' }] }), false],
      ['a waiting call id with spaces', chatState({ pending: [{ ...pendingCall, callId: 'a b' }] }), false],
      ['an extra field on a waiting call', chatState({ pending: [{ ...pendingCall, decided: true }] }), false],
    ];
    for (const [label, state, ok] of stateRows) {
      it(`chat state: ${ok ? 'accepts' : 'rejects'} ${label}`, () => {
        const result = ChatState.safeParse(state);
        assert.equal(result.success, ok, result.error ? describeIssues(result.error) : 'parsed');
      });
    }

    const mayDecide: [ViewKind, string, boolean][] = [
      ['chat', 'decide', true],
      ['chat', 'openDiff', true],
      // Allow all / Deny all of the cards the chat shows (the host refuses another chat's calls).
      ['chat', 'decideAll', true],
      // The grant an auto-approved call names, from its entry in the transcript.
      ['chat', 'revokeGrant', true],
      ['chat', 'setDiffMode', false],
      ['approvals', 'setDiffMode', true],
      ['approvals', 'decide', true],
      ['approvals', 'submit', false],
      ['chat', 'focusCall', true],
      ['approvals', 'focusCall', true],
      ['chat', 'retry', true],
      ['approvals', 'retry', false],
      // The model setup lives in the chat only.
      ['chat', 'modelSetup', true],
      ['approvals', 'modelSetup', false],
      ['suggestions', 'modelSetup', false],
      // Every view reports what other frames posted into it.
      ['chat', 'dropped', true],
      ['approvals', 'dropped', true],
      ['suggestions', 'dropped', true],
    ];
    for (const [view, type, ok] of mayDecide) {
      it(`the ${view} view ${ok ? 'may' : 'may not'} send '${type}'`, () => {
        assert.equal((inboundTypes[view] as readonly string[]).includes(type), ok);
      });
    }

    const decideRows: [string, Record<string, unknown>, boolean][] = [
      ['allow once from a chat card', { action: 'allow-once' }, true],
      ['allow for the session with a grant option', { action: 'allow-session', grantOption: 'exact' }, true],
      ['always allow in the workspace', { action: 'allow-workspace', grantOption: 'exact' }, true],
      ['deny with the reason typed in the card', { action: 'deny', reason: 'not in this repo' }, true],
      ['an action outside the contract', { action: 'allow-forever' }, false],
      ['a reason over 4000 characters', { action: 'deny', reason: 'x'.repeat(4001) }, false],
    ];
    for (const [label, extra, ok] of decideRows) {
      it(`a chat decide: ${ok ? 'accepts' : 'rejects'} ${label}`, () => {
        const result = WebviewToHost.safeParse({ type: 'decide', requestId: 'chat-m1-0', callId: 'call-1', argsHash: hash, ...extra });
        assert.equal(result.success, ok, result.error ? describeIssues(result.error) : 'parsed');
      });
    }
  });

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

describe('diff rows: checked by hand, exactly as the DiffRow schema checks them', () => {
  const rows: [string, unknown][] = [
    ['a context row', ['c', 1, 1, 'x']],
    ['an added row', ['a', null, 3, '']],
    ['a removed row', ['d', 2, null, 'y']],
    ['an unknown kind', ['x', 1, 1, 'x']],
    ['a fractional line number', ['c', 1.5, 1, 'x']],
    ['a line number given as text', ['c', '1', 1, 'x']],
    ['no text', ['c', 1, 1]],
    ['a fifth item', ['c', 1, 1, 'x', 'y']],
    ['text that is a number', ['a', null, 1, 5]],
    ['an object, not a row', { 0: 'c', 1: 1, 2: 1, 3: 'x', length: 4 }],
    ['undefined for a line number', ['c', undefined, 1, 'x']],
  ];
  for (const [name, row] of rows) {
    it(`${name}: ${DiffRow.safeParse(row).success ? 'accepted' : 'refused'} by both`, () => {
      assert.equal(isDiffRow(row), DiffRow.safeParse(row).success);
      assert.equal(DiffHunkView.safeParse({ header: '@@', rows: [['c', 1, 1, 'ok'], row] }).success, DiffRow.safeParse(row).success);
    });
  }
});
