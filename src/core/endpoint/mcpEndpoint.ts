/**
 * Toolgate's MCP endpoint: the gate's tools (write_file, edit_file, run_in_terminal, read_file, list_files,
 * search_text, named and shaped as the built-in tools) served over streamable HTTP for MCP clients (VS Code's own,
 * Cline, Roo, Claude Code, Codex…), built on the MCP SDK's server side.
 *
 * Who can reach it: it listens on 127.0.0.1 alone, and every request must carry the workspace's secret
 * (`Authorization: Bearer …`, compared in constant time). A request from a web page (it has an `Origin`) or naming
 * another host (DNS rebinding) is refused before the secret is looked at. Each client's calls go through the gate as the
 * agent's do, recorded under the name and version it gave in `initialize` (src/core/callers.ts).
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpClientSource } from '../callers';
import { gateToolListing } from '../tools/lmTools';
import { lmToolSources } from '../tools/lmToolNames';
import { notRunOutput, readToolCall, type CheckedCall } from '../tools/callInput';
import type { LogPort } from '../tools/ports';
import type * as SdkModule from '../mcp/sdk';
import { endpointStateKey } from './keptEndpoint';
import { copiedPortChange, noteText, portsToTry, readIdentity, settleIdentity, writeIdentity, type EndpointIdentityStore, type EndpointState } from './endpointIdentity';

type Sdk = typeof SdkModule;
type SessionTransport = InstanceType<Sdk['StreamableHTTPServerTransport']>;

/** What the endpoint needs of Toolgate: one checked call through the gate, as its `source`, cancelled by `signal`. */
export interface EndpointPorts {
  run(call: CheckedCall, signal: AbortSignal): Promise<{ ok: boolean; output: string }>;
  log: LogPort;
}

/** What a client needs to connect (the API's `mcpEndpoint()`, the command's configs). */
export interface McpEndpointInfo {
  url: string;
  headers: Record<string, string>;
}

/** Open sessions kept at most; a new one past this closes the one used longest ago (clients often never say goodbye). */
const maxSessions = 32;
/** The tools/call arguments kept for their handlers at most, per session (each is taken as its handler starts). */
const maxSentKept = 64;
/** The largest request body read (a write_file of a big file fits; more is refused, never buffered). */
const maxBodyBytes = 16 * 2 ** 20;
/** While a call waits for the person, a client that asked for progress hears every this often, so it does not time out. */
const defaultProgressEveryMs = 10_000;
/**
 * How long the kept port is waited for while this workspace's own endpoint still holds it (the extension host of the
 * window before a reload, closing), before another port is taken.
 */
const defaultOwnPortWaitMs = 8_000;

export interface EndpointStartOptions {
  progressEveryMs?: number;
  /** Where the port and secret are kept for the workspace; without it, a port the system picks and a new secret. */
  identity?: EndpointIdentityStore;
  ownPortWaitMs?: number;
}

interface Session {
  transport: SessionTransport;
  lastUsed: number;
}

export class McpEndpoint {
  private readonly sessions = new Map<string, Session>();
  /** The kept identity's record, as last written (undefined without an identity store). */
  private state: EndpointState | undefined;

  private constructor(
    private readonly sdk: Sdk,
    private readonly http: HttpServer,
    private readonly ports: EndpointPorts,
    private readonly version: string,
    private readonly progressEveryMs: number,
    private readonly secret: string,
    private readonly identity: EndpointIdentityStore | undefined,
  ) {}

  /**
   * Listens on 127.0.0.1: with an identity store, at the workspace's kept port with its kept secret (another port only
   * when that one is taken, a fresh secret only when none parses); without, at a port the system picks with a new
   * secret.
   */
  static async start(ports: EndpointPorts, version: string, { progressEveryMs = defaultProgressEveryMs, identity, ownPortWaitMs = defaultOwnPortWaitMs }: EndpointStartOptions = {}): Promise<McpEndpoint> {
    const sdk = await import('../mcp/sdk');
    const http = createServer();
    const stored = identity === undefined ? undefined : await readIdentity(identity);
    for (const note of stored?.notes ?? []) {
      ports.log.warn(`[mcp-endpoint] ${noteText(note)}`);
    }
    const endpoint = new McpEndpoint(sdk, http, ports, version, progressEveryMs, stored?.secret ?? randomBytes(32).toString('base64url'), identity);
    http.on('request', (request, response) => {
      endpoint.handle(request, response).catch((error: unknown) => {
        ports.log.error(`[mcp-endpoint] ${error instanceof Error ? error.message : String(error)}`);
        if (!response.headersSent) {
          reply(response, error instanceof BodyTooLarge ? 413 : 500, error instanceof BodyTooLarge ? error.message : 'internal error');
        }
      });
    });
    if (identity === undefined || stored === undefined) {
      await listen(http, 0);
      return endpoint;
    }
    await listenFirstFree(http, portsToTry(stored.port), stored.port, endpoint.secret, ownPortWaitMs, ports.log);
    const settled = settleIdentity(stored, endpoint.port);
    await writeIdentity(identity, stored, settled.state);
    endpoint.state = settled.state;
    if (settled.note !== undefined) {
      ports.log.warn(`[mcp-endpoint] ${noteText(settled.note)}`);
    }
    return endpoint;
  }

  private get port(): number {
    return (this.http.address() as AddressInfo).port;
  }

  info(): McpEndpointInfo {
    return { url: `http://127.0.0.1:${this.port}/mcp`, headers: { Authorization: `Bearer ${this.secret}` } };
  }

  /** The port of the config last copied for a client, when the endpoint no longer listens there (it was taken). */
  stalePort(): { from: number; to: number } | undefined {
    return this.state === undefined ? undefined : copiedPortChange(this.state);
  }

  /**
   * A config was copied for a client: remembers its port, and says whether it differs from the port of the config
   * copied before (that client's saved config must then be replaced).
   */
  async copied(): Promise<{ from: number; to: number } | undefined> {
    const state = this.state;
    if (state === undefined || this.identity === undefined) {
      return undefined;
    }
    const change = copiedPortChange(state);
    const next: EndpointState = { ...state, copiedPort: state.port, revision: state.revision + 1 };
    await this.identity.state.update(endpointStateKey, next);
    this.state = next;
    return change;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const refused = this.refusal(request);
    if (refused !== undefined) {
      reply(response, refused.status, refused.message);
      request.resume();
      return;
    }
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = this.sessions.get(sessionId);
      if (session === undefined) {
        reply(response, 404, 'unknown or ended session: initialize again');
        request.resume();
        return;
      }
      session.lastUsed = Date.now();
      if (request.method !== 'POST') {
        await session.transport.handleRequest(request, response);
        return;
      }
      const body = await readJson(request);
      if (body === undefined) {
        reply(response, 400, 'the body is not JSON', -32700);
        return;
      }
      await session.transport.handleRequest(request, response, body);
      return;
    }
    if (request.method !== 'POST') {
      reply(response, 400, 'no session: POST an initialize request first');
      request.resume();
      return;
    }
    const body = await readJson(request);
    if (!this.sdk.isInitializeRequest(body)) {
      reply(response, 400, 'no session: the first request must be initialize');
      return;
    }
    const session = this.newSession();
    await session.transport.handleRequest(request, response, body);
  }

  /** Why a request is refused before anything else is read, if it is. */
  private refusal(request: IncomingMessage): { status: number; message: string } | undefined {
    const remote = request.socket.remoteAddress ?? '';
    if (remote !== '127.0.0.1' && remote !== '::ffff:127.0.0.1') {
      return { status: 403, message: 'only this machine may connect' };
    }
    const host = request.headers.host ?? '';
    if (host !== `127.0.0.1:${this.port}` && host !== `localhost:${this.port}`) {
      return { status: 403, message: `refused host "${host}": connect to 127.0.0.1:${this.port}` };
    }
    if (request.headers.origin !== undefined) {
      return { status: 403, message: 'refused: requests from web pages are not served' };
    }
    if ((request.url ?? '').split('?')[0] !== '/mcp') {
      return { status: 404, message: 'not found: the endpoint is /mcp' };
    }
    if (!sameSecret(request.headers.authorization, `Bearer ${this.secret}`)) {
      return { status: 401, message: "missing or wrong secret: use the Authorization header of this workspace's Toolgate MCP endpoint (Toolgate: Copy the MCP Endpoint's Config for a Client)" };
    }
    return undefined;
  }

  private newSession(): Session {
    if (this.sessions.size >= maxSessions) {
      const oldest = [...this.sessions.entries()].sort(([, a], [, b]) => a.lastUsed - b.lastUsed)[0];
      if (oldest) {
        this.sessions.delete(oldest[0]);
        void oldest[1].transport.close();
      }
    }
    // The low-level server: the tools are listed with the very JSON schemas the agent's model gets, and their
    // arguments are checked by the tool service as the agent's are (McpServer would check them with its own words).
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    const server = new this.sdk.Server(
      { name: 'toolgate', version: this.version },
      {
        capabilities: { tools: {} },
        instructions:
          "Toolgate's tools go through its approval gate in VS Code: a person may allow a call, edit it first, accept a diff hunk by hunk or deny it with a reason. The result says which.",
      },
    );
    const transport: SessionTransport = new this.sdk.StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
      },
    });
    const session: Session = { transport, lastUsed: Date.now() };
    // The arguments of each tools/call as the client sent them, by request id, until its handler takes them: the SDK's
    // schema rebuilds them (zod's record), which drops a `__proto__` key, so the call would go on without what the
    // client sent (and its card would not show it). Set before the server's own hook, which runs after this one.
    const sent = new Map<string | number, unknown>();
    transport.onmessage = (message) => {
      if ('method' in message && message.method === 'tools/call' && 'id' in message) {
        sent.set(message.id, message.params?.['arguments']);
        // A call the SDK refuses before its handler is never taken: the oldest go past a bound.
        for (const id of sent.keys()) {
          if (sent.size <= maxSentKept) {
            break;
          }
          sent.delete(id);
        }
      }
    };
    server.setRequestHandler(this.sdk.ListToolsRequestSchema, () => ({ tools: gateToolListing() }));
    server.setRequestHandler(this.sdk.CallToolRequestSchema, (request, extra) => {
      const args = sent.has(extra.requestId) ? sent.get(extra.requestId) : request.params.arguments;
      sent.delete(extra.requestId);
      const client = server.getClientVersion();
      const source = mcpClientSource(client?.name ?? 'unnamed', client?.version ?? '?');
      const progressToken = request.params._meta?.progressToken;
      let beat = 0;
      const progress =
        progressToken === undefined
          ? undefined
          : setInterval(() => {
              beat += 1;
              void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: beat, message: 'waiting for the decision in VS Code' } }).catch(() => undefined);
            }, this.progressEveryMs);
      return this.call(request.params.name, args, source, extra.signal).finally(() => {
        clearInterval(progress);
      });
    });
    // Ended by the client (DELETE), evicted or disposed: the transport closes either way.
    transport.onclose = () => {
      if (transport.sessionId !== undefined && this.sessions.get(transport.sessionId) === session) {
        this.sessions.delete(transport.sessionId);
      }
    };
    void server.connect(transport);
    return session;
  }

  /** One tools/call: its name and arguments checked first (src/core/tools/callInput.ts), then through the gate. */
  private async call(name: string, args: unknown, source: string, signal: AbortSignal): Promise<CallToolResult> {
    const tool = lmToolSources.find((candidate) => candidate === name);
    if (tool === undefined) {
      return { content: [{ type: 'text', text: `unknown tool ${JSON.stringify(name.slice(0, 200))}: Toolgate serves ${lmToolSources.join(', ')}` }], isError: true };
    }
    const read = readToolCall(tool, args);
    if (!read.ok) {
      return { content: [{ type: 'text', text: notRunOutput(read.error) }], isError: true };
    }
    const result = await this.ports.run({ ...read.call, source }, signal);
    this.ports.log.info(`[mcp-endpoint] ${tool} from ${source}: ${result.ok ? 'done' : 'not done'}`);
    return { content: [{ type: 'text', text: result.output }], isError: !result.ok };
  }

  /** Closes every session and stops listening. */
  async dispose(): Promise<void> {
    // The port is let go first, at once: after a reload the window's next extension host listens on it again.
    const closed = new Promise<void>((resolve) => {
      this.http.close(() => {
        resolve();
      });
    });
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(open.map((session) => session.transport.close()));
    this.http.closeAllConnections();
    await closed;
  }
}

function listen(http: HttpServer, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (error: Error): void => {
      reject(error);
    };
    http.once('error', failed);
    http.listen(port, '127.0.0.1', () => {
      http.off('error', failed);
      resolve();
    });
  });
}

function isTaken(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error.code === 'EADDRINUSE' || error.code === 'EACCES');
}

/**
 * Listens on the first of `candidates` that is free. The kept port, when this workspace's own endpoint holds it (the
 * window's previous extension host, still closing after a reload), is waited for up to `ownWaitMs`; a port another
 * program holds is passed at once.
 */
async function listenFirstFree(http: HttpServer, candidates: number[], kept: number | undefined, secret: string, ownWaitMs: number, log: LogPort): Promise<void> {
  for (const candidate of candidates) {
    const started = Date.now();
    const deadline = started + (candidate === kept ? ownWaitMs : 0);
    for (;;) {
      try {
        await listen(http, candidate);
        if (Date.now() - started >= 100) {
          log.info(`[mcp-endpoint] waited ${Date.now() - started} ms for this workspace's previous endpoint to let port ${candidate} go`);
        }
        return;
      } catch (error) {
        if (!isTaken(error) || candidate === 0) {
          throw error;
        }
      }
      if (Date.now() >= deadline || !(await heldByThisWorkspace(candidate, secret))) {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Whether the endpoint on `port` is Toolgate's with this workspace's secret (it answers a GET with "no session"). */
function heldByThisWorkspace(port: number, secret: string): Promise<boolean> {
  return new Promise((resolve) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, path: '/mcp', method: 'GET', headers: { authorization: `Bearer ${secret}` }, timeout: 1_000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 400);
    });
    outgoing.on('timeout', () => outgoing.destroy());
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      // Refused: whoever held it let go between the two tries; worth trying again.
      resolve(error.code === 'ECONNREFUSED');
    });
    outgoing.end();
  });
}

function reply(response: ServerResponse, status: number, message: string, code = -32000): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** A body past `maxBodyBytes`: refused with 413, never buffered whole. */
class BodyTooLarge extends RangeError {}

function sameSecret(given: string | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The request's JSON body, refused past `maxBodyBytes`; undefined when it is not JSON (the transport says why). */
async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) {
      throw new BodyTooLarge(`the request body is over ${maxBodyBytes} bytes`);
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
