/**
 * `npm start`: opens a real VS Code (code-server, installed once into the cache) with the freshly packaged Toolgate
 * and a demo workspace, on a loopback address it prints. Password-less only because it binds to 127.0.0.1.
 * Unless TOOLGATE_MODEL_BASE_URL is set, an offline demo model (a scripted OpenAI-compatible server on loopback,
 * clearly named as such) answers every task with a write, an edit, a command and a question, all through the panel.
 * Environment: PORT (default 8080), TOOLGATE_START_DIR (default .tmp/start in the repository),
 * TOOLGATE_MODEL_BASE_URL and TOOLGATE_MODEL_NAME (a real endpoint instead of the demo).
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureCodeServer, packagedVsix, repoRoot } from '../test/e2e/harness/codeServer';
import { demoModelName, demoTurns } from '../test/fixtures/demoScript';
import { startFakeOpenAI } from '../test/fixtures/fakeOpenAI';

async function main(): Promise<void> {
  const port = Number(process.env['PORT'] ?? 8080);
  const base = process.env['TOOLGATE_START_DIR'] ?? path.join(repoRoot, '.tmp', 'start');
  const userDataDir = path.join(base, 'user-data');
  const extensionsDir = path.join(base, 'extensions');
  const workspace = path.join(base, 'demo-workspace');

  const realBaseUrl = process.env['TOOLGATE_MODEL_BASE_URL'];
  const demo = realBaseUrl === undefined ? await startFakeOpenAI({ models: [demoModelName], refill: demoTurns }) : undefined;
  const launcher = ensureCodeServer();
  mkdirSync(extensionsDir, { recursive: true });
  mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  if (!existsSync(workspace)) {
    cpSync(path.join(repoRoot, 'test', 'fixtures', 'workspaces', 'demo'), workspace, { recursive: true });
  }
  const userSettings = path.join(userDataDir, 'User', 'settings.json');
  if (!existsSync(userSettings)) {
    writeFileSync(userSettings, JSON.stringify({ 'workbench.startupEditor': 'none', 'telemetry.telemetryLevel': 'off' }, null, 2));
  }
  // The workspace's model settings: the demo model, or the endpoint given in the environment.
  mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
  writeFileSync(
    path.join(workspace, '.vscode', 'settings.json'),
    JSON.stringify(
      {
        'toolgate.model.baseUrl': realBaseUrl ?? demo?.baseUrl,
        'toolgate.model.name': realBaseUrl === undefined ? demoModelName : (process.env['TOOLGATE_MODEL_NAME'] ?? 'gpt-4o-mini'),
      },
      null,
      2,
    ),
  );
  execFileSync(
    launcher,
    ['--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, '--install-extension', packagedVsix(), '--force'],
    { stdio: 'inherit' },
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
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, XDG_CONFIG_HOME: path.join(base, 'config') } },
  );
  console.log(`\nToolgate is running in VS Code at http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
  console.log('Bound to loopback only (no password). Press Ctrl+C to stop.');
  console.log(
    demo
      ? `Model: the offline demo model at ${demo.baseUrl} (scripted; set TOOLGATE_MODEL_BASE_URL for a real one).\n`
      : `Model: ${realBaseUrl ?? ''}\n`,
  );
  const stop = (): void => {
    child.kill('SIGTERM');
    void demo?.close();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  child.on('exit', (code) => {
    process.exit(code ?? 0);
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
