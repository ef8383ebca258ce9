import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ChatDriver } from './harness/chat';
import { useSession } from './harness/session';
import { until } from './harness/until';

interface UndoOutcome {
  kind: string;
  reverted?: { path: string }[];
  left?: { path: string; why: string }[];
  text?: string;
}

describe("undo the agent's task in the real VS Code: only the agent's changes go, a later hand edit stays", function () {
  this.timeout(180_000);
  const session = useSession({
    model: true,
    control: true,
    // The agent's writes run without asking here: this is about what undo reverts, not about the panel.
    settings: { 'toolgate.gatedTools': { write_file: false, edit_file: false } },
  });
  const { model, control, file } = session;
  /** The person edits a file on disk, and VS Code has seen it before the test goes on. */
  const handEdit = async (relative: string, text: string): Promise<void> => {
    writeFileSync(file(relative), text);
    await until(async () => (await control.call<{ text: string }>('/documentText', { path: relative })).text === text, 'VS Code to see the hand edit', { timeoutMs: 10_000 });
  };

  it('a two-turn task, a hand edit afterwards, then Undo Task: the hand edit survives and the agent edits are gone', async () => {
    const original = 'alpha\nbeta\ngamma\ndelta\nepsilon\n';
    writeFileSync(file('app.txt'), original);
    model.fake.script([
      { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: JSON.stringify({ path: 'app.txt', edits: [{ old: 'alpha', new: 'ALPHA' }] }) }] },
      { toolCalls: [{ id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'created.txt', content: 'made by the agent\n' }) }] },
      { text: 'Done.' },
    ]);
    const chat = new ChatDriver(session.workbench);
    await chat.say('Change app.txt and add created.txt');
    const frame = await chat.frame();
    await frame.locator('[data-entry="assistant"]', { hasText: 'Done.' }).waitFor({ timeout: 60_000 });
    await chat.idle();
    assert.equal(readFileSync(file('app.txt'), 'utf8'), original.replace('alpha', 'ALPHA'));
    assert.equal(readFileSync(file('created.txt'), 'utf8'), 'made by the agent\n');

    // At its end the task lists what it changed, each file a link to its diff.
    const changes = frame.locator('[data-entry="changes"]');
    await changes.waitFor();
    assert.match(await changes.locator('.changes-title').innerText(), /Changed 2 files \+2 −1/);
    assert.deepEqual(
      await changes.locator('li').evaluateAll((items) => items.map((item) => item.textContent.replace(/\s+/g, ' ').trim())),
      ['app.txt +1 −1', 'created.txt +1 −0 created'],
    );
    const page = session.workbench.page;
    for (const [width, height] of [[1400, 900], [900, 700]] as const) {
      await page.setViewportSize({ width, height });
      await changes.scrollIntoViewIfNeeded();
      await session.workbench.screenshot(`chat-task-changes-${width}x${height}`);
    }
    await page.setViewportSize({ width: 1400, height: 900 });
    await changes.locator('[data-action="open-task-change"][data-file="app.txt"]').click();
    const tab = page.locator('.tabs-container .tab', { hasText: 'app.txt: what the task changed' });
    await tab.waitFor({ timeout: 15_000 });
    // The left side: the file before the task; the right side: after it.
    const diff = page.locator('.monaco-diff-editor');
    await diff.locator('.editor.original .view-lines', { hasText: 'alpha' }).waitFor({ timeout: 15_000 });
    await diff.locator('.editor.modified .view-lines', { hasText: 'ALPHA' }).waitFor({ timeout: 15_000 });
    await tab.locator('.tab-actions .action-label').first().click();
    // A finished edit's file is a link to what that call changed.
    await frame.locator('[data-entry="tool"][data-tool="edit_file"] [data-action="open-call-change"]', { hasText: 'app.txt' }).click();
    const callTab = page.locator('.tabs-container .tab', { hasText: 'app.txt: what this call changed' });
    await callTab.waitFor({ timeout: 15_000 });
    await diff.locator('.editor.original .view-lines', { hasText: 'alpha' }).waitFor({ timeout: 15_000 });
    await diff.locator('.editor.modified .view-lines', { hasText: 'ALPHA' }).waitFor({ timeout: 15_000 });
    await callTab.locator('.tab-actions .action-label').first().click();
    // On request too: the chat's title menu lists the latest task's files, a picked one opens its diff.
    await chat.titleMenuAction("Show the Task's Changes");
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'created.txt' });
    await row.waitFor({ timeout: 15_000 });
    assert.match(await page.locator('.quick-input-list').innerText(), /app\.txt\s*\+1 −1[\s\S]*created\.txt\s*\+1 −0 created/);
    await row.click();
    const created = page.locator('.tabs-container .tab', { hasText: 'created.txt: created by the task' });
    await created.waitFor({ timeout: 15_000 });
    await created.locator('.tab-actions .action-label').first().click();

    // The person edits the same file afterwards, away from the agent's line.
    await handEdit('app.txt', original.replace('alpha', 'ALPHA').replace('epsilon', 'epsilon, by hand'));

    const result = await control.call<UndoOutcome>('/command', { command: 'toolgate.undoTask' });
    assert.equal(result.kind, 'undone', JSON.stringify(result));
    // The transcript says what the undo did, file by file.
    const undoNote = frame.locator('[data-entry="notice"]', { hasText: /^Undid / });
    await undoNote.waitFor({ timeout: 15_000 });
    assert.match(await undoNote.innerText(), /app\.txt[\s\S]*created\.txt|created\.txt[\s\S]*app\.txt/);
    assert.equal(readFileSync(file('app.txt'), 'utf8'), original.replace('epsilon', 'epsilon, by hand'), 'the agent edit is reverted, the hand edit kept');
    assert.equal(existsSync(file('created.txt')), false, 'the file the agent created (unchanged since) is gone');
    assert.deepEqual(
      (result.reverted ?? []).map((entry) => path.basename(entry.path)).sort(),
      ['app.txt', 'created.txt'],
    );
    assert.deepEqual(result.left ?? [], []);

    // Undoing again finds nothing left to undo, and says so.
    const again = await control.call<UndoOutcome>('/command', { command: 'toolgate.undoTask' });
    assert.equal(again.kind, 'not-undone', JSON.stringify(again));
  });

  it('Undo this turn in the transcript, by the keyboard: a preview of what it reverts and keeps, then only that turn goes', async () => {
    const original = 'one\ntwo\nthree\nfour\nfive\nsix\n';
    writeFileSync(file('notes.txt'), original);
    model.fake.script([
      { toolCalls: [{ id: 'e2', name: 'edit_file', arguments: JSON.stringify({ path: 'notes.txt', edits: [{ old: 'one', new: 'ONE' }] }) }] },
      { toolCalls: [{ id: 'w2', name: 'write_file', arguments: JSON.stringify({ path: 'later.txt', content: 'from turn 2\n' }) }] },
      { text: 'Both turns done.' },
    ]);
    const chat = new ChatDriver(session.workbench);
    await chat.newChat();
    await chat.say('Change notes.txt, then add later.txt');
    const frame = await chat.frame();
    await frame.locator('[data-entry="assistant"]', { hasText: 'Both turns done.' }).waitFor({ timeout: 60_000 });
    await chat.idle();
    // One Undo under each turn's last call.
    const footers = frame.locator('[data-field="turn-undo"]');
    await footers.nth(1).waitFor();
    assert.deepEqual(await footers.evaluateAll((items) => items.map((item) => item.getAttribute('data-turn'))), ['1', '2']);

    // The person edits notes.txt afterwards, away from the agent's line.
    await handEdit('notes.txt', original.replace('one', 'ONE').replace('six', 'six, by hand'));

    const page = session.workbench.page;
    // Escape closes a preview and gives the focus back to its button; nothing is written.
    const second = footers.nth(1).locator('[data-action="undo-turn-preview"]');
    await second.focus();
    await page.keyboard.press('Enter');
    const secondPreview = footers.nth(1).locator('[data-field="undo-preview"]');
    await secondPreview.waitFor();
    assert.match(await secondPreview.innerText(), /Undoing turn 2 would:\s*Put back\s*later\.txt: deleted \(the agent created it, and it is unchanged since\)/);
    await page.keyboard.press('Escape');
    await secondPreview.waitFor({ state: 'detached' });
    assert.equal(await second.evaluate((element) => element === document.activeElement), true, 'the focus is back on Undo this turn');

    const first = footers.nth(0).locator('[data-action="undo-turn-preview"]');
    await first.focus();
    await page.keyboard.press('Enter');
    const preview = footers.nth(0).locator('[data-field="undo-preview"]');
    await preview.waitFor();
    assert.match(await preview.innerText(), /Undoing turn 1 would:\s*Put back\s*notes\.txt: the agent's change taken out; your later edits elsewhere in the file kept/);
    const confirm = preview.locator('[data-action="undo-turn"]');
    assert.equal(await confirm.evaluate((element) => element === document.activeElement), true, 'the focus is on Undo turn 1');
    for (const [width, height] of [[1400, 900], [900, 700]] as const) {
      await page.setViewportSize({ width, height });
      await preview.scrollIntoViewIfNeeded();
      await session.workbench.screenshot(`chat-undo-turn-preview-${width}x${height}`);
    }
    await page.setViewportSize({ width: 1400, height: 900 });
    await confirm.focus();
    await page.keyboard.press('Enter');
    // The transcript says what the undo did; the turn says it was undone; the other turn keeps its Undo.
    await frame.locator('[data-entry="notice"]', { hasText: /^Undid turn 1 of / }).waitFor({ timeout: 15_000 });
    await footers.nth(0).locator('[data-field="turn-undone"]', { hasText: 'Turn 1 was undone.' }).waitFor();
    assert.equal(await footers.nth(1).locator('[data-action="undo-turn-preview"]').count(), 1);
    assert.equal(readFileSync(file('notes.txt'), 'utf8'), original.replace('six', 'six, by hand'), "turn 1's edit reverted, the hand edit kept");
    assert.equal(readFileSync(file('later.txt'), 'utf8'), 'from turn 2\n', "turn 2's file stays");
  });
});
