import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { ChatDriver } from './harness/chat';
import { useSession } from './harness/session';
import { until } from './harness/until';

describe('deciding from the keyboard, and never missing what waits', function () {
  this.timeout(180_000);
  const session = useSession({ model: true, control: true });
  const { model, control, file, panel } = session;
  /** The number on the Toolgate activity-bar icon, or '' when it has none. */
  const badge = async (): Promise<string> => {
    const item = session.workbench.page.locator('.activitybar .action-item', { has: session.workbench.page.locator('[aria-label^="Toolgate"]') });
    const count = item.locator('.badge .badge-content');
    return (await count.count()) === 0 || !(await count.isVisible()) ? '' : (await count.innerText()).trim();
  };

  /** Waits until the approvals panel's card of the call that mentions `text` holds the keyboard focus. */
  async function cardFocused(text: string): Promise<void> {
    const frame = await session.workbench.webviewFrame('body[data-view="approvals"] main#root[data-state="connected"]');
    await frame.waitForFunction((wanted) => document.activeElement?.matches('article.call') === true && document.activeElement.textContent.includes(wanted), text, { timeout: 10_000 });
  }

  it('Focus the Chat Prompt in a window that has not shown the chat yet opens it with the cursor in the prompt', async () => {
    const chatFrames = async (): Promise<number> => {
      const counts = await Promise.all(session.workbench.page.frames().map((frame) => frame.locator('body[data-view="chat"]').count().catch(() => 0)));
      return counts.reduce((sum, count) => sum + count, 0);
    };
    assert.equal(await chatFrames(), 0, 'the chat has not loaded before the command');
    // The view loads its page after the command has shown it: the focus is asked for before the view can take it.
    await session.workbench.runCommand('Toolgate: Focus the Chat Prompt');
    const frame = await new ChatDriver(session.workbench).frame();
    await until(() => frame.evaluate(() => document.activeElement?.getAttribute('data-field') === 'prompt'), 'the prompt to get the focus', { timeoutMs: 10_000 });
  });

  it('Ctrl+Alt+Y with no card focused brings the waiting call into view first, then allows it once and says so; the badge and the status bar count it until then', async () => {
    // The person has used the chat, then went back to the Explorer: the Toolgate icon carries the badge.
    await new ChatDriver(session.workbench).frame();
    await session.workbench.page.locator('.activitybar [aria-label^="Explorer"]').first().click();
    const result = control.invoke('write_file', { path: 'by-key.txt', content: 'k\n' });
    await panel().waitForCall('write_file', 'by-key.txt');
    const page = session.workbench.page;
    await page.locator('.statusbar-item', { hasText: '1 waiting' }).waitFor();
    let shown = '';
    await until(async () => (shown = await badge()) === '1', 'the Toolgate icon to show a badge of 1', { timeoutMs: 5_000, detail: () => `it shows ${JSON.stringify(shown)}` });
    assert.equal(existsSync(file('by-key.txt')), false);
    await page.locator('.part.statusbar').click({ position: { x: 5, y: 5 } });
    // No card has the focus: the first press decides nothing unseen; it brings the call's card into view, focused.
    await page.keyboard.press('Control+Alt+KeyY');
    await page.locator('.statusbar-item', { hasText: 'write_file by-key.txt is in view; press again to allow it' }).waitFor();
    await cardFocused('by-key.txt');
    assert.equal(existsSync(file('by-key.txt')), false, 'nothing allowed by the first press');
    await page.keyboard.press('Control+Alt+KeyY');
    const outcome = await result;
    assert.equal(outcome.ok, true, outcome.output);
    assert.equal(outcome.decision?.reason, 'allowed once by the person');
    assert.equal(readFileSync(file('by-key.txt'), 'utf8'), 'k\n');
    // Echoed: in the status bar, and to a screen reader in the panel's live region.
    await page.locator('.statusbar-item', { hasText: 'Toolgate: allowed once: write_file by-key.txt' }).waitFor();
    const frame = await session.workbench.webviewFrame('body[data-view="approvals"] main#root[data-state="connected"]');
    assert.equal(await frame.locator('[data-field="announcement"][role="status"]').textContent(), 'Toolgate: allowed once: write_file by-key.txt');
    await page.locator('.statusbar-item', { hasText: '1 waiting' }).waitFor({ state: 'detached' });
    assert.equal(await badge(), '');
  });

  it('Toolgate: Deny the Waiting Call asks for the reason, which goes back to the caller', async () => {
    const result = control.invoke('write_file', { path: 'denied.txt', content: 'no\n' });
    await panel().waitForCall('write_file', 'denied.txt');
    await session.workbench.runCommand('Toolgate: Deny the Waiting Call');
    await session.workbench.answerInputBox('not this file');
    const outcome = await result;
    assert.equal(outcome.ok, false);
    assert.match(outcome.output, /said: "not this file"/);
    assert.equal(existsSync(file('denied.txt')), false);
  });

  it('a question from the agent shows in the status bar and the badge; Focus the Chat Prompt puts the cursor in the prompt', async () => {
    model.fake.script([
      { toolCalls: [{ id: 'q1', name: 'ask_user', arguments: JSON.stringify({ question: 'Which file?', options: ['a.txt', 'b.txt'] }) }] },
      { text: 'Thanks.' },
    ]);
    const chat = new ChatDriver(session.workbench);
    await chat.say('Ask me something');
    const page = session.workbench.page;
    await page.locator('.statusbar-item', { hasText: '1 question' }).waitFor();
    assert.equal(await badge(), '1');
    await page.locator('.part.statusbar').click({ position: { x: 5, y: 5 } });
    await session.workbench.runCommand('Toolgate: Focus the Chat Prompt');
    const frame = await chat.frame();
    await until(() => frame.evaluate(() => document.activeElement?.getAttribute('data-field') === 'prompt'), 'the prompt to get the focus', { timeoutMs: 5_000 });
    await frame.locator('[data-entry="question"] [data-action="answer"][data-option="b.txt"]').click();
    await frame.locator('[data-entry="assistant"]', { hasText: 'Thanks.' }).waitFor();
    await page.locator('.statusbar-item', { hasText: '1 question' }).waitFor({ state: 'detached' });
  });

  it("a decided call's diff tab closes by itself", async () => {
    const result = control.invoke('write_file', { path: 'diffed.txt', content: 'proposed\n' });
    const card = await panel().waitForCall('write_file', 'diffed.txt');
    await card.locator('[data-action="open-diff"]').click();
    const page = session.workbench.page;
    const tab = page.locator('.tabs-container .tab', { hasText: 'proposed by the agent' });
    await tab.waitFor();
    await page.locator('.part.statusbar').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Control+Alt+KeyY');
    await cardFocused('diffed.txt');
    await page.keyboard.press('Control+Alt+KeyY');
    assert.equal((await result).ok, true);
    await tab.waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('the MCP Servers view starts collapsed, so the chat gets the height', async () => {
    const header = session.workbench.page.locator('.pane-header', { hasText: 'MCP Servers' });
    await header.waitFor();
    assert.equal(await header.getAttribute('aria-expanded'), 'false');
    await new ChatDriver(session.workbench).frame();
    await session.workbench.screenshot('chat-with-mcp-collapsed');
  });
});
