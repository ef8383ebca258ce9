/**
 * MCP in a window: servers from the profile's mcp.json, .vscode/mcp.json and the toolgate.mcp.servers setting,
 * started through McpManager. A stdio server defined in the workspace starts only in a trusted workspace, and the
 * first time only after the person has seen and allowed its exact command line, arguments and environment keys. The
 * window's part (its files, settings, trust, output channel, dialogs, and news of their change) is
 * src/vscode/mcp/mcpServers.ts.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DisposableStore, Emitter, type Disposable } from '../disposable';
import type { LogPort } from '../logPort';
import type { CommandSandbox } from '../sandbox/commandSandbox';
import type { KeyValueStore } from '../storage/keyValueStore';
import { serverRefusal } from '../managed/managedCeilings';
import type { ManagedPolicy } from '../managed/managedSettings';
import type { McpServerConfig } from './config';
import { McpManager, type McpServerStatus } from './manager';
import { launchDecision, readMcpSources } from './sources';
import { mcpModelTools, type McpModelTools } from './tools';

const launchApprovalsKey = 'toolgate.mcpLaunchApprovals';

/** What the window gives its MCP servers. */
export interface McpWindow {
  /** Workspace state: the launches the person allowed. */
  state: KeyValueStore;
  log: LogPort;
  /** The servers' own output (stderr, the manager's notes), shown on request. */
  output: { appendLine(line: string): void; show(preserveFocus: boolean): void };
  /** Tells the person of a problem with a server's config or launch. */
  warn(message: string): void;
  /** Asks the person to allow a first launch; resolves with whether they did. */
  allowLaunch(question: string, detail: string): PromiseLike<boolean>;
  trusted(): boolean;
  /** The first workspace folder, if any. */
  folder(): string | undefined;
  /** The text of the VS Code profile's `mcp.json`, if there is one. */
  profileFileText(): PromiseLike<string | undefined>;
  /** The toolgate.mcp.servers setting at user and at workspace level. */
  setting(): { user: unknown; workspace: unknown };
  /** The commands' sandbox: stdio servers from the workspace (and any whose config asks) run in it. */
  sandbox: Pick<CommandSandbox, 'passEnvironment' | 'launch'>;
  /** The extension's `dist` folder, which holds the stdio servers' watchdog. */
  dist: string;
  /** The managed settings file in force: which servers may start, and whether any may run unconfined. */
  managed?: () => ManagedPolicy | undefined;
}

/**
 * The servers as the managed file lets them run: where it requires the sandbox, a server from the user's settings that
 * asked to run unconfined runs in the sandbox all the same (without the network), and says so.
 */
export function serversUnderManaged(servers: McpServerConfig[], policy: ManagedPolicy | undefined): { servers: McpServerConfig[]; notes: string[] } {
  if (policy?.sandbox.required !== true) {
    return { servers, notes: [] };
  }
  const notes: string[] = [];
  const confined = servers.map((config): McpServerConfig => {
    if (config.type !== 'stdio' || config.sandbox !== false) {
      return config;
    }
    notes.push(`server "${config.name}" runs in the sandbox, without the network: the managed policy (${policy.file}) lets nothing run unconfined`);
    return { ...config, sandbox: { network: false } };
  });
  return { servers: confined, notes };
}

export class WindowMcpServers implements Disposable {
  readonly manager: McpManager;
  private tools: McpModelTools = mcpModelTools([]);
  protected readonly store = new DisposableStore();
  private readonly reported = new Set<string>();
  private readonly onDidChangeEmitter = this.store.add(new Emitter<void>());
  readonly onDidChange = this.onDidChangeEmitter.event;
  /** The configuration being read (servers are registered with the manager when it resolves). */
  private configuring: Promise<void> = Promise.resolve();

  constructor(private readonly window: McpWindow) {
    this.manager = new McpManager({
      log: (server, line) => window.output.appendLine(`[${server}] ${line}`),
      startAllowed: (config) => this.startAllowed(config),
      passEnvironment: () => window.sandbox.passEnvironment(),
      stdioSandbox: async (config) => {
        const cwd = config.cwd ?? window.folder() ?? os.homedir();
        const prepared = await window.sandbox.launch(cwd, config.sandbox.network ? 'host' : 'none');
        return 'launch' in prepared ? prepared.launch : prepared;
      },
      // No server outlives the extension host (process groups: POSIX only). The host's own binary runs the watchdog
      // as Node: in desktop VS Code that binary is Electron, hence the variable.
      ...(process.platform === 'win32'
        ? {}
        : { stdioWatchdog: { command: process.execPath, args: [path.join(window.dist, 'mcpWatchdog.js')], env: { ELECTRON_RUN_AS_NODE: '1' } } }),
    });
    this.store.add(
      this.manager.onDidChange(() => {
        this.tools = mcpModelTools(this.manager.servers());
        this.onDidChangeEmitter.fire();
      }),
    );
  }

  /** The MCP tools the model may call right now. */
  modelTools(): McpModelTools {
    return this.tools;
  }

  showOutput(): void {
    this.window.output.show(true);
  }

  servers(): McpServerStatus[] {
    return this.manager.servers();
  }

  private report(message: string, level: 'warn' | 'info' = 'warn'): void {
    if (this.reported.has(message)) {
      return;
    }
    this.reported.add(message);
    this.window.log[level](`MCP: ${message}`);
    if (level === 'warn') {
      this.window.warn(`Toolgate MCP: ${message}`);
    }
  }

  /** Reads every source and starts, stops or restarts servers to match. */
  async reload(): Promise<void> {
    const reading = this.readServers();
    this.configuring = reading.then(
      () => undefined,
      () => undefined,
    );
    await this.manager.setServers(await reading);
  }

  /** Resolves once the configuration being read is known to the manager, or at `deadline` (ms since epoch). */
  async whenConfigured(deadline: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.configuring, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))))]);
    clearTimeout(timer);
  }

  /** Resolves once no server is starting, or at `deadline`, or when `signal` aborts. Never rejects. */
  whenSettled(deadline: number, signal?: AbortSignal): Promise<void> {
    return this.manager.whenSettled(deadline, signal);
  }

  /** The servers of every source, checked (problems reported once) and with their variables substituted. */
  private async readServers(): Promise<McpServerConfig[]> {
    const folder = this.window.folder();
    const fileText = folder === undefined ? undefined : await readFile(path.join(folder, '.vscode', 'mcp.json'), 'utf8').catch(() => undefined);
    const profileFileText = await this.window.profileFileText();
    const setting = this.window.setting();
    const list = readMcpSources({ profileFileText, fileText, userSetting: setting.user, workspaceSetting: setting.workspace, folder, home: os.homedir() });
    for (const error of list.errors) {
      this.report(error);
    }
    for (const note of list.notes) {
      this.report(note, 'info');
    }
    const managed = serversUnderManaged(list.servers, this.window.managed?.());
    for (const note of managed.notes) {
      this.report(note, 'info');
    }
    return managed.servers;
  }

  private async startAllowed(config: McpServerConfig): Promise<boolean> {
    const refused = serverRefusal(config.name, this.window.managed?.());
    if (refused !== undefined) {
      this.report(`server "${config.name}" was not started: ${refused}`);
      return false;
    }
    const stored = this.window.state.get(launchApprovalsKey);
    const approved = Array.isArray(stored) ? stored.filter((hash): hash is string => typeof hash === 'string') : [];
    const decision = launchDecision(config, this.window.trusted(), approved);
    if (decision.kind !== 'ask') {
      if (decision.kind === 'refuse') {
        this.report(decision.note, 'info');
      }
      return decision.kind === 'start';
    }
    if (!(await this.window.allowLaunch(decision.question, decision.detail))) {
      this.report(`server "${config.name}" was not started: its launch was not allowed`, 'info');
      return false;
    }
    await this.window.state.update(launchApprovalsKey, [...new Set([...approved, decision.hash])]);
    return true;
  }

  dispose(): void {
    this.store.dispose();
    this.manager.dispose();
  }
}
