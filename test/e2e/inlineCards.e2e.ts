import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { Frame, Locator } from 'playwright-core';
import { ChatDriver, sentToolResult } from './harness/chat';
import { until } from './harness/until';
import { useSession } from './harness/session';

describe('inline decisions in the chat', function () {
  this.timeout(180_000);
  const session = useSession({ model: true });
  const { model, file, panel } = session;
  const driver = (): ChatDriver => new ChatDriver(session.workbench);
  const chat = (): Promise<Frame> => driver().frame();

  const writeCall = (id: string, relative: string, content: string): { id: string; name: string; arguments: string } =>
    ({ id, name: 'write_file', arguments: JSON.stringify({ path: relative, content }) });

  /** The chat's inline card of the one waiting call whose card mentions `text`. */
  async function chatCard(text: string): Promise<Locator> {
    const card = (await chat()).locator('article.inline-call[data-call-id]', { hasText: text });
    await card.waitFor({ state: 'visible', timeout: 30_000 });
    return card;
  }

  /** A write_file call from the scripted model, waiting in both views; returns the chat card and the panel card. */
  async function waitingWrite(id: string, relative: string, content: string, then: string): Promise<{ inline: Locator; inPanel: Locator }> {
    model.fake.script([
      { text: `I will write ${relative}.`, toolCalls: [writeCall(id, relative, content)] },
      { text: then },
    ]);
    await driver().task(`Write ${relative}`);
    const inPanel = await panel().waitForCall('write_file', relative);
    const inline = await chatCard(relative);
    assert.equal(await inline.getAttribute('data-call-id'), await inPanel.getAttribute('data-call-id'), 'the same call in both views');
    return { inline, inPanel };
  }

  /** The chat gets the sidebar's height for the screenshots (the MCP Servers view is collapsed). */
  async function collapseMcpServers(): Promise<void> {
    const header = session.workbench.page.locator('.pane-header[aria-expanded="true"]', { hasText: 'MCP Servers' });
    if ((await header.count()) > 0) {
      await header.first().click();
    }
  }

  const setTheme = (theme: 'Light Modern' | 'Dark Modern'): Promise<void> => session.workbench.setColorTheme(theme);

  async function screenshots(theme: 'dark' | 'light'): Promise<void> {
    const page = session.workbench.page;
    for (const [width, height] of [[1400, 900], [900, 700]] as const) {
      await page.setViewportSize({ width, height });
      // The workbench lays itself out again for the new size; the chat's webview draws its frame after that.
      await page.waitForFunction(
        ([w, h]) => document.querySelector('.monaco-workbench')?.clientWidth === w && document.querySelector('.monaco-workbench')?.clientHeight === h,
        [width, height] as const,
        { timeout: 10_000 },
      );
      await (await chat()).evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      await session.workbench.screenshot(`inline-card-${theme}-${width}x${height}`);
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  }

  it('shows the waiting write_file in the chat with its diff; Allow once there writes the file and the panel card goes at once', async () => {
    const before = model.fake.requests.length;
    const { inline, inPanel } = await waitingWrite('call_i1', 'inline.txt', 'written from the chat\n', 'Wrote inline.txt.');
    const diff = inline.locator('[data-field="diff"]');
    await diff.waitFor();
    assert.match(await diff.innerText(), /inline\.txt[\s\S]*written from the chat/);
    for (const action of ['allow-once', 'allow-session', 'allow-workspace', 'deny']) {
      assert.equal(await inline.locator(`[data-action="${action}"]`).count(), 1, `the card has ${action}`);
      assert.ok(await inline.locator(`[data-action="${action}"]`).getAttribute('aria-label'), `${action} is labelled`);
    }
    assert.equal(await inline.locator('[data-field="reason"]').isVisible(), false, 'the reason box waits for Deny');
    await collapseMcpServers();
    await setTheme('Dark Modern');
    await screenshots('dark');

    await inline.locator('[data-action="allow-once"]').click();
    await inPanel.waitFor({ state: 'detached', timeout: 2_000 });
    await inline.waitFor({ state: 'detached', timeout: 2_000 });
    await until(() => model.fake.requests.length === before + 2, 'the next model request');
    assert.equal(readFileSync(file('inline.txt'), 'utf8'), 'written from the chat\n');
    assert.match(sentToolResult(model.fake, before + 1, 'call_i1'), /Created inline\.txt/);
    await driver().idle();
  });

  it('Deny in the chat opens the reason box; the reason typed there reaches the model', async () => {
    const before = model.fake.requests.length;
    const { inline, inPanel } = await waitingWrite('call_i2', 'nope.txt', 'x\n', 'I will leave it.');
    const reason = inline.locator('[data-field="reason"]');
    await inline.locator('[data-action="deny"]').click();
    await reason.waitFor({ state: 'visible' });
    assert.equal(await (await chat()).evaluate(() => document.activeElement?.getAttribute('data-field')), 'reason', 'the box has the focus');
    // The box and the Deny that sends it are in view whole, not half below the fold.
    const inView = await (await chat()).evaluate(() => {
      const transcript = document.querySelector('[data-field="transcript"]')?.getBoundingClientRect();
      const box = document.querySelector('[data-field="reason"]')?.getBoundingClientRect();
      return transcript !== undefined && box !== undefined && box.top >= transcript.top - 1 && box.bottom <= transcript.bottom + 1;
    });
    assert.equal(inView, true, 'the reason box is within the transcript as it scrolls');
    await reason.fill('keep the folder clean');
    await inline.locator('[data-action="deny"]').click();
    await inline.waitFor({ state: 'detached', timeout: 2_000 });
    await inPanel.waitFor({ state: 'detached', timeout: 2_000 });
    await until(() => model.fake.requests.length === before + 2, 'the model to hear of the denial');
    assert.match(sentToolResult(model.fake, before + 1, 'call_i2'), /The person denied this call and said: "keep the folder clean"/);
    assert.equal(existsSync(file('nope.txt')), false);
    await driver().idle();
  });

  it('a decision in the panel removes the chat card at once', async () => {
    const before = model.fake.requests.length;
    const { inline, inPanel } = await waitingWrite('call_i3', 'paneled.txt', 'from the panel\n', 'Done.');
    await setTheme('Light Modern');
    await collapseMcpServers();
    await screenshots('light');
    await panel().act(inPanel, 'allow-once');
    await inline.waitFor({ state: 'detached', timeout: 2_000 });
    await until(() => model.fake.requests.length === before + 2, 'the next model request');
    assert.equal(readFileSync(file('paneled.txt'), 'utf8'), 'from the panel\n');
    assert.equal(await (await chat()).locator('[data-field="inline-calls"]').isVisible(), false, 'nothing waits in the chat');
    await driver().idle();
  });

  it('an edit in the diff editor, then Allow once in the chat: both cards showed the edit first, and the edit is what is written', async () => {
    const before = model.fake.requests.length;
    const { inline, inPanel } = await waitingWrite('call_e1', 'edited.txt', 'one\ntwo\n', 'Done.');
    await inPanel.locator('[data-action="open-diff"]').click();
    const page = session.workbench.page;
    await page.locator('.tabs-container .tab', { hasText: 'proposed by the agent' }).waitFor();
    await page.locator('.monaco-diff-editor .editor.modified .view-line', { hasText: 'two' }).click();
    await page.keyboard.press('End');
    await page.keyboard.type(' and mine');
    // Unsaved, the edit is the call's for every surface: the chat card and the panel card show it, from the host.
    for (const card of [inline, inPanel]) {
      // The note follows the typing: it is read once it shows the whole edit.
      const note = card.locator('[data-field="held-edit"]', { hasText: 'two and mine' });
      await note.waitFor({ state: 'visible' });
      assert.match(await note.innerText(), /Edited in VS Code's diff editor: Allow writes this version/);
    }
    await inline.locator('[data-action="allow-once"][data-edited="true"]').waitFor();
    await inline.locator('[data-action="allow-once"]').click();
    await inline.waitFor({ state: 'detached' });
    await until(() => model.fake.requests.length === before + 2, 'the next model request');
    assert.equal(readFileSync(file('edited.txt'), 'utf8'), 'one\ntwo and mine\n');
    assert.match(sentToolResult(model.fake, before + 1, 'call_e1'), /edited the content before allowing it/);
    await page.locator('.tabs-container .tab', { hasText: 'proposed by the agent' }).waitFor({ state: 'detached' });
    await driver().idle();
  });

  it("the chat's card is the panel's: Edit then allow writes the person's version, and Allow all decides the calls it shows", async () => {
    model.fake.script([
      { toolCalls: [writeCall('call_b1', 'b1.txt', 'agent one\n'), writeCall('call_b2', 'b2.txt', 'two\n'), writeCall('call_b3', 'b3.txt', 'three\n')] },
      { text: 'Ok.' },
    ]);
    const before = model.fake.requests.length;
    await driver().task('Write b1, b2 and b3');
    const first = await chatCard('b1.txt');
    await chatCard('b3.txt');
    const frame = await chat();
    const batch = frame.locator('[data-field="inline-calls"] [data-field="batch"]');
    await batch.locator('[data-action="allow-all"]', { hasText: 'Allow all 3' }).waitFor();
    await first.locator('[data-action="edit"]').click();
    const box = first.locator('textarea[data-field="edited"]');
    await box.fill('my one\n');
    // The box's edit is held by the host: the panel's card shows it too before anything is allowed.
    const inPanel = await panel().waitForCall('write_file', 'b1.txt');
    await inPanel.locator('[data-field="held-edit"]', { hasText: 'Edited in the chat' }).waitFor();
    await first.locator('[data-action="allow-edited"]').click();
    await first.waitFor({ state: 'detached' });
    await batch.locator('[data-action="allow-all"]', { hasText: 'Allow all 2' }).click();
    await frame.locator('[data-field="inline-calls"]').waitFor({ state: 'hidden' });
    await until(() => model.fake.requests.length === before + 2, 'the next model request');
    assert.equal(readFileSync(file('b1.txt'), 'utf8'), 'my one\n');
    assert.equal(readFileSync(file('b2.txt'), 'utf8'), 'two\n');
    assert.equal(readFileSync(file('b3.txt'), 'utf8'), 'three\n');
    assert.match(sentToolResult(model.fake, before + 1, 'call_b1'), /edited the content before allowing it/);
    await driver().idle();
  });

  it('from the keyboard: Enter in the reason box denies, the focus moves to the next waiting card (not its Allow), and Tab reaches each labelled control', async () => {
    model.fake.script([{ toolCalls: [writeCall('call_k1', 'k1.txt', '1\n'), writeCall('call_k2', 'k2.txt', '2\n')] }, { text: 'Ok.' }]);
    const before = model.fake.requests.length;
    await driver().task('Write k1 and k2');
    const first = await chatCard('k1.txt');
    const second = await chatCard('k2.txt');
    const frame = await chat();
    await first.locator('[data-action="deny"]').focus();
    await frame.page().keyboard.press('Enter');
    await first.locator('[data-field="reason"]').waitFor({ state: 'visible' });
    await frame.page().keyboard.type('not k1');
    await frame.page().keyboard.press('Enter');
    await first.waitFor({ state: 'detached', timeout: 2_000 });
    // The focus is on the next card itself, not on its Allow once: a second Enter decides nothing unseen.
    await frame.waitForFunction(() => document.activeElement?.matches('article.inline-call[data-call-id]') === true, undefined, { timeout: 2_000 });
    const focusedCard = await frame.evaluate(() => document.activeElement?.textContent ?? '');
    assert.match(focusedCard, /k2\.txt/);
    await frame.page().keyboard.press('Enter');
    assert.equal(await second.count(), 1, 'Enter on the card itself decides nothing');
    assert.equal(existsSync(file('k2.txt')), false);
    await second.locator('[data-action="allow-once"]').focus();
    // Every control of the card is reached with Tab, in order, and each is labelled with its call.
    const focused = (): Promise<[string, string]> =>
      frame.evaluate(() => [
        document.activeElement?.getAttribute('data-action') ?? document.activeElement?.getAttribute('data-field') ?? '',
        document.activeElement?.getAttribute('aria-label') ?? '',
      ]);
    const reached: string[] = [];
    for (let i = 0; i < 9; i++) {
      await frame.page().keyboard.press('Tab');
      const [action, label] = await focused();
      assert.ok(action === 'open-approvals' || label.includes('k2.txt'), `${action} is labelled with its call: ${label}`);
      reached.push(action);
    }
    // Allow once, Edit then allow and Deny first; then the grant's menu with the grants it affects, as in the panel.
    assert.deepEqual(reached, ['edit', 'deny', 'grant-scope', 'allow-session', 'allow-task', 'grant-minutes', 'allow-minutes', 'allow-workspace', 'open-approvals']);
    await second.locator('[data-action="allow-once"]').focus();
    await frame.page().keyboard.press('Enter');
    await second.waitFor({ state: 'detached', timeout: 2_000 });
    await until(() => model.fake.requests.length === before + 2, 'the next model request');
    assert.match(sentToolResult(model.fake, before + 1, 'call_k1'), /said: "not k1"/);
    assert.equal(readFileSync(file('k2.txt'), 'utf8'), '2\n');
    await driver().idle();
  });
});
