/**
 * Runs the configured MCP servers (stdio, streamable HTTP, SSE) with the SDK client: starts them (when allowed),
 * lists and re-lists their tools, calls tools with a per-call timeout, restarts a stdio server that dies with
 * exponential backoff, and closes everything on dispose. Pure Node: no vscode.
 *
 * This file holds when servers start, stop and restart, and their states; opening and closing one connection is
 * connection.ts, listing and calling tools toolCalls.ts.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Emitter, type Disposable } from '../disposable';
import { sameLaunch, type McpServerConfig, type McpServerOrigin } from './config';
import { type Connection, type ConnectionOptions, type McpServerState, type StdioLauncher, McpConnector, messageOf } from './connection';
import { type McpCallOptions, type McpToolInfo, McpCallError, callOnce, listTools } from './toolCalls';

// What the manager's API speaks, from the files that hold each.
export type { McpServerState, StdioLauncher } from './connection';
export { McpCallError, type McpCallErrorKind, type McpCallOptions, type McpToolInfo } from './toolCalls';

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

export interface McpManagerOptions extends ConnectionOptions {
  /** One line of a server's stderr, or a note from the manager about that server. */
  log?: (server: string, line: string) => void;
  /** Whether a server may start (Workspace Trust, first-run approval). False: state 'stopped' with a reason. */
  startAllowed?: (config: McpServerConfig) => boolean | Promise<boolean>;
  /** How long `initialize` and `tools/list` may take. Default 30 s. */
  startTimeoutMs?: number;
  /** Default per-call timeout. Default 60 s. */
  callTimeoutMs?: number;
  /** Restart after a crash: initialMs, doubled each attempt, capped at maxMs; at most maxAttempts in a row. */
  backoff?: { initialMs?: number; maxMs?: number; maxAttempts?: number };
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
  private readonly connector: McpConnector;

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
    this.connector = new McpConnector(options, this.log, this.startTimeoutMs);
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
    // Awaited, not returned: an async function handing on a promise spends two more turns of the event loop on it.
    return await callOnce(entry, tool, args, options.signal, timeoutMs, deadline, true, { log: this.log, relaunch: () => this.launch(entry) });
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
      await this.connector.close(entry.config.name, connection);
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
      await this.connector.close(entry.config.name, old);
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
      connection = await this.connector.open(entry, {
        onClose: (client) => {
          this.onClosed(entry, generation, client);
        },
        onToolsChanged: (client) => {
          void this.relist(entry, generation, client);
        },
      });
      if (!current()) {
        await this.connector.close(entry.config.name, connection);
        return;
      }
      entry.connection = connection;
      entry.tools = await listTools(connection.client, this.startTimeoutMs);
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
        await this.connector.close(entry.config.name, connection);
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

  private async relist(entry: Entry, generation: number, client: Client): Promise<void> {
    try {
      const tools = await listTools(client, this.startTimeoutMs);
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
    void this.connector.close(entry.config.name, connection);
    const tail = entry.stderrTail.at(-1);
    this.scheduleRestart(entry, `the server exited unexpectedly${tail === undefined ? '' : ` (stderr: ${tail})`}`);
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

}
