import * as assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { copiedMessage } from '../../src/core/endpoint/clientConfigs';
import { choosablePorts, noteText, portsToTry, readIdentity, secretKey, settleIdentity, type EndpointIdentityStore, type Fresh, type IdentityNote } from '../../src/core/endpoint/endpointIdentity';
import { endpointKept, endpointStateKey } from '../../src/core/endpoint/keptEndpoint';
import { McpEndpoint } from '../../src/core/endpoint/mcpEndpoint';

/** Workspace state and SecretStorage as plain maps (the boundary the VS Code side translates). */
function memoryStore(state: Record<string, unknown> = {}, secrets: Record<string, string> = {}): EndpointIdentityStore & { stateMap: Map<string, unknown>; secretMap: Map<string, string> } {
  const stateMap = new Map(Object.entries(state));
  const secretMap = new Map(Object.entries(secrets));
  return {
    stateMap,
    secretMap,
    state: { get: (key) => stateMap.get(key), update: (key, value) => Promise.resolve(void stateMap.set(key, value)) },
    secrets: { get: (key) => Promise.resolve(secretMap.get(key)), store: (key, value) => Promise.resolve(void secretMap.set(key, value)) },
  };
}

const fresh: Fresh = { key: () => 'fresh-key-0001', secret: () => 'F'.repeat(43) };
const keptSecret = 'k'.repeat(43);
const kept = { port: 24_680, key: 'kept-key-0001', revision: 3 };

describe("the MCP endpoint's port and secret, kept for the workspace", () => {
  const cases: { name: string; state: unknown; secret?: string; port: number | undefined; secretIs: 'kept' | 'fresh'; notes: IdentityNote['kind'][] }[] = [
    { name: 'first start: nothing kept, fresh values, nothing to say', state: undefined, port: undefined, secretIs: 'fresh', notes: [] },
    { name: 'kept port and secret are used as they are', state: kept, secret: keptSecret, port: 24_680, secretIs: 'kept', notes: [] },
    { name: 'kept port, secret gone from SecretStorage: a fresh secret, said', state: kept, port: 24_680, secretIs: 'fresh', notes: ['secret-missing'] },
    { name: 'kept port, stored secret malformed: a fresh secret, said', state: kept, secret: 'short', port: 24_680, secretIs: 'fresh', notes: ['secret-malformed'] },
    { name: 'stored port not a number: fresh port and secret, said', state: { ...kept, port: '24680' }, secret: keptSecret, port: undefined, secretIs: 'fresh', notes: ['state-malformed'] },
    { name: 'stored port out of range: fresh, said', state: { ...kept, port: 70_000 }, secret: keptSecret, port: undefined, secretIs: 'fresh', notes: ['state-malformed'] },
    { name: 'stored port not whole: fresh, said', state: { ...kept, port: 2.5 }, secret: keptSecret, port: undefined, secretIs: 'fresh', notes: ['state-malformed'] },
    { name: 'stored key malformed: fresh, said', state: { ...kept, key: '../x' }, secret: keptSecret, port: undefined, secretIs: 'fresh', notes: ['state-malformed'] },
    { name: 'stored record not an object: fresh, said', state: 'port=24680', secret: keptSecret, port: undefined, secretIs: 'fresh', notes: ['state-malformed'] },
  ];
  for (const { name, state, secret, port, secretIs, notes } of cases) {
    it(name, async () => {
      const store = memoryStore(state === undefined ? {} : { [endpointStateKey]: state }, secret === undefined ? {} : { [secretKey(kept.key)]: secret });
      const read = await readIdentity(store, fresh);
      assert.equal(read.port, port);
      assert.equal(read.secret, secretIs === 'kept' ? keptSecret : fresh.secret());
      assert.equal(read.newSecret, secretIs === 'fresh');
      assert.deepEqual(read.notes.map((note) => note.kind), notes);
      for (const note of read.notes) {
        assert.match(noteText(note), /configs copied before must be copied again/);
      }
    });
  }

  const settles: { name: string; kept: number | undefined; listening: number; note: IdentityNote | undefined }[] = [
    { name: 'listening on the kept port: nothing to say', kept: 24_680, listening: 24_680, note: undefined },
    { name: 'the kept port was taken: the move is said', kept: 24_680, listening: 25_000, note: { kind: 'port-taken', from: 24_680, to: 25_000 } },
    { name: 'no port kept yet: the one listened on is kept, nothing to say', kept: undefined, listening: 25_000, note: undefined },
  ];
  for (const { name, kept: keptPort, listening, note } of settles) {
    it(`settles: ${name}`, () => {
      const settled = settleIdentity({ port: keptPort, key: 'k-12345678', secret: keptSecret, copiedPort: undefined, revision: 4, newSecret: false, notes: [] }, listening);
      assert.deepEqual(settled.state, { port: listening, key: 'k-12345678', revision: 5 });
      assert.deepEqual(settled.note, note);
    });
  }

  it('tries the kept port first, then random ports below the ephemeral ranges, then the system’s pick', () => {
    const tried = portsToTry(24_680);
    assert.equal(tried[0], 24_680);
    assert.equal(tried.at(-1), 0);
    for (const port of tried.slice(1, -1)) {
      assert.ok(port >= choosablePorts.low && port <= choosablePorts.high, String(port));
    }
    assert.equal(portsToTry(undefined)[0] !== 24_680, true);
  });

  it('is started early only where a record was kept (even one that no longer parses)', () => {
    assert.deepEqual([undefined, null, kept, 'junk'].map(endpointKept), [false, false, true, true]);
  });

  it('the copy says the port moved and that the saved config must be replaced, or that it keeps working', () => {
    const moved = copiedMessage('Claude Code', { from: 24_680, to: 25_000 });
    assert.equal(moved.level, 'warning');
    assert.match(moved.text, /new port 25000: port 24680, in the config you copied before, was taken by another program.*Replace the saved config/);
    const same = copiedMessage('Claude Code', undefined);
    assert.equal(same.level, 'info');
    assert.match(same.text, /keeps working across reloads and restarts/);
    assert.doesNotMatch(same.text, /stops working when this window closes or reloads/);
  });
});

describe('the MCP endpoint across restarts (real sockets, the MCP SDK client)', () => {
  const warnings: string[] = [];
  const log = { info: () => undefined, warn: (message: string) => void warnings.push(message), error: () => undefined };
  const ports = { run: () => Promise.resolve({ ok: true, output: 'done' }), log };
  const open: { dispose(): unknown }[] = [];
  const start = async (store: EndpointIdentityStore, ownPortWaitMs?: number): Promise<McpEndpoint> => {
    const endpoint = await McpEndpoint.start(ports, '1.0.0', { identity: store, ...(ownPortWaitMs === undefined ? {} : { ownPortWaitMs }) });
    open.push(endpoint);
    return endpoint;
  };
  const listTools = async (info: { url: string; headers: Record<string, string> }): Promise<string[]> => {
    const client = new Client({ name: 'saved-config', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(info.url), { requestInit: { headers: info.headers } }));
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    await client.close();
    return names;
  };
  const occupy = (port: number): Promise<Server> =>
    new Promise((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve(server));
    });

  beforeEach(() => {
    warnings.length = 0;
  });
  afterEach(async () => {
    for (const item of open.splice(0)) {
      await item.dispose();
    }
  });

  it('the same URL and header after a restart, and a client with the config saved before still lists the tools', async () => {
    const store = memoryStore();
    const first = await start(store);
    const saved = first.info();
    assert.ok(Number(new URL(saved.url).port) >= choosablePorts.low && Number(new URL(saved.url).port) <= choosablePorts.high, saved.url);
    await first.dispose();
    const second = await start(store);
    assert.deepEqual(second.info(), saved);
    assert.deepEqual(await listTools(saved), ['write_file', 'edit_file', 'run_in_terminal', 'read_file', 'list_files', 'search_text']);
    assert.deepEqual(warnings, []);
  });

  it('when no window serves it, a client with the saved config is refused (connection refused), not answered', async () => {
    const store = memoryStore();
    const endpoint = await start(store);
    const saved = endpoint.info();
    await endpoint.dispose();
    const client = new Client({ name: 'saved-config', version: '1' });
    const refused = await client.connect(new StreamableHTTPClientTransport(new URL(saved.url), { requestInit: { headers: saved.headers } })).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(refused instanceof Error, 'the connection fails');
    const cause = (refused as Error & { cause?: { code?: string } }).cause;
    assert.equal(cause?.code, 'ECONNREFUSED', String(refused));
  });

  it('the kept port taken by another program: another port, the same secret, a warning, and the next copy says so once', async () => {
    const store = memoryStore();
    const first = await start(store);
    const saved = first.info();
    assert.equal(await first.copied(), undefined, 'the first copy: nothing moved');
    await first.dispose();
    const port = Number(new URL(saved.url).port);
    const squatter = await occupy(port);
    try {
      const second = await start(store, 5_000);
      const moved = Number(new URL(second.info().url).port);
      assert.notEqual(moved, port);
      assert.deepEqual(second.info().headers, saved.headers, 'the secret is kept');
      assert.deepEqual(second.stalePort(), { from: port, to: moved });
      assert.deepEqual(warnings, [`[mcp-endpoint] the MCP endpoint's port ${port} is taken by another program: it listens on ${moved} now, and configs copied before must be copied again`]);
      assert.deepEqual(await second.copied(), { from: port, to: moved });
      assert.equal(await second.copied(), undefined, 'said once: the config copied since has the new port');
      assert.equal(second.stalePort(), undefined);
      await second.dispose();
      // The new port is the one kept now, also when the old one is free again.
      squatter.close();
      const third = await start(store);
      assert.equal(Number(new URL(third.info().url).port), moved);
    } finally {
      squatter.close();
    }
  });

  it("the kept port still held by this workspace's previous endpoint (a reload): waited for, then kept", async () => {
    const store = memoryStore();
    const previous = await start(store);
    const saved = previous.info();
    const next = start(store, 10_000);
    await previous.dispose();
    assert.deepEqual((await next).info(), saved);
    assert.deepEqual(warnings, []);
  });

  it('the kept port held by this workspace past the wait (another window of the same folder): another port, said', async () => {
    const store = memoryStore();
    const other = await start(store);
    const port = Number(new URL(other.info().url).port);
    const next = await start(store, 300);
    assert.notEqual(Number(new URL(next.info().url).port), port);
    assert.deepEqual(next.info().headers, other.info().headers, 'the same secret: both serve this workspace');
    assert.match(warnings.join('\n'), new RegExp(`port ${port} is taken`));
  });

  it('a malformed stored port or secret: a fresh one that works, with a note in the log', async () => {
    const store = memoryStore({ [endpointStateKey]: { port: 'not a port', key: 'k', revision: 7 } });
    const endpoint = await start(store);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /did not parse \(port: .*\): a new port and secret are chosen/);
    const record = store.stateMap.get(endpointStateKey) as { port: number; key: string; revision: number };
    assert.equal(`http://127.0.0.1:${record.port}/mcp`, endpoint.info().url);
    assert.equal(record.revision, 8, 'written over the malformed record with a higher revision');
    assert.equal(`Bearer ${store.secretMap.get(secretKey(record.key)) ?? ''}`, endpoint.info().headers['Authorization']);
    assert.equal((await listTools(endpoint.info())).length, 6);
    // The secret alone malformed: the port is kept, the secret is new.
    const before = endpoint.info();
    await endpoint.dispose();
    store.secretMap.set(secretKey(record.key), 'not a secret');
    warnings.length = 0;
    const again = await start(store);
    assert.equal(again.info().url, before.url);
    assert.notDeepEqual(again.info().headers, before.headers);
    assert.match(warnings.join('\n'), /stored secret did not parse: a new one is made/);
  });
});
