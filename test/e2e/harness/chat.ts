import * as assert from 'node:assert/strict';
import type { Frame, Locator } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fakeOpenAI';
import type { Workbench } from './workbench';

/** The Toolgate chat view in the real workbench, by the DOM contract (data-field, data-action, data-entry). */
export class ChatDriver {
  constructor(private readonly workbench: Workbench) {}

  /** The chat view's frame, opening the Toolgate view container if needed. */
  async frame(): Promise<Frame> {
    const selector = 'body[data-view="chat"] main#root[data-state="connected"]';
    try {
      return await this.workbench.webviewFrame(selector, 2_000);
    } catch {
      // The focus command only ever opens the view (an activity bar click would close an open container). On a busy
      // machine it reaches the command palette a while after the workbench shows, so look for it again.
      for (let attempt = 1; ; attempt++) {
        try {
          await this.workbench.runCommand('Toolgate: Focus on Chat View');
          break;
        } catch (error) {
          if (attempt === 3) {
            throw error;
          }
        }
      }
      return await this.workbench.webviewFrame(selector, 30_000);
    }
  }

  async say(text: string): Promise<void> {
    const frame = await this.frame();
    await frame.locator('[data-field="prompt"]').fill(text);
    await frame.locator('[data-action="send"]').click();
  }

  /** Waits until no task runs. */
  async idle(): Promise<void> {
    await (await this.frame()).locator('main#root[data-running="false"]').waitFor({ timeout: 30_000 });
  }

  /** The chat view's header in the side bar, where its title actions are. */
  private header(): Locator {
    return this.workbench.page.locator('.pane-header', { has: this.workbench.page.locator('h3.title', { hasText: /^Chat$/ }) });
  }

  /** Clicks one of the chat's title actions (shown while the header is hovered), by its label. */
  async titleAction(label: string): Promise<void> {
    await this.frame();
    const header = this.header();
    await header.hover();
    await header.locator(`.actions .action-label[aria-label^="${label}"]`).first().click();
  }

  /** Opens the chat's title menu ("More Actions...") and lists its entries, then leaves it open. */
  async titleMenu(): Promise<string[]> {
    const menu = this.workbench.page.locator('.monaco-menu');
    // A menu opened while the view still settles can close at once (seen once in CI: the click showed only the
    // tooltip): it is opened again, up to three times.
    for (let attempt = 1; ; attempt++) {
      await this.titleAction('More Actions');
      try {
        await menu.locator('.action-label').first().waitFor({ timeout: 5_000 });
        break;
      } catch (error) {
        if (attempt === 3) {
          throw error;
        }
        await this.workbench.page.keyboard.press('Escape');
      }
    }
    return (await menu.locator('.action-item:not(.disabled) .action-label').allInnerTexts()).map((text) => text.trim()).filter((text) => text !== '');
  }

  /** Runs an entry of the chat's title menu, opening the menu again if it closed before the click reached it. */
  async titleMenuAction(label: string): Promise<void> {
    const item = this.workbench.page.locator('.monaco-menu .action-label', { hasText: label });
    for (let attempt = 1; ; attempt++) {
      await this.titleMenu();
      try {
        await item.click({ timeout: 5_000 });
        return;
      } catch (error) {
        if (attempt === 3) {
          throw error;
        }
        await this.workbench.page.keyboard.press('Escape');
      }
    }
  }

  /** Starts a new chat from the view's title bar (the one New Chat there is). */
  async newChat(): Promise<void> {
    await this.titleAction('New Chat');
  }

  /** Waits for the previous task to end, then gives a new one. */
  async task(prompt: string): Promise<void> {
    await this.idle();
    await this.say(prompt);
  }
}

/** The settings that point Toolgate at the scripted server, and nothing else. */
export function modelSettings(fake: FakeOpenAI): Record<string, unknown> {
  return { 'toolgate.model.baseUrl': fake.baseUrl, 'toolgate.model.name': 'toolgate-test-model' };
}

/** The scripted OpenAI-compatible server of a `describe`, and the workspace settings that point Toolgate at it. */
export interface FakeModel {
  readonly fake: FakeOpenAI;
  workspaceSettings(): Record<string, unknown>;
}

/** Registers hooks that run the scripted OpenAI-compatible server for the enclosing `describe`. */
export function useFakeModel(): FakeModel {
  let fake: FakeOpenAI | undefined;
  before(async () => {
    fake = await startFakeOpenAI();
  });
  after(async () => {
    await fake?.close();
  });
  const current = (): FakeOpenAI => {
    if (!fake) {
      throw new Error('the fake model server is not running');
    }
    return fake;
  };
  return {
    get fake() {
      return current();
    },
    // These tests review the agent's calls in the Approvals panel as well as in the chat, so the panel opens for every
    // new call; when it opens by default (only for a call no visible view shows) is panelReveal.e2e.ts's to test.
    workspaceSettings: () => ({ ...modelSettings(current()), 'toolgate.approvals.revealPanel': 'always' }),
  };
}

/** A message of a request the model received, as far as the tests read it. */
export interface SentMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
}

/** The messages of the n-th request the model received. */
export function sentMessages(fake: FakeOpenAI, index: number): SentMessage[] {
  const body = fake.requests[index]?.body as { messages?: SentMessage[] } | undefined;
  assert.ok(body?.messages, `request ${index} was not made`);
  return body.messages;
}

/** The tool result for `callId` in the n-th request the model received. */
export function sentToolResult(fake: FakeOpenAI, index: number, callId: string): string {
  const messages = sentMessages(fake, index);
  const message = messages.find((entry) => entry.role === 'tool' && entry.tool_call_id === callId);
  assert.ok(message, `no tool result for ${callId} in ${JSON.stringify(messages)}`);
  return message.content ?? '';
}
