import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { ChatDriver, sentToolResult } from './harness/chat';
import { until } from './harness/until';
import { useSession } from './harness/session';

/** 40 lines; changing lines 5, 20 and 35 makes three hunks (three lines of context each, far apart). */
const base = Array.from({ length: 40 }, (_, i) => `export const line${i + 1} = ${i + 1};\n`).join('');
const edits = [5, 20, 35].map((n) => ({ old: `export const line${n} = ${n};`, new: `export const line${n} = ${n * 100};` }));

describe('per-hunk review in the chat card', function () {
  this.timeout(180_000);
  const session = useSession({ model: true, files: { 'src/three.ts': base } });
  const { model, panel } = session;
  const driver = (): ChatDriver => new ChatDriver(session.workbench);
  const hunk = (card: Locator, index: number): Locator => card.locator(`[data-hunk-index="${index}"]`);
  /** Waits until a hunk shows `state` (the host's state reaches each view by a push). */
  const shows = (card: Locator, index: number, state: 'accepted' | 'rejected'): Promise<void> =>
    card.locator(`[data-hunk-index="${index}"][data-state="${state}"]`).waitFor({ timeout: 5_000 });

  /** Waits until a text box holds `expected` (a reason typed in another view arrives with a state push). */
  async function waitForValue(box: Locator, expected: string): Promise<void> {
    let value = '';
    await until(async () => (value = await box.inputValue()) === expected, `the box to hold ${JSON.stringify(expected)}`, { timeoutMs: 5_000, detail: () => `it still holds ${JSON.stringify(value)}` });
  }

  it('accepts 2 of 3 hunks in the chat (the panel shows each choice, and the chat each of the panel\'s); Allow once writes those two and the model hears of the third', async () => {
    const before = model.fake.requests.length;
    model.fake.script([
      { text: 'I will edit src/three.ts.', toolCalls: [{ id: 'call_h1', name: 'edit_file', arguments: JSON.stringify({ path: 'src/three.ts', edits }) }] },
      { text: 'Done.' },
    ]);
    await driver().task('Edit src/three.ts');
    const inPanel = await panel().waitForCall('edit_file', 'src/three.ts');
    const frame = await driver().frame();
    const inline = frame.locator('article.inline-call[data-call-id]', { hasText: 'src/three.ts' });
    await inline.waitFor({ state: 'visible', timeout: 30_000 });

    // Three hunks in file order, each with labelled Accept and Reject, all accepted to start with.
    assert.deepEqual(await inline.locator('[data-hunk-index]').evaluateAll((els) => els.map((el) => el.getAttribute('data-hunk-index'))), ['0', '1', '2']);
    for (const index of [0, 1, 2]) {
      for (const action of ['accept-hunk', 'reject-hunk']) {
        assert.match((await hunk(inline, index).locator(`[data-action="${action}"]`).getAttribute('aria-label')) ?? '', new RegExp(`hunk ${index + 1} of 3`));
      }
      await shows(inline, index, 'accepted');
    }
    // Tab goes from a hunk to its Accept, then its Reject.
    await hunk(inline, 1).focus();
    await frame.page().keyboard.press('Tab');
    assert.equal(await frame.evaluate(() => document.activeElement?.getAttribute('data-action')), 'accept-hunk');
    await frame.page().keyboard.press('Tab');
    assert.equal(await frame.evaluate(() => document.activeElement?.getAttribute('data-action')), 'reject-hunk');

    // Rejected in the chat, with a reason: the panel shows it at once, reason included.
    await hunk(inline, 1).locator('[data-action="reject-hunk"]').click();
    await hunk(inline, 1).locator('[data-field="hunk-reason"]').fill('keep line 20 as it is');
    await shows(inPanel, 1, 'rejected');
    const panelReason = inPanel.locator('[data-hunk-index="1"] [data-field="hunk-reason"]');
    await panelReason.waitFor({ state: 'visible' });
    await waitForValue(panelReason, 'keep line 20 as it is');
    assert.equal((await inPanel.locator('[data-field="hunk-summary"]').innerText()).trim(), '2 of 3 hunks accepted');

    // Rejected in the panel: the chat card shows it; accepted again in the chat: the panel shows that.
    await hunk(inPanel, 2).locator('[data-action="reject-hunk"]').click();
    await shows(inline, 2, 'rejected');
    assert.match(await inline.locator('[data-field="hunk-summary"]').innerText(), /1 of 3 hunks accepted/);
    await hunk(inline, 2).locator('[data-action="accept-hunk"]').click();
    await shows(inPanel, 2, 'accepted');
    await shows(inline, 2, 'accepted');
    assert.equal(await hunk(inline, 2).locator('[data-action="accept-hunk"]').getAttribute('aria-pressed'), 'true');

    // Allow once in the chat: the file holds exactly hunks 1 and 3; the model is told hunk 2 was rejected, and why.
    await inline.locator('[data-action="allow-once"]').click();
    await inline.waitFor({ state: 'detached', timeout: 5_000 });
    await inPanel.waitFor({ state: 'detached', timeout: 5_000 });
    await until(() => model.fake.requests.length === before + 2, 'the next model request');
    assert.equal(
      readFileSync(path.join(session.server.workspace, 'src/three.ts'), 'utf8'),
      base.replace('line5 = 5;', 'line5 = 500;').replace('line35 = 35;', 'line35 = 3500;'),
    );
    const told = sentToolResult(model.fake, before + 1, 'call_h1');
    assert.match(told, /accepted 2 of 3 hunks/);
    assert.match(told, /Hunk 2 rejected: line 20 \(originally line 20\)\. Reason: keep line 20 as it is/);
    assert.match(told, /Not written:\n```\nexport const line20 = 2000;\n```/);
    await driver().idle();
  });
});
