/**
 * Root hooks of the e2e suite: the real VS Code installed (once, cached) before any test, a screenshot of the
 * workbench on every failure, and one browser for all files.
 */
import type { Context } from 'mocha';
import { ensureCodeServer } from './harness/codeServer';
import { closeBrowser, currentWorkbench } from './harness/workbench';

/** Before the first test and outside every test's timeout: from an empty cache the install takes minutes. */
export function mochaGlobalSetup(): void {
  ensureCodeServer();
}

export const mochaHooks = {
  async afterEach(this: Context): Promise<void> {
    const test = this.currentTest;
    if (test?.state === 'failed' && currentWorkbench) {
      try {
        const file = await currentWorkbench.screenshot(`failed-${test.fullTitle()}`);
        console.log(`    screenshot: ${file}`);
        console.log(`    Toolgate's log: ${currentWorkbench.keepLog(`failed-${test.fullTitle()}`)}`);
      } catch (error) {
        console.log(`    (no screenshot: ${String(error)})`);
      }
    }
  },
  async afterAll(): Promise<void> {
    await closeBrowser();
  },
};
