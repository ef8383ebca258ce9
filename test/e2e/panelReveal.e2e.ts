/**
 * When the Approvals panel opens by itself, in the real VS Code, with the default `toolgate.approvals.revealPanel`
 * (whenNotVisible): not while the chat shows the call, yes when nothing on screen does, and never again in a task in
 * which the person closed it. That something did not open is checked after a later event that follows the decision
 * (the chat's card, the log line that says why, the next notification), never after a pause.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { Locator } from 'playwright-core';
import { ChatDriver } from './harness/chat';
import { until } from './harness/until';
import { useSession } from './harness/session';

describe('the Approvals panel opens only when the call is not visible elsewhere', function () {
  this.timeout(180_000);
  // The default reveal setting: only the model's address and name are set.
  const session = useSession({ model: 'address', control: true });
  const { model, control, file, panel } = session;
  const chat = (): ChatDriver => new ChatDriver(session.workbench);
  /** The Approvals panel's editor tab, whichever editor group holds it. */
  const panelTab = (): Locator => session.workbench.page.locator('.tabs-container .tab', { hasText: 'Toolgate Approvals' });
  const writeCall = (id: string, relative: string): { id: string; name: string; arguments: string } =>
    ({ id, name: 'write_file', arguments: JSON.stringify({ path: relative, content: `${relative}\n` }) });
  const toast = (relative: string): Locator => session.workbench.page.locator('.notification-toast', { hasText: `Toolgate: write_file ${relative} waits for you` });
  /** A task started by the command, as another extension or a keybinding would: the chat stays as it is. */
  const runTask = (prompt: string): Promise<unknown> => control.call('/command', { command: 'toolgate.runTask', args: [prompt] });

  /** The person works in the Explorer: the Toolgate chat is not on screen. */
  async function hideChat(): Promise<void> {
    const page = session.workbench.page;
    await page.locator('.activitybar [aria-label^="Explorer"]').first().click();
    await page.locator('.part.sidebar .composite.title', { hasText: 'Explorer' }).waitFor();
  }

  /** The person closes the panel's tab with its close button; resolves once the extension host has heard of it. */
  async function closePanel(taskRunning: boolean): Promise<void> {
    const tab = panelTab();
    await tab.hover();
    await tab.locator('.tab-actions .action-label').first().click();
    await tab.waitFor({ state: 'detached' });
    await session.workbench.waitForLog(`the person closed the Approvals panel ${taskRunning ? 'during a task' : 'while no task runs'}`);
  }

  it('stays closed while the chat view shows the call', async () => {
    model.fake.script([{ toolCalls: [writeCall('r1', 'in-chat.txt')] }, { text: 'Wrote in-chat.txt.' }]);
    await chat().task('Write in-chat.txt');
    const card = (await chat().frame()).locator('article.inline-call[data-call-id]', { hasText: 'in-chat.txt' });
    await card.waitFor({ state: 'visible', timeout: 30_000 });
    await session.workbench.waitForLog('the Approvals panel stays closed for 1 new call(s): shown in the chat');
    assert.equal(await panelTab().count(), 0, 'no Approvals panel tab');
    await card.locator('[data-action="allow-once"]').click();
    await chat().idle();
    assert.equal(readFileSync(file('in-chat.txt'), 'utf8'), 'in-chat.txt\n');
    assert.equal(await panelTab().count(), 0, 'still no Approvals panel tab');
  });

  it('opens for a call when the chat is not on screen', async () => {
    await hideChat();
    model.fake.script([{ toolCalls: [writeCall('r2', 'not-in-view.txt')] }, { text: 'Wrote not-in-view.txt.' }]);
    const task = runTask('Write not-in-view.txt');
    const card = await panel().waitForCall('write_file', 'not-in-view.txt');
    assert.equal(await panelTab().count(), 1, 'the Approvals panel is open in the editor area');
    await panel().act(card, 'allow-once');
    await task;
    assert.equal(readFileSync(file('not-in-view.txt'), 'utf8'), 'not-in-view.txt\n');
  });

  it("once the person closed it during a task, the task's next call does not reopen it, and a notification says the call waits; the next task may open it", async () => {
    // Closed while no task runs: that holds nothing, so the next task's first call opens it.
    await closePanel(false);
    model.fake.script([{ toolCalls: [writeCall('r3', 'first.txt')] }, { toolCalls: [writeCall('r4', 'second.txt')] }, { text: 'Both denied.' }]);
    const task = runTask('Write first.txt, then second.txt');
    await panel().waitForCall('write_file', 'first.txt');
    // Nothing showed it when it started waiting (the chat hidden, the panel closed): it was notified too.
    await toast('first.txt').waitFor({ timeout: 30_000 });
    // Mid-task, the person closes the panel and denies the call from its notification; the model's next call comes.
    await closePanel(true);
    await toast('first.txt').locator('.monaco-button', { hasText: 'Deny' }).click();
    await toast('second.txt').waitFor({ timeout: 30_000 });
    await session.workbench.waitForLog('the Approvals panel stays closed for 1 new call(s): closed by the person in this task');
    assert.equal(await panelTab().count(), 0, 'the Approvals panel stayed closed');
    await toast('second.txt').locator('.monaco-button', { hasText: 'Deny' }).click();
    await task;
    assert.equal(existsSync(file('first.txt')) || existsSync(file('second.txt')), false, 'nothing was written');

    // A new task: the closing held only for the last one.
    const before = model.fake.requests.length;
    model.fake.script([{ toolCalls: [writeCall('r5', 'next-task.txt')] }, { text: 'Wrote next-task.txt.' }]);
    const next = runTask('Write next-task.txt');
    await panel().act(await panel().waitForCall('write_file', 'next-task.txt'), 'allow-once');
    await next;
    await until(() => model.fake.requests.length === before + 2, 'the model heard the result');
    assert.equal(readFileSync(file('next-task.txt'), 'utf8'), 'next-task.txt\n');
  });

  it('while no call waits but a question does, the panel says a question waits in the chat and goes there', async () => {
    // The chat is off screen (since the tests above): the question waits where the person is not looking.
    const question = 'Which name should the new module have?';
    model.fake.script([
      { toolCalls: [{ id: 'q1', name: 'ask_user', arguments: JSON.stringify({ question, options: ['alpha', 'beta'] }) }] },
      { text: 'Named it.' },
    ]);
    const task = runTask('Ask me a question');
    // The status bar counts the question; the panel, opened as a person does, says where it waits.
    await session.workbench.page.locator('.statusbar-item', { hasText: '1 question' }).first().waitFor({ timeout: 30_000 });
    await control.call('/command', { command: 'toolgate.openApprovals' });
    const note = await session.workbench.inWebview('[data-field="waiting-question"]');
    await note.waitFor({ state: 'visible' });
    assert.match(await note.innerText(), /A question waits in the chat:\s+Which name should the new module have\?/);
    const empty = await session.workbench.inWebview('[data-field="empty"]');
    assert.equal((await empty.innerText()).trim(), 'No calls are waiting for approval, but the agent waits for you:');
    await session.workbench.screenshot('approvals-question-waits');
    // Its button shows the chat, where the question is answered.
    await note.locator('[data-action="go-to-question"]').click();
    const frame = await chat().frame();
    const asked = frame.locator('[data-entry="question"]', { hasText: question });
    await asked.waitFor({ state: 'visible' });
    await asked.locator('[data-action="answer"][data-option="beta"]').click();
    await task;
    // Answered: the panel says plainly that nothing waits.
    await note.waitFor({ state: 'hidden' });
    assert.equal((await empty.innerText()).trim(), 'No calls are waiting for approval.');
  });
});
