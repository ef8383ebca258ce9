/**
 * Runs the configured MCP servers (stdio, streamable HTTP, SSE) with the SDK client: starts them (when allowed),
 * lists and re-lists their tools, calls tools with a per-call timeout, restarts a stdio server that dies with
 * exponential backoff, and closes everything on dispose. Pure Node: no vscode.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { Emitter, type Disposable } from '../disposable';
import { sameLaunch, type McpServerConfig, type McpServerOrigin, type McpStdioServerConfig } from './config';
import { definitionHash } from './names';
import type * as Sdk from './sdk';
import { isAlive } from '../processes';
import { inheritedEnvironment } from '../sandbox/environment';

type SdkModule = typeof Sdk;
let sdkLoading: Promise<SdkModule> | undefined;

/** The MCP SDK, loaded when it is first needed (a server starts), never at activation. */
function loadSdk(): Promise<SdkModule> {
  sdkLoading ??= import('./sdk');
  return sdkLoading;
}

export type McpServerState = 'starting' | 'running' | 'failed' | 'stopped';

export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: ToolAnnotations;
  definitionHash: string;
}

export interface McpServerStatus {
  name: string;
  state: McpServerState;
  /** Why it failed or stopped, or what the restart loop is doing. */
  error?: string;
  tools: McpToolInfo[];
  origin: McpServerOrigin;
  config: McpServerConfig;
  /** The child process of a running stdio server. */
  pid?: number;
  /** Restarts after crashes since the last successful start. */
  restartAttempt: number;
}

export interface McpCallOptions {
  signal?: AbortSignal;
  /** Per call; defaults to the manager's `callTimeoutMs`. */
  timeoutMs?: number;
}

export interface McpManagerOptions {
  /** One line of a server's stderr, or a note from the manager about that server. */
  log?: (server: string, line: string) => void;
  /** Whether a server may start (Workspace Trust, first-run approval). False: state 'stopped' with a reason. */
  startAllowed?: (config: McpServerConfig) => boolean | Promise<boolean>;
  clientInfo?: { name: string; version: string };
  /** How long `initialize` and `tools/list` may take. Default 30 s. */
  startTimeoutMs?: number;
  /** Default per-call timeout. Default 60 s. */
  callTimeoutMs?: number;
  /** Restart after a crash: initialMs, doubled each attempt, capped at maxMs; at most maxAttempts in a row. */
  backoff?: { initialMs?: number; maxMs?: number; maxAttempts?: number };
  /**
   * What a stdio server is started through so that it never outlives the extension host (see watchdog.ts):
   * `command args… -- server-command server-args…`. Without it (Windows) the server is started directly.
   */
  stdioWatchdog?: { command: string; args: readonly string[]; env?: Readonly<Record<string, string>> };
  /**
   * The commands' sandbox, for a stdio server whose config says it runs there: the launcher that confines it in its
   * folder, or why there is none (then it does not start: fail closed). Without this option servers run unconfined.
   */
  stdioSandbox?: (config: McpStdioServerConfig & { sandbox: { network: boolean } }) => Promise<StdioLauncher | { unavailable: string }>;
  /**
   * Names of this process's environment a stdio server gets besides the allow-list of ../sandbox/environment
   * (toolgate.sandbox.passEnvironment); nothing else of it reaches the server, sandboxed or not.
   */
  passEnvironment?: () => readonly string[];
}

/** A launcher a stdio server runs inside: `program args… -- server-command server-args…`, `env` added. */
export interface StdioLauncher {
  program: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
}

export type McpCallErrorKind = 'unknown-server' | 'not-running' | 'timeout' | 'cancelled' | 'crashed' | 'failed';

export class McpCallError extends Error {
  override readonly name = 'McpCallError';
  constructor(
    readonly kind: McpCallErrorKind,
    readonly server: string,
    readonly tool: string,
    message: string,
  ) {
    super(message);
  }
}

interface Connection {
  client: Client;
  transport: Transport;
  pid?: number;
}

interface Entry {
  config: McpServerConfig;
  state: McpServerState;
  error?: string;
  tools: McpToolInfo[];
  /** Bumped whenever the current connection attempt is superseded; callbacks from older ones are ignored. */
  generation: number;
  connection?: Connection;
  restartTimer?: ReturnType<typeof setTimeout>;
  attempts: number;
  stderrTail: string[];
  removed: boolean;
  /** The sandbox the current launch runs in, prepared just before it. */
  sandbox?: StdioLauncher;
}

const STDERR_TAIL = 5;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class McpManager implements Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly changed = new Emitter<McpServerStatus>();
  /** Fires when servers are removed, which `changed` does not report (a removed server has no status). */
  private readonly removed = new Emitter<void>();
  private disposed = false;
  private closing: Promise<void> | undefined;
  private readonly log: (server: string, line: string) => void;
  private readonly startTimeoutMs: number;
  private readonly callTimeoutMs: number;
  private readonly backoff: { initialMs: number; maxMs: number; maxAttempts: number };

  /** Fires with a server's new status whenever its state, error or tools change. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly options: McpManagerOptions = {}) {
    this.log = options.log ?? (() => undefined);
    this.startTimeoutMs = options.startTimeoutMs ?? 30_000;
    this.callTimeoutMs = options.callTimeoutMs ?? 60_000;
    this.backoff = {
      initialMs: options.backoff?.initialMs ?? 500,
      maxMs: options.backoff?.maxMs ?? 30_000,
      maxAttempts: options.backoff?.maxAttempts ?? 5,
    };
  }

  /**
   * Makes the running set match `configs`: new servers start, removed ones stop, ones whose launch changed restart,
   * ones whose gating (`requireApproval`, `tools`) changed keep running with the new config. Resolves when every
   * started server is running, failed or stopped.
   */
  async setServers(configs: readonly McpServerConfig[]): Promise<void> {
    if (this.disposed) {
      throw new Error('the MCP manager is disposed');
    }
    const wanted = new Map(configs.map((config) => [config.name, config]));
    const work: Promise<void>[] = [];
    for (const [name, entry] of this.entries) {
      if (!wanted.has(name)) {
        entry.removed = true;
        this.entries.delete(name);
        work.push(this.stopEntry(entry));
        this.removed.fire();
      }
    }
    for (const config of wanted.values()) {
      const entry = this.entries.get(config.name);
      if (entry === undefined) {
        const created: Entry = { config, state: 'stopped', tools: [], generation: 0, attempts: 0, stderrTail: [], removed: false };
        this.entries.set(config.name, created);
        work.push(this.launch(created));
      } else if (!sameLaunch(entry.config, config)) {
        entry.config = config;
        entry.attempts = 0;
        work.push(this.launch(entry));
      } else {
        entry.config = config;
        this.fire(entry);
      }
    }
    await Promise.all(work);
  }

  servers(): McpServerStatus[] {
    return [...this.entries.values()].map((entry) => this.statusOf(entry));
  }

  server(name: string): McpServerStatus | undefined {
    const entry = this.entries.get(name);
    return entry === undefined ? undefined : this.statusOf(entry);
  }

  /** Stops (if needed) and starts one server again; resets its restart count. */
  async restart(name: string): Promise<void> {
    const entry = this.require(name);
    entry.attempts = 0;
    await this.launch(entry);
  }

  async stop(name: string): Promise<void> {
    await this.stopEntry(this.require(name));
  }

  /**
   * Calls a tool. Waits for a starting server (within the timeout). Rejects with an McpCallError on timeout
   * (after sending notifications/cancelled; a late answer is ignored), cancellation, a crash mid-call, or a server
   * that is not running. A tool's own error comes back as a result with `isError: true`, not as a rejection.
   * A streamable HTTP session that the server forgot (404) is re-initialised once and the call retried.
   */
  async callTool(server: string, tool: string, args: Record<string, unknown>, options: McpCallOptions = {}): Promise<CallToolResult> {
    const entry = this.entries.get(server);
    if (entry === undefined) {
      throw new McpCallError('unknown-server', server, tool, `there is no MCP server named "${server}"`);
    }
    const timeoutMs = options.timeoutMs ?? this.callTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    if (entry.state === 'starting') {
      await this.waitWhileStarting(entry, deadline, options.signal);
    }
    return this.callOnce(entry, tool, args, options.signal, timeoutMs, deadline, true);
  }

  /**
   * Resolves once no server is starting (a first start, a restart, or a launch waiting for the person's approval),
   * or at `deadline` (ms since epoch), or when `signal` aborts, whichever comes first. Never rejects.
   */
  async whenSettled(deadline: number, signal?: AbortSignal): Promise<void> {
    const starting = (): boolean => [...this.entries.values()].some((entry) => entry.state === 'starting');
    if (!starting() || signal?.aborted === true) {
      return;
    }
    await new Promise<void>((resolve) => {
      const finish = (): void => {
        listeners.forEach((listener) => listener.dispose());
        clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        resolve();
      };
      const check = (): void => {
        if (!starting()) {
          finish();
        }
      };
      const listeners = [this.changed.event(check), this.removed.event(check)];
      const timer = setTimeout(finish, Math.max(0, deadline - Date.now()));
      signal?.addEventListener('abort', finish);
    });
  }

  /** Starts closing everything (see close()); for a DisposableStore. */
  dispose(): void {
    void this.close();
  }

  /** Stops every server (stdin closed, then SIGTERM, then SIGKILL) and forgets them. Same promise every time. */
  close(): Promise<void> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  private async closeAll(): Promise<void> {
    this.disposed = true;
    const entries = [...this.entries.values()];
    this.entries.clear();
    this.removed.fire();
    this.removed.dispose();
    await Promise.all(
      entries.map((entry) => {
        entry.removed = true;
        return this.stopEntry(entry);
      }),
    );
    this.changed.dispose();
  }

  // ---------------------------------------------------------------------------------------------------------------

  private require(name: string): Entry {
    const entry = this.entries.get(name);
    if (entry === undefined) {
      throw new Error(`there is no MCP server named "${name}"`);
    }
    return entry;
  }

  private statusOf(entry: Entry): McpServerStatus {
    const pid = entry.connection?.pid;
    return {
      name: entry.config.name,
      state: entry.state,
      ...(entry.error !== undefined ? { error: entry.error } : {}),
      tools: entry.tools.map((tool) => ({ ...tool })),
      origin: entry.config.origin,
      config: entry.config,
      ...(pid !== undefined ? { pid } : {}),
      restartAttempt: entry.attempts,
    };
  }

  private fire(entry: Entry): void {
    if (!entry.removed) {
      this.changed.fire(this.statusOf(entry));
    }
  }

  private setState(entry: Entry, state: McpServerState, error?: string): void {
    entry.state = state;
    if (error === undefined) {
      delete entry.error;
    } else {
      entry.error = error;
    }
    this.fire(entry);
  }

  private clearTimer(entry: Entry): void {
    if (entry.restartTimer !== undefined) {
      clearTimeout(entry.restartTimer);
      delete entry.restartTimer;
    }
  }

  private async stopEntry(entry: Entry): Promise<void> {
    entry.generation += 1;
    this.clearTimer(entry);
    const connection = entry.connection;
    delete entry.connection;
    entry.tools = [];
    this.setState(entry, 'stopped');
    if (connection !== undefined) {
      await this.closeConnection(entry.config.name, connection);
    }
  }

  /** Starts (or restarts) a server. Never rejects: failures end in state 'failed' or 'stopped'. */
  private async launch(entry: Entry): Promise<void> {
    entry.generation += 1;
    const generation = entry.generation;
    this.clearTimer(entry);
    const old = entry.connection;
    delete entry.connection;
    entry.tools = [];
    this.setState(entry, 'starting', entry.state === 'starting' ? entry.error : undefined);
    if (old !== undefined) {
      await this.closeConnection(entry.config.name, old);
    }
    const current = (): boolean => !this.disposed && entry.generation === generation;
    let connection: Connection | undefined;
    try {
      const allowed = (await this.options.startAllowed?.(entry.config)) ?? true;
      if (!current()) {
        return;
      }
      if (!allowed) {
        this.setState(entry, 'stopped', 'not started: starting this server was not allowed (Workspace Trust or approval)');
        return;
      }
      connection = await this.open(entry, generation);
      if (!current()) {
        await this.closeConnection(entry.config.name, connection);
        return;
      }
      entry.connection = connection;
      entry.tools = await this.listTools(connection.client);
      if (!current()) {
        return;
      }
      entry.attempts = 0;
      this.setState(entry, 'running');
      this.log(entry.config.name, `running with ${String(entry.tools.length)} tool(s)`);
    } catch (error) {
      if (!current()) {
        return;
      }
      if (connection !== undefined) {
        delete entry.connection;
        await this.closeConnection(entry.config.name, connection);
      }
      const reason = messageOf(error);
      this.log(entry.config.name, `failed to start: ${reason}`);
      if (entry.attempts > 0) {
        this.scheduleRestart(entry, `restart failed: ${reason}`);
      } else {
        this.setState(entry, 'failed', reason);
      }
    }
  }

  private scheduleRestart(entry: Entry, reason: string): void {
    if (this.disposed || entry.removed) {
      return;
    }
    entry.attempts += 1;
    if (entry.attempts > this.backoff.maxAttempts) {
      this.setState(entry, 'failed', `${reason}; gave up after ${String(this.backoff.maxAttempts)} restart attempts`);
      return;
    }
    const wait = Math.min(this.backoff.initialMs * 2 ** (entry.attempts - 1), this.backoff.maxMs);
    this.setState(
      entry,
      'starting',
      `${reason}; restarting in ${String(wait)} ms (attempt ${String(entry.attempts)} of ${String(this.backoff.maxAttempts)})`,
    );
    this.log(entry.config.name, entry.error ?? reason);
    entry.restartTimer = setTimeout(() => {
      delete entry.restartTimer;
      void this.launch(entry);
    }, wait);
  }

  private createTransports(sdk: SdkModule, entry: Entry): (() => Transport)[] {
    const config = entry.config;
    if (config.type === 'stdio') {
      return [
        () => {
          // The allow-list of the host's environment, then the server's own configured `env`, then the launchers'.
          const configured = Object.entries(config.env);
          const removed = new Set(configured.filter(([, value]) => value === null).map(([key]) => key));
          const inherited = Object.entries(inheritedEnvironment(process.env, this.options.passEnvironment?.() ?? [])).filter(([key]) => !removed.has(key));
          const env: Record<string, string> = Object.fromEntries([...inherited, ...configured.filter((entry): entry is [string, string] => entry[1] !== null)]);
          const watchdog = this.options.stdioWatchdog;
          // watchdog -- sandbox -- server: the watchdog ends the sandbox with the extension host, and bwrap all in it.
          const sandbox = entry.sandbox;
          const server = sandbox ? [sandbox.program, ...sandbox.args, '--', config.command, ...config.args] : [config.command, ...config.args];
          const [program = config.command, ...rest] = server;
          const transport = new sdk.StdioClientTransport({
            command: watchdog?.command ?? program,
            args: watchdog ? [...watchdog.args, '--', ...server] : rest,
            env: { ...env, ...sandbox?.env, ...watchdog?.env },
            stderr: 'pipe',
            ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
          });
          this.pipeStderr(entry, transport);
          return transport;
        },
      ];
    }
    const url = new URL(config.url);
    const requestInit = { headers: { ...config.headers } };
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- `type: "sse"` servers still exist; VS Code supports them too.
    const sse = (): Transport => new sdk.SSEClientTransport(url, { requestInit });
    if (config.type === 'sse') {
      return [sse];
    }
    // Streamable HTTP first; an older server that only speaks HTTP+SSE answers its POST with a 4xx.
    return [() => new sdk.StreamableHTTPClientTransport(url, { requestInit }), sse];
  }

  private pipeStderr(entry: Entry, transport: StdioClientTransport): void {
    const stream = transport.stderr;
    if (stream === null) {
      return;
    }
    let partial = '';
    const emit = (line: string): void => {
      if (line.trim() === '') {
        return;
      }
      entry.stderrTail.push(line);
      if (entry.stderrTail.length > STDERR_TAIL) {
        entry.stderrTail.shift();
      }
      this.log(entry.config.name, line);
    };
    stream.on('data', (chunk: Buffer | string) => {
      const lines = (partial + chunk.toString()).split(/\r?\n/);
      partial = lines.pop() ?? '';
      lines.forEach(emit);
    });
    stream.on('end', () => {
      emit(partial);
      partial = '';
    });
  }

  private async open(entry: Entry, generation: number): Promise<Connection> {
    const name = entry.config.name;
    const sdk = await loadSdk();
    const config = entry.config;
    if (config.type === 'stdio' && this.options.stdioWatchdog && !(await commandExists(config.command, config.cwd, config.env['PATH'] ?? process.env['PATH']))) {
      // Through the watchdog a missing command would only show as an early exit: say what it is, at once.
      throw new Error(`command not found: ${config.command}`);
    }
    delete entry.sandbox;
    if (config.type === 'stdio' && config.sandbox !== false && this.options.stdioSandbox) {
      const prepared = await this.options.stdioSandbox({ ...config, sandbox: config.sandbox });
      if ('unavailable' in prepared) {
        throw new Error(`not started: it runs only in the sandbox, which cannot start here (${prepared.unavailable})`);
      }
      entry.sandbox = prepared;
    }
    const factories = this.createTransports(sdk, entry);
    let lastError: unknown;
    for (const [index, factory] of factories.entries()) {
      try {
        return await this.openWith(sdk, entry, generation, factory());
      } catch (error) {
        lastError = error;
        const fallBack =
          index < factories.length - 1 &&
          error instanceof sdk.StreamableHTTPError &&
          error.code !== undefined &&
          error.code >= 400 &&
          error.code < 500 &&
          error.code !== 401 &&
          error.code !== 403;
        if (!fallBack) {
          throw error;
        }
        this.log(name, `streamable HTTP refused (${messageOf(error)}); trying the HTTP+SSE transport`);
      }
    }
    throw lastError;
  }

  private async openWith(sdk: SdkModule, entry: Entry, generation: number, transport: Transport): Promise<Connection> {
    const name = entry.config.name;
    const stdio = transport instanceof sdk.StdioClientTransport;
    const client = new sdk.Client(this.options.clientInfo ?? { name: 'toolgate', version: '0.1.0' }, { capabilities: {} });
    let started = false;
    let startupError: string | undefined;
    entry.stderrTail = [];
    client.onerror = (error: unknown): void => {
      const message = messageOf(error);
      if (!started && stdio) {
        // Over stdio, stdout carries JSON-RPC only: anything else while starting means it cannot be trusted to talk.
        if (startupError === undefined) {
          const notJson = error instanceof SyntaxError || (error instanceof Error && error.name === 'ZodError');
          startupError = notJson ? `it wrote something that is not JSON-RPC to stdout (${message.split('\n')[0] ?? ''})` : message;
          void transport.close().catch(() => undefined);
        }
        return;
      }
      if (/unknown message ID/i.test(message)) {
        this.log(name, `ignored a late answer to a request that had timed out or was cancelled (${message})`);
      } else {
        this.log(name, `protocol error: ${message}`);
      }
    };
    client.onclose = (): void => {
      this.onClosed(entry, generation, client);
    };
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      void this.relist(entry, generation, client);
    });
    try {
      await client.connect(transport, { timeout: this.startTimeoutMs });
      if (startupError !== undefined) {
        throw new Error(startupError);
      }
    } catch (error) {
      await client.close().catch(() => undefined);
      // Let the last lines of stderr arrive before quoting them.
      await new Promise((resolve) => setImmediate(resolve));
      throw new Error(this.describeStartError(sdk, entry, startupError ?? messageOf(error), error), { cause: error });
    }
    started = true;
    const pid = transport instanceof sdk.StdioClientTransport ? transport.pid : null;
    return { client, transport, ...(pid !== null ? { pid } : {}) };
  }

  private describeStartError(sdk: SdkModule, entry: Entry, message: string, error: unknown): string {
    let reason = message;
    if (error instanceof sdk.McpError && error.code === (sdk.ErrorCode.RequestTimeout as number)) {
      reason = `it did not answer "initialize" within ${String(this.startTimeoutMs)} ms`;
    } else if (error instanceof sdk.McpError && error.code === (sdk.ErrorCode.ConnectionClosed as number) && reason === error.message) {
      reason = 'it exited before it finished starting';
    }
    const tail = entry.stderrTail.at(-1);
    // Started directly, spawn fails with ENOENT; through the watchdog, the watchdog says so on stderr.
    const notFound = (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' || (tail?.startsWith('mcpWatchdog: could not start ') === true && tail.includes('ENOENT'));
    if (notFound && entry.config.type === 'stdio') {
      return `command not found: ${entry.config.command}`;
    }
    return tail === undefined ? reason : `${reason} (stderr: ${tail})`;
  }

  private async listTools(client: Client): Promise<McpToolInfo[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: this.startTimeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools.map((tool) => {
      const info = {
        name: tool.name,
        description: tool.description ?? '',
        inputSchema: tool.inputSchema as Record<string, unknown>,
      };
      return {
        ...info,
        ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
        definitionHash: definitionHash(info),
      };
    });
  }

  private async relist(entry: Entry, generation: number, client: Client): Promise<void> {
    try {
      const tools = await this.listTools(client);
      if (entry.generation === generation && entry.state === 'running') {
        entry.tools = tools;
        this.log(entry.config.name, `tools changed; now ${String(tools.length)} tool(s)`);
        this.fire(entry);
      }
    } catch (error) {
      this.log(entry.config.name, `could not re-list tools after tools/list_changed: ${messageOf(error)}`);
    }
  }

  private onClosed(entry: Entry, generation: number, client: Client): void {
    if (this.disposed || entry.generation !== generation || entry.connection?.client !== client || entry.state !== 'running') {
      return; // superseded, stopped on purpose, or still starting (the start attempt reports it)
    }
    const connection = entry.connection;
    delete entry.connection;
    entry.tools = [];
    void this.closeConnection(entry.config.name, connection);
    const tail = entry.stderrTail.at(-1);
    this.scheduleRestart(entry, `the server exited unexpectedly${tail === undefined ? '' : ` (stderr: ${tail})`}`);
  }

  private async closeConnection(name: string, connection: Connection): Promise<void> {
    const sdk = await loadSdk();
    try {
      if (connection.transport instanceof sdk.StreamableHTTPClientTransport && connection.transport.sessionId !== undefined) {
        await Promise.race([connection.transport.terminateSession().catch(() => undefined), delay(1000)]);
      }
      await connection.client.close();
    } catch (error) {
      this.log(name, `error while closing: ${messageOf(error)}`);
    }
    const pid = connection.pid;
    if (pid !== undefined && isAlive(pid)) {
      // StdioClientTransport.close ends stdin, then SIGTERM, then SIGKILL without waiting for the last: make sure.
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
      for (let i = 0; i < 50 && isAlive(pid); i += 1) {
        await delay(20);
      }
    }
  }

  private async waitWhileStarting(entry: Entry, deadline: number, signal: AbortSignal | undefined): Promise<void> {
    await new Promise<void>((resolve) => {
      const finish = (): void => {
        listener.dispose();
        clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        resolve();
      };
      const listener = this.changed.event((status) => {
        if (status.name === entry.config.name && status.state !== 'starting') {
          finish();
        }
      });
      const timer = setTimeout(finish, Math.max(0, deadline - Date.now()));
      signal?.addEventListener('abort', finish);
      if (entry.state !== 'starting' || entry.removed) {
        finish();
      }
    });
  }

  private async callOnce(
    entry: Entry,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    timeoutMs: number,
    deadline: number,
    mayRenewSession: boolean,
  ): Promise<CallToolResult> {
    const name = entry.config.name;
    if (signal?.aborted === true) {
      throw new McpCallError('cancelled', name, tool, `the call to "${tool}" on MCP server "${name}" was cancelled`);
    }
    const connection = entry.connection;
    if (entry.state !== 'running' || connection === undefined) {
      const why = entry.state === 'starting' ? `still starting after ${String(timeoutMs)} ms` : entry.state;
      throw new McpCallError(
        'not-running',
        name,
        tool,
        `MCP server "${name}" is not running (${why}${entry.error === undefined ? '' : `: ${entry.error}`})`,
      );
    }
    const remaining = Math.max(1, deadline - Date.now());
    const sdk = await loadSdk();
    try {
      const result = await connection.client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: remaining,
        ...(signal !== undefined ? { signal } : {}),
      });
      return result as CallToolResult;
    } catch (error) {
      if (mayRenewSession && error instanceof sdk.StreamableHTTPError && error.code === 404 && entry.connection === connection) {
        this.log(name, 'the server forgot the session (404); initialising a new one and retrying once');
        await this.launch(entry);
        return this.callOnce(entry, tool, args, signal, timeoutMs, deadline, false);
      }
      throw this.describeCallError(sdk, entry, tool, error, timeoutMs, signal);
    }
  }

  private describeCallError(
    sdk: SdkModule,
    entry: Entry,
    tool: string,
    error: unknown,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): McpCallError {
    const name = entry.config.name;
    if (signal?.aborted === true) {
      return new McpCallError('cancelled', name, tool, `the call to "${tool}" on MCP server "${name}" was cancelled`);
    }
    if (error instanceof sdk.McpError && error.code === (sdk.ErrorCode.RequestTimeout as number)) {
      return new McpCallError(
        'timeout',
        name,
        tool,
        `MCP server "${name}" did not answer "${tool}" within ${String(timeoutMs)} ms; the call was cancelled`,
      );
    }
    if (error instanceof sdk.McpError && error.code === (sdk.ErrorCode.ConnectionClosed as number)) {
      const tail = entry.stderrTail.at(-1);
      return new McpCallError(
        'crashed',
        name,
        tool,
        `MCP server "${name}" closed the connection during "${tool}" (it exited or crashed)${tail === undefined ? '' : `; stderr: ${tail}`}`,
      );
    }
    return new McpCallError('failed', name, tool, `MCP server "${name}" failed "${tool}": ${messageOf(error)}`);
  }
}

/** Whether `command` names an executable file: a path (from `cwd`), or a name found on PATH, as spawn would find it. */
async function commandExists(command: string, cwd: string | undefined, searchPath: string | null | undefined): Promise<boolean> {
  const candidates = command.includes('/')
    ? [path.resolve(cwd ?? process.cwd(), command)]
    : (searchPath ?? '').split(path.delimiter).filter((folder) => folder !== '').map((folder) => path.join(folder, command));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return true;
    } catch {
      // not this one
    }
  }
  return false;
}
