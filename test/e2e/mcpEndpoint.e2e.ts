import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Locator } from 'playwright-core';
import { repoRoot } from './harness/codeServer';
import { ChatDriver } from './harness/chat';
import { useSession } from './harness/session';
import { until } from './harness/until';

/** 30 lines; changing lines 5 and 25 makes two hunks far apart. */
const base = Array.from({ length: 30 }, (_, i) => `line ${i + 1}\n`).join('');

interface ToolText {
  isError: boolean;
  text: string;
}

/**
 * The published MCP Inspector's command-line client (not ours), run as a person would from a terminal. Its build
 * looks for ../package.json from the working folder, so it runs from its own build folder.
 */
function inspector(url: string, header: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const cli = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build');
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(cli, 'index.js'), url, '--transport', 'http', ...args, '--header', header], { cwd: cli, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

/**
 * Toolgate's MCP endpoint in the real VS Code, reached by MCP clients that are not Toolgate: the MCP SDK's own client
 * and the published MCP Inspector CLI. Each call waits on the same card as the agent's, says which client asks, and
 * the person's answer (deny, allow once, edit then allow, hunk by hunk) reaches the client.
 */
describe("Toolgate's MCP endpoint, for MCP clients, in the real VS Code", function () {
  this.timeout(180_000);
  // VS Code's own MCP client is part of its chat features, which the harness turns off elsewhere.
  const session = useSession({ control: true, files: { 'two-hunks.txt': base }, settings: { 'chat.disableAIFeatures': false } });
  const { control, file, panel } = session;
  let client: Client | undefined;
  let endpoint: { url: string; headers: Record<string, string> } | undefined;

  async function sdkClient(): Promise<Client> {
    if (client === undefined) {
      endpoint = await control.call<{ url: string; headers: Record<string, string> }>('/mcpEndpoint');
      client = new Client({ name: 'e2e-sdk-client', version: '2.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: endpoint.headers } }));
    }
    return client;
  }

  async function call(name: string, args: Record<string, unknown>): Promise<ToolText> {
    const result = await (await sdkClient()).callTool({ name, arguments: args }, undefined, { timeout: 150_000 });
    const content = result.content as { type: string; text?: string }[];
    return { isError: result.isError === true, text: content.map((part) => part.text ?? '').join('') };
  }

  after(async () => {
    await client?.close();
  });

  it('the API gives a loopback URL and a secret header; the SDK client lists the built-in tools by name', async () => {
    const tools = (await (await sdkClient()).listTools()).tools;
    assert.match(endpoint?.url ?? '', /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.match(endpoint?.headers['Authorization'] ?? '', /^Bearer [\w-]{40,}$/);
    assert.deepEqual(tools.map((tool) => tool.name), ['write_file', 'edit_file', 'run_in_terminal', 'read_file', 'list_files', 'search_text']);
  });

  it('deny with a reason: the card names the client, nothing is written, and the reason reaches it as an error result', async () => {
    const result = call('write_file', { path: 'denied.txt', content: 'x\n' });
    const card = await panel().waitForCall('write_file', 'denied.txt');
    assert.match(await card.locator('.source').innerText(), /from the MCP client e2e-sdk-client 2\.0\.0/);
    await panel().deny(card, 'not this file');
    const answer = await result;
    assert.equal(answer.isError, true);
    assert.match(answer.text, /The person denied this call and said: "not this file"\. Nothing was changed\./);
    assert.equal(existsSync(file('denied.txt')), false);
  });

  it('allow once writes the file and tells the client', async () => {
    const result = call('write_file', { path: 'allowed.txt', content: 'from an MCP client\n' });
    const card = await panel().waitForCall('write_file', 'allowed.txt');
    await session.workbench.screenshot('mcp-endpoint-card');
    await panel().act(card, 'allow-once');
    const answer = await result;
    assert.equal(answer.isError, false);
    assert.match(answer.text, /allowed\.txt/);
    assert.equal(readFileSync(file('allowed.txt'), 'utf8'), 'from an MCP client\n');
  });

  it("edit then allow: the person's text is written, and the client is told it was edited", async () => {
    const result = call('write_file', { path: 'edited.txt', content: 'the model wrote this\n' });
    const card = await panel().waitForCall('write_file', 'edited.txt');
    await panel().editThenAllow(card, 'the person wrote this\n');
    const answer = await result;
    assert.equal(readFileSync(file('edited.txt'), 'utf8'), 'the person wrote this\n');
    assert.match(answer.text, /edit/i);
  });

  it('hunk by hunk: one of two hunks accepted is what lands, and the client hears which was rejected', async () => {
    const result = call('edit_file', { path: 'two-hunks.txt', edits: [{ old: 'line 5\n', new: 'line five\n' }, { old: 'line 25\n', new: 'line twenty-five\n' }] });
    const card = await panel().waitForCall('edit_file', 'two-hunks.txt');
    const hunk = (index: number): Locator => card.locator(`[data-hunk-index="${index}"]`);
    await hunk(1).locator('[data-action="reject-hunk"]').click();
    await card.locator('[data-hunk-index="1"][data-state="rejected"]').waitFor({ timeout: 5_000 });
    await panel().act(card, 'allow-once');
    const answer = await result;
    const text = readFileSync(file('two-hunks.txt'), 'utf8');
    assert.match(text, /^line five$/m);
    assert.match(text, /^line 25$/m);
    assert.match(answer.text, /1 of 2 hunks/);
  });

  it('a grant given to this client covers its next call, not the published Inspector CLI, and the grant list says whose it is', async () => {
    const first = call('write_file', { path: 'granted/one.txt', content: '1\n' });
    const card = await panel().waitForCall('write_file', 'granted/one.txt');
    assert.equal(await card.locator('[data-field="grant-caller"]').innerText(), 'Grants cover the MCP client e2e-sdk-client only.');
    await card.locator('[data-field="grant-scope"]').selectOption('tool');
    await panel().act(card, 'allow-session');
    assert.equal((await first).isError, false);
    const frame = await session.workbench.webviewFrame('[data-field="grants"] li');
    assert.match(await frame.locator('[data-field="grants"] li').first().innerText(), /write_file: every call \(for the MCP client e2e-sdk-client only\)/);
    // Covered: no card.
    const second = await call('write_file', { path: 'granted/two.txt', content: '2\n' });
    assert.equal(second.isError, false);
    assert.equal(readFileSync(file('granted/two.txt'), 'utf8'), '2\n');
    // Another client, with the same secret, is asked.
    const header = `Authorization: ${endpoint?.headers['Authorization'] ?? ''}`;
    const byInspector = inspector(endpoint?.url ?? '', header, ['--method', 'tools/call', '--tool-name', 'write_file', '--tool-arg', 'path=granted/three.txt', 'content=three']);
    const asked = await panel().waitForCall('write_file', 'granted/three.txt');
    assert.match(await asked.locator('.source').innerText(), /from the MCP client inspector-cli [\d.]+/);
    await panel().act(asked, 'allow-once');
    const cli = await byInspector;
    assert.equal(cli.code, 0, cli.stderr);
    const printed = JSON.parse(cli.stdout) as { content: { text: string }[]; isError?: boolean };
    assert.notEqual(printed.isError, true);
    assert.match(printed.content[0]?.text ?? '', /granted\/three\.txt/);
    assert.equal(readFileSync(file('granted/three.txt'), 'utf8'), 'three');
  });

  it('the Inspector CLI lists the tools with the secret, and is refused without it or with a wrong one', async () => {
    const url = endpoint?.url ?? '';
    const listed = await inspector(url, `Authorization: ${endpoint?.headers['Authorization'] ?? ''}`, ['--method', 'tools/list']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual((JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name).slice(0, 3), ['write_file', 'edit_file', 'run_in_terminal']);
    for (const header of ['Authorization: Bearer wrong-secret', 'X-Nothing: here']) {
      const refused = await inspector(url, header, ['--method', 'tools/list']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /missing or wrong secret/);
    }
  });

  it('is not served on any other address of this machine', async () => {
    const port = new URL(endpoint?.url ?? '').port;
    const others = Object.values(networkInterfaces()).flat().filter((address) => address !== undefined && address.family === 'IPv4' && !address.internal);
    for (const address of others) {
      const outcome = await new Promise<string>((resolve) => {
        const outgoing = httpRequest({ host: address?.address, port, path: '/mcp', method: 'POST', headers: { authorization: endpoint?.headers['Authorization'] ?? '' } }, (response) => resolve(`answered ${response.statusCode ?? 0}`));
        outgoing.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
        outgoing.end('{}');
      });
      assert.equal(outcome, 'ECONNREFUSED', `${address?.address ?? ''}:${port}`);
    }
  });

  it("Copy the MCP Endpoint's Config, by the keyboard: the pick says where each goes, and Claude Code's command is copied", async () => {
    const page = session.workbench.page;
    await session.workbench.runCommand("Toolgate: Copy the MCP Endpoint's Config for a Client");
    // The command palette gives way to the configs' pick.
    await page.locator('.quick-input-widget', { hasText: "Copy the config of Toolgate's MCP endpoint for" }).waitFor();
    const listed = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    for (const client of ['The URL and the header', 'Claude Code', 'Codex CLI', 'Cline', 'Roo Code', 'Gemini CLI']) {
      assert.ok(listed.some((row) => row.includes(client)), `${client} in ${listed.join(' | ')}`);
    }
    await session.workbench.screenshot('mcp-endpoint-configs');
    await page.keyboard.type('Claude');
    await page.keyboard.press('Enter');
    await page.locator('.notifications-toasts', { hasText: 'Copied the config for Claude Code' }).waitFor();
    // The browser's clipboard, where code-server's VS Code writes (reading it needs the page's permission).
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
    const text = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(text, `claude mcp add --transport http toolgate ${endpoint?.url ?? ''} --header "Authorization: ${endpoint?.headers['Authorization'] ?? ''}"`);
  });

  it("VS Code's own MCP client lists Toolgate's server, starts it and calls its tools through the same gate", async () => {
    const page = session.workbench.page;
    await session.workbench.runCommand('MCP: List Servers');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Toolgate' }).filter({ hasText: 'Stopped' }).first().click();
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Start Server' }).first().click();
    let names: string[] = [];
    await until(
      async () => (names = (await control.call<{ name: string }[]>('/lmTools', { all: true })).map((tool) => tool.name)).includes('mcp_toolgate_write_file'),
      "VS Code's tools to list mcp_toolgate_write_file after starting the server",
      { detail: () => `they are: ${names.join(', ')}` },
    );
    assert.deepEqual(names.filter((name) => name.startsWith('mcp_toolgate_')).sort(), ['edit_file', 'list_files', 'read_file', 'run_in_terminal', 'search_text', 'write_file'].map((tool) => `mcp_toolgate_${tool}`));
    const result = control.call<{ text: string }>('/lmInvoke', { name: 'mcp_toolgate_write_file', input: { path: 'via-vscode-mcp.txt', content: 'through VS Code\'s MCP client\n' } });
    // VS Code asks its own question before it calls an MCP tool that is not read-only; then Toolgate's card waits.
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'Run Toolgate: Write File' });
    await dialog.waitFor();
    await dialog.locator('.monaco-button', { hasText: 'Yes' }).click();
    const card = await panel().waitForCall('write_file', 'via-vscode-mcp.txt');
    // VS Code's client names itself by the product's name: "code-server" here (the desktop app says "Visual Studio Code").
    assert.match(await card.locator('.source').innerText(), /from the MCP client code-server \d+\.\d+/);
    await panel().act(card, 'allow-once');
    assert.match((await result).text, /via-vscode-mcp\.txt/);
    assert.equal(readFileSync(file('via-vscode-mcp.txt'), 'utf8'), "through VS Code's MCP client\n");
    // A read-only tool is called without VS Code's question (and Toolgate's rules let reads run).
    const read = await control.call<{ text: string }>('/lmInvoke', { name: 'mcp_toolgate_read_file', input: { path: 'via-vscode-mcp.txt' } });
    assert.match(read.text, /through VS Code's MCP client/);
  });

  it('the audit log names the client of each call', async () => {
    await control.call('/command', { command: 'toolgate.showAuditLog' });
    const storage = path.join(session.server.userDataDir, 'User', 'workspaceStorage');
    const { execFileSync } = await import('node:child_process');
    const [audit] = execFileSync('find', [storage, '-name', 'audit.md'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
    const table = readFileSync(audit ?? '', 'utf8');
    assert.match(table, /\| write_file \(from the MCP client e2e-sdk-client 2\.0\.0\) \| denied\.txt \| deny after asking \|/);
    assert.match(table, /\| write_file \(from the MCP client inspector-cli [\d.]+\) \| granted\/three\.txt \|/);
  });

  it('after a window reload the URL and the header are the same, and a client with the config saved before still lists the tools', async () => {
    const saved = await control.call<{ url: string; headers: Record<string, string> }>('/mcpEndpoint');
    assert.deepEqual(saved, endpoint, 'the config the first client used');
    await client?.close();
    client = undefined;
    control.reset();
    await session.workbench.reload();
    // The window's new extension host listens again, at the kept port, as it starts: nothing here asked for it.
    await session.workbench.waitForLog(`[mcp-endpoint] listening on ${saved.url}`, 60_000, 2);
    const again = new Client({ name: 'saved-config', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(new URL(saved.url), { requestInit: { headers: saved.headers } }));
    assert.deepEqual((await again.listTools()).tools.map((tool) => tool.name), ['write_file', 'edit_file', 'run_in_terminal', 'read_file', 'list_files', 'search_text']);
    await again.close();
    assert.deepEqual(await control.call('/mcpEndpoint'), saved);
    assert.doesNotMatch(session.workbench.extensionLog(), /\[mcp-endpoint\] (the MCP endpoint's port \d+ is taken|the stored|the MCP endpoint's (stored )?secret)/);
  });

  it("the copy command is in the MCP Servers view's title and the chat's title menu, and says the config keeps working", async () => {
    const page = session.workbench.page;
    const chat = new ChatDriver(session.workbench);
    await chat.frame();
    await session.workbench.mcpServerRow('Toolgate');
    const header = page.locator('.pane-header', { hasText: 'MCP Servers' });
    await header.hover();
    await header.locator('.actions .action-label[aria-label^="Copy the MCP Endpoint\'s Config for a Client"]').click();
    await page.locator('.quick-input-widget', { hasText: "Copy the config of Toolgate's MCP endpoint for" }).waitFor();
    await page.keyboard.type('Cline');
    await page.keyboard.press('Enter');
    const toast = page.locator('.notifications-toasts', { hasText: 'Copied the config for Cline' });
    await toast.waitFor();
    assert.match(await toast.innerText(), /keeps working across reloads and restarts while this folder is open in VS Code/);
    await session.workbench.screenshot('mcp-endpoint-copied');
    assert.ok((await chat.titleMenu()).includes("Copy the MCP Endpoint's Config for a Client…"));
    await page.keyboard.press('Escape');
  });

  it('the window closed: a client with the saved config is then refused (connection refused)', async () => {
    const saved = await control.call<{ url: string; headers: Record<string, string> }>('/mcpEndpoint');
    await session.workbench.page.close();
    // As the window's extension host goes, a request in flight may see the connection reset; then every one is refused.
    const seen: string[] = [];
    const attempt = async (): Promise<string> => {
      const after = new Client({ name: 'after-close', version: '1.0.0' });
      try {
        await after.connect(new StreamableHTTPClientTransport(new URL(saved.url), { requestInit: { headers: saved.headers } }));
        await after.listTools();
        await after.close();
        return 'answered';
      } catch (error) {
        assert.match(String(error), /fetch failed/);
        return (error as { cause?: { code?: string } }).cause?.code ?? String(error);
      }
    };
    await until(
      async () => {
        seen.push(await attempt());
        return seen.at(-1) === 'ECONNREFUSED';
      },
      'the endpoint to refuse connections after the window closed',
      { detail: () => `still served: ${seen.join(', ')}` },
    );
    for (let i = 0; i < 3; i++) {
      assert.equal(await attempt(), 'ECONNREFUSED', `after the first refusal: ${seen.join(', ')}`);
    }
  });
});
