/**
 * The runtime around the gate, in the real VS Code: a notification when a call waits while the Toolgate views are
 * hidden, Allow once from the keyboard on the focused card, one reused terminal per chat, and Retry after a model
 * error.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { Frame } from 'playwright-core';
import { ChatDriver, sentMessages } from './harness/chat';
import { until } from './harness/until';
import { useSession } from './harness/session';

describe('runtime: notifications, the focused call, a terminal per chat, Retry', function () {
  this.timeout(180_000);
  const session = useSession({ model: true, control: true });
  const { model, control, file, panel } = session;
  const chat = (): ChatDriver => new ChatDriver(session.workbench);
  // The chats' terminals (an API call's command, as in the notification test, has its own: not a chat's).
  const toolgateTerminals = async (): Promise<string[]> => (await control.call<string[]>('/terminals')).filter((name) => name.startsWith('Toolgate') && name !== 'Toolgate: API calls');

  it('a call that starts waiting while the Toolgate views are hidden notifies: a write offers Deny and Open, never Allow without its diff; a command offers Allow once, which runs it', async () => {
    const page = session.workbench.page;
    // The person works elsewhere: the Explorer in the sidebar, no Toolgate editor open.
    await page.locator('.activitybar [aria-label^="Explorer"]').first().click();
    await session.workbench.runCommand('View: Close All Editors');
    const result = control.invoke('write_file', { path: 'notified.txt', content: 'n\n' });
    const toast = page.locator('.notification-toast', { hasText: 'Toolgate: write_file notified.txt waits for you' });
    await toast.waitFor({ timeout: 30_000 });
    for (const [action, count] of [['Allow once', 0], ['Deny', 1], ['Open', 1]] as const) {
      assert.equal(await toast.locator('.monaco-button', { hasText: action }).count(), count, `the toast offers ${action} ${count} time(s)`);
    }
    assert.equal(existsSync(file('notified.txt')), false);
    await session.workbench.screenshot('notification-waiting-call');
    // Open shows the call with its diff, where it is allowed.
    await toast.locator('.monaco-button', { hasText: 'Open' }).click();
    await panel().act(await panel().waitForCall('write_file', 'notified.txt'), 'allow-once');
    const outcome = await result;
    assert.equal(outcome.ok, true, outcome.output);
    assert.equal(outcome.decision?.reason, 'allowed once by the person');
    assert.equal(readFileSync(file('notified.txt'), 'utf8'), 'n\n');

    // The panel Open showed is closed before the next call comes: a call that arrives while the panel still shows is
    // shown there, not notified (the close reaches the host a moment after the command returns).
    const closed = 'the person closed the Approvals panel';
    const closedBefore = session.workbench.extensionLog().split('\n').filter((line) => line.includes(closed)).length;
    await session.workbench.runCommand('View: Close All Editors');
    await session.workbench.waitForLog(closed, 15_000, closedBefore + 1);
    const ran = control.invoke('run_in_terminal', { command: 'echo from-the-toast' });
    const commandToast = page.locator('.notification-toast', { hasText: 'Toolgate: run_in_terminal echo from-the-toast waits for you' });
    await commandToast.waitFor({ timeout: 30_000 });
    await commandToast.locator('.monaco-button', { hasText: 'Allow once' }).click();
    const ranOutcome = await ran;
    assert.equal(ranOutcome.ok, true, ranOutcome.output);
    assert.match(ranOutcome.output, /from-the-toast/);
  });

  it("a question of the agent that starts waiting while the views are hidden notifies with Open only, which shows the chat", async () => {
    const page = session.workbench.page;
    model.fake.script([
      { toolCalls: [{ id: 'q1', name: 'ask_user', arguments: JSON.stringify({ question: 'Which file next?', options: ['a.txt', 'b.txt'] }) }] },
      { text: 'Noted.' },
    ]);
    // The person is in the Explorer (the chat hidden) when a task started by the command asks.
    await session.workbench.runCommand('View: Show Explorer');
    await page.locator('.part.sidebar .composite.title', { hasText: 'Explorer' }).waitFor();
    const task = control.call('/command', { command: 'toolgate.runTask', args: ['Ask me first'] });
    const toast = page.locator('.notification-toast', { hasText: 'Toolgate: ask_user Which file next? waits for you' });
    await toast.waitFor({ timeout: 30_000 });
    assert.deepEqual(await toast.locator('.monaco-button').allInnerTexts(), ['Open']);
    await toast.locator('.monaco-button', { hasText: 'Open' }).click();
    const frame = await chat().frame();
    await frame.locator('[data-entry="question"] [data-action="answer"][data-option="b.txt"]').click();
    await frame.locator('[data-entry="assistant"]', { hasText: 'Noted.' }).waitFor({ timeout: 30_000 });
    await task;
  });

  it('Ctrl+Alt+Y on the focused card allows that call, not the oldest; the focus moves to the next waiting card', async () => {
    await session.workbench.runCommand('Toolgate: Open Approvals');
    const first = control.invoke('write_file', { path: 'first.txt', content: '1\n' });
    const firstCard = await panel().waitForCall('write_file', 'first.txt');
    const second = control.invoke('write_file', { path: 'second.txt', content: '2\n' });
    const secondCard = await panel().waitForCall('write_file', 'second.txt');
    const firstId = await firstCard.getAttribute('data-call-id');
    await secondCard.locator('[data-action="allow-once"]').focus();
    await session.workbench.page.keyboard.press('Control+Alt+KeyY');
    const outcome = await second;
    assert.equal(outcome.ok, true, outcome.output);
    assert.equal(readFileSync(file('second.txt'), 'utf8'), '2\n');
    assert.equal(existsSync(file('first.txt')), false, 'the first call still waits');
    await secondCard.waitFor({ state: 'detached' });
    assert.equal(await firstCard.isVisible(), true);
    const frame = await session.workbench.webviewFrame('body[data-view="approvals"] main#root[data-state="connected"]');
    const focusedCard = (): Promise<string | null> =>
      frame.evaluate(() => document.activeElement?.closest('[data-call-id]')?.getAttribute('data-call-id') ?? null);
    await until(async () => (await focusedCard()) === firstId, 'the focus to move to the next waiting card', { timeoutMs: 5_000 });
    await session.workbench.page.keyboard.press('Control+Alt+KeyY');
    assert.equal((await first).ok, true);
    assert.equal(readFileSync(file('first.txt'), 'utf8'), '1\n');
  });

  it("in the chat too: Ctrl+Alt+Y allows the focused inline card, then the focus moves to the next one", async () => {
    const write = (id: string, relative: string): { id: string; name: string; arguments: string } =>
      ({ id, name: 'write_file', arguments: JSON.stringify({ path: relative, content: `${id}\n` }) });
    model.fake.script([{ toolCalls: [write('w1', 'chat-first.txt'), write('w2', 'chat-second.txt')] }, { text: 'Both written.' }]);
    await chat().task('Write two files');
    const frame = await chat().frame();
    const card = (text: string) => frame.locator('article.inline-call[data-call-id]', { hasText: text });
    await card('chat-second.txt').waitFor({ timeout: 30_000 });
    await card('chat-first.txt').waitFor();
    const firstId = await card('chat-first.txt').getAttribute('data-call-id');
    await card('chat-second.txt').locator('[data-action="allow-once"]').focus();
    await session.workbench.page.keyboard.press('Control+Alt+KeyY');
    // The calls of one turn run once all are decided: here the decided card goes, and the other stays.
    await card('chat-second.txt').waitFor({ state: 'detached' });
    assert.equal(await card('chat-first.txt').isVisible(), true, 'the first call still waits');
    await until(
      async () => (await frame.evaluate(() => document.activeElement?.closest('[data-call-id]')?.getAttribute('data-call-id') ?? null)) === firstId,
      'the focus to move to the next waiting card',
      { timeoutMs: 5_000 },
    );
    await session.workbench.page.keyboard.press('Control+Alt+KeyY');
    await frame.locator('[data-entry="assistant"]', { hasText: 'Both written.' }).waitFor({ timeout: 30_000 });
    assert.equal(readFileSync(file('chat-first.txt'), 'utf8'), 'w1\n');
    assert.equal(readFileSync(file('chat-second.txt'), 'utf8'), 'w2\n');
    await chat().idle();
  });

  it('two commands in one chat use one terminal, named after the chat; another chat gets its own', async () => {
    const run = (id: string, command: string): { id: string; name: string; arguments: string } =>
      ({ id, name: 'run_in_terminal', arguments: JSON.stringify({ command }) });
    // pwd and ls are allowed by the default terminal rules: nothing waits.
    const frame = await chat().frame();
    await chat().idle();
    await chat().newChat();
    model.fake.script([{ toolCalls: [run('t1', 'pwd')] }, { toolCalls: [run('t2', 'ls')] }, { text: 'Ran both.' }]);
    await chat().task('List the folder twice');
    await frame.locator('[data-entry="assistant"]', { hasText: 'Ran both.' }).waitFor({ timeout: 60_000 });
    assert.deepEqual(await toolgateTerminals(), ['Toolgate: List the folder twice']);

    await chat().idle();
    await chat().newChat();
    model.fake.script([{ toolCalls: [run('t3', 'pwd')] }, { text: 'Ran it.' }]);
    await chat().task('Another chat');
    await frame.locator('[data-entry="assistant"]', { hasText: 'Ran it.' }).waitFor({ timeout: 60_000 });
    assert.deepEqual((await toolgateTerminals()).sort(), ['Toolgate: Another chat', 'Toolgate: List the folder twice']);
  });

  it('a model error offers Retry (reached from the keyboard), which runs the failed turn again without repeating the message', async () => {
    model.fake.script([{ error: { status: 500, message: 'upstream overloaded', noRetry: true } }, { text: 'Recovered.' }]);
    const before = model.fake.requests.length;
    await chat().task('Try once more');
    const frame: Frame = await chat().frame();
    const retry = frame.locator('[data-entry="notice"] [data-action="retry"]');
    await retry.waitFor({ timeout: 30_000 });
    await chat().idle();
    await retry.focus();
    await session.workbench.page.keyboard.press('Enter');
    await frame.locator('[data-entry="assistant"]', { hasText: 'Recovered.' }).waitFor({ timeout: 30_000 });
    await until(() => model.fake.requests.length === before + 2, 'the retried request');
    assert.deepEqual(sentMessages(model.fake, before + 1), sentMessages(model.fake, before), 'the same history, sent again');
    assert.equal(sentMessages(model.fake, before + 1).filter((message) => message.role === 'user' && message.content === 'Try once more').length, 1);
    assert.equal(await frame.locator('[data-entry="user"]', { hasText: 'Try once more' }).count(), 1);
    await retry.waitFor({ state: 'detached' });
  });
});
