/**
 * Starts a real VS Code (code-server 4.139.1 = Code 1.139.1 on Node 24) with Toolgate installed from its .vsix into a
 * throw-away extensions folder, a throw-away user-data folder and a copy of a fixture workspace, on a free loopback
 * port. Everything it creates lives under one temporary folder that `stop()` removes.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { until } from './until';

export const repoRoot = path.resolve(__dirname, '..', '..', '..');

export interface CodeServerOptions {
  /** A folder under test/fixtures/workspaces to copy as the opened workspace. */
  workspace?: string;
  /** Workspace settings written to .vscode/settings.json of the copy. */
  settings?: Record<string, unknown>;
  /** Extra files written into the workspace copy (relative path -> content). */
  files?: Record<string, string>;
  /** More user settings (User/settings.json), for example MCP servers of origin 'user'. */
  userSettings?: Record<string, unknown>;
  /** Files of the VS Code profile (relative to User/), for example `mcp.json`. */
  userFiles?: Record<string, string>;
  /**
   * Folders copied into the profile before it starts (relative path under User/ -> folder), for example what an earlier
   * start left in an extension's global storage.
   */
  userFolders?: Record<string, string>;
  /**
   * Settings of the machine code-server runs on (Machine/settings.json, "Remote" in the Settings editor). A setting of
   * scope `machine-overridable`, such as `toolgate.model.baseUrl`, is read from here and not from the user settings.
   */
  machineSettings?: Record<string, unknown>;
  /** Leave Workspace Trust on (the default turns it off with --disable-workspace-trust). */
  workspaceTrust?: boolean;
  /** Extra environment for code-server and so for the extension host. */
  env?: Record<string, string>;
  /** Extra .vsix files to install beside Toolgate. */
  extraExtensions?: string[];
  /**
   * Toolgate installed with these activation events instead of its own: the activation bench installs it with none, so
   * that its activate() runs when the bench calls it, not by itself once VS Code has started (onStartupFinished).
   */
  toolgateActivationEvents?: string[];
  /**
   * Put the workspace at `.tmp/workspace` inside a git repository with this `.gitignore` (a project inside a parent
   * repository that ignores it, as the demo of npm start once was).
   */
  parentGitignore?: string;
}

export interface CodeServer {
  url: string;
  port: number;
  /** code-server's process (the leader of its process group). */
  pid: number | undefined;
  workspace: string;
  userDataDir: string;
  extensionsDir: string;
  /** Everything code-server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/** Runs the cached installer (a no-op once installed) and returns the code-server launcher. */
export function ensureCodeServer(): string {
  const out = execFileSync('bash', [path.join(repoRoot, 'scripts', 'ensure-code-server.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const launcher = out.trim().split('\n').pop();
  if (!launcher) {
    throw new Error('ensure-code-server.sh did not print the launcher path');
  }
  return launcher;
}

/** The packaged .vsix built by `npm run package` (scripts/package.mjs). */
export function packagedVsix(): string {
  const { version } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  return path.join(repoRoot, 'out', `toolgate-${version}.vsix`);
}

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') {
          resolve(address.port);
        } else {
          reject(new Error('no port'));
        }
      });
    });
  });
}

export async function waitForHealth(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  let lastError = '';
  await until(
    async () => {
      if (child.exitCode !== null) {
        throw new Error(`code-server exited with ${child.exitCode} before it was ready`);
      }
      try {
        const response = await fetch(`${url}/healthz`);
        if (response.ok) {
          return true;
        }
        lastError = `HTTP ${response.status}`;
      } catch (error) {
        lastError = String(error);
      }
      return false;
    },
    'code-server to be healthy',
    { timeoutMs, detail: () => lastError },
  );
}

export async function startCodeServer(options: CodeServerOptions = {}): Promise<CodeServer> {
  const launcher = ensureCodeServer();
  const base = mkdtempSync(path.join(os.tmpdir(), 'toolgate-e2e-'));
  const userDataDir = path.join(base, 'user-data');
  const extensionsDir = path.join(base, 'extensions');
  const configDir = path.join(base, 'config');
  const workspace = options.parentGitignore === undefined ? path.join(base, 'workspace') : path.join(base, 'parent', '.tmp', 'workspace');
  if (options.parentGitignore !== undefined) {
    mkdirSync(path.join(base, 'parent'), { recursive: true });
    execFileSync('git', ['init', '-q', path.join(base, 'parent')]);
    writeFileSync(path.join(base, 'parent', '.gitignore'), options.parentGitignore);
  }
  mkdirSync(userDataDir, { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  mkdirSync(configDir, { recursive: true });
  cpSync(path.join(repoRoot, 'test', 'fixtures', 'workspaces', options.workspace ?? 'basic'), workspace, {
    recursive: true,
  });
  for (const [relative, content] of Object.entries(options.files ?? {})) {
    mkdirSync(path.dirname(path.join(workspace, relative)), { recursive: true });
    writeFileSync(path.join(workspace, relative), content);
  }
  if (options.settings) {
    mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
    writeFileSync(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify(options.settings, null, 2));
  }
  // Quiet first-run UI that would cover the workbench in every test.
  mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  writeFileSync(
    path.join(userDataDir, 'User', 'settings.json'),
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.welcomePage.walkthroughs.openOnInstall': false,
        'security.workspace.trust.startupPrompt': 'never',
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'extensions.autoUpdate': false,
        'extensions.autoCheckUpdates': false,
        'chat.disableAIFeatures': true,
        'window.restoreWindows': 'none',
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        ...options.userSettings,
      },
      null,
      2,
    ),
  );

  for (const [relative, text] of Object.entries(options.userFiles ?? {})) {
    writeFileSync(path.join(userDataDir, 'User', relative), text);
  }
  for (const [relative, folder] of Object.entries(options.userFolders ?? {})) {
    cpSync(folder, path.join(userDataDir, 'User', relative), { recursive: true });
  }

  if (options.machineSettings) {
    mkdirSync(path.join(userDataDir, 'Machine'), { recursive: true });
    writeFileSync(path.join(userDataDir, 'Machine', 'settings.json'), JSON.stringify(options.machineSettings, null, 2));
  }

  const env = { ...process.env, XDG_CONFIG_HOME: configDir, ...options.env };
  const installs = [packagedVsix(), ...(options.extraExtensions ?? [])].flatMap((vsix) => ['--install-extension', vsix]);
  execFileSync(launcher, ['--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, ...installs], {
    env,
    stdio: 'pipe',
  });
  const installed = readdirSync(extensionsDir).find((name) => name.startsWith('toolgate.toolgate-'));
  if (installed === undefined) {
    throw new Error(`Toolgate was not installed into ${extensionsDir}`);
  }
  if (options.toolgateActivationEvents !== undefined) {
    const manifest = path.join(extensionsDir, installed, 'package.json');
    writeFileSync(manifest, JSON.stringify({ ...(JSON.parse(readFileSync(manifest, 'utf8')) as object), activationEvents: options.toolgateActivationEvents }, null, 2));
  }

  const port = await freePort();
  const args = [
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--user-data-dir', userDataDir,
    '--extensions-dir', extensionsDir,
  ];
  if (!options.workspaceTrust) {
    args.push('--disable-workspace-trust');
  }
  args.push(workspace);
  const child = spawn(launcher, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(url, child, 30_000);
  } catch (error) {
    await killTree(child);
    throw new Error(`${String(error)}\n${output}`, { cause: error });
  }
  return {
    url,
    port,
    pid: child.pid,
    workspace,
    userDataDir,
    extensionsDir,
    output: () => output,
    stop: async () => {
      await killTree(child);
      // A process of the tree may still write a log as it dies (ENOTEMPTY seen once): retried for up to 2 s.
      rmSync(base, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
}

/** Ends code-server's process group and resolves once its leader has exited (or after 5 s, if it never says so). */
export async function killTree(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    child.kill('SIGTERM');
  }
  let bound: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise<void>((resolve) => (bound = setTimeout(resolve, 5_000)))]);
  clearTimeout(bound);
}
