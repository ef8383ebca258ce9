/**
 * A group card that scales, in the real VS Code: a command that changed seven files is one card (one decision on the
 * badge) that says which command it is and shows its Allow accepted together at 900x700 without scrolling, in the chat
 * and in the Approvals panel; its files listed at the top, collapsed past the first three, opened from the list with
 * the keyboard; after Allow accepted the command's entry says what landed. A one-file card at 900x700 shows its header
 * and its buttons together too (its long diff scrolls inside it).
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { ChatDriver } from './harness/chat';
import { useSession } from './harness/session';

const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
/** 40 lines; the command changes lines 5 and 35 and adds one at the end: two hunks per file. */
const moduleText = (name: string): string => Array.from({ length: 40 }, (_, i) => `export const ${name}${i + 1} = ${i + 1};\n`).join('');
const note = '// the seven modules now start at five hundred, and this note says so at the end of each of them';
const command = `for f in src/mod/*.ts; do sed -i -e 's/ = 5;/ = 500;/' -e 's/ = 35;/ = 3500;/' "$f"; echo "${note}" >> "$f"; done`;

/**
 * Where an element is on screen: its box in the page (the workbench's 900x700 or 1400x900), and whether it is what a
 * person sees at its middle (not scrolled out of its view, nor under anything else).
 */
async function onScreen(locator: Locator): Promise<{ top: number; bottom: number; seen: boolean }> {
  const box = await locator.boundingBox();
  assert.ok(box, 'the element has a box');
  const seen = await locator.evaluate((element) => {
    const rect = element.getBoundingClientRect();
    const hit = document.elementFromPoint(rect.left + Math.min(rect.width / 2, 24), rect.top + rect.height / 2);
    return hit !== null && (hit === element || element.contains(hit));
  });
  return { top: box.y, bottom: box.y + box.height, seen };
}

/** Both in the page's viewport and seen, at once, with nothing scrolled in between. */
async function togetherOnScreen(what: string, height: number, ...locators: Locator[]): Promise<void> {
  const boxes = await Promise.all(locators.map(onScreen));
  for (const [index, box] of boxes.entries()) {
    assert.ok(box.top >= 0 && box.bottom <= height, `${what}: element ${index} is within the ${height} px viewport (${box.top}..${box.bottom})`);
    assert.ok(box.seen, `${what}: element ${index} is seen, not scrolled away or covered`);
  }
}

describe('a group card with many files, and one-file cards, at 900x700', function () {
  this.timeout(240_000);
  const cache = mkdtempSync(path.join(os.tmpdir(), 'toolgate-e2e-cache-'));
  const long = Array.from({ length: 120 }, (_, i) => `export const line${i + 1} = ${i + 1};\n`).join('');
  const session = useSession({
    model: true,
    env: { XDG_CACHE_HOME: cache },
    files: { ...Object.fromEntries(names.map((name) => [`src/mod/${name}.ts`, moduleText(name)])), 'src/long.ts': long },
    });
  const { model, file, panel } = session;
  after(() => rmSync(cache, { recursive: true, force: true }));
  const chat = (): ChatDriver => new ChatDriver(session.workbench);

  it('seven files: one card, one decision; which command and Allow accepted on screen together in the chat and the panel; listed, collapsed past three; what landed on the entry', async () => {
    model.fake.script([{ toolCalls: [{ id: 'g7', name: 'run_in_terminal', arguments: JSON.stringify({ command }) }] }, { text: 'Done.' }]);
    await chat().say('Start the seven modules at five hundred');
    // The command's own card says where it runs and that what it writes is reviewed (the host's typed field).
    const commandCard = await panel().waitForCall('run_in_terminal', undefined, 60_000);
    assert.equal(await commandCard.locator('[data-field="sandbox"]').getAttribute('data-sandbox'), 'reviewed');
    assert.match(await commandCard.locator('[data-field="sandbox"]').innerText(), /Runs in the sandbox\. The files it changes .* wait for your review/);
    await panel().act(commandCard, 'allow-once');

    const frame = await chat().frame();
    const card = frame.locator('article.inline-call.call-group', { hasText: 'changed 7 files' });
    await card.waitFor({ timeout: 60_000 });
    const inPanel = await panel().waitForGroup('changed 7 files', 60_000);
    const page = session.workbench.page;
    // One command: one decision waiting on the status bar (and the badge), not seven.
    await page.locator('.statusbar-item', { hasText: '1 waiting' }).waitFor();
    for (const shown of [card, inPanel]) {
      assert.equal(await shown.locator('.group-index li').count(), 7);
      assert.deepEqual(await shown.locator('section.group-file').evaluateAll((sections) => sections.map((section) => section.hasAttribute('data-collapsed'))), names.map((_, index) => index >= 3));
      // One reason line for the group, not one per file.
      assert.equal(await shown.locator('[data-field="why"]', { hasText: 'writes always ask' }).count(), 1);
      assert.equal(await shown.locator('[data-hunk-index]').count(), 14);
    }

    await page.setViewportSize({ width: 900, height: 700 });
    for (const theme of ['Light Modern', 'Dark Modern'] as const) {
      await session.workbench.setColorTheme(theme);
      await togetherOnScreen(`the chat's group card (${theme})`, 700, card.locator('[data-field="group-title"]'), card.locator('[data-action="allow-once"]'));
      await togetherOnScreen(`the panel's group card (${theme})`, 700, inPanel.locator('[data-field="group-title"]'), inPanel.locator('[data-action="allow-once"]'));
      await session.workbench.screenshot(`group-card-${theme === 'Light Modern' ? 'light' : 'dark'}-900x700`);
    }
    // The header is one line, the command cut with an ellipsis; the whole of it on request.
    const title = await card.locator('[data-field="group-title"]').boundingBox();
    assert.ok(title && title.height < 30, `the header is one line (${title?.height ?? 0} px)`);
    await card.locator('[data-action="show-command"]').click();
    assert.equal(await card.locator('[data-field="group-command"]').innerText(), command);
    await card.locator('[data-action="show-command"]').click();

    // With the keyboard: the fifth file's name in the list, Enter: its diff opens and has the focus.
    await card.locator('.group-index [data-action="show-file"][data-path="src/mod/e.ts"]').focus();
    await page.keyboard.press('Enter');
    const fifth = card.locator('section.group-file[data-path="src/mod/e.ts"]');
    await card.locator('section.group-file[data-path="src/mod/e.ts"]:not([data-collapsed])').waitFor();
    assert.equal(await frame.evaluate(() => document.activeElement?.getAttribute('data-path')), 'src/mod/e.ts');
    assert.ok(await fifth.locator('[data-hunk-index="0"] [data-action="accept-hunk"]').isVisible());
    // Scrolled into the card, its header and its decision bar are still in view.
    await togetherOnScreen("the chat's group card, scrolled to its fifth file", 700, card.locator('[data-field="group-title"]'), card.locator('[data-action="allow-once"]'), fifth.locator('.diff-toolbar'));

    await page.setViewportSize({ width: 1400, height: 900 });
    for (const theme of ['Dark Modern', 'Light Modern'] as const) {
      await session.workbench.setColorTheme(theme);
      await togetherOnScreen(`the chat's group card at 1400x900 (${theme})`, 900, card.locator('[data-field="group-title"]'), card.locator('[data-action="allow-once"]'));
      await session.workbench.screenshot(`group-card-${theme === 'Light Modern' ? 'light' : 'dark'}-1400x900`);
    }

    // Two files rejected from their lines' Reject file; Allow accepted lands the other five.
    for (const name of ['f', 'g']) {
      await card.locator(`section.group-file[data-path="src/mod/${name}.ts"] [data-action="reject-file"]`).click();
      await card.locator(`.group-index li[data-path="src/mod/${name}.ts"][data-state="rejected"]`).waitFor();
    }
    await card.locator('[data-field="group-summary"]', { hasText: '5 of 7 files accepted' }).waitFor();
    await card.locator('[data-action="allow-once"]').click();
    const landed = frame.locator('[data-entry="tool"][data-tool="run_in_terminal"] [data-field="landed"]');
    await landed.waitFor({ timeout: 60_000 });
    assert.equal(await landed.innerText(), 'Landed 5 files; rejected 2 files.');
    await frame.locator('[data-entry="assistant"]', { hasText: 'Done.' }).waitFor({ timeout: 60_000 });
    await chat().idle();
    await session.workbench.screenshot('group-card-landed-1400x900');
    for (const name of names) {
      const text = readFileSync(file(`src/mod/${name}.ts`), 'utf8');
      const accepted = !['f', 'g'].includes(name);
      assert.equal(text, accepted ? moduleText(name).replace(` = 5;`, ' = 500;').replace(' = 35;', ' = 3500;') + `${note}\n` : moduleText(name), `src/mod/${name}.ts`);
    }
  });

  it('a one-file card at 900x700 shows its header and its buttons together, in the chat and in the panel (its long diff scrolls inside it)', async () => {
    const page = session.workbench.page;
    await page.setViewportSize({ width: 900, height: 700 });
    const content = long.replace(/ = (\d+);/g, (_, n: string) => ` = ${Number(n) * 10};`);
    model.fake.script([{ toolCalls: [{ id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'src/long.ts', content }) }] }, { text: 'Done.' }]);
    await chat().say('Multiply every line of src/long.ts by ten');
    const frame = await chat().frame();
    const inline = frame.locator('article.inline-call[data-call-id][data-tool="write_file"]');
    await inline.waitFor({ timeout: 60_000 });
    const inPanel = await panel().waitForCall('write_file', 'src/long.ts');
    await togetherOnScreen("the chat's write_file card", 700, inline.locator('.call-header'), inline.locator('[data-action="allow-once"]'), inline.locator('[data-action="deny"]'));
    await togetherOnScreen("the panel's write_file card", 700, inPanel.locator('.call-header'), inPanel.locator('[data-action="allow-once"]'), inPanel.locator('[data-action="deny"]'));
    // The diff scrolls inside the card.
    const body = inline.locator('.diff-body').first();
    assert.ok(await body.evaluate((element) => element.scrollHeight > element.clientHeight + 100), 'the long diff scrolls inside the card');
    await session.workbench.screenshot('one-file-card-900x700');
    await inline.locator('[data-action="allow-once"]').click();
    await frame.locator('[data-entry="assistant"]', { hasText: 'Done.' }).waitFor({ timeout: 60_000 });
    await chat().idle();
    assert.equal(readFileSync(file('src/long.ts'), 'utf8'), content);
  });
});
