/**
 * Opening and closing one MCP server's connection: the SDK loaded on first use, the transport for its config (stdio
 * through the watchdog and the sandbox, with the host's environment allow-listed; streamable HTTP, falling back to
 * HTTP+SSE), `initialize` within the start timeout, a start error said plainly, and a close that leaves no process.
 * When and how often a server starts is the manager's (manager.ts).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { McpServerConfig, McpStdioServerConfig } from './config';
import type * as Sdk from './sdk';
import { isAlive } from '../processes';
import { inheritedEnvironment } from '../sandbox/environment';

export type SdkModule = typeof Sdk;
let sdkLoading: Promise<SdkModule> | undefined;

/** The MCP SDK, loaded when it is first needed (a server starts), never at activation. */
export function loadSdk(): Promise<SdkModule> {
  sdkLoading ??= import('./sdk');
  return sdkLoading;
}

export type McpServerState = 'starting' | 'running' | 'failed' | 'stopped';

/** How a server is launched and introduced, given by the manager's options. */
export interface ConnectionOptions {
  clientInfo?: { name: string; version: string };
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

export interface Connection {
  client: Client;
  transport: Transport;
  pid?: number;
}

/** What a connection needs of a server: its config, where its last lines of stderr go, the sandbox it runs in. */
export interface Launching {
  config: McpServerConfig;
  stderrTail: string[];
  /** The sandbox the current launch runs in, prepared just before it. */
  sandbox?: StdioLauncher;
}

/** What the manager hears of an open connection: it closed, or the server's tools changed. */
export interface ConnectionHooks {
  onClose(client: Client): void;
  onToolsChanged(client: Client): void;
}

const STDERR_TAIL = 5;

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens and closes connections for the manager, with its options, log and start timeout. */
export class McpConnector {
  constructor(
    private readonly options: ConnectionOptions,
    private readonly log: (server: string, line: string) => void,
    private readonly startTimeoutMs: number,
  ) {}

  /** Opens a connection to a server (trying each transport its config allows) and initialises it; rejects with why not. */
  async open(entry: Launching, hooks: ConnectionHooks): Promise<Connection> {
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
        return await this.openWith(sdk, entry, hooks, factory());
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

  private async openWith(sdk: SdkModule, entry: Launching, hooks: ConnectionHooks, transport: Transport): Promise<Connection> {
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
      hooks.onClose(client);
    };
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      hooks.onToolsChanged(client);
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

  private describeStartError(sdk: SdkModule, entry: Launching, message: string, error: unknown): string {
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

  private createTransports(sdk: SdkModule, entry: Launching): (() => Transport)[] {
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

  private pipeStderr(entry: Launching, transport: StdioClientTransport): void {
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

  /** Closes a connection: the HTTP session ended, the client closed, a stdio server's process gone. Never rejects. */
  async close(name: string, connection: Connection): Promise<void> {
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
