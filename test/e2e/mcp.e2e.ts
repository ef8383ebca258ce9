import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Frame } from 'playwright-core';
import { repoRoot } from './harness/codeServer';
import { ChatDriver, sentToolResult } from './harness/chat';
import { until } from './harness/until';
import { useSession } from './harness/session';

const node = process.execPath;
const filesystemServer = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const tsx = path.join(repoRoot, 'node_modules', '.bin', 'tsx');
const fixtureServer = path.join(repoRoot, 'test', 'fixtures', 'mcp', 'fixtureServer.ts');


describe('MCP servers behind the gate, in the real VS Code', function () {
  this.timeout(180_000);
  const session = useSession({
    model: true,
    userSettings: {
      'toolgate.mcp.servers': {
        fs: { command: node, args: [filesystemServer, '${workspaceFolder}'] },
        fixture: { command: tsx, args: [fixtureServer, '--stdio'], env: { FIXTURE_DESCRIPTION: 'Echo the text back.' }, requireApproval: ['echo', 'write_note'] },
      },
    },
  });
  const { model, file, panel } = session;

  const chat = (): Promise<Frame> => new ChatDriver(session.workbench).frame();

  /** The MCP Servers view shows the server as running (its row's accessible label names the state). */
  async function serverRunning(name: string): Promise<void> {
    await (await session.workbench.mcpServerRow(`${name} (`, ': running')).waitFor({ state: 'attached', timeout: 60_000 });
  }

  const task = (prompt: string): Promise<void> => new ChatDriver(session.workbench).task(prompt);

  it('lists the servers as running with their tools', async () => {
    await chat();
    const page = session.workbench.page;
    await serverRunning('fs');
    await serverRunning('fixture');
    assert.ok(await page.locator('.pane-header', { hasText: 'MCP Servers' }).count() > 0);
    await session.workbench.screenshot('mcp-servers');
  });

  it("server-filesystem's write_file shows the diff: deny leaves the file untouched, allow writes it", async () => {
    const target = file('src/greet.ts');
    const original = readFileSync(target, 'utf8');
    const content = 'export const greet = (name: string): string => `Hey ${name}`;\n';
    model.fake.script([
      { toolCalls: [{ id: 'fs_1', name: 'mcp__fs__write_file', arguments: JSON.stringify({ path: target, content }) }] },
      { toolCalls: [{ id: 'fs_2', name: 'mcp__fs__write_file', arguments: JSON.stringify({ path: target, content }) }] },
      { text: 'Done.' },
    ]);
    const before = model.fake.requests.length;
    await task('Rewrite greet.ts through the filesystem server');
    const card = await panel().waitForCall('mcp__fs__write_file');
    assert.match(await card.locator('[data-field="diff-counts"]').innerText(), /\+1 −3/);
    assert.match(await card.locator('[data-field="tool-info"]').innerText(), /MCP server fs/);
    await session.workbench.screenshot('mcp-write-diff');
    await panel().act(card, 'deny');
    const second = await panel().waitForCall('mcp__fs__write_file');
    assert.equal(readFileSync(target, 'utf8'), original, 'denied: untouched');
    await panel().act(second, 'allow-once');
    await until(() => model.fake.requests.length === before + 3, 'the final turn');
    assert.match(sentToolResult(model.fake, before + 1, 'fs_1'), /The person denied this call/);
    assert.equal(readFileSync(target, 'utf8'), content, 'allowed: written by the server');
  });

  it('a tool whose description changed after a grant asks again', async () => {
    model.fake.script([
      { toolCalls: [{ id: 'echo_1', name: 'mcp__fixture__echo', arguments: JSON.stringify({ text: 'one' }) }] },
      { toolCalls: [{ id: 'echo_2', name: 'mcp__fixture__echo', arguments: JSON.stringify({ text: 'two' }) }] },
      { text: 'ok' },
    ]);
    const before = model.fake.requests.length;
    await task('Echo twice');
    const card = await panel().waitForCall('mcp__fixture__echo');
    await card.locator('[data-field="grant-scope"]').selectOption('tool');
    await panel().act(card, 'allow-workspace');
    await until(() => model.fake.requests.length === before + 3, 'both echoes');
    assert.match(sentToolResult(model.fake, before + 2, 'echo_2'), /two/, 'the second echo ran on the grant');

    // The server now describes the tool differently (tools/list_changed): the grant was pinned to the old definition.
    model.fake.script([{ toolCalls: [{ id: 'change_1', name: 'mcp__fixture__change_tools', arguments: JSON.stringify({ description: 'Echo the text back, and also email it to someone.' }) }] }, { text: 'changed' }]);
    await task('Change the tools');
    const page = session.workbench.page;
    const fixtureRow = await session.workbench.mcpServerRow('fixture (');
    await fixtureRow.waitFor({ state: 'attached' });
    if ((await fixtureRow.getAttribute('aria-expanded')) !== 'true') {
      await fixtureRow.click();
    }
    await page.locator('.monaco-list-row', { hasText: 'email it to someone' }).first().waitFor({ state: 'attached', timeout: 60_000 });
    // The view says which tools ask (requireApproval: echo and write_note) and which run without asking.
    assert.match(await page.locator('.monaco-list-row', { hasText: 'email it to someone' }).first().innerText(), /asks · Echo the text back, and also email/);
    assert.match(await page.locator('.monaco-list-row[aria-label^="add"]').first().innerText(), /runs without asking/);
    model.fake.script([{ toolCalls: [{ id: 'echo_3', name: 'mcp__fixture__echo', arguments: JSON.stringify({ text: 'three' }) }] }, { text: 'ok' }]);
    await task('Echo again');
    const again = await panel().waitForCall('mcp__fixture__echo', 'email it to someone');
    assert.match(await again.innerText(), /changed this tool .* since you granted it/);
    await panel().act(again, 'deny');
    await (await chat()).locator('main#root[data-running="false"]').waitFor({ timeout: 30_000 });
  });

  it('a crashing server does not take the agent down', async () => {
    model.fake.script([
      { toolCalls: [{ id: 'crash_1', name: 'mcp__fixture__crash', arguments: '{}' }] },
      { text: 'The server crashed; carrying on.' },
    ]);
    const before = model.fake.requests.length;
    await task('Crash the fixture');
    await until(() => model.fake.requests.length === before + 2, 'the model to hear about the crash');
    assert.match(sentToolResult(model.fake, before + 1, 'crash_1'), /^Error: .*(crash|exit|closed)/i);
    const frame = await chat();
    await frame.locator('[data-entry="assistant"]', { hasText: 'carrying on' }).waitFor();
    await serverRunning('fixture');
  });
});

describe('an MCP server defined in the workspace', function () {
  this.timeout(180_000);
  const session = useSession({
    // It runs in the sandbox, whose /tmp is private: a checkout under /tmp (as in CI) must be made visible to run the
    // fixture from it, with the setting a person would use.
    machineSettings: { 'toolgate.sandbox.writablePaths': [repoRoot] },
    files: {
      '.vscode/mcp.json': JSON.stringify(
        {
          // VS Code's own format, with a comment as people write it.
          servers: { fx: { type: 'stdio', command: tsx, args: [fixtureServer, '--stdio'], env: { FIXTURE_TOKEN: 'secret-value' } } },
        },
        null,
        2,
      ).replace('{\n', '{\n  // the fixture server\n'),
    },
  });

  async function row(): Promise<string> {
    const item = await session.workbench.mcpServerRow('fx (');
    await item.waitFor({ state: 'attached', timeout: 60_000 });
    return (await item.getAttribute('aria-label')) ?? '';
  }

  it('starts only after the person has seen and allowed its exact command line, environment keys and sandbox', async () => {
    await new ChatDriver(session.workbench).frame();
    const dialog = session.workbench.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 60_000 });
    const text = await dialog.innerText();
    assert.match(text, /Start the MCP server "fx" defined in this workspace\?/);
    assert.ok(text.includes(tsx), 'the command is shown');
    assert.ok(text.includes(fixtureServer), 'the arguments are shown');
    assert.match(text, /Environment keys: FIXTURE_TOKEN/);
    assert.match(text, /Sandbox: yes, no network/);
    assert.match(text, /It runs in the sandbox: it may write only in the workspace, cannot read your credentials and cannot reach the network\./);
    assert.doesNotMatch(text, /secret-value/, 'environment values are not shown');
    assert.match(await row(), /fx \(defined in this workspace\): (starting|stopped)/);
    await session.workbench.screenshot('mcp-first-run-approval');
    await dialog.locator('.monaco-button', { hasText: 'Allow and start' }).click();
    await (await session.workbench.mcpServerRow('fx (', ': running')).waitFor({ state: 'attached', timeout: 60_000 });
  });

  it('does not ask again for the same launch after a reload', async () => {
    await session.workbench.reload();
    await new ChatDriver(session.workbench).frame();
    await (await session.workbench.mcpServerRow('fx (', ': running')).waitFor({ state: 'attached', timeout: 60_000 });
    assert.equal(await session.workbench.page.locator('.monaco-dialog-box').count(), 0);
  });
});

describe("the MCP servers a VS Code user already has: the profile's mcp.json", function () {
  this.timeout(180_000);
  const session = useSession({
    userFiles: {
      // VS Code's own file and format (User/mcp.json), as its MCP: Add Server command writes it.
      'mcp.json': JSON.stringify({ servers: { fxp: { type: 'stdio', command: tsx, args: [fixtureServer, '--stdio'] } }, inputs: [] }, null, 2),
    },
  });

  it('are read, and a stdio one starts only after the person allowed its exact launch', async () => {
    await new ChatDriver(session.workbench).frame();
    const dialog = session.workbench.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 60_000 });
    const text = await dialog.innerText();
    assert.match(text, /Start the MCP server "fxp" from the mcp\.json of your VS Code profile\?/);
    assert.ok(text.includes(fixtureServer), 'the arguments are shown');
    assert.match(text, /Sandbox: none/);
    await dialog.locator('.monaco-button', { hasText: 'Allow and start' }).click();
    const row = await session.workbench.mcpServerRow('fxp', ': running');
    await row.waitFor({ state: 'attached', timeout: 60_000 });
    assert.match((await row.getAttribute('aria-label')) ?? '', /fxp \(your VS Code profile's mcp\.json\): running/);
  });
});
