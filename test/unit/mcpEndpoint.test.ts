import * as assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { networkInterfaces } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { clientConfigs } from '../../src/core/endpoint/clientConfigs';
import { McpEndpoint, type EndpointPorts } from '../../src/core/endpoint/mcpEndpoint';

interface Ran {
  tool: string;
  args: unknown;
  source: string;
  signal: AbortSignal;
}

/** The endpoint over a fake gate: each call is recorded and answered by `answer` (or waits until aborted). */
async function startEndpoint(answer: (ran: Ran) => Promise<{ ok: boolean; output: string }>, progressEveryMs?: number): Promise<{ endpoint: McpEndpoint; ran: Ran[] }> {
  const ran: Ran[] = [];
  const ports: EndpointPorts = {
    run: ({ tool, args, source = '' }, signal) => {
      const call = { tool, args, source, signal };
      ran.push(call);
      return answer(call);
    },
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
  };
  return { endpoint: await McpEndpoint.start(ports, '9.9.9', progressEveryMs === undefined ? {} : { progressEveryMs }), ran };
}

async function connect(url: string, headers: Record<string, string>, name = 'test-client'): Promise<Client> {
  const client = new Client({ name, version: '1.2.3' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** A raw request, to send what a well-behaved client never does. */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string; host?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const outgoing = httpRequest(
      { host: options.host ?? target.hostname, port: target.port, path: target.pathname, method: options.method ?? 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...options.headers } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body ?? '');
  });
}

/**
 * A tools/call whose `arguments` are the JSON text given, in a session the SDK's client opened (the client would not
 * send what these send: a 10,000-deep value overflows its JSON.stringify). Answers the result's text, or the error's.
 */
async function rawCall(url: string, headers: Record<string, string>, name: string, argumentsJson: string | undefined): Promise<{ isError: boolean; text: string } | { error: string }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'raw-caller', version: '1' });
  await client.connect(transport);
  const params = `{"name":${JSON.stringify(name)}${argumentsJson === undefined ? '' : `,"arguments":${argumentsJson}`}}`;
  const answer = await raw(url, { headers: { authorization: headers['Authorization'] ?? '', 'mcp-session-id': transport.sessionId ?? '' }, body: `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":${params}}` });
  await client.close();
  const data = answer.body.split('\n').find((line) => line.startsWith('data: '));
  const message = JSON.parse(data === undefined ? answer.body : data.slice('data: '.length)) as { result?: { isError?: boolean; content: { text: string }[] }; error?: { message: string } };
  return message.result !== undefined ? { isError: message.result.isError === true, text: message.result.content.map((part) => part.text).join('') } : { error: message.error?.message ?? answer.body };
}

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

describe("Toolgate's MCP endpoint (the MCP SDK's own client over HTTP)", () => {
  let endpoint: McpEndpoint | undefined;
  afterEach(async () => {
    await endpoint?.dispose();
    endpoint = undefined;
  });

  it('lists the gate tools by the built-in names and arguments, and a call goes to the gate as the client that asked', async () => {
    const started = await startEndpoint(() => Promise.resolve({ ok: true, output: 'Wrote notes.txt (1 line).' }));
    endpoint = started.endpoint;
    const { url, headers } = endpoint.info();
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connect(url, headers, 'claude-code');
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), ['write_file', 'edit_file', 'run_in_terminal', 'read_file', 'list_files', 'search_text']);
    assert.deepEqual(tools.find((tool) => tool.name === 'write_file')?.inputSchema.required, ['path', 'content']);
    assert.deepEqual(tools.find((tool) => tool.name === 'edit_file')?.inputSchema.required, ['path', 'edits']);
    // Only the reads say they are read-only (a client may skip its own question for those).
    assert.deepEqual(tools.filter((tool) => tool.annotations?.readOnlyHint === true).map((tool) => tool.name), ['read_file', 'list_files', 'search_text']);
    assert.deepEqual(tools.filter((tool) => tool.annotations?.openWorldHint === true).map((tool) => tool.name), ['run_in_terminal']);
    const result = await client.callTool({ name: 'write_file', arguments: { path: 'notes.txt', content: 'hi\n' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Wrote notes.txt (1 line).' }]);
    assert.equal(result.isError, false);
    assert.deepEqual(
      started.ran.map(({ tool, args, source }) => ({ tool, args, source })),
      [{ tool: 'write_file', args: { path: 'notes.txt', content: 'hi\n' }, source: 'mcp-client:claude-code@1.2.3' }],
    );
    await client.close();
  });

  it('a call that did not happen (denied) is an error result carrying the reason', async () => {
    const started = await startEndpoint(() => Promise.resolve({ ok: false, output: 'The person denied this call and said: "no". Nothing was changed.' }));
    endpoint = started.endpoint;
    const client = await connect(endpoint.info().url, endpoint.info().headers);
    const result = await client.callTool({ name: 'run_in_terminal', arguments: { command: 'rm -rf build' } });
    assert.equal(result.isError, true);
    assert.deepEqual(result.content, [{ type: 'text', text: 'The person denied this call and said: "no". Nothing was changed.' }]);
    await client.close();
  });

  it('an unknown tool is an error naming the tools there are, and reaches no gate', async () => {
    const started = await startEndpoint(() => Promise.resolve({ ok: true, output: '' }));
    endpoint = started.endpoint;
    const client = await connect(endpoint.info().url, endpoint.info().headers);
    const result = await client.callTool({ name: 'ask_user', arguments: {} });
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /unknown tool \\"ask_user\\": Toolgate serves write_file, edit_file/);
    assert.equal(started.ran.length, 0);
    await client.close();
  });

  const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
  const badInputs: { name: string; tool: string; args: string | undefined; answer: RegExp }[] = [
    { name: 'arguments 10,000 deep', tool: 'write_file', args: deep, answer: /^Error: invalid call: args\.a\.a\.a\.a\.a\.a\.a\.a…: nested deeper than 64 levels\. Nothing was run\.$/ },
    { name: 'arguments over the size bound', tool: 'write_file', args: JSON.stringify({ path: 'a.txt', content: 'x'.repeat(8 * 2 ** 20) }), answer: /^Error: invalid call: args\.content: larger than 8 MiB of JSON text\. Nothing was run\.$/ },
    { name: 'a tool name with a control character', tool: 'write\u0007file', args: '{}', answer: /^unknown tool "write\\u0007file": Toolgate serves write_file, / },
    { name: 'arguments that are null (the SDK refuses them)', tool: 'write_file', args: 'null', answer: /Invalid/ },
    { name: 'arguments that are an array (the SDK refuses them)', tool: 'write_file', args: '[1]', answer: /Invalid/ },
  ];
  for (const row of badInputs) {
    it(`${row.name}: an error result saying what is wrong, and nothing reaches the gate`, async () => {
      const started = await startEndpoint(() => Promise.resolve({ ok: true, output: 'ran' }));
      endpoint = started.endpoint;
      const answer = await rawCall(endpoint.info().url, endpoint.info().headers, row.tool, row.args);
      assert.match('error' in answer ? answer.error : answer.text, row.answer);
      assert.ok('error' in answer || answer.isError);
      assert.equal(started.ran.length, 0);
    });
  }

  it('arguments reach the gate as the client sent them: a `__proto__` key as data (the SDK would drop it), none as {}', async () => {
    const started = await startEndpoint(() => Promise.resolve({ ok: false, output: 'refused by the schema' }));
    endpoint = started.endpoint;
    const { url, headers } = endpoint.info();
    assert.deepEqual(await rawCall(url, headers, 'write_file', '{"path":"a.txt","content":"x","__proto__":{"x":1}}'), { isError: true, text: 'refused by the schema' });
    assert.deepEqual(await rawCall(url, headers, 'list_files', undefined), { isError: true, text: 'refused by the schema' });
    assert.deepEqual(started.ran.map(({ tool, args }) => [tool, JSON.stringify(args)]), [
      ['write_file', '{"path":"a.txt","content":"x","__proto__":{"x":1}}'],
      ['list_files', '{}'],
    ]);
  });

  it("the client's cancellation aborts the call waiting in the gate", async () => {
    const started = await startEndpoint(
      (ran) =>
        new Promise((resolve) => {
          ran.signal.addEventListener('abort', () => resolve({ ok: false, output: 'cancelled' }));
        }),
    );
    endpoint = started.endpoint;
    const client = await connect(endpoint.info().url, endpoint.info().headers);
    const controller = new AbortController();
    const call = client.callTool({ name: 'write_file', arguments: { path: 'a', content: 'b' } }, undefined, { signal: controller.signal });
    while (started.ran.length === 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    const [waiting] = started.ran;
    const aborted = new Promise((resolve) => waiting?.signal.addEventListener('abort', resolve));
    controller.abort();
    await assert.rejects(call);
    await aborted;
    assert.equal(waiting?.signal.aborted, true);
    await client.close();
  });

  it('while a call waits, a client that asked for progress hears it, and its timeout is reset by it', async () => {
    let release = (): void => undefined;
    const started = await startEndpoint(() => new Promise((resolve) => (release = () => resolve({ ok: true, output: 'written at last' }))), 20);
    endpoint = started.endpoint;
    const client = await connect(endpoint.info().url, endpoint.info().headers);
    const heard: string[] = [];
    let fifth = (): void => undefined;
    const heardFive = new Promise<void>((resolve) => (fifth = resolve));
    // A 60 ms timeout, reset by each progress notification: without them the call would fail long before it ends.
    const call = client.callTool({ name: 'write_file', arguments: { path: 'a', content: 'b' } }, undefined, {
      timeout: 60,
      resetTimeoutOnProgress: true,
      onprogress: (progress) => {
        if (heard.push(progress.message ?? '') === 5) {
          fifth();
        }
      },
    });
    await heardFive;
    release();
    const result = await call;
    assert.deepEqual(result.content, [{ type: 'text', text: 'written at last' }]);
    assert.ok(heard.every((message) => message === 'waiting for the decision in VS Code'), heard.join(', '));
    await client.close();
  });

  const refusals: { what: string; headers: (secret: string) => Record<string, string>; host?: (port: string) => string; path?: string; status: number; says: RegExp }[] = [
    { what: 'no secret', headers: () => ({}), status: 401, says: /missing or wrong secret/ },
    { what: 'a wrong secret', headers: (secret) => ({ authorization: `Bearer ${secret.slice(0, -1)}x` }), status: 401, says: /missing or wrong secret/ },
    { what: 'the secret without "Bearer"', headers: (secret) => ({ authorization: secret }), status: 401, says: /missing or wrong secret/ },
    { what: 'a web page (Origin), even with the secret', headers: (secret) => ({ authorization: `Bearer ${secret}`, origin: 'http://evil.example' }), status: 403, says: /web pages/ },
    { what: 'another host name (DNS rebinding), even with the secret', headers: (secret) => ({ authorization: `Bearer ${secret}`, host: 'evil.example:80' }), status: 403, says: /refused host/ },
    { what: 'another path', headers: (secret) => ({ authorization: `Bearer ${secret}` }), path: '/other', status: 404, says: /the endpoint is \/mcp/ },
  ];
  for (const row of refusals) {
    it(`refuses ${row.what} (${row.status}), and nothing reaches the gate`, async () => {
      const started = await startEndpoint(() => Promise.resolve({ ok: true, output: '' }));
      endpoint = started.endpoint;
      const { url, headers } = endpoint.info();
      const secret = (headers['Authorization'] ?? '').replace('Bearer ', '');
      const target = row.path === undefined ? url : url.replace('/mcp', row.path);
      const answer = await raw(target, { headers: row.headers(secret), body: initialize });
      assert.equal(answer.status, row.status);
      assert.match(answer.body, row.says);
      assert.equal(started.ran.length, 0);
    });
  }

  it('a wrong secret fails the SDK client at connect', async () => {
    endpoint = (await startEndpoint(() => Promise.resolve({ ok: true, output: '' }))).endpoint;
    await assert.rejects(connect(endpoint.info().url, { Authorization: 'Bearer nope' }), /401|secret/);
  });

  it('a body that is not JSON, in a session, is a parse error; a request with no session must be initialize', async () => {
    endpoint = (await startEndpoint(() => Promise.resolve({ ok: true, output: '' }))).endpoint;
    const { url, headers } = endpoint.info();
    const auth = { authorization: headers['Authorization'] ?? '' };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const noSession = await raw(url, { headers: auth, body: list });
    assert.equal(noSession.status, 400);
    assert.match(noSession.body, /must be initialize/);
    const unknown = await raw(url, { headers: { ...auth, 'mcp-session-id': 'made-up' }, body: list });
    assert.equal(unknown.status, 404);
  });

  it('listens on the loopback address alone: another address of this machine is not served', async () => {
    endpoint = (await startEndpoint(() => Promise.resolve({ ok: true, output: '' }))).endpoint;
    const { url, headers } = endpoint.info();
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((address) => address !== undefined && address.family === 'IPv4' && !address.internal)
      .map((address) => address?.address ?? '');
    // The only way in is 127.0.0.1; each of the machine's other addresses refuses the connection.
    for (const address of others) {
      await assert.rejects(raw(url, { host: address, headers: { authorization: headers['Authorization'] ?? '' }, body: initialize }), /ECONNREFUSED/);
    }
    const served = await raw(url, { headers: { authorization: headers['Authorization'] ?? '' }, body: initialize });
    assert.equal(served.status, 200);
  });

  it('after dispose, nothing listens', async () => {
    const started = await startEndpoint(() => Promise.resolve({ ok: true, output: '' }));
    const { url, headers } = started.endpoint.info();
    await connect(url, headers);
    await started.endpoint.dispose();
    await assert.rejects(raw(url, { headers: { authorization: headers['Authorization'] ?? '' }, body: initialize }), /ECONNREFUSED/);
  });
});

describe("the MCP endpoint's configs for clients", () => {
  const info = { url: 'http://127.0.0.1:4321/mcp', headers: { Authorization: 'Bearer s3cret-token' } };
  const configs = clientConfigs(info);
  const byId = (id: string): string => configs.find((config) => config.id === id)?.text ?? '';

  const shapes: [string, (text: string) => void][] = [
    ['url', (text) => assert.equal(text, 'http://127.0.0.1:4321/mcp\nAuthorization: Bearer s3cret-token')],
    ['claude-code', (text) => assert.equal(text, 'claude mcp add --transport http toolgate http://127.0.0.1:4321/mcp --header "Authorization: Bearer s3cret-token"')],
    ['codex', (text) => {
      assert.match(text, /^TOOLGATE_MCP_TOKEN='s3cret-token' codex /);
      assert.match(text, /-c 'mcp_servers\.toolgate\.url="http:\/\/127\.0\.0\.1:4321\/mcp"'/);
      assert.match(text, /-c 'mcp_servers\.toolgate\.bearer_token_env_var="TOOLGATE_MCP_TOKEN"'/);
    }],
    ['cline', (text) => assert.deepEqual(JSON.parse(text), { mcpServers: { toolgate: { type: 'streamableHttp', url: info.url, headers: info.headers, disabled: false } } })],
    ['roo', (text) => assert.deepEqual(JSON.parse(text), { mcpServers: { toolgate: { type: 'streamable-http', url: info.url, headers: info.headers, disabled: false } } })],
    ['gemini', (text) => assert.deepEqual(JSON.parse(text), { mcpServers: { toolgate: { httpUrl: info.url, headers: info.headers } } })],
  ];
  for (const [id, check] of shapes) {
    it(`${id}: in the client's own syntax, with the URL and the secret`, () => {
      check(byId(id));
    });
  }

  it('offers exactly these, each saying where it goes', () => {
    assert.deepEqual(configs.map((config) => config.id), shapes.map(([id]) => id));
    for (const config of configs) {
      assert.ok(config.detail.length > 10, config.id);
    }
  });
});
