/**
 * MCP in this window: servers from .vscode/mcp.json and the toolgate.mcp.servers setting (re-read on change),
 * started through McpManager. A stdio server defined in the workspace starts only in a trusted workspace, and the
 * first time only after the person has seen and allowed its exact command line, arguments and environment keys.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore, Emitter } from '../../core/disposable';
import type { McpServerConfig } from '../../core/mcp/config';
import type { CommandSandbox } from '../../core/sandbox/commandSandbox';
import { McpManager, type McpServerStatus } from '../../core/mcp/manager';
import { launchDecision, readMcpSources } from '../../core/mcp/sources';
import { mcpModelTools, type McpModelTools } from '../../core/mcp/tools';
import type { Log } from '../log';

const launchApprovalsKey = 'toolgate.mcpLaunchApprovals';

export class McpServers implements vscode.Disposable {
  readonly manager: McpManager;
  private readonly output = vscode.window.createOutputChannel('Toolgate MCP');
  private tools: McpModelTools = mcpModelTools([]);
  private readonly store = new DisposableStore();
  private readonly reported = new Set<string>();
  private readonly onDidChangeEmitter = this.store.add(new Emitter<void>());
  readonly onDidChange = this.onDidChangeEmitter.event;
  /** The configuration being read (servers are registered with the manager when it resolves). */
  private configuring: Promise<void> = Promise.resolve();

  constructor(
    private readonly state: vscode.Memento,
    private readonly log: Log,
    /** The extension's `dist` folder, which holds the stdio servers' watchdog. */
    dist: string,
    /** The commands' sandbox: stdio servers from the workspace (and any whose config asks) run in it. */
    sandbox: CommandSandbox,
    /** The `mcp.json` of the VS Code profile (User/mcp.json): the servers VS Code users already have. */
    private readonly profileFile?: vscode.Uri,
  ) {
    this.manager = new McpManager({
      log: (server, line) => this.output.appendLine(`[${server}] ${line}`),
      startAllowed: (config) => this.startAllowed(config),
      passEnvironment: () => sandbox.passEnvironment(),
      stdioSandbox: async (config) => {
        const cwd = config.cwd ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
        const prepared = await sandbox.launch(cwd, config.sandbox.network ? 'host' : 'none');
        return 'launch' in prepared ? prepared.launch : prepared;
      },
      // No server outlives the extension host (process groups: POSIX only). The host's own binary runs the watchdog
      // as Node: in desktop VS Code that binary is Electron, hence the variable.
      ...(process.platform === 'win32'
        ? {}
        : { stdioWatchdog: { command: process.execPath, args: [path.join(dist, 'mcpWatchdog.js')], env: { ELECTRON_RUN_AS_NODE: '1' } } }),
    });
    this.store.add(this.output);
    for (const subscription of [
      this.manager.onDidChange(() => {
        this.tools = mcpModelTools(this.manager.servers());
        this.onDidChangeEmitter.fire();
      }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('toolgate.mcp.servers')) {
          void this.reload();
        }
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.reload()),
    ]) {
      this.store.add(subscription);
    }
    const patterns: vscode.GlobPattern[] = ['**/.vscode/mcp.json'];
    if (profileFile !== undefined) {
      patterns.push(new vscode.RelativePattern(vscode.Uri.joinPath(profileFile, '..'), 'mcp.json'));
    }
    for (const pattern of patterns) {
      const watcher = this.store.add(vscode.workspace.createFileSystemWatcher(pattern));
      this.store.add(watcher.onDidChange(() => void this.reload()));
      this.store.add(watcher.onDidCreate(() => void this.reload()));
      this.store.add(watcher.onDidDelete(() => void this.reload()));
    }
  }

  /** The MCP tools the model may call right now. */
  modelTools(): McpModelTools {
    return this.tools;
  }

  showOutput(): void {
    this.output.show(true);
  }

  servers(): McpServerStatus[] {
    return this.manager.servers();
  }

  private report(message: string, level: 'warn' | 'info' = 'warn'): void {
    if (this.reported.has(message)) {
      return;
    }
    this.reported.add(message);
    this.log[level](`MCP: ${message}`);
    if (level === 'warn') {
      void vscode.window.showWarningMessage(`Toolgate MCP: ${message}`);
    }
  }

  /** Reads both sources and starts, stops or restarts servers to match. */
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

  /** The servers of both sources, checked (problems reported once) and with their variables substituted. */
  private async readServers(): Promise<McpServerConfig[]> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const fileText = folder === undefined ? undefined : await readFile(path.join(folder, '.vscode', 'mcp.json'), 'utf8').catch(() => undefined);
    const profileFileText = this.profileFile === undefined ? undefined : await vscode.workspace.fs.readFile(this.profileFile).then((bytes) => new TextDecoder().decode(bytes), () => undefined);
    const inspected = vscode.workspace.getConfiguration('toolgate').inspect<unknown>('mcp.servers');
    const list = readMcpSources({ profileFileText, fileText, userSetting: inspected?.globalValue, workspaceSetting: inspected?.workspaceValue, folder, home: os.homedir() });
    for (const error of list.errors) {
      this.report(error);
    }
    for (const note of list.notes) {
      this.report(note, 'info');
    }
    return list.servers;
  }

  private async startAllowed(config: McpServerConfig): Promise<boolean> {
    const approved = this.state.get<string[]>(launchApprovalsKey) ?? [];
    const decision = launchDecision(config, vscode.workspace.isTrusted, approved);
    if (decision.kind !== 'ask') {
      if (decision.kind === 'refuse') {
        this.report(decision.note, 'info');
      }
      return decision.kind === 'start';
    }
    const answer = await vscode.window.showWarningMessage(decision.question, { modal: true, detail: decision.detail }, 'Allow and start');
    if (answer !== 'Allow and start') {
      this.report(`server "${config.name}" was not started: its launch was not allowed`, 'info');
      return false;
    }
    await this.state.update(launchApprovalsKey, [...new Set([...approved, decision.hash])]);
    return true;
  }

  dispose(): void {
    this.store.dispose();
    this.manager.dispose();
  }
}
