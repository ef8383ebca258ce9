import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { Frame } from 'playwright-core';
import { ChatDriver, sentMessages } from './harness/chat';
import { until } from './harness/until';
import { panelAllowAll } from './harness/panel';
import { useSession } from './harness/session';


describe('the agent, with a scripted OpenAI-compatible model, in the real chat view and panel', function () {
  this.timeout(180_000);
  const session = useSession({ model: true });
  const { model, file, panel } = session;

  const driver = (): ChatDriver => new ChatDriver(session.workbench);
  const chat = (): Promise<Frame> => driver().frame();
  const say = (text: string): Promise<void> => driver().say(text);
  const idle = (): Promise<void> => driver().idle();

  it('a task typed in the chat leads to write_file; allowed in the panel, the file is written and the model gets the result', async () => {
    model.fake.script([
      { text: 'I will create the file.', toolCalls: [{ id: 'call_w1', name: 'write_file', arguments: JSON.stringify({ path: 'hello.txt', content: 'hello from the agent\n' }) }] },
      { text: 'Created **hello.txt**.' },
    ]);
    const before = model.fake.requests.length;
    await say('Create hello.txt');
    const card = await panel().waitForCall('write_file', 'hello.txt');
    const frame = await chat();
    await frame.locator('[data-entry="tool"][data-status="waiting"]').waitFor();
    await session.workbench.screenshot('chat-waiting');
    await panel().act(card, 'allow-once');
    await until(() => model.fake.requests.length === before + 2, 'the second model request');
    assert.equal(readFileSync(file('hello.txt'), 'utf8'), 'hello from the agent\n');
    const second = sentMessages(model.fake, before + 1);
    const toolResult = second.find((message) => message.role === 'tool' && message.tool_call_id === 'call_w1');
    assert.ok(toolResult, JSON.stringify(second));
    assert.match(toolResult.content ?? '', /Created hello\.txt/);
    await idle();
    const answer = (await chat()).locator('[data-entry="assistant"]', { hasText: 'Created hello.txt' });
    await answer.waitFor();
    assert.equal(await answer.locator('strong').innerText(), 'hello.txt', 'markdown is rendered as elements');
    await (await chat()).locator('[data-entry="tool"][data-status="done"]').first().waitFor();
    await session.workbench.screenshot('chat-done');
  });

  it('deny with a reason: the next model request holds the reason and the file is untouched', async () => {
    model.fake.script([
      { toolCalls: [{ id: 'call_w2', name: 'write_file', arguments: JSON.stringify({ path: 'secrets.txt', content: 'x' }) }] },
      { text: 'Understood, I will not write it.' },
    ]);
    const before = model.fake.requests.length;
    await say('Write secrets.txt');
    const card = await panel().waitForCall('write_file', 'secrets.txt');
    await panel().deny(card, 'no secrets in the repo');
    await until(() => model.fake.requests.length === before + 2, 'the model to hear about the denial');
    const toolResult = sentMessages(model.fake, before + 1).find((message) => message.tool_call_id === 'call_w2');
    assert.match(toolResult?.content ?? '', /The person denied this call and said: "no secrets in the repo"\. Nothing was changed\./);
    assert.equal(existsSync(file('secrets.txt')), false);
    await idle();
    await (await chat()).locator('[data-entry="tool"][data-status="denied"]').first().waitFor();
  });

  it('two calls in one turn are one batch in the panel', async () => {
    model.fake.script([
      {
        toolCalls: [
          { id: 'call_a', name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: 'a\n' }) },
          { id: 'call_b', name: 'write_file', arguments: JSON.stringify({ path: 'b.txt', content: 'b\n' }) },
        ],
      },
      { text: 'Both written.' },
    ]);
    const before = model.fake.requests.length;
    await say('Write a.txt and b.txt');
    await panel().waitForCall('write_file', 'a.txt');
    await panel().waitForCall('write_file', 'b.txt');
    const frame = await session.workbench.webviewFrame(panelAllowAll);
    await frame.locator('[data-action="allow-all"]').click();
    await until(() => model.fake.requests.length === before + 2, 'the next turn');
    const results = sentMessages(model.fake, before + 1).filter((message) => message.role === 'tool').slice(-2);
    assert.deepEqual(results.map((message) => message.tool_call_id), ['call_a', 'call_b'], 'results in order');
    assert.equal(readFileSync(file('a.txt'), 'utf8'), 'a\n');
    assert.equal(readFileSync(file('b.txt'), 'utf8'), 'b\n');
    await idle();
  });

  it('a batch of 50 calls allowed together gives the model exactly 50 results, one per call, in order', async () => {
    const ids = Array.from({ length: 50 }, (_, index) => `call_b50_${index}`);
    model.fake.script([
      { toolCalls: ids.map((id, index) => ({ id, name: 'write_file', arguments: JSON.stringify({ path: `batch50/f${index}.txt`, content: `${index}\n` }) })) },
      { text: 'All 50 written.' },
    ]);
    const before = model.fake.requests.length;
    await say('Write fifty files');
    const frame = await session.workbench.webviewFrame(panelAllowAll);
    await frame.waitForFunction(() => document.querySelectorAll('article.call[data-call-id]').length === 50);
    await frame.locator('[data-action="allow-all"]').click();
    await until(() => model.fake.requests.length === before + 2, 'the next turn');
    const next = sentMessages(model.fake, before + 1);
    // The results that answer the last assistant message (the chat's earlier turns come before it).
    const results = next.slice(next.map((message) => message.role).lastIndexOf('assistant') + 1).filter((message) => message.role === 'tool');
    assert.deepEqual(results.map((message) => message.tool_call_id), ids, 'exactly one result per call, in the order of the calls');
    ids.forEach((_, index) => assert.equal(readFileSync(file(`batch50/f${index}.txt`), 'utf8'), `${index}\n`));
    await idle();
  });

  it('ask_user: an option clicked in the chat reaches the model', async () => {
    model.fake.script([
      { toolCalls: [{ id: 'call_q', name: 'ask_user', arguments: JSON.stringify({ question: 'Which license?', options: ['MIT', 'Apache-2.0'] }) }] },
      { text: 'MIT it is.' },
    ]);
    const before = model.fake.requests.length;
    await say('Add a license');
    const frame = await chat();
    await frame.locator('[data-entry="question"] [data-action="answer"][data-option="Apache-2.0"]').click();
    await until(() => model.fake.requests.length === before + 2, 'the answer to reach the model');
    const toolResult = sentMessages(model.fake, before + 1).find((message) => message.tool_call_id === 'call_q');
    assert.equal(toolResult?.content, 'The person answered: "Apache-2.0"');
    await idle();
  });

  it('typing "no, because …" in the chat denies the waiting call', async () => {
    model.fake.script([
      { toolCalls: [{ id: 'call_t', name: 'run_in_terminal', arguments: JSON.stringify({ command: 'touch typed.txt' }) }] },
      { text: 'Fine.' },
    ]);
    const before = model.fake.requests.length;
    await say('Touch a file');
    await panel().waitForCall('run_in_terminal');
    await say('no, because not now');
    await until(() => model.fake.requests.length === before + 2, 'the denial to reach the model');
    const toolResult = sentMessages(model.fake, before + 1).find((message) => message.tool_call_id === 'call_t');
    assert.match(toolResult?.content ?? '', /said: "not now"/);
    assert.equal(existsSync(file('typed.txt')), false);
    await idle();
  });

  it('stop while a call waits: the call is denied and the loop ends', async () => {
    model.fake.script([{ toolCalls: [{ id: 'call_s', name: 'write_file', arguments: JSON.stringify({ path: 'never.txt', content: 'x' }) }] }]);
    const before = model.fake.requests.length;
    await say('Write never.txt');
    await panel().waitForCall('write_file', 'never.txt');
    const frame = await chat();
    await frame.locator('[data-action="stop"]').click();
    // The chat shows it idle once the task's agent loop has returned (the session clears its running task after it):
    // no request of this task can come after it.
    await idle();
    await panel().waitForNoCalls();
    await frame.locator('[data-entry="tool"][data-status="denied"]', { hasText: 'never.txt' }).waitFor();
    await frame.locator('[data-entry="notice"]', { hasText: 'Stopped' }).waitFor();
    assert.equal(existsSync(file('never.txt')), false);
    assert.equal(model.fake.requests.length, before + 1, 'no model request after stop');
  });

  it('the chat survives a window reload', async () => {
    await session.workbench.reload();
    const frame = await chat();
    await frame.locator('[data-entry="assistant"]', { hasText: 'Created hello.txt' }).waitFor({ timeout: 30_000 });
  });
});
