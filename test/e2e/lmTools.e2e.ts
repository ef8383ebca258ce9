import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { useSession } from './harness/session';

/** 30 lines; changing lines 5 and 25 makes two hunks far apart. */
const twoHunks = Array.from({ length: 30 }, (_, i) => `line ${i + 1}\n`).join('');

interface LmTool {
  name: string;
  description: string;
  inputSchema: { properties?: Record<string, unknown>; required?: string[] } | null;
  tags: string[];
}

/**
 * Toolgate's tools as another extension sees them through VS Code's language-model tool API (vscode.lm.tools,
 * vscode.lm.invokeTool), as Copilot agent mode calls tools: the helper extension is that caller, not Toolgate.
 */
describe("Toolgate's tools for other agents: VS Code's language-model tool API, in the real VS Code", function () {
  this.timeout(180_000);
  const session = useSession({ control: true, files: { 'two-hunks.txt': twoHunks } });
  const { control, file, panel } = session;
  const invoke = (name: string, input: Record<string, unknown>, cancelAfterMs?: number): Promise<{ text: string }> =>
    control.call<{ text: string }>('/lmInvoke', { name, input, ...(cancelAfterMs !== undefined ? { cancelAfterMs } : {}) });

  it('lists the six tools by their contract names, with the built-in arguments', async () => {
    const tools = await control.call<LmTool[]>('/lmTools');
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['toolgate_edit_file', 'toolgate_list_files', 'toolgate_read_file', 'toolgate_run_in_terminal', 'toolgate_search_text', 'toolgate_write_file']);
    const write = tools.find((tool) => tool.name === 'toolgate_write_file');
    assert.ok(write);
    assert.deepEqual(write.inputSchema?.required, ['path', 'content']);
    assert.match(write.description, /Goes through Toolgate's approval gate/);
  });

  it('a write waits on a card that says who asks; Allow once writes it and the caller is told', async () => {
    const result = invoke('toolgate_write_file', { path: 'from-copilot.txt', content: 'hello from another agent\n' });
    const card = await panel().waitForCall('write_file', 'from-copilot.txt');
    assert.match(await card.locator('.source').innerText(), /from a VS Code tool call \(another agent\)/);
    await session.workbench.screenshot('lm-tool-card');
    await panel().act(card, 'allow-once');
    assert.match((await result).text, /from-copilot\.txt/);
    assert.equal(readFileSync(file('from-copilot.txt'), 'utf8'), 'hello from another agent\n');
  });

  it('deny with a reason: nothing is written, and the reason reaches the caller', async () => {
    const result = invoke('toolgate_write_file', { path: 'denied.txt', content: 'x\n' });
    const card = await panel().waitForCall('write_file', 'denied.txt');
    await panel().deny(card, 'not in this folder');
    assert.match((await result).text, /The person denied this call and said: "not in this folder"\. Nothing was changed\./);
    assert.equal(existsSync(file('denied.txt')), false);
  });

  it("cancelled by the caller, the waiting call goes from the panel and nothing is written", async () => {
    const result = invoke('toolgate_write_file', { path: 'cancelled.txt', content: 'x\n' }, 4_000);
    await panel().waitForCall('write_file', 'cancelled.txt');
    const outcome = await result.then((value) => value.text, (error: unknown) => `rejected: ${String(error)}`);
    await panel().waitForNoCalls();
    assert.equal(existsSync(file('cancelled.txt')), false, outcome);
  });

  it("edit then allow: the person's text is written, and the caller is told it was edited", async () => {
    const result = invoke('toolgate_write_file', { path: 'edited.txt', content: 'the model wrote this\n' });
    const card = await panel().waitForCall('write_file', 'edited.txt');
    await panel().editThenAllow(card, 'the person wrote this\n');
    assert.match((await result).text, /edit/i);
    assert.equal(readFileSync(file('edited.txt'), 'utf8'), 'the person wrote this\n');
  });

  it('hunk by hunk: the accepted hunk lands, and the caller hears which was rejected', async () => {
    const result = invoke('toolgate_edit_file', { path: 'two-hunks.txt', edits: [{ old: 'line 5\n', new: 'line five\n' }, { old: 'line 25\n', new: 'line twenty-five\n' }] });
    const card = await panel().waitForCall('edit_file', 'two-hunks.txt');
    await card.locator('[data-hunk-index="1"] [data-action="reject-hunk"]').click();
    await card.locator('[data-hunk-index="1"][data-state="rejected"]').waitFor({ timeout: 5_000 });
    await panel().act(card, 'allow-once');
    assert.match((await result).text, /1 of 2 hunks/);
    const text = readFileSync(file('two-hunks.txt'), 'utf8');
    assert.match(text, /^line five$/m);
    assert.match(text, /^line 25$/m);
  });

  it('malformed arguments get a precise error, and nothing waits', async () => {
    // The calls the tests before decided have left the panel (its update can trail their results under load).
    await panel().waitForNoCalls();
    const outcome = await invoke('toolgate_write_file', { path: 'x.txt' }).then((value) => value.text, (error: unknown) => `rejected: ${String(error)}`);
    assert.match(outcome, /content/);
    assert.equal((await panel().callIds()).length, 0);
  });
});
