import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Frame, Locator } from 'playwright-core';
import { useSession } from './harness/session';
import { until } from './harness/until';

/** 40 lines; changing lines 5, 20 and 35 makes three hunks (three lines of context each, far apart). */
const base = Array.from({ length: 40 }, (_, i) => `export const line${i + 1} = ${i + 1};\n`).join('');
const edits = [5, 20, 35].map((n) => ({ old: `export const line${n} = ${n};`, new: `export const line${n} = ${n * 100};` }));

describe('per-hunk review in the real approvals panel', function () {
  this.timeout(180_000);
  const long = Array.from({ length: 3000 }, (_, i) => `export const value${i + 1} = ${i + 1};\n`).join('');
  const twenty = Array.from({ length: 200 }, (_, i) => `export const item${i + 1} = ${i + 1};\n`).join('');
  const session = useSession({ control: true, files: { 'src/three.ts': base, 'src/long.ts': long, 'src/twenty.ts': twenty } });
  const { control, panel } = session;

  /** Which hunk holds the focus in the panel, and whether it is in that hunk's reason box. */
  const focus = (frame: Frame): Promise<{ hunk: string | null; field: string | null }> =>
    frame.evaluate(() => {
      const active = document.activeElement;
      return { hunk: active?.closest('[data-hunk-index]')?.getAttribute('data-hunk-index') ?? null, field: active?.getAttribute('data-field') ?? null };
    });
  const hunk = (card: Locator, index: number): Locator => card.locator(`[data-hunk-index="${index}"]`);
  /** The card's hunk summary reads `text`: waited for, since the summary is drawn after the hunks it counts. */
  const expectSummary = async (card: Locator, text: string): Promise<void> => {
    let seen = '';
    await until(
      async () => {
        const field = card.locator('[data-field="hunk-summary"]');
        seen = (await field.count()) === 0 ? '(no summary drawn)' : (await field.innerText()).trim();
        return seen === text;
      },
      `the hunk summary "${text}"`,
      { timeoutMs: 10_000, detail: () => `it read "${seen}"` },
    );
  };

  it('a 3-hunk edit: hunks are reviewed by click and by key, each choice reaches the host, and allow-once writes the accepted ones', async () => {
    const result = control.invoke('edit_file', { path: 'src/three.ts', edits });
    const card = await panel().waitForCall('edit_file', 'src/three.ts');
    const frame = await session.workbench.webviewFrame('[data-hunk-index]');
    const sent = await panel().recordMessages();

    // Three hunks in file order, each with both buttons, all accepted to start with.
    assert.deepEqual(await card.locator('[data-hunk-index]').evaluateAll((els) => els.map((el) => el.getAttribute('data-hunk-index'))), ['0', '1', '2']);
    for (const index of [0, 1, 2]) {
      assert.equal(await hunk(card, index).locator('[data-action="accept-hunk"]').count(), 1);
      assert.equal(await hunk(card, index).locator('[data-action="reject-hunk"]').count(), 1);
      assert.equal(await hunk(card, index).getAttribute('role'), 'group');
      assert.equal(await hunk(card, index).getAttribute('tabindex'), '0');
    }
    assert.equal(await hunk(card, 1).getAttribute('aria-label'), 'Hunk 2 of 3, line 20');
    assert.equal(await hunk(card, 1).locator('[data-action="accept-hunk"]').getAttribute('aria-label'), 'Accept hunk 2 of 3, line 20');
    assert.equal(await hunk(card, 1).locator('[data-action="accept-hunk"]').getAttribute('aria-pressed'), 'true');
    await expectSummary(card, '3 of 3 hunks accepted');
    assert.equal(await hunk(card, 1).locator('[data-field="hunk-reason"]').isVisible(), false);

    // Reject hunk 1 by click: its reason box appears, the summary counts it.
    await hunk(card, 1).locator('[data-action="reject-hunk"]').click();
    await hunk(card, 1).locator('[data-field="hunk-reason"]').waitFor({ state: 'visible' });
    await expectSummary(card, '2 of 3 hunks accepted');
    assert.equal(await hunk(card, 1).getAttribute('data-state'), 'rejected');
    assert.equal(await hunk(card, 1).locator('[data-action="reject-hunk"]').getAttribute('aria-pressed'), 'true');
    assert.equal(await hunk(card, 1).locator('[data-action="accept-hunk"]').getAttribute('aria-pressed'), 'false');
    await hunk(card, 1).locator('[data-field="hunk-reason"]').fill('keep line 20 as it is');
    await session.workbench.screenshot('approvals-hunks');

    // Keys: j/k and Alt+Down/Up move between hunks, r rejects (focus into its reason box), a accepts.
    const keyboard = session.workbench.page.keyboard;
    await hunk(card, 0).locator('.hunk-bar .hunk').click();
    assert.deepEqual(await focus(frame), { hunk: '0', field: null });
    await keyboard.press('j');
    assert.deepEqual(await focus(frame), { hunk: '1', field: null });
    await keyboard.press('j');
    assert.deepEqual(await focus(frame), { hunk: '2', field: null });
    await keyboard.press('j');
    assert.deepEqual(await focus(frame), { hunk: '2', field: null }, 'j stops at the last hunk');
    await keyboard.press('r');
    assert.deepEqual(await focus(frame), { hunk: '2', field: 'hunk-reason' });
    await expectSummary(card, '1 of 3 hunks accepted');
    // In a text box the keys are text.
    await keyboard.type('a jr');
    assert.equal(await hunk(card, 2).locator('[data-field="hunk-reason"]').inputValue(), 'a jr');
    assert.equal(await hunk(card, 2).getAttribute('data-state'), 'rejected');
    await keyboard.press('Shift+Tab');
    assert.deepEqual(await focus(frame), { hunk: '2', field: null });
    await keyboard.press('a');
    assert.equal(await hunk(card, 2).getAttribute('data-state'), 'accepted');
    assert.equal(await hunk(card, 2).locator('[data-field="hunk-reason"]').isVisible(), false);
    await keyboard.press('k');
    assert.deepEqual(await focus(frame), { hunk: '1', field: null });
    await keyboard.press('Alt+ArrowUp');
    assert.deepEqual(await focus(frame), { hunk: '0', field: null });
    await keyboard.press('Alt+ArrowDown');
    assert.deepEqual(await focus(frame), { hunk: '1', field: null });
    await expectSummary(card, '2 of 3 hunks accepted');

    // Every hunk rejected: allow-once is off, with a hint to deny instead; accepting one turns it back on.
    await hunk(card, 0).locator('[data-action="reject-hunk"]').click();
    await hunk(card, 2).locator('[data-action="reject-hunk"]').click();
    await expectSummary(card, '0 of 3 hunks accepted');
    // Turned off by the host, once it holds the choices (the card computes no rule of its own).
    await card.locator('[data-action="allow-once"][disabled]').waitFor();
    assert.equal(await card.locator('[data-action="allow-once"]').getAttribute('title'), 'Every hunk is rejected: use Deny to refuse the whole call');
    assert.equal(await card.locator('[data-field="hunk-hint"]').isVisible(), true);
    await hunk(card, 0).locator('[data-action="accept-hunk"]').click();
    await hunk(card, 2).locator('[data-action="accept-hunk"]').click();
    await card.locator('[data-action="allow-once"]:not([disabled])').waitFor();
    assert.equal(await card.locator('[data-field="hunk-hint"]').isVisible(), false);

    // A state push (another call arrives, then goes) keeps the card and its choices.
    const other = control.invoke('write_file', { path: 'other.txt', content: 'x\n' });
    const otherCard = await panel().waitForCall('write_file', 'other.txt');
    assert.equal(await frame.locator('[data-action="allow-all"]').getAttribute('disabled'), '', 'allow all would write the rejected hunk');
    await panel().act(otherCard, 'deny');
    assert.equal((await other).ok, false);
    await otherCard.waitFor({ state: 'detached' });
    await expectSummary(card, '2 of 3 hunks accepted');
    assert.equal(await hunk(card, 1).locator('[data-field="hunk-reason"]').inputValue(), 'keep line 20 as it is');

    // Allow once: the host settles with the choices it holds; each choice reached it as a chooseHunk message.
    const callId = await card.getAttribute('data-call-id');
    const argsHash = await card.getAttribute('data-args-hash');
    await panel().act(card, 'allow-once');
    const outcome = await result;
    assert.equal(outcome.ok, true, outcome.output);
    // The file holds exactly the two accepted hunks; the caller (the model) is told about the third, with its reason.
    assert.equal(readFileSync(path.join(session.server.workspace, 'src/three.ts'), 'utf8'), base.replace('line5 = 5;', 'line5 = 500;').replace('line35 = 35;', 'line35 = 3500;'));
    assert.match(outcome.output, /Hunk 2 rejected: line 20 \(originally line 20\)\. Reason: keep line 20 as it is/);
    assert.match(outcome.output, /The file still has:\n```\nexport const line20 = 20;\n```/);
    assert.match(outcome.output, /Not written:\n```\nexport const line20 = 2000;\n```/);
    assert.equal(outcome.decision?.reason, 'allowed once by the person: 2 of 3 hunks');
    const decisions = (await sent()).filter((message) => (message as { type?: unknown }).type === 'decide');
    const decision = decisions.find((message) => (message as { callId?: unknown }).callId === callId) as Record<string, unknown> | undefined;
    assert.ok(decision, `no decide for ${String(callId)} among ${JSON.stringify(decisions)}`);
    const { requestId, ...shape } = decision;
    // And the edit it showed (none: revision 0), so it never allows an edit made elsewhere meanwhile.
    assert.deepEqual(shape, { type: 'decide', callId, argsHash, action: 'allow-once', editRevision: 0 });
    const choices = (await sent()).filter((message) => (message as { type?: unknown }).type === 'chooseHunk') as Record<string, unknown>[];
    const lastOfHunk1 = choices.filter((message) => message['index'] === 1).pop();
    assert.ok(lastOfHunk1, `no chooseHunk for hunk 1 among ${JSON.stringify(choices)}`);
    const choiceShape = Object.fromEntries(Object.entries(lastOfHunk1).filter(([key]) => key !== 'requestId'));
    assert.deepEqual(choiceShape, { type: 'chooseHunk', callId, argsHash, index: 1, choice: 'reject', reason: 'keep line 20 as it is' });
    // The host's channel validated that very message (by its request id) and handed it on.
    await session.workbench.waitForLog(`[approvals] received 'decide' (request ${String(requestId)})`);
  });

  it('allow-once with no hunk rejected sends no hunk choice and writes the whole change', async () => {
    const sent = await panel().recordMessages();
    const result = control.invoke('edit_file', { path: 'src/three.ts', edits: [{ old: 'export const line1 = 1;', new: 'export const line1 = 0;' }] });
    const card = await panel().waitForCall('edit_file', 'line1 = 0');
    await expectSummary(card, '1 of 1 hunk accepted');
    assert.equal(await card.locator('[data-hunk-index]').count(), 1);
    const callId = await card.getAttribute('data-call-id');
    await panel().act(card, 'allow-once');
    assert.equal((await result).ok, true);
    const decision = (await sent()).find((message) => (message as { type?: unknown }).type === 'decide' && (message as { callId?: unknown }).callId === callId);
    assert.ok(typeof decision === 'object' && decision !== null, `no decide for ${String(callId)}`);
    assert.equal((decision as { action?: unknown }).action, 'allow-once');
    assert.equal('hunks' in decision, false, JSON.stringify(decision));
    assert.equal((await sent()).filter((message) => (message as { type?: unknown; callId?: unknown }).type === 'chooseHunk' && (message as { callId?: unknown }).callId === callId).length, 0);
  });

  it('a rewritten 3,000-line file: the card paints its first rows, the rest follow, and its last line is there to read', async () => {
    const rewritten = long.replace(/ = (\d+);/g, ' = $1 * 2;');
    const result = control.invoke('write_file', { path: 'src/long.ts', content: rewritten });
    const card = await panel().waitForCall('write_file', 'src/long.ts');
    // 6,000 rows in all: the rest come after the first paint, and the note that says so goes.
    await card.locator('.diff-body[data-rows="6000"]').waitFor();
    assert.equal(await card.locator('[data-field="rows-loading"]').count(), 0);
    await card.locator('.diff-body').evaluate((body) => {
      body.scrollTop = body.scrollHeight;
    });
    await card.locator('.diff-row', { hasText: 'export const value3000 = 3000 * 2;' }).waitFor();
    await panel().act(card, 'allow-once');
    assert.equal((await result).ok, true);
    assert.equal(readFileSync(path.join(session.server.workspace, 'src/long.ts'), 'utf8'), rewritten);
  });

  it('20 hunks: those out of view get their Accept / Reject as they come into view; the last one is rejected by key', async () => {
    const changes = Array.from({ length: 20 }, (_, i) => i * 10 + 5).map((n) => ({ old: `export const item${n} = ${n};`, new: `export const item${n} = -${n};` }));
    const result = control.invoke('edit_file', { path: 'src/twenty.ts', edits: changes });
    const card = await panel().waitForCall('edit_file', 'src/twenty.ts');
    await hunk(card, 0).locator('[data-action="accept-hunk"]').waitFor();
    assert.equal(await hunk(card, 19).locator('[data-action="accept-hunk"]').count(), 0, 'the last hunk, out of view, has none yet');
    // From the first hunk (k stays there), j walks down to the last; r rejects it and opens its reason box.
    await card.locator('[data-hunk-index="0"]').focus();
    await session.workbench.page.keyboard.press('k');
    const frame = await session.workbench.webviewFrame('[data-hunk-index]');
    assert.equal((await focus(frame)).hunk, '0');
    for (let step = 0; step < 19; step++) {
      await session.workbench.page.keyboard.press('j');
    }
    assert.equal((await focus(frame)).hunk, '19');
    await hunk(card, 19).locator('[data-action="reject-hunk"]').waitFor();
    await session.workbench.page.keyboard.press('r');
    assert.deepEqual(await focus(frame), { hunk: '19', field: 'hunk-reason' });
    await card.locator('[data-field="hunk-summary"]', { hasText: '19 of 20 hunks accepted' }).waitFor();
    await panel().act(card, 'allow-once');
    assert.equal((await result).ok, true);
    const written = readFileSync(path.join(session.server.workspace, 'src/twenty.ts'), 'utf8');
    assert.match(written, /item195 = 195;/);
    assert.match(written, /item185 = -185;/);
  });
});
