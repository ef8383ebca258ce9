import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { demoModelName, demoTurns } from '../fixtures/demoScript';
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fakeOpenAI';
import { ChatDriver } from './harness/chat';
import { ApprovalsPanelDriver } from './harness/panel';
import { useCodeServer } from './harness/session';

describe('the offline demo model of npm start, in the Restricted Mode it opens in', function () {
  this.timeout(180_000);
  let demo: FakeOpenAI | undefined;
  before(async () => {
    demo = await startFakeOpenAI({ models: [demoModelName], refill: demoTurns });
  });
  after(async () => {
    await demo?.close();
  });
  // As npm start opens it: Workspace Trust on and the folder not trusted, the model in the machine's settings.
  const session = useCodeServer(() => ({
    workspace: 'demo',
    workspaceTrust: true,
    machineSettings: { 'toolgate.model.baseUrl': demo?.baseUrl ?? '', 'toolgate.model.name': demoModelName },
  }));

  it('walks a write, an edit, a command and a question through the panel and the chat', async () => {
    const chat = new ChatDriver(session.workbench);
    const panel = new ApprovalsPanelDriver(session.workbench);
    const frame = await chat.frame();
    assert.match(await frame.locator('[data-field="model"]').innerText(), /toolgate-demo \(offline, scripted\)/);
    await chat.say('Show me what you can do');
    await panel.act(await panel.waitForCall('write_file', 'NOTES.md'), 'allow-once');
    await panel.act(await panel.waitForCall('edit_file', 'Number(a) + Number(b)'), 'allow-once');
    await panel.act(await panel.waitForCall('run_in_terminal', 'npm test'), 'allow-once');
    // VS Code itself asks before it creates a terminal in a folder that is not trusted; the person trusts it.
    await session.workbench.trustFolderWhenAsked();
    await frame.locator('[data-entry="question"] [data-action="answer"][data-option="Clear"]').click();
    await frame.locator('[data-entry="assistant"]', { hasText: 'That was the whole script' }).waitFor({ timeout: 60_000 });
    const workspace = session.server.workspace;
    assert.match(readFileSync(path.join(workspace, 'NOTES.md'), 'utf8'), /Written by the Toolgate demo model/);
    assert.match(readFileSync(path.join(workspace, 'src', 'math.js'), 'utf8'), /return Number\(a\) \+ Number\(b\);/);
    const terminal = frame.locator('[data-entry="tool"][data-tool="run_in_terminal"][data-status="done"]');
    await terminal.waitFor();
    await session.workbench.screenshot('demo-done');
  });
});
