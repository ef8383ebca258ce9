/**
 * `npm start`: opens a real VS Code (code-server, installed once into the cache) with the freshly packaged Toolgate
 * and a demo workspace, on a loopback address it prints. Password-less only because it binds to 127.0.0.1.
 * Environment: PORT (default 8080), TOOLGATE_START_DIR (default .tmp/start in the repository).
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureCodeServer, packagedVsix, repoRoot } from '../test/e2e/harness/codeServer';

const port = Number(process.env['PORT'] ?? 8080);
const base = process.env['TOOLGATE_START_DIR'] ?? path.join(repoRoot, '.tmp', 'start');
const userDataDir = path.join(base, 'user-data');
const extensionsDir = path.join(base, 'extensions');
const workspace = path.join(base, 'demo-workspace');

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
console.log('Bound to loopback only (no password). Press Ctrl+C to stop.\n');
const stop = (): void => {
  child.kill('SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
child.on('exit', (code) => {
  process.exit(code ?? 0);
});
