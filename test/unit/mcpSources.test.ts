import * as assert from 'node:assert/strict';
import type { McpStdioServerConfig } from '../../src/core/mcp/config';
import { launchDecision, readMcpSources, type McpSources } from '../../src/core/mcp/sources';

const none: McpSources = { fileText: undefined, userSetting: undefined, workspaceSetting: undefined, folder: '/ws', home: '/home/me' };

describe('MCP servers read from the file and the setting', () => {
  const rows: { name: string; sources: Partial<McpSources>; servers: string[]; errors?: RegExp; notes?: RegExp }[] = [
    { name: 'nothing configured', sources: {}, servers: [] },
    {
      name: 'mcp.json with comments and a trailing comma (JSONC, as VS Code reads it)',
      sources: { fileText: '{ // mine\n "servers": { "fs": { "command": "npx", "args": ["${workspaceFolder}/x"], }, }, }' },
      servers: ['fs npx /ws/x workspace'],
    },
    { name: 'mcp.json that is not JSON', sources: { fileText: '{ "servers": ' }, servers: [], errors: /^\.vscode\/mcp\.json: not valid JSON/ },
    {
      name: 'a workspace setting replaces the user server of the same name',
      sources: { userSetting: { a: { command: 'user-a' }, b: { command: 'user-b' } }, workspaceSetting: { a: { command: 'ws-a' } } },
      servers: ['b user-b  user', 'a ws-a  workspace'],
    },
    { name: '${userHome} in a user server', sources: { userSetting: { h: { command: '${userHome}/bin/server' } } }, servers: ['h /home/me/bin/server  user'] },
    { name: 'a server with an unknown type is left out, saying why', sources: { userSetting: { x: { type: 'carrier-pigeon', command: 'c' } } }, servers: [], errors: /x/ },
    {
      name: "the VS Code profile's mcp.json (the servers VS Code users already have), in VS Code's own format",
      sources: { profileFileText: '{ "servers": { "gh": { "type": "stdio", "command": "gh-mcp" } }, "inputs": [] }' },
      servers: ['gh gh-mcp  profile'],
    },
    {
      name: 'the workspace file, then the setting, replace a profile server of the same name',
      sources: {
        profileFileText: '{ "servers": { "a": { "command": "profile-a" }, "b": { "command": "profile-b" }, "c": { "command": "profile-c" } } }',
        fileText: '{ "servers": { "a": { "command": "file-a" } } }',
        userSetting: { b: { command: 'setting-b' } },
      },
      servers: ['c profile-c  profile', 'a file-a  workspace', 'b setting-b  user'],
      notes: /server "a" is defined in mcp\.json of your VS Code profile and in \.vscode\/mcp\.json; using \.vscode\/mcp\.json/,
    },
    {
      name: "a profile file cannot relax approval (it is VS Code's file, others write it too)",
      sources: { profileFileText: '{ "servers": { "r": { "command": "r", "requireApproval": "none" } } }' },
      servers: ['r r  profile'],
      notes: /"requireApproval" is ignored in an mcp\.json; every tool asks/,
    },
    { name: 'a profile file that is not JSON', sources: { profileFileText: 'nope' }, servers: [], errors: /^mcp\.json of your VS Code profile: not valid JSON/ },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const list = readMcpSources({ ...none, ...row.sources });
      assert.deepEqual(
        list.servers.map((server) => (server.type === 'stdio' ? `${server.name} ${server.command} ${server.args.join(' ')} ${server.origin}` : server.name)),
        row.servers,
      );
      if (row.errors) {
        assert.match(list.errors.join('\n'), row.errors);
      } else {
        assert.deepEqual(list.errors, []);
      }
      if (row.notes) {
        assert.match(list.notes.join('\n'), row.notes);
      }
      if (row.name.includes('relax')) {
        assert.equal(list.servers[0]?.requireApproval, 'all');
      }
    });
  }
});

describe('whether an MCP server may start', () => {
  const [workspaceServer] = readMcpSources({ ...none, workspaceSetting: { w: { command: 'node', args: ['server.js'], env: { TOKEN: 'secret-token' } } } }).servers;
  const [userServer] = readMcpSources({ ...none, userSetting: { u: { command: 'node' } } }).servers;
  assert.ok(workspaceServer && userServer);
  const asked = launchDecision(workspaceServer, true, []);
  assert.ok(workspaceServer.type === 'stdio');
  const networkedServer: McpStdioServerConfig = { ...workspaceServer, sandbox: { network: true } };

  it("asks once before a stdio server of the profile's mcp.json starts, trusted or not, naming where it comes from", () => {
    const [profileServer] = readMcpSources({ ...none, profileFileText: '{ "servers": { "p": { "command": "node", "args": ["p.js"] } } }' }).servers;
    assert.ok(profileServer);
    const first = launchDecision(profileServer, false, []);
    assert.ok(first.kind === 'ask');
    assert.equal(first.question, 'Start the MCP server "p" from the mcp.json of your VS Code profile?');
    assert.deepEqual(launchDecision(profileServer, false, [first.hash]), { kind: 'start' });
  });
  it('starts a user server, trusted or not', () => {
    assert.deepEqual(launchDecision(userServer, false, []), { kind: 'start' });
  });
  it('refuses a workspace server in an untrusted workspace, saying why', () => {
    assert.deepEqual(launchDecision(workspaceServer, false, []), { kind: 'refuse', note: 'server "w" is defined in this workspace, which is not trusted: it was not started' });
  });
  it('asks before a workspace stdio server starts the first time, showing its exact launch (env keys, never values)', () => {
    assert.ok(asked.kind === 'ask');
    assert.match(asked.detail, /^Command: node\nArguments: "server\.js"\nEnvironment keys: TOKEN\n/);
    assert.doesNotMatch(asked.detail, /secret-token/);
  });
  it('starts it without asking once that exact launch was allowed, and asks again when the launch changes', () => {
    assert.ok(asked.kind === 'ask');
    assert.deepEqual(launchDecision(workspaceServer, true, [asked.hash]), { kind: 'start' });
    const changed = { ...workspaceServer, args: ['other.js'] };
    assert.equal(launchDecision(changed, true, [asked.hash]).kind, 'ask');
    // The network in the sandbox is part of the launch: asking for it asks again.
    assert.equal(launchDecision(networkedServer, true, [asked.hash]).kind, 'ask');
  });
  it('says that it runs in the sandbox, and whether with the network', () => {
    assert.ok(asked.kind === 'ask');
    assert.match(asked.detail, /\nSandbox: yes, no network\n\nIt runs in the sandbox: it may write only in the workspace, cannot read your credentials and cannot reach the network\./);
    const networked = launchDecision(networkedServer, true, []);
    assert.ok(networked.kind === 'ask');
    assert.match(networked.detail, /\nSandbox: yes, with the network\n\nIt runs in the sandbox: it may write only in the workspace, cannot read your credentials\. /);
  });
});
