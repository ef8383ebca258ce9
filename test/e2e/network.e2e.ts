import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { sentToolResult } from './harness/chat';
import { until } from './harness/until';
import { ChatDriver } from './harness/chat';
import { ApprovalsPanelDriver } from './harness/panel';
import { useSession } from './harness/session';

/** A listener on the host's loopback that greets and counts who connected. */
async function listen(greeting: string): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.end(`${greeting}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0, connections: () => connections };
}

describe('the sandbox\'s network allow-list in the real VS Code: what the person listed is reachable, nothing else', function () {
  this.timeout(300_000);
  let listed: Awaited<ReturnType<typeof listen>>;
  let fromWorkspace: Awaited<ReturnType<typeof listen>>;
  // Registered before the VS Code session's own hook, so the ports are known when its settings are written.
  before(async () => {
    listed = await listen('LISTED-SERVICE');
    fromWorkspace = await listen('WORKSPACE-LISTED');
  });
  const session = useSession({
    model: true,
    late: () => ({
      // The person's machine settings list one service of this machine; the workspace's settings try to list another,
      // which VS Code does not take from a workspace (the setting's scope is machine).
      machineSettings: { 'toolgate.sandbox.allowedDomains': [`127.0.0.1:${listed.port}`] },
      settings: {
        'toolgate.sandbox.allowedDomains': [`127.0.0.1:${fromWorkspace.port}`],
        // Malformed: the safe default holds, and the person is told where to fix it.
        'toolgate.sandbox.hiddenPaths': 'not-a-list',
      },
    }),
  });
  const { model } = session;
  after(async () => {
    await Promise.all([listed, fromWorkspace].map(({ server }) => new Promise((resolve) => server.close(resolve))));
  });

  it('reaches the listed service, not the one the workspace listed, and the model hears what the proxy refused', async () => {
    const calls = [
      { id: 'call_listed', command: `exec 3<>/dev/tcp/127.0.0.1/${listed.port} && cat <&3` },
      { id: 'call_workspace', command: `exec 3<>/dev/tcp/127.0.0.1/${fromWorkspace.port} && cat <&3` },
      { id: 'call_elsewhere', command: 'curl -sS --max-time 10 --proxytunnel http://registry.example.org/ ; exit 9' },
    ];
    model.fake.script([{ toolCalls: calls.map(({ id, command }) => ({ id, name: 'run_in_terminal', arguments: JSON.stringify({ command }) })) }, { text: 'Done.' }]);
    const before = model.fake.requests.length;
    await new ChatDriver(session.workbench).say('Reach the services');
    const { allowed, withoutSandbox } = await new ApprovalsPanelDriver(session.workbench).allowEveryCard(() => model.fake.requests.length >= before + 2);
    await until(() => model.fake.requests.length >= before + 2, 'the model to get every result', { timeoutMs: 60_000 });
    assert.equal(allowed, 3);
    // The two that failed offered to run without the sandbox; the person said no.
    assert.equal(withoutSandbox, 2);

    assert.match(sentToolResult(model.fake, before + 1, 'call_listed'), /Exit code: 0\nOutput:\nLISTED-SERVICE\n?$/);
    const workspaceResult = sentToolResult(model.fake, before + 1, 'call_workspace');
    assert.doesNotMatch(workspaceResult, /WORKSPACE-LISTED/);
    assert.match(workspaceResult, /It failed in the sandbox, probably because a connection was refused/);
    assert.equal(fromWorkspace.connections(), 0, 'nothing reached the service only the workspace listed');
    assert.equal(listed.connections(), 1);
    const elsewhere = sentToolResult(model.fake, before + 1, 'call_elsewhere');
    assert.match(elsewhere, /It failed in the sandbox, probably because the sandbox refused connections to registry\.example\.org:80 \(not in toolgate\.sandbox\.allowedDomains\)\./);
    assert.match(elsewhere, /Exit code: 9/);
  });

  it('a malformed setting is shown with the way to fix it, not only logged', async () => {
    // In the notification center, where it stays: its toast hides itself after a while (the spec before takes 15 to 30 s).
    const page = session.workbench.page;
    await page.locator('[id="status.notifications"]').click();
    const toast = page.locator('.notifications-center .notification-list-item', { hasText: 'toolgate.sandbox.hiddenPaths is invalid' });
    await toast.waitFor({ timeout: 30_000 });
    assert.match(await toast.innerText(), /Toolgate: toolgate\.sandbox\.hiddenPaths is invalid \(.*expected array.*\); using the default\./);
    await toast.locator('.monaco-button', { hasText: 'Open Setting' }).click();
    // The settings editor opens on that one setting (a modal editor in this VS Code, a tab in older ones).
    await session.workbench.page.locator('.settings-editor .setting-item-title', { hasText: 'Sandbox: Hidden Paths' }).waitFor({ timeout: 30_000 });
  });
});

describe('a refused connection to a service of this machine in the real VS Code: named on its card, fixed narrowly', function () {
  this.timeout(300_000);
  let requests = 0;
  const web = createHttpServer((_request, response) => {
    requests++;
    response.end('LOCAL-TEST-SERVER\n');
  });
  let port = 0;
  before(async () => {
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const address = web.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  // Nothing listed: the allow-list starts empty, in the machine's settings where the person keeps it.
  const session = useSession({ model: true, machineSettings: { 'toolgate.sandbox.allowedDomains': [] } });
  const { model } = session;
  after(async () => {
    web.closeAllConnections();
    await new Promise((resolve) => web.close(resolve));
  });

  it('curl to 127.0.0.1:PORT is refused by the proxy and named; "Allow … on this machine" re-runs it in the sandbox, and the setting keeps the entry', async () => {
    const command = `curl -sS --max-time 10 http://127.0.0.1:${port}/hello`;
    model.fake.script([{ toolCalls: [{ id: 'call_local', name: 'run_in_terminal', arguments: JSON.stringify({ command }) }] }, { text: 'Done.' }]);
    const before = model.fake.requests.length;
    await new ChatDriver(session.workbench).say('Reach the local server');
    const frame = await session.workbench.webviewFrame('body[data-view="approvals"] main#root[data-state="connected"]', 60_000);
    // The command's own card: allowed once, it runs in the sandbox.
    const first = frame.locator('article.call[data-call-id]').first();
    await first.locator('[data-action="allow-once"]').click();
    await first.waitFor({ state: 'detached', timeout: 60_000 });
    // The card of the refusal: it names the host and port the proxy refused, and offers the narrow fixes first.
    const card = frame.locator('article.call[data-call-id]', { has: frame.locator('[data-action="allow-remedy"]') }).first();
    await card.waitFor({ state: 'visible', timeout: 60_000 });
    // Its text read once drawn: the card's box can be there a frame before its words (CI once read it empty).
    await card.filter({ hasText: `refused connections to 127.0.0.1:${port}` }).waitFor({ timeout: 10_000 });
    assert.match(await card.innerText(), new RegExp(`refused connections to 127\\.0\\.0\\.1:${port}`));
    const buttons = await card.locator('.actions button').evaluateAll((elements) => elements.map((element) => element.getAttribute('data-remedy') ?? element.getAttribute('data-action')));
    assert.deepEqual(buttons, ['allow-hosts', 'allow-hosts-once', 'allow-unconfined', 'deny']);
    const allow = card.locator('[data-remedy="allow-hosts"]');
    assert.equal((await allow.innerText()).trim(), `Allow localhost:${port} on this machine`);
    assert.equal(requests, 0, 'nothing reached the server before the person allowed it');
    await session.workbench.screenshot('network-refusal-card');
    await allow.click();
    await until(() => model.fake.requests.length >= before + 2, 'the model to get the result', { timeoutMs: 60_000 });
    const result = sentToolResult(model.fake, before + 1, 'call_local');
    assert.match(result, new RegExp(`^The sandbox refused connections it needed; the person allowed localhost:${port} \\(added to toolgate\\.sandbox\\.allowedDomains\\), and this is the run again in the sandbox with it\\.\\nExit code: 0\\nOutput:\\nLOCAL-TEST-SERVER`));
    assert.doesNotMatch(result, /without the sandbox/);
    assert.equal(requests, 1);
    const machine = JSON.parse(readFileSync(path.join(session.server.userDataDir, 'Machine', 'settings.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(machine['toolgate.sandbox.allowedDomains'], [`localhost:${port}`]);
  });
});
