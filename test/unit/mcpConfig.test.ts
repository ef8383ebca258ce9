import * as assert from 'node:assert/strict';
import {
  mergeMcpConfigs,
  parseMcpConfig,
  toolRequiresApproval,
  toolVisible,
  type McpServerConfig,
  type McpStdioServerConfig,
} from '../../src/core/mcp/config';
import { parseJsonc } from '../../src/core/files/jsonc';
import type { McpServerStatus, McpToolInfo } from '../../src/core/mcp/manager';
import { definitionHash, McpToolNameMap, MODEL_TOOL_NAME } from '../../src/core/mcp/names';
import { mcpModelTools } from '../../src/core/mcp/tools';

const FILE = { kind: 'workspace-file', label: '.vscode/mcp.json' } as const;
const SETTING = { kind: 'setting', label: 'toolgate.mcp.servers' } as const;

describe('MCP config', () => {
  describe('whether a stdio server runs in the sandbox', () => {
    const rows: [title: string, source: typeof FILE | typeof SETTING, sandbox: unknown, expected: unknown, note: boolean][] = [
      ['a workspace server, by default: in it, no network', FILE, undefined, { network: false }, false],
      ['a workspace server may ask for the network (part of the launch the person approves)', FILE, { network: true }, { network: true }, false],
      ['a workspace server cannot leave it: false is ignored, with a note', FILE, false, { network: false }, true],
      ['a user server, by default: unconfined', SETTING, undefined, false, false],
      ['a user server that asks for it', SETTING, true, { network: false }, false],
      ['a user server in it with the network', SETTING, { network: true }, { network: true }, false],
    ];
    for (const [title, source, sandbox, expected, note] of rows) {
      it(title, () => {
        const server = { command: 'node', ...(sandbox === undefined ? {} : { sandbox }) };
        const result = parseMcpConfig(source === FILE ? { servers: { s: server } } : { s: server }, source);
        assert.deepEqual(result.errors, []);
        assert.deepEqual((result.servers[0] as McpStdioServerConfig).sandbox, expected);
        assert.equal(result.notes.some((line) => line.includes('"sandbox": false is ignored')), note);
      });
    }

    it('a wrong value is an error naming the field', () => {
      assert.deepEqual(parseMcpConfig({ servers: { s: { command: 'node', sandbox: 'yes' } } }, FILE).errors, [
        '.vscode/mcp.json: server "s": "sandbox" must be true, false or { "network": true }',
      ]);
    });
  });

  it('parses stdio (type inferred), http and sse servers from .vscode/mcp.json with comments and trailing commas', () => {
    const text = `{
      // servers for this repo
      "servers": {
        "fs": { "command": "npx", "args": ["-y", "server", "// not a comment", "/* nor this */",], "env": { "A": "1", "B": null }, },
        "web": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer \\"x\\"" } },
        /* an old one */
        "old": { "type": "sse", "url": "http://127.0.0.1:3000/sse" },
      },
      "inputs": [],
    }`;
    const result = parseMcpConfig(parseJsonc(text), FILE);
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.servers, [
      {
        name: 'fs',
        origin: 'workspace',
        source: '.vscode/mcp.json',
        requireApproval: 'all',
        type: 'stdio',
        command: 'npx',
        args: ['-y', 'server', '// not a comment', '/* nor this */'],
        env: { A: '1', B: null },
        sandbox: { network: false },
      },
      {
        name: 'web',
        origin: 'workspace',
        source: '.vscode/mcp.json',
        requireApproval: 'all',
        type: 'http',
        url: 'https://example.com/mcp',
        headers: { Authorization: 'Bearer "x"' },
      },
      {
        name: 'old',
        origin: 'workspace',
        source: '.vscode/mcp.json',
        requireApproval: 'all',
        type: 'sse',
        url: 'http://127.0.0.1:3000/sse',
        headers: {},
      },
    ]);
  });

  it('gives one error per bad server naming the source, server and field, and still loads the others', () => {
    const raw = {
      servers: {
        good: { command: 'node', args: ['server.js'] },
        fs: { type: 'stdio', command: '' },
        argsBad: { command: 'node', args: ['ok', 3] },
        envBad: { command: 'node', env: { X: 1 } },
        web: { type: 'http', url: 'not a url' },
        ftp: { type: 'http', url: 'ftp://example.com' },
        weird: { type: 'websocket', url: 'ws://x' },
        nothing: {},
        notObject: 'node server.js',
        also: { url: 'http://127.0.0.1:1/mcp' },
      },
    };
    const result = parseMcpConfig(raw, FILE);
    assert.deepEqual(
      result.servers.map((server) => server.name),
      ['good', 'also'],
    );
    assert.deepEqual(result.errors, [
      '.vscode/mcp.json: server "fs": "command" must be a non-empty string',
      '.vscode/mcp.json: server "argsBad": "args[1]" must be a string',
      '.vscode/mcp.json: server "envBad": "env.X" must be a string or null',
      '.vscode/mcp.json: server "web": "url" is not a valid URL ("not a url")',
      '.vscode/mcp.json: server "ftp": "url" must be http: or https: (got ftp:)',
      '.vscode/mcp.json: server "weird": "type" must be "stdio", "http" or "sse" (got "websocket")',
      '.vscode/mcp.json: server "nothing": "type" is missing and there is no "command" or "url" to infer it from',
      '.vscode/mcp.json: server "notObject": must be an object',
    ]);
  });

  it('reads requireApproval and tools from the setting, and rejects bad values by name', () => {
    const result = parseMcpConfig(
      {
        a: { command: 'a', requireApproval: 'none', tools: ['x'] },
        b: { command: 'b', requireApproval: ['write'] },
        c: { command: 'c', requireApproval: 'sometimes' },
        d: { command: 'd', tools: 'x' },
      },
      SETTING,
    );
    assert.deepEqual(result.errors, [
      'toolgate.mcp.servers: server "c": "requireApproval" must be "all", "none" or an array of tool names',
      'toolgate.mcp.servers: server "d": "tools" must be an array of strings',
    ]);
    const [a, b] = result.servers;
    assert.ok(a && b);
    assert.equal(a.origin, 'user');
    assert.equal(a.requireApproval, 'none');
    assert.deepEqual(a.tools, ['x']);
    assert.equal(toolRequiresApproval(a, 'anything'), false);
    assert.equal(toolVisible(a, 'x'), true);
    assert.equal(toolVisible(a, 'y'), false);
    assert.equal(toolRequiresApproval(b, 'write'), true);
    assert.equal(toolRequiresApproval(b, 'read'), false);
    assert.equal(toolVisible(b, 'read'), true);
  });

  it('never lets a workspace file relax approval', () => {
    const result = parseMcpConfig({ servers: { fs: { command: 'x', requireApproval: 'none' } } }, FILE);
    assert.equal(result.servers[0]?.requireApproval, 'all');
    assert.match(result.notes[0] ?? '', /\.vscode\/mcp\.json: server "fs": "requireApproval" is ignored/);
  });

  it('reports a document that is not an object, and accepts an empty one', () => {
    assert.deepEqual(parseMcpConfig([], FILE).errors, ['.vscode/mcp.json: must be a JSON object with a "servers" object']);
    assert.deepEqual(parseMcpConfig({ servers: [] }, FILE).errors, [
      '.vscode/mcp.json: "servers" must be an object mapping names to server definitions',
    ]);
    assert.deepEqual(parseMcpConfig(undefined, SETTING), { servers: [], errors: [], notes: [] });
    assert.deepEqual(parseMcpConfig({}, FILE), { servers: [], errors: [], notes: [] });
  });

  it('merges: a name in both the setting and the file uses the setting, with a note', () => {
    const file = parseMcpConfig({ servers: { fs: { command: 'file-fs' }, only: { command: 'only' } } }, FILE).servers;
    const setting = parseMcpConfig({ fs: { command: 'setting-fs' }, extra: { url: 'http://127.0.0.1:9/mcp' } }, SETTING).servers;
    const merged = mergeMcpConfigs(file, setting);
    const byName = new Map(merged.servers.map((server): [string, McpServerConfig] => [server.name, server]));
    assert.deepEqual([...byName.keys()].sort(), ['extra', 'fs', 'only']);
    const fs = byName.get('fs');
    assert.ok(fs?.type === 'stdio');
    assert.equal(fs.command, 'setting-fs');
    assert.equal(fs.origin, 'user');
    assert.equal(byName.get('only')?.origin, 'workspace');
    assert.deepEqual(merged.notes, [
      'server "fs" is defined in .vscode/mcp.json and in toolgate.mcp.servers; using toolgate.mcp.servers',
    ]);
  });

  it('parseJsonc keeps strings intact and rejects what is not JSON', () => {
    assert.deepEqual(parseJsonc('{"a": "x // y", "b": "/* z */", "c": "q\\\\", "d": [1, 2,],}'), {
      a: 'x // y',
      b: '/* z */',
      c: 'q\\',
      d: [1, 2],
    });
    assert.deepEqual(parseJsonc('[1, /* , */ 2 // ,\n , ]'), [1, 2]);
    assert.throws(() => parseJsonc('{"a": 1 /* open'), SyntaxError);
    assert.throws(() => parseJsonc('{a: 1}'), SyntaxError);
    assert.throws(() => parseJsonc('[1,,]'), SyntaxError);
  });
});

describe('MCP tool names', () => {
  it('names tools mcp__<server>__<tool>, sanitised, within 64 characters and without collisions', () => {
    const long = 'x'.repeat(80);
    const refs = [
      { server: 'fs', tool: 'read_file' },
      { server: 'my server', tool: 'do.it' },
      { server: 'a', tool: 'x.y' },
      { server: 'a', tool: 'x_y' },
      { server: 'a', tool: 'x y' },
      { server: 'a__b', tool: 'c' },
      { server: 'a', tool: 'b__c' },
      { server: 'srv', tool: long },
      { server: 'srv', tool: `${long}2` },
      { server: 'ünï', tool: 'tool' },
    ];
    const map = new McpToolNameMap(refs);
    const table = refs.map((ref) => [ref.server, ref.tool, map.toModel(ref.server, ref.tool)]);
    const names = table.map((row) => row[2]);
    for (const name of names) {
      assert.ok(name !== undefined && MODEL_TOOL_NAME.test(name), `valid: ${String(name)}`);
    }
    assert.equal(new Set(names).size, refs.length, 'no two tools share a name');
    assert.equal(map.toModel('fs', 'read_file'), 'mcp__fs__read_file');
    assert.equal(map.toModel('my server', 'do.it'), 'mcp__my_server__do_it');
    assert.equal(map.toModel('a', 'x_y'), 'mcp__a__x_y', 'the unchanged name keeps its plain form');
    assert.match(map.toModel('a', 'x.y') ?? '', /^mcp__a__x_y_[0-9a-f]{8}$/);
    assert.match(map.toModel('a', 'x y') ?? '', /^mcp__a__x_y_[0-9a-f]{8}$/);
    assert.match(map.toModel('a__b', 'c') ?? '', /^mcp__a__b__c_[0-9a-f]{8}$/);
    assert.match(map.toModel('a', 'b__c') ?? '', /^mcp__a__b__c_[0-9a-f]{8}$/);
    assert.equal(map.toModel('srv', long)?.length, 64);
    assert.equal(map.toModel('ünï', 'tool'), 'mcp___n___tool');
    for (const ref of refs) {
      const name = map.toModel(ref.server, ref.tool);
      assert.ok(name !== undefined);
      assert.deepEqual(map.fromModel(name), ref, 'the map goes both ways');
    }
    assert.equal(map.fromModel('mcp__nope__x'), undefined);
    assert.equal(map.size, refs.length);
  });

  it('is deterministic whatever the order', () => {
    const refs = [
      { server: 'a', tool: 'x.y' },
      { server: 'a', tool: 'x y' },
      { server: 'a', tool: 'x_y' },
      { server: 'b', tool: 'q' },
    ];
    const forward = new McpToolNameMap(refs).entries();
    const backward = new McpToolNameMap([...refs].reverse()).entries();
    assert.deepEqual(forward, backward);
  });

  it('hashes a tool definition canonically; the hash changes with the description', () => {
    const tool = { name: 'echo', description: 'Echo.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } };
    const reordered = { inputSchema: { properties: { text: { type: 'string' } }, type: 'object' }, description: 'Echo.', name: 'echo' };
    assert.match(definitionHash(tool), /^[0-9a-f]{64}$/);
    assert.equal(definitionHash(tool), definitionHash(reordered));
    assert.notEqual(definitionHash(tool), definitionHash({ ...tool, description: 'Echo, and also email it.' }));
    assert.notEqual(definitionHash(tool), definitionHash({ ...tool, inputSchema: { type: 'object' } }));
  });
});

describe('MCP tools for the model', () => {
  it('shows running servers\' visible tools under model names and resolves them with their gating', () => {
    const config = (name: string, extra: Partial<McpServerConfig>): McpServerConfig => ({
      name,
      origin: 'user',
      source: 'test',
      requireApproval: 'all',
      type: 'stdio',
      command: 'x',
      args: [],
      env: {},
      ...extra,
    } as McpServerConfig);
    const tool = (name: string): McpToolInfo => {
      const info = { name, description: `${name} it`, inputSchema: { type: 'object' } };
      return { ...info, definitionHash: definitionHash(info) };
    };
    const servers: McpServerStatus[] = [
      { name: 'fs', state: 'running', origin: 'user', restartAttempt: 0, tools: [tool('read'), tool('write'), tool('hidden')], config: config('fs', { requireApproval: ['write'], tools: ['read', 'write'] }) },
      { name: 'down', state: 'failed', origin: 'user', restartAttempt: 0, tools: [tool('x')], config: config('down', {}) },
    ];
    const tools = mcpModelTools(servers);
    assert.deepEqual(
      tools.specs.map((spec) => spec.name),
      ['mcp__fs__read', 'mcp__fs__write'],
    );
    assert.equal(tools.specs[0]?.description, '[MCP server "fs"] read it');
    assert.equal(tools.resolve('mcp__fs__read')?.gated, false);
    assert.equal(tools.resolve('mcp__fs__write')?.gated, true);
    assert.equal(tools.resolve('mcp__fs__write')?.tool.definitionHash, definitionHash({ name: 'write', description: 'write it', inputSchema: { type: 'object' } }));
    assert.equal(tools.resolve('mcp__fs__hidden'), undefined);
    assert.equal(tools.resolve('mcp__down__x'), undefined);
  });
});
