/**
 * `npm start`: opens a real VS Code (code-server, installed once into the cache) with the freshly packaged Toolgate
 * and a demo workspace, on a loopback address it prints. Password-less only because it binds to 127.0.0.1.
 * Unless TOOLGATE_MODEL_BASE_URL is set, an offline demo model (a scripted OpenAI-compatible server on loopback,
 * clearly named as such) answers every task with a write, an edit, a command and a question, each on its card in the
 * chat (the command's written files on one group card).
 *
 * The demo folder is a git repository of its own (`git init` on first use): it lives in the clone's `.tmp/`, which the
 * clone's `.gitignore` ignores, and only the folder's own repository says which of its files are ignored (and land
 * without review); with its own repository, none is, so everything the demo's command writes waits for review.
 *
 * The model settings go into this VS Code instance's machine settings (in its own user-data folder), not into the
 * demo folder's: the folder opens in Restricted Mode, where VS Code ignores a workspace's `toolgate.model.baseUrl`,
 * and the demo must work whether or not the person trusts it.
 *
 * `npm start -- --check` does the same first run without a person, then stops: in a fresh folder (unless
 * TOOLGATE_START_DIR is set) on a free port (unless PORT is set), it waits for /healthz, opens the workbench in
 * Chromium, waits for Toolgate to activate and its chat to show the model, gives the demo its first task and waits
 * for the demo's first call to wait in the chat. Exit code 0 when all of that happened.
 *
 * Environment: PORT (default 8080), TOOLGATE_START_DIR (default .tmp/start in the repository), TOOLGATE_CACHE (where
 * Node 24 and code-server are installed, default ~/.cache/toolgate), TOOLGATE_MODEL_BASE_URL and TOOLGATE_MODEL_NAME
 * (a real endpoint instead of the demo).
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseJsonc } from '../src/core/files/jsonc';
import { ChatDriver } from '../test/e2e/harness/chat';
import { ensureCodeServer, freePort, killTree, packagedVsix, repoRoot, waitForHealth, type CodeServer } from '../test/e2e/harness/codeServer';
import { closeBrowser, Workbench } from '../test/e2e/harness/workbench';
import { demoModelName, demoServer } from '../test/fixtures/demoScript';
import { startFakeOpenAI } from '../test/fixtures/fakeOpenAI';

const modelKeys = ['toolgate.model.baseUrl', 'toolgate.model.name'] as const;

function readJsonObject(file: string): Record<string, unknown> | undefined {
  if (!existsSync(file)) {
    return {};
  }
  try {
    const value = parseJsonc(readFileSync(file, 'utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Merges `values` into a settings file of this instance; what the person changed there is kept. */
function mergeSettings(file: string, defaults: Record<string, unknown>, values: Record<string, unknown>): void {
  const current = readJsonObject(file);
  if (current === undefined) {
    throw new Error(`${file} is not a JSON object: fix or delete it, then run npm start again`);
  }
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ ...defaults, ...current, ...values }, null, 2));
}

/**
 * Makes the demo folder a git repository of its own, with its files committed, once (a folder an earlier version made
 * too). Without git, the folder is still reviewed: a parent repository that ignores it says nothing of its files.
 */
function ownRepository(workspace: string): void {
  if (existsSync(path.join(workspace, '.git'))) {
    return;
  }
  const git = (...args: string[]): void => {
    execFileSync('git', ['-c', 'user.name=Toolgate demo', '-c', 'user.email=demo@toolgate.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: workspace, stdio: 'ignore' });
  };
  try {
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'The demo folder as npm start made it');
  } catch (error) {
    console.warn(`The demo folder could not be made a git repository of its own (${error instanceof Error ? error.message : String(error)}); its commands are reviewed all the same.`);
  }
}

/**
 * Earlier versions of this script wrote the model into the demo folder's settings. Once the folder is trusted those
 * would win over the user settings with a stale port, so they are taken out.
 */
function dropWorkspaceModelSettings(workspace: string): void {
  const file = path.join(workspace, '.vscode', 'settings.json');
  const current = readJsonObject(file);
  if (current === undefined || !modelKeys.some((key) => key in current)) {
    return;
  }
  const rest = Object.fromEntries(Object.entries(current).filter(([key]) => !(modelKeys as readonly string[]).includes(key)));
  if (Object.keys(rest).length === 0) {
    rmSync(file);
  } else {
    writeFileSync(file, JSON.stringify(rest, null, 2));
  }
}

/** The --check run: what a person would see first, found in the real workbench. Resolves with what it proved. */
async function checkFirstRun(server: CodeServer, expected: { baseUrl: string; name: string }, demo: boolean): Promise<string[]> {
  const proved: string[] = [];
  const workbench = await Workbench.open(server);
  try {
    proved.push('the workbench loaded in Chromium');
    const chat = new ChatDriver(workbench);
    const frame = await chat.frame();
    // The model chip shows the name; its tooltip and accessible name say the endpoint too.
    const model = ((await frame.locator('[data-field="model"]').getAttribute('title')) ?? '').replace(/\s+/g, ' ');
    if (!model.includes(`${expected.name} at ${expected.baseUrl}`)) {
      throw new Error(`the chat shows "${model}", not the model ${expected.name} at ${expected.baseUrl}`);
    }
    await workbench.waitForLog(/Toolgate .* started/, 30_000);
    proved.push(`Toolgate activated; its chat shows the model ${expected.name} at ${expected.baseUrl}`);
    if (demo) {
      await chat.say('Show me what you can do');
      // The chat is on screen and shows the call, so the Approvals panel stays closed (toolgate.approvals.revealPanel).
      const card = frame.locator('article[data-call-id]', { hasText: 'NOTES.md' });
      await card.waitFor({ state: 'visible', timeout: 60_000 });
      proved.push("the demo's first task reached the model, and its first call (write_file NOTES.md) waits in the chat");
      const deny = card.locator('[data-action="deny"]').first();
      await deny.click();
      await card.locator('[data-field="reason"]').waitFor({ state: 'visible' });
      await deny.click();
      await card.waitFor({ state: 'detached' });
    }
    await workbench.screenshot('npm-start-check');
    return proved;
  } catch (error) {
    const shot = await workbench.screenshot('npm-start-check-failed').catch(() => '(no screenshot)');
    throw new Error(`${error instanceof Error ? error.message : String(error)} (screenshot: ${shot})`, { cause: error });
  } finally {
    await workbench.close();
    await closeBrowser();
  }
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const started = Date.now();
  if (check) {
    // `npm start` checked the machine for itself; the check also needs what drives the workbench (Chromium).
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'preflight.mjs'), 'check'], { stdio: 'inherit' });
  }
  const givenDir = process.env['TOOLGATE_START_DIR'];
  const base = givenDir ?? (check ? mkdtempSync(path.join(os.tmpdir(), 'toolgate-start-check-')) : path.join(repoRoot, '.tmp', 'start'));
  const port = process.env['PORT'] !== undefined ? Number(process.env['PORT']) : check ? await freePort() : 8080;
  const userDataDir = path.join(base, 'user-data');
  const extensionsDir = path.join(base, 'extensions');
  const workspace = path.join(base, 'demo-workspace');

  const realBaseUrl = process.env['TOOLGATE_MODEL_BASE_URL'];
  const demo = realBaseUrl === undefined ? await startFakeOpenAI(demoServer) : undefined;
  const model = {
    baseUrl: realBaseUrl ?? demo?.baseUrl ?? '',
    name: realBaseUrl === undefined ? demoModelName : (process.env['TOOLGATE_MODEL_NAME'] ?? 'gpt-4o-mini'),
  };
  const launcher = ensureCodeServer();
  mkdirSync(extensionsDir, { recursive: true });
  if (!existsSync(workspace)) {
    cpSync(path.join(repoRoot, 'test', 'fixtures', 'workspaces', 'demo'), workspace, { recursive: true });
  }
  ownRepository(workspace);
  dropWorkspaceModelSettings(workspace);
  mergeSettings(path.join(userDataDir, 'User', 'settings.json'), { 'workbench.startupEditor': 'none', 'telemetry.telemetryLevel': 'off' }, {});
  // The machine's settings ("Remote" in the Settings editor): code-server reads `machine-overridable` settings such as
  // toolgate.model.baseUrl from there, not from the user settings.
  mergeSettings(path.join(userDataDir, 'Machine', 'settings.json'), {}, { 'toolgate.model.baseUrl': model.baseUrl, 'toolgate.model.name': model.name });
  const env = { ...process.env, XDG_CONFIG_HOME: path.join(base, 'config') };
  execFileSync(
    launcher,
    ['--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, '--install-extension', packagedVsix(), '--force'],
    { stdio: ['ignore', check ? 'ignore' : 'inherit', 'inherit'], env },
  );

  const child = spawn(
    launcher,
    [
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--user-data-dir', userDataDir,
      '--extensions-dir', extensionsDir,
      workspace,
    ],
    { stdio: ['ignore', 'ignore', check ? 'pipe' : 'inherit'], env, detached: true },
  );
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    await killTree(child);
    await demo?.close();
  };
  try {
    await waitForHealth(url, child, 60_000);
  } catch (error) {
    await stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${output}`, { cause: error });
  }

  if (check) {
    const server: CodeServer = { url, port, pid: child.pid, workspace, userDataDir, extensionsDir, output: () => output, stop };
    try {
      const proved = await checkFirstRun(server, model, demo !== undefined);
      console.log(`toolgate: npm start works (${((Date.now() - started) / 1000).toFixed(0)} s):`);
      for (const line of [`code-server served ${url} and /healthz answered`, ...proved]) {
        console.log(`  - ${line}`);
      }
    } finally {
      await stop();
      if (givenDir === undefined) {
        rmSync(base, { recursive: true, force: true, maxRetries: 3 });
      }
    }
    return;
  }

  console.log(`\nToolgate is running in VS Code at ${url}/?folder=${encodeURIComponent(workspace)}`);
  console.log('Bound to loopback only (no password). Press Ctrl+C to stop.');
  console.log(
    demo
      ? `Model: the offline demo model at ${demo.baseUrl} (scripted; set TOOLGATE_MODEL_BASE_URL for a real one).`
      : `Model: ${model.name} at ${model.baseUrl}`,
  );
  console.log('The demo folder opens in Restricted Mode (Workspace Trust): every call asks; VS Code asks you to trust the folder before a terminal runs.\n');
  const onSignal = (): void => void stop();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  child.on('exit', (code) => {
    process.exit(code ?? 0);
  });
}

main().catch((error: unknown) => {
  console.error(`toolgate: npm start failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
