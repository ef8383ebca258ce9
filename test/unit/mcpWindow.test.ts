import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { McpServerStatus } from '../../src/core/mcp/manager';
import { readMcpSources } from '../../src/core/mcp/sources';
import { mcpServersChildren, mcpServersRow, type McpServersRow } from '../../src/core/mcp/serversTree';
import { WindowMcpServers, type McpWindow } from '../../src/core/mcp/windowServers';
import { MemoryStore } from '../fixtures/memoryGate';

describe('MCP servers in a window', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcp-window-'));
    mkdirSync(path.join(folder, '.vscode'));
    writeFileSync(path.join(folder, '.vscode', 'mcp.json'), '{ "servers": { "w": { "command": "node", "args": ["server.js"] } } }');
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  function windowOf(answers: boolean[], setting?: unknown) {
    const said: string[] = [];
    const asked: string[] = [];
    const state = new MemoryStore();
    const window: McpWindow = {
      state,
      log: { info: (line) => said.push(`info ${line}`), warn: (line) => said.push(`warn ${line}`), error: (line) => said.push(`error ${line}`) },
      output: { appendLine: () => undefined, show: () => undefined },
      warn: (message) => said.push(`shown ${message}`),
      allowLaunch: (question) => (asked.push(question), Promise.resolve(answers.shift() ?? false)),
      trusted: () => true,
      folder: () => folder,
      profileFileText: () => Promise.resolve(undefined),
      setting: () => ({ user: setting, workspace: undefined }),
      // No sandbox here: a server that must run in it does not start (fail closed), and nothing is spawned.
      sandbox: { passEnvironment: () => [], launch: () => Promise.resolve({ unavailable: 'no sandbox in this test' }) },
      dist: folder,
    };
    return { servers: new WindowMcpServers(window), said, asked, state };
  }

  it("asks before a workspace server's first launch, and remembers only an allowed one", async () => {
    const { servers, said, asked, state } = windowOf([false, true]);
    await servers.reload();
    await servers.whenSettled(Date.now() + 5_000);
    assert.equal(asked.length, 1);
    assert.match(asked[0] ?? '', /^Start the MCP server "w"/);
    assert.ok(said.includes('info MCP: server "w" was not started: its launch was not allowed'));
    assert.equal(state.get('toolgate.mcpLaunchApprovals'), undefined);
    await servers.manager.restart('w');
    await servers.whenSettled(Date.now() + 5_000);
    assert.equal(asked.length, 2);
    assert.equal((state.get('toolgate.mcpLaunchApprovals') as string[]).length, 1);
    servers.dispose();
    await servers.manager.close();
  });

  it('says a problem of the config once, however often it is read', async () => {
    const { servers, said } = windowOf([], { broken: { command: 42 } });
    await servers.reload();
    await servers.reload();
    assert.equal(said.filter((line) => line.startsWith('shown Toolgate MCP: ')).length, 1);
    servers.dispose();
    await servers.manager.close();
  });
});

describe('the MCP Servers view', () => {
  const [config] = readMcpSources({ fileText: '{ "servers": { "fs": { "command": "node" } } }', userSetting: undefined, workspaceSetting: undefined, folder: '/ws', home: '/home/me' }).servers;
  assert.ok(config);
  const status = (state: McpServerStatus['state'], error?: string): McpServerStatus => ({
    name: 'fs', state, ...(error !== undefined ? { error } : {}), origin: 'workspace', restartAttempt: 0,
    tools: [{ name: 'read', description: 'Reads a file.\nAny file.', inputSchema: { type: 'object' }, definitionHash: 'h' }],
    config,
  });
  const rows: { name: string; status: McpServerStatus; row: McpServersRow }[] = [
    {
      name: 'a running server with its tools',
      status: status('running'),
      row: { label: 'fs', expandable: true, description: 'running · 1 tools', tooltip: 'fs (defined in this workspace): running', icon: 'pass', contextValue: 'mcpServer.running' },
    },
    {
      name: 'a failed one, with why',
      status: status('failed', 'spawn ENOENT'),
      row: { label: 'fs', expandable: true, description: 'failed: spawn ENOENT', tooltip: 'fs (defined in this workspace): failed\nspawn ENOENT', icon: 'error', contextValue: 'mcpServer.failed' },
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const [server] = mcpServersChildren(() => [row.status]);
      assert.ok(server);
      assert.deepEqual(mcpServersRow(server), row.row);
    });
  }

  it("a server's tools say whether they ask, then their description's first line", () => {
    const [server] = mcpServersChildren(() => [status('running')]);
    const [tool] = server ? mcpServersChildren(() => [], server) : [];
    assert.ok(tool);
    assert.deepEqual(mcpServersRow(tool), { label: 'read', expandable: false, description: 'asks · Reads a file.', tooltip: { text: 'Reads a file.\nAny file.', json: '{\n  "type": "object"\n}' }, icon: 'tools' });
  });
});
