import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Frame, Locator } from 'playwright-core';
import { ChatDriver } from './harness/chat';
import { useSession } from './harness/session';

/** One text of a card whose contrast against its computed background was measured in the webview. */
interface Measured {
  field: string;
  text: string;
  ratio: number;
}

/**
 * The WCAG contrast ratio of every visible text of the cards in a webview (`scope`: the cards' selector), against
 * the background composited from the element and its ancestors. A string, not a function: the test's TypeScript
 * loader would wrap named functions in a helper the page lacks.
 */
const contrastScript = (scope: string): string => `(() => {
  const parse = (value) => {
    const match = /rgba?\\(([^)]+)\\)/.exec(value);
    if (!match) return undefined;
    const parts = match[1].split(/[\\s,\\/]+/).filter((part) => part !== '').map(Number);
    return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
  };
  const over = (top, bottom) => [0, 1, 2].map((i) => top[i] * top[3] + bottom[i] * (1 - top[3])).concat([1]);
  const channel = (v) => { const c = v / 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
  const luminance = (c) => 0.2126 * channel(c[0]) + 0.7152 * channel(c[1]) + 0.0722 * channel(c[2]);
  const background = (element) => {
    const chain = [];
    for (let at = element; at; at = at.parentElement) chain.unshift(at);
    let colour = [255, 255, 255, 1];
    for (const at of chain) {
      const own = parse(getComputedStyle(at).backgroundColor);
      if (own && own[3] > 0) colour = over(own, colour);
    }
    return colour;
  };
  const measured = [];
  for (const element of document.querySelectorAll(${JSON.stringify(scope)} + ' *')) {
    if (element.closest('option, [hidden]') || element.getClientRects().length === 0) continue;
    const text = [...element.childNodes].filter((node) => node.nodeType === 3).map((node) => node.textContent).join('').trim();
    if (text === '') continue;
    const style = getComputedStyle(element);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    const back = background(element);
    const fore = over(parse(style.color), back);
    const [light, dark] = [luminance(fore), luminance(back)].sort((a, b) => b - a);
    const field = element.closest('[data-field]')?.getAttribute('data-field') ?? element.className ?? element.tagName;
    measured.push({ field, text: text.slice(0, 60), ratio: Math.round(((light + 0.05) / (dark + 0.05)) * 100) / 100 });
  }
  return measured;
})()`;

describe('what the person reads and sees: plain reasons, contrast, grant controls, edits, side by side, narrow', function () {
  this.timeout(240_000);
  const session = useSession({
    model: true,
    settings: { 'toolgate.autoApprove.terminal': { 'echo ruled': true, ls: true, rm: false } },
  });
  const { model, file, panel } = session;
  const driver = (): ChatDriver => new ChatDriver(session.workbench);
  const chat = (): Promise<Frame> => driver().frame();
  const panelFrame = (): Promise<Frame> => session.workbench.webviewFrame('body[data-view="approvals"] main#root[data-state="connected"]');

  const call = (id: string, name: string, args: Record<string, unknown>): { id: string; name: string; arguments: string } =>
    ({ id, name, arguments: JSON.stringify(args) });

  /** The model asks for `calls` in one turn, then says `then`; the task is given in the chat. */
  async function modelCalls(calls: ReturnType<typeof call>[], then = 'Done.'): Promise<void> {
    model.fake.script([{ toolCalls: calls }, { text: then }]);
    await driver().task(`Go ${calls.map((item) => item.id).join(' ')}`);
  }

  async function chatCard(text: string): Promise<Locator> {
    const card = (await chat()).locator('article.inline-call[data-call-id]', { hasText: text });
    await card.waitFor({ state: 'visible', timeout: 30_000 });
    return card;
  }

  /** The chat's entry of the last tool call whose summary holds `text`. */
  async function toolEntry(text: string): Promise<Locator> {
    const entry = (await chat()).locator('.entry.tool', { hasText: text }).last();
    await entry.waitFor({ timeout: 30_000 });
    return entry;
  }

  async function collapseMcpServers(): Promise<void> {
    const header = session.workbench.page.locator('.pane-header[aria-expanded="true"]', { hasText: 'MCP Servers' });
    if ((await header.count()) > 0) {
      await header.first().click();
    }
  }

  it('says each reason once, in plain words, and every text of the cards is at least 4.5:1 in light and dark', async () => {
    await collapseMcpServers();
    await modelCalls([call('call_r1', 'write_file', { path: 'plain.txt', content: 'plain words\n' }), call('call_r2', 'run_in_terminal', { command: 'npm test && ls' })]);
    const writeCard = await panel().waitForCall('write_file', 'plain.txt');
    const commandCard = await panel().waitForCall('run_in_terminal', 'npm test');
    assert.equal(await writeCard.locator('[data-field="why"]').innerText(), 'Writes a file; writes always ask (toolgate.gatedTools).');
    assert.equal(await commandCard.locator('[data-field="why"]').innerText(), 'Runs npm, which no rule allows yet.');
    const inline = await chatCard('npm test');
    assert.equal(await inline.locator('[data-field="why"]').innerText(), 'Runs npm, which no rule allows yet.');
    assert.match(await commandCard.locator('[data-field="analysis"]').innerText(), /npm test: asks \(the reason above\)\s+ls: allowed by `ls`/);
    for (const card of [commandCard, inline]) {
      const said = (await card.innerText()).match(/no rule allows/g) ?? [];
      assert.equal(said.length, 1, `the reason is said once: ${await card.innerText()}`);
    }

    const low: string[] = [];
    for (const theme of ['Light Modern', 'Dark Modern'] as const) {
      await session.workbench.setColorTheme(theme);
      for (const [view, frame, scope] of [['panel', await panelFrame(), 'article.call'], ['chat', await chat(), 'article.inline-call']] as const) {
        const measured = await frame.evaluate<Measured[]>(contrastScript(scope));
        assert.ok(measured.some((item) => item.field === 'why'), `the reason was measured in the ${view}`);
        assert.ok(measured.some((item) => item.field === 'analysis'), `the command's analysis was measured in the ${view}`);
        low.push(...measured.filter((item) => item.ratio < 4.5).map((item) => `${theme} ${view} ${item.field} "${item.text}": ${item.ratio}:1`));
        console.log(`      ${theme} ${view}: ${measured.length} texts, lowest contrast ${Math.min(...measured.map((item) => item.ratio))}:1`);
      }
      const page = session.workbench.page;
      const chatFrame = await chat();
      const viewHeight = (): Promise<number> => chatFrame.evaluate(() => window.innerHeight);
      let wideHeight = 0;
      for (const [width, height] of [[1400, 900], [900, 700]] as const) {
        await page.setViewportSize({ width, height });
        await commandCard.scrollIntoViewIfNeeded();
        await session.workbench.screenshot(`wording-${theme.includes('Light') ? 'light' : 'dark'}-${width}x${height}`);
        if (width === 1400) {
          wideHeight = await viewHeight();
          continue;
        }
        // A task running, two calls waiting, Stop shown: the transcript still keeps half the chat view (once the
        // view has taken its 900x700 height).
        await chatFrame.waitForFunction((wide) => window.innerHeight < wide, wideHeight);
        const { transcript, view } = await chatFrame.evaluate(() => ({
          transcript: document.querySelector('[data-field="transcript"]')?.getBoundingClientRect().height ?? 0,
          view: window.innerHeight,
        }));
        assert.ok(transcript >= view / 2, `at 900x700 the transcript keeps half the chat view: ${transcript} of ${view} px`);
      }
      await page.setViewportSize({ width: 1400, height: 900 });
    }
    await (await panelFrame()).locator('[data-action="deny-all"]').click();
    assert.deepEqual(low, [], 'every text of the cards is at least 4.5:1');
    await panel().waitForNoCalls();
    await driver().idle();
  });

  it('puts "Allow for" with the two buttons it affects; Deny asks why first; a grant is confirmed, and a call it covers names it, with Revoke', async () => {
    await modelCalls([call('call_g1', 'run_in_terminal', { command: 'echo granted' })]);
    const card = await panel().waitForCall('run_in_terminal', 'echo granted');
    const group = card.locator('.grant-group');
    for (const selector of ['[data-field="grant-scope"]', '[data-action="allow-session"]', '[data-action="allow-workspace"]']) {
      assert.equal(await group.locator(selector).count(), 1, `${selector} is in the grant group`);
    }
    assert.match(await group.innerText(), /Allow for:/);
    const reason = card.locator('[data-field="reason"]');
    assert.equal(await reason.isVisible(), false, 'the reason box waits for Deny');
    await card.locator('[data-action="deny"]').click();
    await reason.waitFor({ state: 'visible' });
    const frame = await panelFrame();
    assert.equal(await frame.evaluate(() => document.activeElement?.getAttribute('data-field')), 'reason', 'Deny put the focus in the box');
    await reason.press('Escape');
    await reason.waitFor({ state: 'hidden' });
    assert.equal(await card.isVisible(), true, 'Escape did not deny');

    await group.locator('[data-field="grant-scope"]').selectOption('cmd-full');
    await card.locator('[data-action="allow-session"]').click();
    const confirmation = frame.locator('[data-field="grant-confirmation"]');
    await confirmation.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await confirmation.innerText(), /Granted for this session: run_in_terminal: commands starting with `echo granted`\..*listed under Grants below/);
    const granted = (await toolEntry('echo granted')).locator('[data-field="granted"]');
    await granted.waitFor({ timeout: 10_000 });
    assert.match(await granted.innerText(), /granted for this session: run_in_terminal: commands starting with `echo granted`\. Listed under Grants in the Approvals panel/);
    await driver().idle();

    await modelCalls([call('call_g2', 'run_in_terminal', { command: 'echo granted' })], 'Ran it again.');
    await driver().idle();
    const allowedBy = (await toolEntry('echo granted')).locator('[data-field="allowed-by"][data-kind="grant"]');
    await allowedBy.waitFor({ timeout: 10_000 });
    assert.match(await allowedBy.innerText(), /Ran without asking: allowed by your session grant \(this chat only\), run_in_terminal: commands starting with `echo granted`/);
    const grantId = await allowedBy.getAttribute('data-grant-id');
    assert.ok(grantId);
    await frame.locator(`li[data-grant-id="${grantId}"]`).waitFor();
    await allowedBy.locator('[data-action="revoke"]').click();
    await frame.locator(`li[data-grant-id="${grantId}"]`).waitFor({ state: 'detached', timeout: 30_000 });
    await confirmation.waitFor({ state: 'hidden', timeout: 30_000 });
  });

  it('a call a rule allows names the setting and its key, with a way to the setting', async () => {
    await modelCalls([call('call_a1', 'run_in_terminal', { command: 'echo ruled' })]);
    await driver().idle();
    const allowedBy = (await toolEntry('echo ruled')).locator('[data-field="allowed-by"][data-kind="rule"]');
    await allowedBy.waitFor({ timeout: 10_000 });
    assert.equal(await allowedBy.getAttribute('data-setting'), 'toolgate.autoApprove.terminal');
    assert.match(await allowedBy.innerText(), /Ran without asking: auto-approved by toolgate\.autoApprove\.terminal "echo ruled"/);
    await allowedBy.locator('[data-action="open-setting"]').click();
    const page = session.workbench.page;
    await page.locator('.settings-editor').waitFor({ state: 'visible', timeout: 15_000 });
    // The Settings editor opens over the workbench (a modal editor): Escape closes it.
    await page.keyboard.press('Escape');
    await page.locator('.monaco-modal-editor-block').waitFor({ state: 'detached', timeout: 10_000 }).catch(async () => {
      await page.keyboard.press('Escape');
      await page.locator('.monaco-modal-editor-block').waitFor({ state: 'detached', timeout: 10_000 });
    });
  });

  it('edit then allow: the edit shows as a diff, Allow once becomes Allow edited and the grants are off, and an edited command says what ran', async () => {
    await modelCalls([call('call_e1', 'write_file', { path: 'edited.txt', content: 'one\ntwo\nthree\n' })]);
    const card = await panel().waitForCall('write_file', 'edited.txt');
    await card.locator('[data-action="edit"]').click();
    await card.locator('[data-field="edited"]').fill('one\nTWO, edited\nthree\n');
    const editDiff = card.locator('[data-field="edit-diff"] [data-field="diff"]');
    await editDiff.waitFor({ timeout: 30_000 });
    assert.match(await editDiff.innerText(), /your edit against the proposal[\s\S]*two[\s\S]*TWO, edited/);
    // The edit is the call's, held by the host: Allow once now writes it (and says so); a grant would allow the original.
    await card.locator('[data-action="allow-once"][data-edited="true"]', { hasText: 'Allow edited' }).waitFor();
    await card.locator('[data-action="allow-session"][disabled]').waitFor();
    await card.locator('[data-action="allow-edited"]').click();
    await card.waitFor({ state: 'detached', timeout: 30_000 });
    await driver().idle();
    assert.equal(readFileSync(file('edited.txt'), 'utf8'), 'one\nTWO, edited\nthree\n');

    await modelCalls([call('call_e2', 'run_in_terminal', { command: 'echo original' })]);
    const commandCard = await panel().waitForCall('run_in_terminal', 'echo original');
    await commandCard.locator('[data-action="edit"]').click();
    // An edited command is analysed as the proposal was: the card says what the rules make of it before it runs.
    await commandCard.locator('[data-field="edited"]').fill('git status > status.txt; rm -rf build');
    const editVerdict = commandCard.locator('[data-field="edit-verdict"]');
    await editVerdict.waitFor({ timeout: 30_000 });
    assert.equal(await editVerdict.innerText(), 'The edited command, as your rules read it: Runs `rm`, which `rm` in toolgate.autoApprove.terminal sets to always ask.');
    assert.match(
      await commandCard.locator('[data-field="edit-analysis"]').innerText(),
      /git status: allowed by `git status`\s*rm -rf build: asks \(the reason above\)\s*redirect > status\.txt -> \S+\/workspace\/status\.txt/,
    );
    // Typed again: the analysis follows the text (an older one is never shown for a newer text).
    await commandCard.locator('[data-field="edited"]').fill('echo edited-instead');
    await commandCard.locator('[data-field="edited-command"]').waitFor({ timeout: 30_000 });
    await commandCard.locator('[data-field="edit-verdict"]', { hasText: 'Runs `echo`, which no rule allows yet.' }).waitFor();
    await commandCard.locator('[data-action="allow-once"][data-edited="true"]', { hasText: 'Run edited' }).waitFor();
    await commandCard.locator('[data-action="allow-edited"]').click();
    await driver().idle();
    const ran = (await toolEntry('echo original')).locator('[data-field="ran"]');
    await ran.waitFor({ timeout: 10_000 });
    assert.match(await ran.innerText(), /You edited the command; what ran:\s*echo edited-instead/);
  });

  it('side by side wraps long lines and stays chosen for the next call and after a reload', async () => {
    const long = `${'a long line that does not fit '.repeat(12)}end\n`;
    await modelCalls([call('call_s1', 'write_file', { path: 'long1.txt', content: long })]);
    let card = await panel().waitForCall('write_file', 'long1.txt');
    await card.locator('[data-action="toggle-diff-mode"]').click();
    await card.locator('.diff-holder[data-mode="split"]').waitFor();
    const clipped = await card.locator('.diff-row.split .text').evaluateAll((cells) => cells.filter((cell) => cell.scrollWidth > cell.clientWidth + 1).length);
    assert.equal(clipped, 0, 'no cell of the side-by-side diff is clipped');
    await panel().act(card, 'deny');
    await driver().idle();

    await modelCalls([call('call_s2', 'write_file', { path: 'long2.txt', content: long })]);
    card = await panel().waitForCall('write_file', 'long2.txt');
    await card.locator('.diff-holder[data-mode="split"]').waitFor({ timeout: 30_000 });
    await panel().act(card, 'deny');
    await driver().idle();

    await session.workbench.reload();
    await modelCalls([call('call_s3', 'write_file', { path: 'long3.txt', content: long })]);
    card = await panel().waitForCall('write_file', 'long3.txt');
    await card.locator('.diff-holder[data-mode="split"]').waitFor({ timeout: 30_000 });
    await card.locator('[data-action="toggle-diff-mode"]').click();
    await card.locator('.diff-holder[data-mode="unified"]').waitFor();
    await panel().act(card, 'deny');
    await driver().idle();
  });

  it('an edit at the end of a 300-character line is marked word by word and in sight at 900x700, in the panel and the chat', async () => {
    const line = `${'word '.repeat(59)}old`;
    writeFileSync(file('long-line.txt'), `${line}\n`);
    const page = session.workbench.page;
    await page.setViewportSize({ width: 900, height: 700 });
    await modelCalls([call('call_w1', 'write_file', { path: 'long-line.txt', content: `${line.replace(/old$/, 'new')}\n` })]);
    const inPanel = await panel().waitForCall('write_file', 'long-line.txt');
    const inChat = await chatCard('long-line.txt');
    for (const [where, card] of [['panel', inPanel], ['chat', inChat]] as const) {
      await card.locator('.diff-holder[data-mode="unified"]').waitFor();
      const added = card.locator('.diff-row.a [data-field="word-change"]');
      assert.equal(await added.innerText(), 'new', `the ${where} marks the added word`);
      assert.equal(await card.locator('.diff-row.d [data-field="word-change"]').innerText(), 'old', `the ${where} marks the removed word`);
      // In sight: the marked word lies within the diff's own box (the line wraps rather than running off its edge).
      await added.scrollIntoViewIfNeeded();
      const [box, body] = [await added.boundingBox(), await card.locator('.diff-body').boundingBox()];
      assert.ok(box && body && box.x >= body.x && box.x + box.width <= body.x + body.width + 1, `the ${where}'s change is inside the diff's box: ${JSON.stringify({ box, body })}`);
    }
    await session.workbench.screenshot('word-change-900x700');
    await panel().act(inPanel, 'deny');
    await driver().idle();
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  /** Every button of `card` can be clicked where it is (none clipped or covered), and the page does not scroll sideways. */
  async function usableAt300(frame: Frame, card: Locator, view: string): Promise<void> {
    const width = await frame.evaluate(() => window.innerWidth);
    assert.ok(width >= 290 && width <= 310, `the ${view} is about 300 px wide (${width})`);
    const overflow = await frame.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the ${view} does not scroll sideways (${overflow} px too wide)`);
    // The buttons are named once, then each is found by its action: a card re-rendered while the loop runs (a state
    // patch of the call) cannot shift an index onto nothing, as `nth(i)` of a live list did once in CI.
    const actions = await card.locator('button[data-action]:not([disabled]):visible').evaluateAll((found) => found.map((element) => element.getAttribute('data-action') ?? ''));
    assert.ok(actions.length >= 4, `the ${view} card has its buttons (${actions.join(', ')})`);
    const seen = new Map<string, number>();
    for (const [index, action] of actions.entries()) {
      const nth = seen.get(action) ?? 0;
      seen.set(action, nth + 1);
      const button = card.locator(`button[data-action="${action}"]`).nth(nth);
      await button.scrollIntoViewIfNeeded();
      const box = await button.boundingBox();
      assert.ok(box, `button ${index} has a box`);
      const inside = await button.evaluate((element) => {
        const rect = element.getBoundingClientRect();
        const hit = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
        return rect.left >= 0 && rect.right <= window.innerWidth + 0.5 && hit !== null && (hit === element || element.contains(hit));
      });
      assert.ok(inside, `${view}: ${action} is whole and on top`);
      // Not a trial click: Playwright's presses the mouse for real and only blocks the events at the target, and a card
      // re-rendered meanwhile let them through (CI once opened the diff and rejected the hunk that way). On top, whole
      // and enabled is what a click needs.
      assert.equal(await button.isEnabled(), true, `${view}: ${action} is enabled`);
    }
  }

  it('stays usable 300 px wide: every button of a card whole and clickable in the panel and the chat, no sideways scroll', async () => {
    const page = session.workbench.page;
    // The chat first: drag the side bar's edge until its webview is 300 px wide, before any card is there, so that a
    // press that missed the sash cannot land on a card's button (a hunk's Reject sits at the card's right edge: a
    // stray press there rejected the hunk once in CI, and the card's Allow was off).
    const chatFrame = await chat();
    const sidebar = page.locator('.part.sidebar');
    const box = await sidebar.boundingBox();
    assert.ok(box);
    const current = await chatFrame.evaluate(() => window.innerWidth);
    const edgeX = box.x + box.width;
    // The sash is taken by the side bar's title row, away from the webview.
    const sashY = box.y + 12;
    await page.mouse.move(edgeX - 1, sashY);
    await page.mouse.down();
    await page.mouse.move(edgeX - 1 + (300 - current), sashY, { steps: 8 });
    await page.mouse.up();
    await chatFrame.waitForFunction(() => Math.abs(window.innerWidth - 300) <= 10, undefined, { timeout: 30_000 });
    await modelCalls([call('call_n1', 'write_file', { path: 'src/narrow/a-file-with-a-rather-long-name.txt', content: `${'x'.repeat(200)}\n` })]);
    const card = await panel().waitForCall('write_file', 'a-file-with-a-rather-long-name.txt');
    const inline = await chatCard('a-file-with-a-rather-long-name.txt');
    await usableAt300(chatFrame, inline, 'chat');
    await session.workbench.screenshot('wording-narrow-chat-300');

    // The panel: the side bar hidden, the window narrowed until the editor (the panel) is 300 px wide.
    await session.workbench.runCommand('View: Toggle Primary Side Bar Visibility');
    const frame = await panelFrame();
    for (let attempt = 0; attempt < 3; attempt++) {
      const wide = await frame.evaluate(() => window.innerWidth);
      if (Math.abs(wide - 300) <= 5) {
        break;
      }
      const viewport = page.viewportSize() ?? { width: 1400, height: 900 };
      await page.setViewportSize({ width: viewport.width + (300 - wide), height: 700 });
      await frame.waitForFunction((before) => window.innerWidth !== before, wide, { timeout: 30_000 }).catch(() => undefined);
    }
    await usableAt300(frame, card, 'panel');
    await session.workbench.screenshot('wording-narrow-panel-300');
    await page.setViewportSize({ width: 1400, height: 900 });
    await session.workbench.runCommand('View: Toggle Primary Side Bar Visibility');
    await panel().act(card, 'deny');
    await driver().idle();
  });
});
