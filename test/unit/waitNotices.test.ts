import * as assert from 'node:assert/strict';
import { callWaiter, callWaiters, questionWaiter, shouldNotify, waitNotice, WaitNotifier, type Waiter, type Whereabouts } from '../../src/core/views/waitNotices';
import type { PendingCallView } from '../../src/shared/approvals';

const where = (visible: { chat?: boolean; approvals?: boolean } = {}, change: Partial<Whereabouts> = {}): Whereabouts =>
  ({ enabled: true, windowFocused: true, visible: { chat: false, approvals: false, ...visible }, ...change });

describe('shouldNotify: a notification only when the person would not see what waits', () => {
  const agentCall = { shownIn: ['chat', 'approvals'] as const };
  const apiCall = { shownIn: ['approvals'] as const };
  const question = { shownIn: ['chat'] as const };
  const rows: [title: string, waiter: Pick<Waiter, 'shownIn'>, whereabouts: Whereabouts, notify: boolean][] = [
    ["the chat's call, neither view visible, window focused", agentCall, where(), true],
    ["the chat's call, the chat view visible", agentCall, where({ chat: true }), false],
    ["the chat's call, the approvals panel visible", agentCall, where({ approvals: true }), false],
    ["the chat's call, both visible", agentCall, where({ chat: true, approvals: true }), false],
    ["the chat's call, a view visible but the window not focused", agentCall, where({ chat: true }, { windowFocused: false }), true],
    ['an API call, only the chat visible (it shows only in the panel)', apiCall, where({ chat: true }), true],
    ['an API call, the panel visible', apiCall, where({ approvals: true }), false],
    ['a question, only the panel visible (it shows only in the chat)', question, where({ approvals: true }), true],
    ['a question, the chat visible', question, where({ chat: true }), false],
    ['turned off (toolgate.notifications.whenHidden: false)', agentCall, where({}, { enabled: false, windowFocused: false }), false],
  ];
  for (const [title, waiter, whereabouts, notify] of rows) {
    it(`${title}: ${notify ? 'notifies' : 'does not notify'}`, () => {
      assert.equal(shouldNotify(waiter, whereabouts), notify);
    });
  }
});

const call = (callId: string, preview: PendingCallView['preview'], tool = 'write_file'): PendingCallView =>
  ({ callId, tool, argsHash: 'a'.repeat(64), argsJson: '{ "server": "x",\n  "q": 1 }', preview }) as PendingCallView;

describe('waitNotice: what the notification says and offers', () => {
  const rows: [title: string, waiter: Waiter, text: string, actions: string[]][] = [
    ['a write, by its path: no Allow once (a notification shows no diff)', callWaiter(call('c1', { kind: 'diff', path: 'src/a.ts' } as PendingCallView['preview']), true), 'Toolgate: write_file src/a.ts waits for you', ['Deny', 'Open']],
    ['a command, by the command', callWaiter(call('c2', { kind: 'command', command: 'npm test' } as PendingCallView['preview'], 'run_in_terminal'), true), 'Toolgate: run_in_terminal npm test waits for you', ['Allow once', 'Deny', 'Open']],
    [
      'a command that would run without the sandbox: no Allow once (only its card runs it so)',
      callWaiter({ ...call('c4', { kind: 'command', command: 'npm test' } as PendingCallView['preview'], 'run_in_terminal'), unconfined: true }, true),
      'Toolgate: run_in_terminal npm test waits for you',
      ['Deny', 'Open'],
    ],
    ['an MCP call, by its arguments on one line', callWaiter(call('c3', { kind: 'none' }, 'mcp__s__t'), false), 'Toolgate: mcp__s__t { "server": "x", "q": 1 } waits for you', ['Allow once', 'Deny', 'Open']],
    ['a question: Open only', questionWaiter('q1', 'Which file?'), 'Toolgate: ask_user Which file? waits for you', ['Open']],
    ['a long target is shortened', questionWaiter('q2', 'x'.repeat(100)), `Toolgate: ask_user ${'x'.repeat(79)}… waits for you`, ['Open']],
  ];
  for (const [title, waiter, text, actions] of rows) {
    it(title, () => {
      const notice = waitNotice(waiter);
      assert.equal(notice.text, text);
      assert.deepEqual(notice.actions, actions);
    });
  }
});

describe('callWaiters: one notification per batch; a group, a batch of several and a file change offer no Allow', () => {
  it("a lone command is itself (with Allow once); a group names its command and how many files wait; a batch names its calls, and its Deny goes to each", () => {
    const group = { id: 'g1', command: 'npm run format', changed: 12 };
    const member = (callId: string, path: string): PendingCallView => ({ ...call(callId, { kind: 'diff', path } as PendingCallView['preview']), batchId: 'b-group', group });
    const command = (callId: string, batchId: string, line: string): PendingCallView => ({ ...call(callId, { kind: 'command', command: line } as PendingCallView['preview'], 'run_in_terminal'), batchId });
    const waiters = callWaiters(
      [command('c0', 'b0', 'npm test'), member('m1', 'a.ts'), member('m2', 'b.ts'), member('m3', 'c.ts'), command('c1', 'b1', 'ls'), { ...call('c2', { kind: 'diff', path: 'x.ts' } as PendingCallView['preview']), batchId: 'b1' }, command('c3', 'b1', 'pwd')],
      (id) => id !== 'c0',
    );
    assert.deepEqual(waiters.map((waiter) => [waiter.id, waitNotice(waiter).text, waitNotice(waiter).actions, waiter.shownIn, waiter.kind === 'call' ? waiter.refs?.map((ref) => ref.callId) : []]), [
      ['batch:b0', 'Toolgate: run_in_terminal npm test waits for you', ['Allow once', 'Deny', 'Open'], ['approvals'], ['c0']],
      ['group:g1', 'Toolgate: `npm run format` changed 12 files: 3 of them wait for you', ['Deny', 'Open'], ['chat', 'approvals'], ['m1']],
      ['batch:b1', 'Toolgate: 3 calls: run_in_terminal ls, write_file x.ts, … wait for you', ['Deny', 'Open'], ['chat', 'approvals'], ['c1', 'c2', 'c3']],
    ]);
  });
});

describe('WaitNotifier: each call or question once, when it starts waiting', () => {
  const a = questionWaiter('a', 'A?');
  const b = questionWaiter('b', 'B?');
  it('in one update, notifies only what the person would not see', () => {
    const hiddenCall = callWaiter(call('c9', { kind: 'none' }), false);
    const notices = new WaitNotifier().update([a, hiddenCall], where({ chat: true }));
    assert.deepEqual(notices.map((notice) => notice.waiter.id), ['c9']);
  });

  it('notifies what is new, not what already waited, and again for an id seen only before it stopped waiting', () => {
    const notifier = new WaitNotifier();
    const ids = (waiting: Waiter[], whereabouts = where()): string[] => notifier.update(waiting, whereabouts).map((notice) => notice.waiter.id);
    assert.deepEqual(ids([a]), ['a']);
    assert.deepEqual(ids([a]), []);
    assert.deepEqual(ids([a, b]), ['b']);
    assert.deepEqual(ids([]), []);
    assert.deepEqual(ids([a]), ['a']);
  });

  it('what started waiting while the person could see it is not notified later', () => {
    const notifier = new WaitNotifier();
    assert.deepEqual(notifier.update([a], where({ chat: true })), []);
    assert.deepEqual(notifier.update([a], where()), []);
  });
});
