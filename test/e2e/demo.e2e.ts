import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Frame } from 'playwright-core';
import { demoModelName, demoServer } from '../fixtures/demoScript';
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fakeOpenAI';
import { ChatDriver } from './harness/chat';
import { until } from './harness/until';
import { panelAllowAll } from './harness/panel';
import { useSession } from './harness/session';

describe('the offline demo model of npm start, in the Restricted Mode it opens in', function () {
  this.timeout(180_000);
  let demo: FakeOpenAI | undefined;
  before(async () => {
    demo = await startFakeOpenAI(demoServer);
  });
  after(async () => {
    await demo?.close();
  });
  // As npm start opens it: Workspace Trust on and the folder not trusted, the model in the machine's settings.
  const session = useSession({
    workspace: 'demo',
    workspaceTrust: true,
    late: () => ({
      // The walk-through is decided in the Approvals panel, which opens for every call (by default the chat's cards would do).
      machineSettings: { 'toolgate.model.baseUrl': demo?.baseUrl ?? '', 'toolgate.model.name': demoModelName, 'toolgate.approvals.revealPanel': 'always' },
    }),
  });
  const { panel } = session;
  const chat = (): ChatDriver => new ChatDriver(session.workbench);
  const workspaceFile = (relative: string): string => readFileSync(path.join(session.server.workspace, relative), 'utf8');

  /** The write, then the batch of two calls at once, allowed with Allow all. */
  async function writeThenBatch(): Promise<void> {
    await panel().act(await panel().waitForCall('write_file', 'NOTES.md'), 'allow-once');
    await panel().waitForCall('edit_file', 'NOTES.md');
    await panel().waitForCall('write_file', 'TODO.md');
    const allowAll = await session.workbench.inWebview(panelAllowAll);
    assert.match(await allowAll.innerText(), /Allow all 2/);
    await allowAll.click();
  }

  /** The command, the question, and the end of the script. */
  async function commandAndQuestion(frame: Frame, trustFolder: boolean): Promise<void> {
    await panel().act(await panel().waitForCall('run_in_terminal', 'npm run build'), 'allow-once');
    if (trustFolder) {
      // VS Code itself asks before it creates a terminal in a folder that is not trusted; the person trusts it.
      await session.workbench.trustFolderWhenAsked();
    }
    // What the build wrote waits on one group card, and is not in the workspace until it is allowed.
    const group = await panel().waitForGroup('changed 2 files', 60_000);
    const changelog = workspaceFile('CHANGELOG.md');
    await group.locator('[data-action="allow-once"]').click();
    // Both files land, one after the other: wait for the second as well, not only the first.
    await until(() => workspaceFile('CHANGELOG.md') !== changelog && existsSync(path.join(session.server.workspace, 'dist', 'math.js')), 'the build\'s files to land');
    assert.match(workspaceFile('dist/math.js'), /^\/\/ Built /);
    await frame.locator('[data-entry="question"]:not(:has([data-field="answer"])) [data-action="answer"][data-option="Clear"]').click();
    const closing = frame.locator('[data-entry="assistant"]', { hasText: 'That was the whole script' }).last();
    await closing.waitFor({ timeout: 60_000 });
    assert.doesNotMatch(await closing.innerText(), /Approvals/, 'the cards are in the chat now');
    await chat().idle();
  }

  it('walks a write, a batch of two calls (Allow all), a command and a question through the panel and the chat', async () => {
    const frame = await chat().frame();
    assert.match(await frame.locator('[data-field="model"]').innerText(), /toolgate-demo \(offline, scripted\)/);
    await chat().say('Show me what you can do');
    await writeThenBatch();
    await commandAndQuestion(frame, true);
    assert.match(workspaceFile('NOTES.md'), /Written by the Toolgate demo model at .*, after your approval, then edited\.\n/);
    assert.match(workspaceFile('TODO.md'), /Tried a batch of two calls/);
    await frame.locator('[data-entry="tool"][data-tool="run_in_terminal"][data-status="done"]').waitFor();
    await session.workbench.screenshot('demo-done');
  });

  it('after Stop, the next task starts the script from the beginning, and its edit works again on the changed workspace', async () => {
    const frame = await chat().frame();
    await chat().say('Once more');
    await panel().act(await panel().waitForCall('write_file', 'NOTES.md'), 'allow-once');
    await panel().waitForCall('edit_file', 'NOTES.md');
    await frame.locator('[data-action="stop"]').click();
    await chat().idle();
    await panel().waitForNoCalls();
    const editsBefore = await frame.locator('[data-entry="tool"][data-tool="edit_file"][data-status="done"]').count();

    await chat().say('And again, from the start');
    await writeThenBatch();
    await commandAndQuestion(frame, false);
    assert.equal(await frame.locator('[data-entry="tool"][data-tool="edit_file"][data-status="done"]').count(), editsBefore + 1, 'the edit of this run succeeded');
    assert.match(workspaceFile('NOTES.md'), /after your approval, then edited\.\n/);
  });
});
