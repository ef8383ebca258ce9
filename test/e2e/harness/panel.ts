import type { Locator } from 'playwright-core';
import type { Workbench } from './workbench';

/** The approvals panel in the real workbench, located by the DOM contract (data-call-id, data-action, data-field). */
/**
 * The Approvals panel's Allow all (a direct child of its root): the chat has an Allow all of its own, so a bare
 * `[data-action="allow-all"]` may find the chat's frame first.
 */
export const panelAllowAll = 'main#root > [data-field="batch"] [data-action="allow-all"]';

export class ApprovalsPanelDriver {
  constructor(private readonly workbench: Workbench) {}

  /** The card of the one waiting call that matches, once it is shown. */
  async waitForCall(tool: string, text?: string, timeoutMs = 30_000): Promise<Locator> {
    const selector = `article.call[data-call-id][data-tool="${tool}"]`;
    const frame = await this.workbench.webviewFrame(selector, timeoutMs);
    const card = text === undefined ? frame.locator(selector) : frame.locator(selector, { hasText: text });
    await card.first().waitFor({ state: 'visible', timeout: timeoutMs });
    return card.first();
  }

  /** The one card of a group of calls decided together (a staged command's changed files), once it is shown. */
  async waitForGroup(text?: string, timeoutMs = 30_000): Promise<Locator> {
    const selector = 'article.call.call-group[data-group-id]';
    const frame = await this.workbench.webviewFrame(selector, timeoutMs);
    const card = text === undefined ? frame.locator(selector) : frame.locator(selector, { hasText: text });
    await card.first().waitFor({ state: 'visible', timeout: timeoutMs });
    return card.first();
  }

  async callIds(): Promise<string[]> {
    const frame = await this.workbench.webviewFrame('body[data-view="approvals"] main#root[data-state="connected"]');
    return await frame.locator('article.call[data-call-id]').evaluateAll((cards) =>
      cards.map((card) => card.getAttribute('data-call-id') ?? ''),
    );
  }

  async waitForNoCalls(timeoutMs = 15_000): Promise<void> {
    const frame = await this.workbench.webviewFrame('body[data-view="approvals"] main#root[data-state="connected"]');
    await frame.locator('article.call[data-call-id]').first().waitFor({ state: 'detached', timeout: timeoutMs });
  }

  /** Clicks the card's button for `action`; Deny asks why first, so it is pressed twice (with no reason). */
  async act(card: Locator, action: string): Promise<void> {
    if (action === 'deny') {
      await this.deny(card);
      return;
    }
    await card.locator(`[data-action="${action}"]`).first().click();
  }

  /** Edit then allow, as a person does: Edit, the text typed in the box, Allow. */
  async editThenAllow(card: Locator, text: string): Promise<void> {
    await this.act(card, 'edit');
    await card.locator('[data-field="edited"]').fill(text);
    await this.act(card, 'allow-edited');
  }

  /** Deny as a person does: Deny opens the reason box, the reason is typed, a second Deny sends. */
  async deny(card: Locator, reason?: string): Promise<void> {
    const callId = await card.getAttribute('data-call-id');
    const deny = card.locator('[data-action="deny"]').first();
    await deny.click();
    const box = card.locator('[data-field="reason"]');
    await box.waitFor({ state: 'visible' });
    if (reason !== undefined) {
      await box.fill(reason);
    }
    await deny.click();
    // Denied: the host takes this call's card away (so a test looking for the next call does not find this one).
    const frame = await this.workbench.webviewFrame('body[data-view="approvals"] main#root[data-state="connected"]');
    await frame.locator(`article.call[data-call-id="${callId ?? ''}"]`).waitFor({ state: 'detached' });
  }

  /**
   * The careless person: until `done()`, Allow once on every card that has it; a card without it (Run without
   * sandbox) is the one thing they do not allow, so they deny it and the task goes on. `onUnconfined` sees each such
   * card first (for a screenshot). Counts what was allowed and what offered to run without the sandbox.
   */
  /**
   * `denyStaged`: a staged command's group card (what it wrote) is denied rather than allowed, as a person who lets
   * commands run but lands none of their changes would.
   */
  async allowEveryCard(done: () => boolean, onUnconfined?: (card: Locator) => Promise<void>, options: { denyStaged?: boolean } = {}): Promise<{ allowed: number; withoutSandbox: number; deniedStaged: number }> {
    const frame = await this.workbench.webviewFrame('body[data-view="approvals"] main#root[data-state="connected"]', 60_000);
    let allowed = 0;
    let withoutSandbox = 0;
    let deniedStaged = 0;
    while (!done()) {
      // A call's card, or a group's (a staged command's changed files), whose Allow lands them all.
      const first = frame.locator('article.call[data-call-id], article.call[data-group-id]').first();
      try {
        await first.waitFor({ state: 'visible', timeout: 1_000 });
      } catch {
        continue; // No card right now: a command is running.
      }
      const callId = await first.getAttribute('data-call-id', { timeout: 1_000 }).catch(() => null);
      const groupId = callId === null ? await first.getAttribute('data-group-id', { timeout: 1_000 }).catch(() => null) : null;
      if (callId === null && groupId === null) {
        continue;
      }
      const card = frame.locator(callId !== null ? `article.call[data-call-id="${callId}"]` : `article.call[data-group-id="${groupId ?? ''}"]`);
      const unconfined = (await card.locator('[data-action="allow-unconfined"]').count()) > 0;
      if (unconfined && (await card.locator('[data-action="allow-once"]').count()) > 0) {
        throw new Error('a card that offers Run without sandbox has an Allow once');
      }
      const denied = unconfined || (groupId !== null && options.denyStaged === true);
      try {
        if (denied) {
          if (unconfined) {
            await onUnconfined?.(card);
          }
          const deny = card.locator('[data-action="deny"]').first();
          await deny.click();
          await card.locator('[data-field="reason"]').waitFor({ state: 'visible' });
          await deny.click();
        } else {
          await card.locator('[data-action="allow-once"]').first().click();
        }
        await card.waitFor({ state: 'detached', timeout: 60_000 });
      } catch (error) {
        // The card changed under the click (a patch re-rendered it) or is slow to go on a loaded machine: look again.
        if ((await card.count()) > 0) {
          continue;
        }
        throw error;
      }
      if (unconfined) {
        withoutSandbox++;
      } else if (denied) {
        deniedStaged++;
      } else {
        allowed++;
      }
    }
    return { allowed, withoutSandbox, deniedStaged };
  }

  /**
   * Records from now on every message the panel posts to the extension host, as it leaves the webview's host frame
   * (VS Code's webview pre/index.html hands each one to a MessagePort towards the workbench). Returns a reader.
   */
  async recordMessages(): Promise<() => Promise<unknown[]>> {
    const host = await this.workbench.webviewHostFrame('body[data-view="approvals"] main#root[data-state="connected"]');
    // A string, not a function: the test's TypeScript loader would wrap a named function in a helper the page lacks.
    await host.evaluate(`(() => {
      if (window.toolgateSent) {
        return;
      }
      const sent = (window.toolgateSent = []);
      const original = MessagePort.prototype.postMessage;
      MessagePort.prototype.postMessage = function (...args) {
        const envelope = args[0];
        if (envelope && envelope.channel === 'onmessage') {
          sent.push(envelope.data && envelope.data.message);
        }
        return original.apply(this, args);
      };
    })()`);
    return () => host.evaluate(() => (window as unknown as { toolgateSent?: unknown[] }).toolgateSent ?? []);
  }
}
