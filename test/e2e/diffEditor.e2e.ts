import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { Control } from './harness/control';
import { ApprovalsPanelDriver } from './harness/panel';
import { useCodeServer } from './harness/session';

describe("decisions in VS Code's diff editor", function () {
  this.timeout(180_000);
  const control = new Control();
  const session = useCodeServer({ env: control.env, extraExtensions: [control.vsix], files: { 'edit-me.txt': 'one\ntwo\nthree\n' } });
  const panel = (): ApprovalsPanelDriver => new ApprovalsPanelDriver(session.workbench);
  const file = (relative: string): string => path.join(session.server.workspace, relative);

  /** Opens a waiting write's diff from its panel card; returns the diff's tab. */
  async function openDiff(relative: string): Promise<Locator> {
    const card = await panel().waitForCall('write_file', relative);
    await card.locator('[data-action="open-diff"]').click();
    const tab = session.workbench.page.locator('.tabs-container .tab', { hasText: 'proposed by the agent' });
    await tab.waitFor();
    return tab;
  }

  /** A title-bar action of the active editor, by its title. */
  function titleAction(title: string): Locator {
    return session.workbench.page.locator(`.editor-actions .action-label[aria-label^="${title}"]`).first();
  }

  it('Allow in the title bar writes the proposal, and the tab closes', async () => {
    const result = control.invoke('write_file', { path: 'titled.txt', content: 'from the diff editor\n' });
    const tab = await openDiff('titled.txt');
    for (const title of ['Allow the Proposed Change', 'Deny the Proposed Change', 'Edit the Proposed Change']) {
      await titleAction(title).waitFor({ state: 'visible' });
    }
    const page = session.workbench.page;
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.waitForTimeout(400);
    await session.workbench.screenshot('diff-editor-actions');
    await titleAction('Allow the Proposed Change').click();
    const outcome = await result;
    assert.equal(outcome.ok, true, outcome.output);
    assert.equal(readFileSync(file('titled.txt'), 'utf8'), 'from the diff editor\n');
    await tab.waitFor({ state: 'detached', timeout: 10_000 });
    await titleAction('Allow the Proposed Change').waitFor({ state: 'detached' });
  });

  it('Edit puts the cursor in the proposed side; Allow then writes the edited text, saving it never writes the file, and the model is told', async () => {
    const result = control.invoke('write_file', { path: 'edit-me.txt', content: 'one\nTWO\nthree\n' });
    const tab = await openDiff('edit-me.txt');
    await titleAction('Edit the Proposed Change').click();
    const page = session.workbench.page;
    // The cursor is in the proposed (modified) side, on its first changed line: replace that line.
    await page.locator('.monaco-diff-editor .editor.modified .monaco-editor.focused').waitFor();
    await page.locator('.monaco-diff-editor .editor.modified .cursor-line-number, .monaco-diff-editor .editor.modified .line-numbers.active-line-number', { hasText: /^2$/ }).first().waitFor();
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
});
