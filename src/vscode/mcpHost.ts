/**
 * MCP in this window: servers from .vscode/mcp.json and the toolgate.mcp.servers setting (re-read on change),
 * started through McpManager. A stdio server defined in the workspace starts only in a trusted workspace, and the
 * first time only after the person has seen and allowed its exact command line, arguments and environment keys.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as vscode from 'vscode';
import { canonicalJson, sha256 } from '../core/approval/hash';
import { DisposableStore, Emitter } from '../core/disposable';
import { mergeMcpConfigs, parseJsonc, parseMcpConfig, type McpServerConfig } from '../core/mcp/config';
import { McpManager, type McpServerStatus } from '../core/mcp/manager';
import { mcpModelTools, type McpModelTools } from '../core/mcp/tools';
import type { Log } from './log';

const launchApprovalsKey = 'toolgate.mcpLaunchApprovals';

function launchHash(config: McpServerConfig): string {
  if (config.type !== 'stdio') {
    return sha256(canonicalJson({ type: config.type, url: config.url, headers: Object.keys(config.headers).sort() }));
  }
  return sha256(
    canonicalJson({ command: config.command, args: config.args, envKeys: Object.keys(config.env).sort(), cwd: config.cwd ?? null }),
  );
}

export class McpHost implements vscode.Disposable {
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
  ) {
    this.manager = new McpManager({
      log: (server, line) => this.output.appendLine(`[${server}] ${line}`),
      startAllowed: (config) => this.startAllowed(config),
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
    const watcher = this.store.add(vscode.workspace.createFileSystemWatcher('**/.vscode/mcp.json'));
    this.store.add(watcher.onDidChange(() => void this.reload()));
    this.store.add(watcher.onDidCreate(() => void this.reload()));
    this.store.add(watcher.onDidDelete(() => void this.reload()));
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
    const fromFile = { servers: [] as McpServerConfig[], errors: [] as string[], notes: [] as string[] };
    if (folder) {
      const file = path.join(folder, '.vscode', 'mcp.json');
      let text: string | undefined;
      try {
        text = await readFile(file, 'utf8');
      } catch {
        text = undefined;
      }
      if (text !== undefined) {
        try {
          const parsed = parseMcpConfig(parseJsonc(text), { kind: 'workspace-file', label: '.vscode/mcp.json' });
          fromFile.servers = parsed.servers;
          fromFile.errors = parsed.errors;
          fromFile.notes = parsed.notes;
        } catch (error) {
          fromFile.errors = [`.vscode/mcp.json: not valid JSON (${error instanceof Error ? error.message : String(error)})`];
        }
      }
    }
    const inspected = vscode.workspace.getConfiguration('toolgate').inspect<unknown>('mcp.servers');
    const userServers = parseMcpConfig(inspected?.globalValue ?? {}, { kind: 'setting', label: 'toolgate.mcp.servers (user)', origin: 'user' });
    const workspaceServers = parseMcpConfig(inspected?.workspaceValue ?? {}, {
      kind: 'setting',
      label: 'toolgate.mcp.servers (workspace)',
      origin: 'workspace',
    });
    const fromSetting = {
      servers: [...userServers.servers.filter((s) => !workspaceServers.servers.some((w) => w.name === s.name)), ...workspaceServers.servers],
      errors: [...userServers.errors, ...workspaceServers.errors],
      notes: [...userServers.notes, ...workspaceServers.notes],
    };
    for (const error of [...fromFile.errors, ...fromSetting.errors]) {
      this.report(error);
    }
    const merged = mergeMcpConfigs(fromFile.servers, fromSetting.servers);
    for (const note of [...fromFile.notes, ...fromSetting.notes, ...merged.notes]) {
      this.report(note, 'info');
    }
    return merged.servers.map((config) => substituteVariables(config, folder));
  }

  private async startAllowed(config: McpServerConfig): Promise<boolean> {
    if (config.origin !== 'workspace') {
      return true;
    }
    if (!vscode.workspace.isTrusted) {
      this.report(`server "${config.name}" is defined in this workspace, which is not trusted: it was not started`, 'info');
      return false;
    }
    if (config.type !== 'stdio') {
      return true;
    }
    const approved = new Set(this.state.get<string[]>(launchApprovalsKey) ?? []);
    const hash = launchHash(config);
    if (approved.has(hash)) {
      return true;
    }
    const envKeys = Object.keys(config.env);
    const detail = [
      `Command: ${config.command}`,
      `Arguments: ${config.args.length === 0 ? '(none)' : config.args.map((arg) => JSON.stringify(arg)).join(' ')}`,
      `Environment keys: ${envKeys.length === 0 ? '(none)' : envKeys.join(', ')}`,
      `Working folder: ${config.cwd ?? '(the workspace)'}`,
      '',
      'It will run with your permissions. Its tool calls still go through the approval panel.',
    ].join('\n');
    const answer = await vscode.window.showWarningMessage(
      `Start the MCP server "${config.name}" defined in this workspace?`,
      { modal: true, detail },
      'Allow and start',
    );
    if (answer !== 'Allow and start') {
      this.report(`server "${config.name}" was not started: its launch was not allowed`, 'info');
      return false;
    }
    approved.add(hash);
    await this.state.update(launchApprovalsKey, [...approved]);
    return true;
  }

  dispose(): void {
    this.store.dispose();
    this.manager.dispose();
  }
}

/** `${workspaceFolder}` (and `${userHome}`) in a server's command, arguments, folder and environment, as VS Code does. */
export function substituteVariables(config: McpServerConfig, folder: string | undefined): McpServerConfig {
  const home = process.env['HOME'] ?? '';
  const apply = (value: string): string =>
    value.replace(/\$\{workspaceFolder\}/g, folder ?? '${workspaceFolder}').replace(/\$\{userHome\}/g, home);
  if (config.type !== 'stdio') {
    return { ...config, url: apply(config.url) };
  }
  return {
    ...config,
    command: apply(config.command),
    args: config.args.map(apply),
    env: Object.fromEntries(Object.entries(config.env).map(([key, value]) => [key, value === null ? null : apply(value)])),
    ...(config.cwd !== undefined ? { cwd: apply(config.cwd) } : {}),
  };
}
