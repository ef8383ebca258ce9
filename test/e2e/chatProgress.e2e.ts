import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ChatDriver, sentMessages, sentToolResult } from './harness/chat';
import { useSession } from './harness/session';

describe('the chat shows that the model is working, counts down its retries, and takes answers from the prompt', function () {
  this.timeout(180_000);
  const session = useSession({ model: true });
  const { model } = session;

  it('an empty chat welcomes a new user: what it is, three examples that fill the prompt, where the rules are', async () => {
    const frame = await new ChatDriver(session.workbench).frame();
    const welcome = frame.locator('[data-field="welcome"]');
    await welcome.waitFor();
    assert.match(await welcome.innerText(), /Every file it writes or edits, every command and every MCP call it makes waits for your approval/);
    assert.equal(await welcome.locator('[data-action="example"]').count(), 3);
    assert.deepEqual(
      await welcome.locator('[data-action="host-command"]').evaluateAll((links) => links.map((link) => link.getAttribute('data-command'))),
      ['openTerminalRules', 'openEditRules', 'openGatedTools'],
    );
    const page = session.workbench.page;
    for (const theme of ['Light Modern', 'Dark Modern'] as const) {
      await session.workbench.setColorTheme(theme);
      for (const [width, height] of [[1400, 900], [900, 700]] as const) {
        await page.setViewportSize({ width, height });
        await welcome.waitFor();
        await session.workbench.screenshot(`chat-welcome-${theme.includes('Light') ? 'light' : 'dark'}-${width}x${height}`);
      }
    }
    await page.setViewportSize({ width: 1400, height: 900 });
    await session.workbench.setColorTheme('Light Modern');
    const example = welcome.locator('[data-action="example"]').first();
    const text = (await example.getAttribute('data-example')) ?? '';
    await example.click();
    assert.equal(await frame.locator('[data-field="prompt"]').inputValue(), text);
    await frame.locator('[data-field="prompt"]').fill('');
  });

  it('a 503 with Retry-After shows a notice counting down to the next attempt, then "Working…" until the slow answer streams', async () => {
    model.fake.script([
      { error: { status: 503, message: 'overloaded', retryAfterMs: 4000 } },
      { text: 'Here after the wait.', delayMs: 3000 },
    ]);
    const chat = new ChatDriver(session.workbench);
    await chat.say('Say hello');
    const frame = await chat.frame();
    const notice = frame.locator('[data-entry="notice"]', { hasText: 'The model endpoint answered 503 (overloaded); trying again (attempt 2 of 3)' });
    await notice.waitFor();
    await notice.locator('[data-field="retry-countdown"]', { hasText: /^Trying again in \d s\.$/ }).waitFor();
    await session.workbench.screenshot('chat-retry-countdown');
    // The second attempt is sent; the model takes its time: the entry says it waits, with the time.
    await frame.locator('[data-field="working"]', { hasText: /Working… waiting for the model, \d+ s/ }).waitFor({ timeout: 30_000 });
    assert.equal(await notice.locator('[data-field="retry-countdown"]').isHidden(), true, 'the countdown ends once the attempt is sent');
    await frame.locator('[data-entry="assistant"]', { hasText: 'Here after the wait.' }).waitFor({ timeout: 30_000 });
    const order = await frame.locator('[data-entry]').evaluateAll((entries) => entries.map((entry) => entry.getAttribute('data-entry')));
    assert.deepEqual(order.slice(-3), ['user', 'notice', 'assistant'], 'the answer comes after the retry notice');
    assert.equal(await frame.locator('[data-field="working"]').count(), 0, '"Working…" goes once text arrives');
    await chat.idle();
    assert.equal(model.fake.requests.length, 2);
  });

  it('a refused API key offers Set API Key and the model settings, and Set API Key opens its input box', async () => {
    model.fake.script([{ error: { status: 401, message: 'Incorrect API key provided', code: 'invalid_api_key' } }]);
    const chat = new ChatDriver(session.workbench);
    await chat.task('Say hello');
    const frame = await chat.frame();
    const notice = frame.locator('[data-entry="notice"]', { hasText: 'the endpoint refused the API key (401' });
    await notice.waitFor();
    const actions = await notice.locator('[data-action="host-command"]').evaluateAll((buttons) => buttons.map((button) => button.getAttribute('data-command')));
    assert.deepEqual(actions, ['setApiKey', 'setUpModel', 'openModelSettings']);
    await notice.locator('[data-command="setApiKey"]').click();
    const input = session.workbench.page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.press('Escape');
    await chat.idle();
  });

  it("with the agent's question waiting, what is typed in the prompt answers it (an option by its number)", async () => {
    model.fake.script([
      { toolCalls: [{ id: 'q1', name: 'ask_user', arguments: JSON.stringify({ question: 'Tabs or spaces?', options: ['Tabs', 'Spaces'] }) }] },
      { text: 'Spaces it is.' },
    ]);
    const chat = new ChatDriver(session.workbench);
    await chat.task('Format the file');
    const frame = await chat.frame();
    await frame.locator('[data-entry="question"]', { hasText: 'Tabs or spaces?' }).waitFor();
    assert.match((await frame.locator('[data-field="prompt"]').getAttribute('placeholder')) ?? '', /The agent asks a question: type your answer/);
    await frame.locator('[data-field="prompt"]').fill('2');
    await frame.locator('[data-field="prompt"]').press('Enter');
    await frame.locator('[data-entry="assistant"]', { hasText: 'Spaces it is.' }).waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator('[data-entry="question"] [data-field="answer"]').last().innerText(), 'Answered: Spaces');
    assert.equal(sentToolResult(model.fake, model.fake.requests.length - 1, 'q1'), 'The person answered: "Spaces"');
  });

  it('a call whose arguments are not JSON shows in the chat with its raw arguments and the error the model got', async () => {
    const raw = '{"path": "x.txt", "content": oops';
    model.fake.script([{ toolCalls: [{ id: 'bad1', name: 'write_file', arguments: raw }] }, { text: 'Let me fix that.' }]);
    const chat = new ChatDriver(session.workbench);
    await chat.task('Write x.txt');
    const frame = await chat.frame();
    const entry = frame.locator('[data-entry="tool"][data-status="failed"]', { hasText: raw });
    await entry.waitFor({ timeout: 30_000 });
    await frame.locator('[data-entry="assistant"]', { hasText: 'Let me fix that.' }).waitFor({ timeout: 30_000 });
    await entry.locator('details summary').click();
    const told = sentToolResult(model.fake, model.fake.requests.length - 1, 'bad1');
    assert.match(told, /Nothing was run\.$/);
    assert.equal(await entry.locator('pre.output').innerText(), told);
  });

  it('a window reload mid-task: the waiting call shows as interrupted (not run), and Resume goes on with the model told', async () => {
    model.fake.script([
      { toolCalls: [{ id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'reloaded.txt', content: 'x\n' }) }] },
      { text: 'Picked up where I left off.' },
    ]);
    const chat = new ChatDriver(session.workbench);
    await chat.task('Write reloaded.txt');
    await (await chat.frame()).locator('[data-entry="tool"][data-status="waiting"]', { hasText: 'reloaded.txt' }).waitFor();
    await session.workbench.reload();
    const frame = await chat.frame();
    await frame.locator('[data-entry="tool"][data-status="interrupted"]', { hasText: 'reloaded.txt' }).waitFor({ timeout: 30_000 });
    const notice = frame.locator('[data-entry="notice"]', { hasText: 'This task was interrupted by a window reload: 1 call that waited for approval was not run.' });
    await notice.waitFor();
    assert.equal(await frame.locator('[data-action="show-waiting"]').count(), 0, 'no "Decide below" for ever');
    await session.workbench.screenshot('chat-interrupted-resume');
    await notice.locator('[data-action="resume"]').click();
    await frame.locator('[data-entry="assistant"]', { hasText: 'Picked up where I left off.' }).waitFor({ timeout: 30_000 });
    const sent = sentMessages(model.fake, model.fake.requests.length - 1);
    assert.match(sent.at(-1)?.content ?? '', /^The VS Code window was reloaded while you were working on this task/);
    assert.equal(existsSync(path.join(session.server.workspace, 'reloaded.txt')), false, 'the interrupted write never ran');
    assert.equal(await notice.locator('[data-action="resume"]').count(), 0, 'Resume is offered once');
  });

  it('429 on every attempt: each retry is counted down, then the last error says retries did not help and offers Retry', async () => {
    model.fake.script([
      { error: { status: 429, message: 'Rate limit reached', retryAfterMs: 1000 } },
      { error: { status: 429, message: 'Rate limit reached', retryAfterMs: 1000 } },
      { error: { status: 429, message: 'Rate limit reached', retryAfterMs: 1000 } },
    ]);
    const chat = new ChatDriver(session.workbench);
    await chat.task('Say hello');
    const frame = await chat.frame();
    await frame.locator('[data-entry="notice"]', { hasText: 'answered 429 (Rate limit reached); trying again (attempt 2 of 3)' }).waitFor();
    await frame.locator('[data-entry="notice"]', { hasText: 'answered 429 (Rate limit reached); trying again (attempt 3 of 3)' }).waitFor({ timeout: 30_000 });
    const failed = frame.locator('[data-entry="notice"]', { hasText: 'is rate limiting requests and retries did not help (Rate limit reached): wait and try again' });
    await failed.waitFor({ timeout: 30_000 });
    await chat.idle();
    assert.equal(model.fake.requests.length >= 3, true);
    assert.equal(await failed.locator('[data-action="retry"]').count(), 1, 'a passing failure offers Retry');
    assert.equal(await failed.locator('[data-action="host-command"]').count(), 0, 'and no setting to change');
    model.fake.script([{ text: 'Through at last.' }]);
    await failed.locator('[data-action="retry"]').click();
    await frame.locator('[data-entry="assistant"]', { hasText: 'Through at last.' }).waitFor({ timeout: 30_000 });
    await chat.idle();
  });

  it('Stop while "Working…" ends the wait at once: the request is cut, the task stops, nothing hangs', async () => {
    model.fake.script([{ text: 'Too late.', delayMs: 60_000 }]);
    const chat = new ChatDriver(session.workbench);
    await chat.task('Think for a long time');
    const frame = await chat.frame();
    await frame.locator('[data-field="working"]', { hasText: /Working… waiting for the model, \d+ s/ }).waitFor({ timeout: 30_000 });
    const stop = frame.locator('[data-action="stop"]');
    assert.equal(await stop.isVisible(), true, 'Stop shows while the model works');
    await stop.click();
    await frame.locator('[data-entry="notice"]', { hasText: 'Stopped. Waiting calls were denied and nothing else will run.' }).last().waitFor({ timeout: 15_000 });
    await chat.idle();
    assert.equal(await frame.locator('[data-field="working"]').count(), 0, '"Working…" is gone');
    assert.equal(await frame.locator('[data-entry="assistant"]', { hasText: 'Too late.' }).count(), 0, 'the cut answer never shows');
    assert.equal(await stop.isVisible(), false);
  });

  it('"Allow for session: this file" on a write covers the edit of that file that follows, and no other file', async () => {
    model.fake.script([
      { toolCalls: [{ id: 's1', name: 'write_file', arguments: JSON.stringify({ path: 'granted.txt', content: 'one\n' }) }] },
      { toolCalls: [{ id: 's2', name: 'edit_file', arguments: JSON.stringify({ path: 'granted.txt', edits: [{ old: 'one', new: 'two' }] }) }] },
      { toolCalls: [{ id: 's3', name: 'write_file', arguments: JSON.stringify({ path: 'other.txt', content: 'x\n' }) }] },
      { text: 'All written.' },
    ]);
    const chat = new ChatDriver(session.workbench);
    await chat.task('Write granted.txt, then edit it');
    const frame = await chat.frame();
    const card = frame.locator('article[data-call-id]', { hasText: 'granted.txt' });
    await card.waitFor({ timeout: 30_000 });
    const scope = card.locator('[data-field="grant-scope"]');
    const fileOption = await scope.locator('option', { hasText: 'this file: granted.txt' }).getAttribute('value');
    await scope.selectOption(fileOption ?? 'path');
    await card.locator('[data-action="allow-session"]').click();
    // The edit of the same file runs without asking, naming the grant; the write of another file asks.
    const edit = frame.locator('[data-entry="tool"][data-tool="edit_file"]', { hasText: 'granted.txt' });
    await edit.locator('[data-field="allowed-by"]').waitFor({ timeout: 30_000 });
    assert.match(await edit.innerText(), /Ran without asking: allowed by your session grant \(this chat only\), write_file: granted\.txt/);
    const other = frame.locator('article[data-call-id]', { hasText: 'other.txt' });
    await other.waitFor({ timeout: 30_000 });
    await other.locator('[data-action="deny"]').click();
    await other.locator('[data-field="reason"]').fill('not this one');
    await other.locator('[data-action="deny"]').click();
    await frame.locator('[data-entry="assistant"]', { hasText: 'All written.' }).waitFor({ timeout: 30_000 });
    assert.equal(readFileSync(path.join(session.server.workspace, 'granted.txt'), 'utf8'), 'two\n');
    assert.equal(existsSync(path.join(session.server.workspace, 'other.txt')), false);
  });
});
