import * as assert from 'node:assert/strict';
import { ChatDriver } from './harness/chat';
import { useSession } from './harness/session';

describe('Toolgate webviews in the real workbench', () => {
  const session = useSession();

  it('renders the chat view in the Toolgate view container', async () => {
    await session.workbench.page.locator('.activitybar [aria-label^="Toolgate"]').first().click();
    const root = await session.workbench.inWebview('body[data-view="chat"] main#root[data-state="connected"]', 30_000);
    await root.locator('[data-field="model"]').waitFor();
    const model = await root.locator('[data-field="model"]').innerText();
    assert.match(model, /qwen2\.5-coder:7b/);
    assert.equal((await root.locator('[data-field="waiting"]').innerText()).trim(), '', 'nothing waits');
    assert.equal(await root.locator('[data-field="prompt"]').count(), 1);
    await session.workbench.waitForLog('[chat] webview ready');
    await session.workbench.screenshot('chat-view');
  });

  it("the chat's title bar holds New Chat and Approvals, and its menu the task's undo, the records and the set-up", async () => {
    const chat = new ChatDriver(session.workbench);
    const root = (await chat.frame()).locator('main#root');
    assert.equal(await root.locator('[data-action="new-chat"]').count(), 0, 'one New Chat: the title bar\'s');
    assert.deepEqual(await chat.titleMenu(), [
      "Show the Task's Changes", "Undo Agent's Last Turn", "Undo Agent's Task", 'Show Audit Log', 'Show Suggested Rules', 'Set Up the Model', 'Set API Key', 'Open Settings', "Copy the MCP Endpoint's Config for a Client…",
    ]);
    const page = session.workbench.page;
    await page.keyboard.press('Escape');
    await chat.titleMenuAction('Open Settings');
    // Every Toolgate setting, the model's first.
    await page.locator('.settings-editor .setting-item-title', { hasText: 'Model: Provider' }).first().waitFor({ timeout: 30_000 });
    await page.keyboard.press('Escape');
  });

  it('opens the approvals panel from the command palette, and its ready reaches the host', async () => {
    await session.workbench.runCommand('Toolgate: Open Approvals');
    const root = await session.workbench.inWebview('body[data-view="approvals"] main#root[data-state="connected"]', 30_000);
    await root.locator('[data-field="empty"]').waitFor();
    assert.equal(await root.getAttribute('data-updates'), '1');
    // The tab is in the editor area, titled as the contract says.
    await session.workbench.page.locator('.tabs-container .tab', { hasText: 'Toolgate Approvals' }).waitFor();
    await session.workbench.waitForLog(/\[approvals\] webview ready \(request approvals-/);
    await session.workbench.screenshot('approvals-panel');
  });

  it('drops a forged message with a wrong shape and logs it, while a valid one is handled', async () => {
    const selector = 'body[data-view="approvals"] main#root[data-state="connected"]';
    const host = await session.workbench.webviewHostFrame(selector);
    // The same path a (compromised) webview script takes: VS Code's own postMessage bridge of the webview frame.
    const forge = (message: unknown): Promise<void> =>
      host.evaluate((data) => {
        const post = (window as unknown as Record<string, (channel: string, data: unknown) => void>)[
          '__vscode_post_message__'
        ];
        if (!post) {
          throw new Error('the webview bridge is not there');
        }
        post('onmessage', { message: data, transfer: [] });
      }, message);

    await forge({ type: 'decide', callId: 'nope', argsHash: 'x', decision: 'allow-once' });
    await forge({ type: 'ready', requestId: 'has spaces', view: 'approvals' });
    await forge('not even an object');
    const log = await session.workbench.waitForLog('[approvals] dropped a webview message', 15_000, 3);
    const drops = log.split('\n').filter((line) => line.includes('[approvals] dropped a webview message'));
    assert.equal(drops.length, 3, `expected three drops, the log holds:\n${log}`);

    // A well-formed decision for a call that is not waiting is refused and logged: the webview never decides.
    await forge({ type: 'decide', requestId: 'forged-2', callId: 'c-not-waiting', argsHash: 'f'.repeat(64), action: 'allow-workspace' });
    await session.workbench.waitForLog("[approvals] ignored 'decide': call c-not-waiting is not waiting");

    // A valid `ready` is handled: the host answers with `init` and the panel renders it a second time.
    await forge({ type: 'ready', requestId: 'forged-valid-1', view: 'approvals' });
    await session.workbench.waitForLog('[approvals] webview ready (request forged-valid-1)');
    const root = await session.workbench.inWebview(`${selector}[data-updates="2"]`);
    assert.equal(await root.count(), 1);
  });
});
