import * as assert from 'node:assert/strict';
import type { ViewState } from '../../src/shared/messages';
import type { LogPort } from '../../src/core/logPort';
import { WebviewChannel } from '../../src/core/views/webviewChannel';

/** A fake of the webview boundary: records what the host posts and lets the test play the webview. */
class FakeWebview {
  readonly posted: unknown[] = [];
  private listener: ((message: unknown) => void) | undefined;
  onDidReceiveMessage = (listener: (message: unknown) => void): { dispose(): void } => {
    this.listener = listener;
    return { dispose: () => (this.listener = undefined) };
  };
  postMessage(message: unknown): PromiseLike<boolean> {
    this.posted.push(message);
    return Promise.resolve(true);
  }
  send(message: unknown): void {
    this.listener?.(message);
  }
}

function fakeLog(): LogPort & { lines: string[] } {
  const lines: string[] = [];
  const record = (level: string) => (message: string): void => void lines.push(`${level} ${message}`);
  return { lines, info: record('info'), warn: record('warn'), error: record('error') };
}

const state: ViewState = { view: 'approvals', waitingCalls: 2, trusted: true, pending: [], grants: [] };

describe('WebviewChannel', () => {
  function setup() {
    const webview = new FakeWebview();
    const log = fakeLog();
    const channel = new WebviewChannel(webview, 'approvals', () => state, log);
    const received: unknown[] = [];
    channel.onDidReceive((message) => received.push(message));
    return { webview, log, channel, received };
  }

  it('posts nothing before ready, then answers ready with init and the whole state; a burst of pushes is one patch', async () => {
    const { webview, channel } = setup();
    channel.pushState();
    assert.deepEqual(webview.posted, []);
    webview.send({ type: 'ready', requestId: 'r1', view: 'approvals' });
    const sentAt = (index: number): number | undefined => (webview.posted as { sentAt?: number }[])[index]?.sentAt;
    const builtMs = (index: number): number | undefined => (webview.posted as { builtMs?: number }[])[index]?.builtMs;
    assert.deepEqual(webview.posted, [{ type: 'init', requestId: 'r1', state, sentAt: sentAt(0), version: 1 }]);
    channel.pushState();
    channel.pushState();
    channel.pushState();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(webview.posted.slice(1), [{ type: 'patch', base: 1, version: 2, state, pending: { order: [], upsert: [] }, sentAt: sentAt(1), builtMs: builtMs(1) }]);
    assert.equal(typeof sentAt(1), 'number');
    // The bench tells the host's own time (building, diffing, checking the state) from the transport's.
    assert.ok((builtMs(1) ?? -1) >= 0);
  });

  it('posts at once when pushed now, taking the place of a push waiting for the end of the turn (not two patches)', async () => {
    const { webview, channel } = setup();
    channel.pushState(true);
    assert.deepEqual(webview.posted, [], 'nothing before ready, now or not');
    webview.send({ type: 'ready', requestId: 'r1', view: 'approvals' });
    channel.pushState();
    channel.pushState(true);
    assert.deepEqual(webview.posted.map((message) => (message as { type: string }).type), ['init', 'patch'], 'the patch is posted in this turn');
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(webview.posted.length, 2, 'the earlier push does not post again');
  });

  it('tells its owner after each init, once the whole state is posted: the first ready, and one that catches up; not a ready for another view', () => {
    const { webview, channel } = setup();
    const seen: string[] = [];
    // What the owner posts when told (the chat's focus asked for before it was ready) comes after the state.
    channel.onDidInit(() => seen.push((webview.posted as { type: string }[]).map((message) => message.type).join(',')));
    webview.send({ type: 'ready', requestId: 'r1', view: 'chat' });
    assert.deepEqual(seen, []);
    webview.send({ type: 'ready', requestId: 'r2', view: 'approvals' });
    webview.send({ type: 'ready', requestId: 'r3', view: 'approvals' });
    assert.deepEqual(seen, ['init', 'init,init']);
  });

  it('drops and logs a message that does not fit the contract', () => {
    const { webview, log, received } = setup();
    webview.send({ type: 'ready', requestId: 'r1', view: 'approvals' });
    webview.send({ type: 'decide', callId: 'c', argsHash: 'h' });
    webview.send(42);
    assert.deepEqual(received, []);
    assert.equal(log.lines.filter((line) => line.startsWith('warn [approvals] dropped a webview message')).length, 2);
  });

  it('drops a valid command sent before ready, and a ready for another view', () => {
    const { webview, log, received, channel } = setup();
    webview.send({ type: 'command', requestId: 'r0', command: 'openApprovals' });
    webview.send({ type: 'ready', requestId: 'r1', view: 'chat' });
    assert.deepEqual(received, []);
    assert.equal(channel.isReady, false);
    assert.equal(log.lines.length, 2);
  });

  it('hands on a valid command after ready', () => {
    const { webview, received } = setup();
    webview.send({ type: 'ready', requestId: 'r1', view: 'approvals' });
    webview.send({ type: 'command', requestId: 'r2', command: 'showAuditLog' });
    assert.deepEqual(received, [{ type: 'command', requestId: 'r2', command: 'showAuditLog' }]);
  });

  it("logs the webview's reports of messages other frames posted into it, and hands none of them on", () => {
    const { webview, log, received } = setup();
    webview.send({ type: 'ready', requestId: 'r1', view: 'approvals' });
    webview.send({ type: 'dropped', requestId: 'r2', reason: 'other-frame', count: 1 });
    webview.send({ type: 'dropped', requestId: 'r3', reason: 'own-frame', count: 250 });
    webview.send({ type: 'dropped', requestId: 'r4', reason: 'any-frame', count: 1 });
    assert.deepEqual(received, []);
    assert.deepEqual(log.lines.slice(1, 3), [
      'warn [approvals] dropped a message from another frame (another webview or page of the window, not VS Code): not shown',
      'warn [approvals] dropped 250 messages from its own frame (posted inside the view, not by VS Code): not shown',
    ]);
    assert.match(log.lines[3] ?? '', /^warn \[approvals\] dropped a webview message that does not fit the contract: reason: /);
    assert.equal(log.lines.length, 4);
  });

  it('refuses to post a message that breaks the contract', () => {
    const { webview, log, channel } = setup();
    webview.send({ type: 'ready', requestId: 'r1', view: 'approvals' });
    channel.post({ type: 'result', requestId: 'bad id', ok: true });
    assert.equal(webview.posted.length, 1);
    assert.ok(log.lines.some((line) => line.startsWith('error [approvals] refused to post')));
  });

  it('stops listening once disposed', () => {
    const { webview, channel, received } = setup();
    channel.dispose();
    webview.send({ type: 'ready', requestId: 'r1', view: 'approvals' });
    assert.deepEqual(webview.posted, []);
    assert.deepEqual(received, []);
  });
});
