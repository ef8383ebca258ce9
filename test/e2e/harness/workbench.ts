/**
 * Playwright helpers over a real VS Code workbench served by code-server. Webviews live in nested iframes, so
 * element look-ups inside them search every frame of the page.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Frame, type Locator, type Page } from 'playwright-core';
import { repoRoot, type CodeServer } from './codeServer';
import { until } from './until';

export const artifactsDir = path.join(repoRoot, 'artifacts');

let browser: Browser | undefined;

export async function launchBrowser(): Promise<Browser> {
  if (!browser || !browser.isConnected()) {
    browser = await chromium.launch({
      executablePath: process.env['TOOLGATE_CHROMIUM'] ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    });
  }
  return browser;
}

export async function closeBrowser(): Promise<void> {
  await browser?.close();
  browser = undefined;
}

/** The workbench of the test that runs now, for the failure screenshot hook. */
export let currentWorkbench: Workbench | undefined;

/**
 * A file name from a title: a test's full title can pass the file system's 255-byte limit, so a long one is cut and
 * keeps a hash of the whole, to stay unique.
 */
function artifactName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_.-]+/g, '-');
  return safe.length <= 150 ? safe : `${safe.slice(0, 140)}-${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

export class Workbench {
  private constructor(
    readonly page: Page,
    readonly server: CodeServer,
  ) {}

  static async open(server: CodeServer): Promise<Workbench> {
    const context = await (await launchBrowser()).newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const workbench = new Workbench(page, server);
    currentWorkbench = workbench;
    await workbench.load();
    return workbench;
  }

  private async load(): Promise<void> {
    await this.page.goto(`${this.server.url}/?folder=${encodeURIComponent(this.server.workspace)}`);
    await this.page.waitForSelector('.monaco-workbench .part.editor', { timeout: 60_000 });
    // The status bar appears once the window has restored; the extension host has started by then.
    await this.page.waitForSelector('.part.statusbar', { timeout: 60_000 });
  }

  /** Reloads the window (a fresh extension host activation, the same user data and workspace state). */
  async reload(): Promise<void> {
    await this.page.reload();
    await this.page.waitForSelector('.monaco-workbench .part.editor', { timeout: 60_000 });
    await this.page.waitForSelector('.part.statusbar', { timeout: 60_000 });
  }

  /**
   * A server's row in the MCP Servers view, which starts collapsed: the view is expanded first (by the header's own
   * click handler, so that this works while a modal dialog covers the workbench).
   */
  async mcpServerRow(labelStart: string, labelPart?: string): Promise<Locator> {
    const collapsed = this.page.locator('.pane-header[aria-expanded="false"]', { hasText: 'MCP Servers' });
    if ((await collapsed.count()) > 0) {
      await collapsed.first().dispatchEvent('click');
    }
    return this.page.locator(`.monaco-list-row[aria-label^="${labelStart}"]${labelPart !== undefined ? `[aria-label*="${labelPart}"]` : ''}`).first();
  }

  /** Runs a command by its palette label ("Toolgate: Open Approvals"). */
  async runCommand(label: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget input.input');
    const row = this.page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
    // The palette lists the commands known when it opens: on a fresh start, extension contributions can arrive a
    // little later, so an open palette that does not show the command is closed and opened again.
    const deadline = Date.now() + 30_000;
    for (;;) {
      await this.page.keyboard.press('Escape');
      await this.page.keyboard.press('F1');
      try {
        await input.waitFor({ state: 'visible', timeout: 5_000 });
        // The palette closes when something takes the focus (the approvals panel revealed for a call that just
        // arrived): then it is opened again, rather than typed into for 30 s while hidden.
        await input.fill(`>${label}`, { timeout: 5_000 });
        await row.waitFor({ state: 'visible', timeout: 5_000 });
        break;
      } catch (error) {
        if (Date.now() > deadline) {
          throw error;
        }
      }
    }
    await row.click();
  }

  /**
   * Answers VS Code's own Workspace Trust dialog ("Do you trust the authors of the files in this folder?"), which an
   * untrusted folder shows when something needs trust, for example creating a terminal.
   */
  async trustFolderWhenAsked(timeoutMs = 30_000): Promise<void> {
    const dialog = this.page.locator('.monaco-dialog-box', { hasText: 'Do you trust the authors' });
    await dialog.waitFor({ state: 'visible', timeout: timeoutMs });
    await dialog.locator('.monaco-button', { hasText: 'Trust Folder & Continue' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 10_000 });
  }

  /** Types an answer into the open input box (showInputBox) and accepts it. */
  async answerInputBox(text: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget input.input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(text);
    await input.press('Enter');
  }

  /** Picks a colour theme the way a person does: the palette's "Preferences: Color Theme". */
  async setColorTheme(theme: 'Light Modern' | 'Dark Modern'): Promise<void> {
    await this.runCommand('Preferences: Color Theme');
    await this.answerInputBox(theme);
    const kind = theme.includes('Light') ? 'vs' : 'vs-dark';
    await this.page.locator(`.monaco-workbench.${kind}`).waitFor({ timeout: 15_000 });
  }

  /** The frame (of any webview) in which `selector` is present, waiting for it to appear. */
  async webviewFrame(selector: string, timeoutMs = 20_000): Promise<Frame> {
    return await until(
      async () => {
        for (const frame of this.page.frames()) {
          if (frame === this.page.mainFrame()) {
            continue;
          }
          try {
            if ((await frame.locator(selector).count()) > 0) {
              return frame;
            }
          } catch {
            // The frame navigated or went away while we looked: keep searching.
          }
        }
        return undefined;
      },
      `a webview frame that contains ${selector}`,
      { timeoutMs },
    );
  }

  /** A locator for `selector` inside whichever webview holds it. */
  async inWebview(selector: string, timeoutMs?: number): Promise<Locator> {
    return (await this.webviewFrame(selector, timeoutMs)).locator(selector);
  }

  /** Clicks an element inside a webview. */
  async clickInWebview(selector: string): Promise<void> {
    await (await this.inWebview(selector)).first().click();
  }

  /** The outer webview frame (VS Code's pre/index.html) that hosts the frame holding `selector`. */
  async webviewHostFrame(selector: string): Promise<Frame> {
    const inner = await this.webviewFrame(selector);
    const host = inner.parentFrame();
    if (!host) {
      throw new Error('the webview frame has no host frame');
    }
    return host;
  }

  readWorkspaceFile(relativePath: string): string {
    return readFileSync(path.join(this.server.workspace, relativePath), 'utf8');
  }

  /** Saves a full-page screenshot into the git-ignored artifacts folder and returns its path. */
  async screenshot(name: string): Promise<string> {
    mkdirSync(artifactsDir, { recursive: true });
    const file = path.join(artifactsDir, `${artifactName(name)}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  /** The extension's log kept beside a failure's screenshot, for reading after the run. */
  keepLog(name: string): string {
    mkdirSync(artifactsDir, { recursive: true });
    const file = path.join(artifactsDir, `${artifactName(name)}.log`);
    writeFileSync(file, this.extensionLog());
    return file;
  }

  /** The text of the extension's "Toolgate" log (the LogOutputChannel's file in the user-data folder). */
  extensionLog(): string {
    const files = findFiles(path.join(this.server.userDataDir, 'logs'), (file) => path.basename(file) === 'Toolgate.log');
    return files.map((file) => readFileSync(file, 'utf8')).join('\n');
  }

  /**
   * Waits until the extension log contains `text` at least `times` times (log files are flushed asynchronously),
   * and returns the log.
   */
  async waitForLog(text: string | RegExp, timeoutMs = 15_000, times = 1): Promise<string> {
    let log = '';
    const count = (): number =>
      log.split('\n').filter((line) => (typeof text === 'string' ? line.includes(text) : text.test(line))).length;
    return await until(
      () => {
        log = this.extensionLog();
        return count() >= times && log;
      },
      `the Toolgate log to show ${String(text)} ${times} time(s)`,
      { timeoutMs, everyMs: 150, detail: () => `it holds:\n${log}` },
    );
  }

  async close(): Promise<void> {
    if (currentWorkbench === this) {
      currentWorkbench = undefined;
    }
    await this.page.context().close();
  }
}

function findFiles(dir: string, match: (file: string) => boolean): string[] {
  if (!existsSync(dir)) {
    return [];
  }
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      found.push(...findFiles(full, match));
    } else if (match(full)) {
      found.push(full);
    }
  }
  return found;
}
