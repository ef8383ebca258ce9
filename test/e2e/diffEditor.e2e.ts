import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { Locator } from 'playwright-core';
import { useSession } from './harness/session';
import { until } from './harness/until';

/** 40 lines; changing lines 5, 20 and 35 makes three hunks (three lines of context each, far apart). */
const base = Array.from({ length: 40 }, (_, i) => `export const line${i + 1} = ${i + 1};\n`).join('');
const edits = [5, 20, 35].map((n) => ({ old: `export const line${n} = ${n};`, new: `export const line${n} = ${n * 100};` }));

describe("decisions in VS Code's diff editor", function () {
  this.timeout(180_000);
  // CodeLens is off in diff editors by default (each hunk then has a mark with its choice, and the context menu).
  const session = useSession({
    control: true,
    files: { 'edit-me.txt': 'one\ntwo\nthree\n', 'three.ts': base },
    settings: { 'diffEditor.codeLens': true },
  });
  const { control, file, panel } = session;

  /** Opens a waiting write's diff from its panel card; returns the diff's tab. */
  async function openDiff(relative: string, tool = 'write_file'): Promise<Locator> {
    const card = await panel().waitForCall(tool, relative);
    await card.locator('[data-action="open-diff"]').click();
    const tab = session.workbench.page.locator('.tabs-container .tab', { hasText: 'proposed by the agent' });
    await tab.waitFor();
    return tab;
  }

  /** A title-bar action of the active editor, by its title. */
  function titleAction(title: string): Locator {
    return session.workbench.page.locator(`.editor-actions .action-label[aria-label^="${title}"]`).first();
  }

  it('the title bar says its actions in words, the breadcrumb and the tab name the file (not the call); Allow there writes the proposal, and the tab closes', async () => {
    const result = control.invoke('write_file', { path: 'notes/titled.txt', content: 'from the diff editor\n' });
    const tab = await openDiff('notes/titled.txt');
    // Words a person reads, not icons: the full title stays the tooltip and the accessible name.
    for (const [title, words] of [['Allow the Proposed Change', 'Allow once'], ['Deny the Proposed Change', 'Deny…'], ['Edit the Proposed Change', 'Edit']] as const) {
      await titleAction(title).waitFor({ state: 'visible' });
      assert.equal((await titleAction(title).innerText()).trim(), words);
      assert.equal(await titleAction(title).evaluate((element) => element.classList.contains('codicon')), false, `${words} is text, not an icon`);
    }
    assert.equal((await tab.innerText()).trim(), 'notes/titled.txt ↔ proposed by the agent');
    const callId = (await (await panel().waitForCall('write_file', 'notes/titled.txt')).getAttribute('data-call-id')) ?? '';
    const breadcrumbs = session.workbench.page.locator('.editor-group-container.active .breadcrumbs-control');
    await breadcrumbs.locator('.monaco-breadcrumb-item', { hasText: 'titled.txt' }).waitFor();
    const crumbs = await breadcrumbs.locator('.monaco-breadcrumb-item').allInnerTexts();
    assert.deepEqual(crumbs.map((crumb) => crumb.trim()), ['notes', 'titled.txt']);
    assert.ok(callId.length > 0 && !(await breadcrumbs.innerText()).includes(callId), 'the call id is not shown');
    await titleAction('Allow the Proposed Change').click();
    const outcome = await result;
    assert.equal(outcome.ok, true, outcome.output);
    assert.equal(readFileSync(file('notes/titled.txt'), 'utf8'), 'from the diff editor\n');
    await tab.waitFor({ state: 'detached', timeout: 10_000 });
    await titleAction('Allow the Proposed Change').waitFor({ state: 'detached' });
  });

  it('Edit puts the cursor in the proposed side; Allow then writes the edited text, saving it never writes the file, and the model is told', async () => {
    const result = control.invoke('write_file', { path: 'edit-me.txt', content: 'one\nTWO\nthree\n' });
    const tab = await openDiff('edit-me.txt');
    const page = session.workbench.page;
    // The cursor starts elsewhere (on line 3 of the proposed side), so the test sees Edit move it.
    await page.locator('.monaco-diff-editor .editor.modified .view-line', { hasText: 'three' }).click();
    await page.locator('.statusbar-item', { hasText: 'Ln 3, Col' }).first().waitFor();
    await titleAction('Edit the Proposed Change').click();
    // The cursor is in the proposed (modified) side, on its first changed line: replace that line.
    await page.locator('.monaco-diff-editor .editor.modified .monaco-editor.focused').waitFor();
    await page.locator('.statusbar-item', { hasText: 'Ln 2, Col 1' }).first().waitFor();
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+End');
    await page.keyboard.type('two, as I want it');
    // Saving keeps the edit in memory only: the real file is untouched.
    await page.keyboard.press('Control+S');
    await page.locator('.tabs-container .tab.dirty', { hasText: 'proposed by the agent' }).waitFor({ state: 'detached' });
    assert.equal(readFileSync(file('edit-me.txt'), 'utf8'), 'one\ntwo\nthree\n');
    await page.keyboard.type('!');
    await titleAction('Allow the Proposed Change').click();
    const outcome = await result;
    assert.equal(outcome.ok, true, outcome.output);
    assert.equal(readFileSync(file('edit-me.txt'), 'utf8'), 'one\ntwo, as I want it!\nthree\n');
    assert.match(outcome.output, /The person edited the content before allowing it/);
    assert.equal(outcome.decision?.reason, 'allowed once by the person, after editing');
    await tab.waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('a large write: the card carries neither its whole arguments nor its content; they open whole in an editor and the diff editor', async () => {
    const content = Array.from({ length: 6000 }, (_, i) => `export const value${i} = ${i};\n`).join('');
    const result = control.invoke('write_file', { path: 'large.ts', content });
    const card = await panel().waitForCall('write_file', 'large.ts');
    const summary = card.locator('details.args summary');
    assert.equal(await summary.textContent(), 'Arguments (long values cut)');
    await summary.click();
    assert.match((await card.locator('[data-field="args"]').textContent()) ?? '', /"content": "export const value0 = 0;\\n[^"]*… \(\d{1,3}(,\d{3})* more characters\)"/);
    await card.locator('[data-action="open-args"]').click();
    await session.workbench.page.locator('.tabs-container .tab', { hasText: 'write_file arguments.json' }).waitFor();
    // The tab is drawn before the extension host hears that its editor is the active one.
    const opened = await until(
      async () => (await control.call<{ uri: string; text: string; language: string } | null>('/activeEditor')) ?? undefined,
      'the arguments editor to be the active one',
      { timeoutMs: 10_000 },
    );
    assert.equal(opened.text, JSON.stringify({ content, path: 'large.ts' }, null, 2), 'the arguments exactly, in full');
    assert.equal(opened.language, 'json');
    // Edit: the proposed side of VS Code's diff editor, not a box with 180 KB in it.
    await control.call('/command', { command: 'toolgate.openApprovals' });
    assert.equal(await card.locator('textarea[data-field="edited"]').count(), 0);
    await card.locator('[data-action="edit"]').click();
    await session.workbench.page.locator('.tabs-container .tab', { hasText: 'proposed by the agent' }).waitFor();
    await titleAction('Deny the Proposed Change').click();
    await session.workbench.answerInputBox('too large');
    const outcome = await result;
    assert.equal(outcome.ok, false);
    assert.equal(existsSync(file('large.ts')), false);
  });

  it('Deny in the title bar asks why; nothing is written and the model gets the reason', async () => {
    const result = control.invoke('write_file', { path: 'denied.txt', content: 'no\n' });
    const tab = await openDiff('denied.txt');
    await titleAction('Deny the Proposed Change').click();
    await session.workbench.answerInputBox('not this file');
    const outcome = await result;
    assert.equal(outcome.ok, false);
    assert.match(outcome.output, /not this file/);
    assert.equal(existsSync(file('denied.txt')), false);
    await tab.waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('per hunk: a CodeLens over each hunk shows the host-held choice; a choice there shows in the panel and back; Allow writes the accepted hunks', async () => {
    const result = control.invoke('edit_file', { path: 'three.ts', edits });
    const tab = await openDiff('three.ts', 'edit_file');
    const card = await panel().waitForCall('edit_file', 'three.ts');
    const page = session.workbench.page;
    const lens = (text: string): Locator => page.locator('.monaco-diff-editor .editor.modified .codelens-decoration', { hasText: text }).first();
    const inPanel = (index: number, state: 'accepted' | 'rejected'): Promise<void> =>
      card.locator(`[data-hunk-index="${index}"][data-state="${state}"]`).waitFor({ timeout: 5_000 });
    await lens('Hunk 2 of 3: accepted').waitFor();

    // Rejected in the diff editor, with a reason: the panel shows it.
    await lens('Hunk 2 of 3').locator('a', { hasText: 'Reject hunk' }).click();
    await session.workbench.answerInputBox('keep line 20');
    await inPanel(1, 'rejected');
    assert.equal(await card.locator('[data-hunk-index="1"] [data-field="hunk-reason"]').inputValue(), 'keep line 20');
    await lens('Hunk 2 of 3: rejected (keep line 20)').waitFor();

    // Rejected in the panel: the lens shows it. Accepted again from the palette, with the cursor in that hunk.
    await page.locator('.tabs-container .tab', { hasText: 'Toolgate Approvals' }).click();
    await card.locator('[data-hunk-index="2"] [data-action="reject-hunk"]').click();
    await tab.click();
    await lens('Hunk 3 of 3: rejected').waitFor();
    // The cursor goes to line 35 of the proposed side the way a keyboard user puts it there (a click on the line
    // could land on a hover or a lens on a slow machine): focus the proposed side, then Go to Line.
    await page.locator('.monaco-diff-editor .editor.modified .view-line', { hasText: 'line35 = 3500;' }).click();
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input.input').fill(':35');
    await page.keyboard.press('Enter');
    await page.locator('.statusbar-item', { hasText: 'Ln 35, Col' }).first().waitFor();
    await session.workbench.runCommand('Toolgate: Accept This Hunk');
    await lens('Hunk 3 of 3: accepted').waitFor();
    await inPanel(2, 'accepted');

    await page.setViewportSize({ width: 1400, height: 900 });
    for (const theme of ['Light Modern', 'Dark Modern'] as const) {
      await session.workbench.setColorTheme(theme);
      await tab.click();
      // Away from the tab, so its tooltip does not cover the editor.
      await page.mouse.move(1100, 800);
      await lens('Hunk 3 of 3: accepted').waitFor();
      await session.workbench.screenshot(`diff-editor-actions-${theme.startsWith('Light') ? 'light' : 'dark'}-1400x900`);
    }

    // Allow in the title bar: hunks 1 and 3 are written; the model is told of hunk 2 and why.
    await titleAction('Allow the Proposed Change').click();
    const outcome = await result;
    assert.equal(outcome.ok, true, outcome.output);
    assert.equal(readFileSync(file('three.ts'), 'utf8'), base.replace('line5 = 5;', 'line5 = 500;').replace('line35 = 35;', 'line35 = 3500;'));
    assert.match(outcome.output, /Hunk 2 rejected: line 20 \(originally line 20\)\. Reason: keep line 20/);
    await tab.waitFor({ state: 'detached', timeout: 10_000 });
  });
});
