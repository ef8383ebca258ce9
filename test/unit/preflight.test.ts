import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repo = path.resolve('.');

/** A copy of the scripts' world: package.json (engines changed if asked), the package list, node_modules linked. */
function sandbox(options: { engines?: string; packages?: string }): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-preflight-'));
  const manifest = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { engines: Record<string, string> };
  if (options.engines !== undefined) {
    manifest.engines['node'] = options.engines;
  }
  writeFileSync(path.join(root, 'package.json'), JSON.stringify(manifest));
  mkdirSync(path.join(root, 'scripts'));
  cpSync(path.join(repo, 'scripts', 'preflight.mjs'), path.join(root, 'scripts', 'preflight.mjs'));
  writeFileSync(path.join(root, 'scripts', 'system-packages.txt'), options.packages ?? '');
  symlinkSync(path.join(repo, 'node_modules'), path.join(root, 'node_modules'));
  chmodSync(root, 0o755);
  return root;
}

/** Runs the preflight as a person without root would (as `nobody` when the tests run as root). */
function preflight(root: string, purpose: string): { status: number | null; stderr: string } {
  const command = [process.execPath, path.join(root, 'scripts', 'preflight.mjs'), purpose];
  const run = process.getuid?.() === 0 ? spawnSync('runuser', ['-u', 'nobody', '--', ...command], { encoding: 'utf8' }) : spawnSync(command[0]!, command.slice(1), { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

describe('the preflight of npm start, npm test and npm run bench', function () {
  this.timeout(20_000);
  const roots: string[] = [];
  const make = (options: { engines?: string; packages?: string }): string => {
    const root = sandbox(options);
    roots.push(root);
    return root;
  };
  after(() => {
    for (const root of roots) {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('passes quietly when Node fits engines.node and every package the script needs is installed', () => {
    // dpkg is installed on every Debian system; the package that does not exist is needed by `test` only.
    const result = preflight(make({ packages: '# comment\ndpkg  start test   # the package manager\ntoolgate-no-such-package  test\n' }), 'start');
    assert.deepEqual(result, { status: 0, stderr: '' });
  });

  it('stops with one line naming the exact command when packages are missing and it is not root', () => {
    const result = preflight(make({ packages: 'dpkg test\ntoolgate-no-such-package test\ntoolgate-no-such-other test\n' }), 'test');
    assert.equal(result.status, 1);
    assert.equal(
      result.stderr,
      'toolgate: missing Debian packages toolgate-no-such-package, toolgate-no-such-other: run `sudo apt-get install -y --no-install-recommends toolgate-no-such-package toolgate-no-such-other` and try again\n',
    );
  });

  it('stops with one line when Node does not fit engines.node', () => {
    const result = preflight(make({ engines: '>=99' }), 'test');
    assert.equal(result.status, 1);
    assert.equal(
      result.stderr,
      `toolgate: Node ${process.versions.node} cannot run this project's scripts: they need Node >=99 (package.json engines.node). Install one of those and run again.\n`,
    );
  });

  it('refuses a purpose it does not know', () => {
    const result = preflight(make({}), 'deploy');
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^toolgate: preflight: say what runs next \(start, check, test\), not "deploy"\n$/);
  });

  it('lists, for each script, the packages the README names', () => {
    const lines = readFileSync(path.join(repo, 'scripts', 'system-packages.txt'), 'utf8')
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter((line) => line !== '');
    const neededBy = (purpose: string): string[] => lines.filter((line) => line.split(/\s+/).slice(1).includes(purpose)).map((line) => line.split(/\s+/)[0]!);
    for (const name of ['chromium', 'libkrb5-dev', 'zsh', 'fish']) {
      assert.ok(neededBy('test').includes(name), `npm test needs ${name}`);
    }
    assert.ok(neededBy('start').includes('libkrb5-dev'));
    assert.ok(!neededBy('start').includes('chromium'), 'npm start opens in the person\'s own browser');
    assert.ok(neededBy('check').includes('chromium'));
  });
});
