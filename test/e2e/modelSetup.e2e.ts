import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Frame } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fakeOpenAI';
import { ChatDriver } from './harness/chat';
import { useSession } from './harness/session';

/** Runs Test connection (`start` presses it) and returns its lines, as `kind:result`, once it has finished. */
async function testLines(frame: Frame, start: () => Promise<void>): Promise<string[]> {
  const checks = frame.locator('[data-field="setup-checks"]');
  const before = (await checks.getAttribute('data-test')) ?? '';
  await start();
  // `data-test` is the test's number, with " done" once it has finished: a new number, done.
  await frame.waitForFunction((last) => {
    const now = document.querySelector('[data-field="setup-checks"]')?.getAttribute('data-test') ?? '';
    return now !== last && now.endsWith(' done');
  }, before, { timeout: 90_000 });
  return await checks.locator('li').evaluateAll((items) => items.map((item) => `${item.getAttribute('data-check')}:${item.getAttribute('data-result')}`));
}

describe('the model is set up in the chat: provider, address, key, a model from the list, Test connection, Save', function () {
  this.timeout(240_000);
  // A local endpoint without a key, and a "hosted" one that wants one; the workspace starts on the first with a model
  // it does not serve, as a new user's first try often does.
  let local: FakeOpenAI | undefined;
  let hosted: FakeOpenAI | undefined;
  const key = 'sk-toolgate-e2e-0123456789';
  before(async () => {
    local = await startFakeOpenAI({ models: ['toolgate-test-model', 'coder-model'] });
    hosted = await startFakeOpenAI({ models: ['hosted-model'], apiKey: key });
  });
  after(async () => {
    await local?.close();
    await hosted?.close();
  });
  const server = (fake: FakeOpenAI | undefined): FakeOpenAI => {
    assert.ok(fake, 'the fake endpoints run');
    return fake;
  };
  const session = useSession({
    late: () => ({
      settings: { 'toolgate.model.baseUrl': server(local).baseUrl, 'toolgate.model.name': 'missing-model', 'toolgate.approvals.revealPanel': 'always' },
    }),
  });

  it("a model error's Set up the model opens the setup on the settings; a model picked from the list is saved, and Retry works", async () => {
    const chat = new ChatDriver(session.workbench);
    const frame = await chat.frame();
    await frame.locator('[data-field="welcome-model"]', { hasText: `Model: missing-model at ${server(local).baseUrl}.` }).waitFor();
    await chat.task('Say hello');
    const notice = frame.locator('[data-entry="notice"]', { hasText: "has no model 'missing-model'" });
    await notice.waitFor({ timeout: 60_000 });
    assert.deepEqual(await notice.locator('[data-action="host-command"]').evaluateAll((buttons) => buttons.map((button) => button.getAttribute('data-command'))), ['setUpModel', 'openModelSettings']);
    await notice.locator('[data-command="setUpModel"]').click();

    const form = frame.locator('[data-field="model-setup"]');
    await form.waitFor();
    assert.equal(await frame.locator('[data-field="transcript"]').isHidden(), true, 'the setup takes the transcript\'s place');
    assert.equal(await form.locator('[data-field="setup-provider"]').inputValue(), 'custom');
    assert.equal(await form.locator('[data-field="setup-base-url"]').inputValue(), server(local).baseUrl);
    assert.equal(await form.locator('[data-field="setup-model"]').inputValue(), 'missing-model');
    // The endpoint's models are asked for as the form opens.
    await form.locator('[data-field="setup-models-status"]', { hasText: '2 models listed.' }).waitFor();
    assert.deepEqual(await form.locator('[data-field="setup-model-list"] option').allInnerTexts(), ['Pick one of 2', 'coder-model', 'toolgate-test-model']);

    // The model as typed is tested first: the list says it is not served.
    assert.deepEqual(await testLines(frame, () => form.locator('[data-action="setup-test"]').click()), ['address:pass', 'key:pass', 'model:fail', 'tools:skip']);
    assert.match(await form.locator('[data-check="model"]').innerText(), /It does not list missing-model\. Pick one of its 2 models/);
    // Save right after that test stops and says why, and saves nothing.
    await form.locator('[data-action="setup-save"]').click();
    await form.locator('[data-field="setup-saved"]', { hasText: 'Not saved' }).waitFor();
    assert.match(await form.locator('[data-field="setup-saved"]').innerText(), /^Not saved: Test connection just found that http:\/\/127\.0\.0\.1:\d+\/v1 does not serve missing-model\. It does not list missing-model\. .* Or press Save again to save missing-model anyway\.$/);
    assert.match(readFileSync(path.join(session.server.workspace, '.vscode', 'settings.json'), 'utf8'), /"toolgate\.model\.name": "missing-model"/);

    await form.locator('[data-field="setup-model-list"]').selectOption('toolgate-test-model');
    assert.equal(await form.locator('[data-field="setup-model"]').inputValue(), 'toolgate-test-model');
    server(local).script([{ toolCalls: [{ name: 'toolgate_connection_test', arguments: '{}' }] }]);
    assert.deepEqual(await testLines(frame, () => form.locator('[data-action="setup-test"]').click()), ['address:pass', 'key:pass', 'model:pass', 'tools:pass']);
    assert.match(await form.locator('[data-check="tools"]').innerText(), /A request with a tool worked: toolgate-test-model called it/);
    await form.locator('[data-action="setup-save"]').click();
    await form.locator('[data-field="setup-saved"]', { hasText: 'toolgate-test-model at' }).waitFor();
    assert.match(await form.locator('[data-field="setup-saved"]').innerText(), /^Saved in your user settings \(provider\) and this workspace's settings \(address, model; it set them already\): Other OpenAI-compatible, toolgate-test-model at http:\/\/127\.0\.0\.1:\d+\/v1\. The next request uses it\.$/);
    await frame.locator(`[data-field="model"][title*="toolgate-test-model at ${server(local).baseUrl}"]`).waitFor();

    await form.locator('[data-action="setup-close"]').click();
    await frame.locator('[data-field="transcript"]').waitFor();
    server(local).script([{ text: 'Hello with the model you picked.' }]);
    await notice.locator('[data-action="retry"]').click();
    await frame.locator('[data-entry="assistant"]', { hasText: 'Hello with the model you picked.' }).waitFor({ timeout: 60_000 });
    const last = server(local).requests.at(-1)?.body as { model?: unknown } | undefined;
    assert.equal(last?.model, 'toolgate-test-model');
    await chat.idle();
  });

  it('keyboard only: a hosted endpoint needs a key, the key is set for its address alone, and is never sent elsewhere', async () => {
    const chat = new ChatDriver(session.workbench);
    await chat.newChat();
    const frame = await chat.frame();
    const page = session.workbench.page;
    // From the welcome's button, by the keyboard.
    await frame.locator('[data-field="welcome"] [data-action="setup-open"]').focus();
    await page.keyboard.press('Enter');
    const form = frame.locator('[data-field="model-setup"]');
    const provider = form.locator('[data-field="setup-provider"]');
    await form.waitFor();
    assert.equal(await provider.evaluate((element) => element === document.activeElement), true, `the focus is on the provider, not ${await frame.evaluate(() => document.activeElement?.outerHTML.slice(0, 200) ?? 'nothing')}`);
    // The presets fill the address; then another one is typed.
    assert.notEqual(await form.locator('[data-field="setup-model"]').inputValue(), '', 'the settings\' model to begin with');
    await provider.selectOption('openai');
    assert.equal(await form.locator('[data-field="setup-base-url"]').inputValue(), 'https://api.openai.com/v1');
    // The model named for the provider before is not kept for this one.
    assert.equal(await form.locator('[data-field="setup-model"]').inputValue(), '');
    await form.locator('[data-field="setup-key"]', { hasText: 'No API key stored. This provider needs one.' }).waitFor();
    await provider.selectOption('custom');
    // Tab goes from the provider to the address (the hint between them takes no focus).
    await page.keyboard.press('Tab');
    const address = form.locator('[data-field="setup-base-url"]');
    await frame.waitForFunction(() => document.activeElement?.getAttribute('data-field') === 'setup-base-url');
    await address.fill(server(hosted).baseUrl);
    // Leaving the address asks the endpoint for its models.
    await page.keyboard.press('Tab');
    await form.locator('[data-field="setup-models-status"]', { hasText: 'The endpoint wants an API key: Set API Key.' }).waitFor();
    // The openai package sends a placeholder when there is no key; no key of ours went.
    assert.equal(server(hosted).modelListings.at(-1)?.headers.authorization, 'Bearer not-needed');

    // Test connection says what is missing and what to do.
    await form.locator('[data-field="setup-model"]').fill('hosted-model');
    assert.deepEqual(await testLines(frame, async () => {
      await form.locator('[data-action="setup-test"]').focus();
      await page.keyboard.press('Enter');
    }), ['address:pass', 'key:fail', 'model:skip', 'tools:skip']);
    assert.match(await form.locator('[data-check="key"]').innerText(), /The endpoint needs an API key \(401\)\. Set API Key to store one for http:\/\/127\.0\.0\.1:\d+\./);

    // The key goes into VS Code's own password box (never into the webview), for this address.
    const origin = new URL(server(hosted).baseUrl).origin;
    await form.locator('[data-action="setup-key"]').focus();
    await page.keyboard.press('Enter');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    assert.match(await page.locator('.quick-input-widget').innerText(), new RegExp(`API key for ${origin.replace(/\./g, '\\.')}`));
    assert.equal(await input.getAttribute('type'), 'password');
    await input.fill(key);
    await input.press('Enter');
    await form.locator('[data-field="setup-key"]', { hasText: `A key is stored for ${origin}.` }).waitFor();
    assert.equal(await frame.locator('body').evaluate((body, secret) => body.innerHTML.includes(secret), key), false, 'the key is not in the webview');

    // The endpoint lists one model: it is picked.
    await form.locator('[data-field="setup-model"]').fill('');
    await form.locator('[data-action="setup-load-models"]').click();
    await form.locator('[data-field="setup-models-status"]', { hasText: '1 model listed, hosted-model among them.' }).waitFor();
    assert.equal(await form.locator('[data-field="setup-model"]').inputValue(), 'hosted-model');
    server(hosted).script([{ toolCalls: [{ name: 'toolgate_connection_test', arguments: '{}' }] }]);
    assert.deepEqual(await testLines(frame, () => form.locator('[data-action="setup-test"]').click()), ['address:pass', 'key:pass', 'model:pass', 'tools:pass']);
    assert.match(await form.locator('[data-check="key"]').innerText(), /The API key was accepted\./);
    await form.locator('[data-action="setup-save"]').click();
    await form.locator('[data-field="setup-saved"]', { hasText: 'hosted-model at' }).waitFor();

    // README: the first run, set up (1400x900 and 900x700, light and dark). The focus leaves the form first: the
    // command palette's Escape would close it (as Escape in the form does).
    await page.locator('.part.editor').click({ position: { x: 200, y: 200 } });
    for (const theme of ['Light Modern', 'Dark Modern'] as const) {
      await session.workbench.setColorTheme(theme);
      for (const [width, height] of [[1400, 900], [900, 700]] as const) {
        await page.setViewportSize({ width, height });
        await form.locator('[data-field="setup-saved"]').scrollIntoViewIfNeeded();
        await session.workbench.screenshot(`chat-model-setup-${theme.includes('Light') ? 'light' : 'dark'}-${width}x${height}`);
      }
    }
    await page.setViewportSize({ width: 1400, height: 900 });
    await session.workbench.setColorTheme('Light Modern');

    // Escape closes the form, and the focus goes back to the model chip, which now names the hosted model.
    await form.locator('[data-field="setup-model"]').focus();
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'hidden' });
    const chip = frame.locator('[data-field="model"]');
    assert.equal(await chip.evaluate((element) => element === document.activeElement), true, 'the focus is back on the chip');
    assert.match((await chip.getAttribute('title')) ?? '', new RegExp(`Model hosted-model at ${server(hosted).baseUrl.replace(/\./g, '\\.')}`));

    // The agent's requests carry the key to the address it was set for.
    server(hosted).script([{ text: 'Hello from the hosted model.' }]);
    await chat.task('Say hello');
    await frame.locator('[data-entry="assistant"]', { hasText: 'Hello from the hosted model.' }).waitFor({ timeout: 60_000 });
    assert.equal(server(hosted).requests.at(-1)?.headers.authorization, `Bearer ${key}`);
    await chat.idle();

    // Pointed at another address, the key stays home: neither the form's list nor its test sends it there.
    await chip.click();
    await form.waitFor();
    await provider.selectOption('custom');
    await form.locator('[data-field="setup-base-url"]').fill(server(local).baseUrl);
    await form.locator('[data-field="setup-base-url"]').press('Tab');
    await form.locator('[data-field="setup-models-status"]', { hasText: '2 models listed' }).waitFor();
    await form.locator('[data-field="setup-key"]', { hasText: `The stored key is for ${origin}: it is not sent to ${new URL(server(local).baseUrl).origin}.` }).waitFor();
    const authorizations = [...server(local).modelListings, ...server(local).requests].map((request) => request.headers.authorization);
    assert.deepEqual(authorizations.filter((value) => value !== undefined && value !== 'Bearer not-needed'), [], 'the local endpoint never got the key');
    await form.locator('[data-action="setup-close"]').click();
  });

  it("where the workspace does not set the model, the address (a machine setting) goes to the Remote settings, and the note says so", async () => {
    const workspaceSettings = path.join(session.server.workspace, '.vscode', 'settings.json');
    writeFileSync(workspaceSettings, JSON.stringify({ 'toolgate.approvals.revealPanel': 'always' }, null, 2));
    const chat = new ChatDriver(session.workbench);
    const frame = await chat.frame();
    // The chip follows the settings: the workspace's model is gone.
    await frame.locator('[data-field="model"]:not([title*="hosted-model"])').waitFor({ timeout: 30_000 });
    await frame.locator('[data-field="model"]').click();
    const form = frame.locator('[data-field="model-setup"]');
    await form.waitFor();
    await form.locator('[data-field="setup-provider"]').selectOption('custom');
    await form.locator('[data-field="setup-base-url"]').fill(server(local).baseUrl);
    await form.locator('[data-field="setup-base-url"]').press('Tab');
    await form.locator('[data-field="setup-models-status"]', { hasText: '2 models listed' }).waitFor();
    await form.locator('[data-field="setup-model-list"]').selectOption('coder-model');
    await form.locator('[data-action="setup-save"]').click();
    await form.locator('[data-field="setup-saved"]', { hasText: 'coder-model at' }).waitFor();
    assert.match(await form.locator('[data-field="setup-saved"]').innerText(), /^Saved in your user settings \(provider, model\) and the Remote settings of the machine the extension runs on \(address\): Other OpenAI-compatible, coder-model at http:\/\/127\.0\.0\.1:\d+\/v1\./);
    // Where VS Code put them, on disk.
    const read = (file: string): Record<string, unknown> => (existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {});
    const user = read(path.join(session.server.userDataDir, 'User', 'settings.json'));
    const machine = read(path.join(session.server.userDataDir, 'Machine', 'settings.json'));
    assert.equal(machine['toolgate.model.baseUrl'], server(local).baseUrl);
    assert.equal(user['toolgate.model.baseUrl'], undefined);
    assert.equal(user['toolgate.model.name'], 'coder-model');
    await form.locator('[data-action="setup-close"]').click();
  });
});
