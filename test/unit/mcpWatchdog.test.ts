import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAlive } from '../fixtures/processes';

const watchdog = path.resolve('src/core/mcp/watchdog.ts');
const isPosix = process.platform !== 'win32';


/** A "server" that writes its pid and its background child's to `file`, then ignores stdin's end and SIGTERM. */
const stubborn = (file: string): string[] => ['sh', '-c', `trap '' TERM; sleep 1000 & echo "$$ $!" > ${file}.tmp && mv ${file}.tmp ${file}; wait`];

async function pidsFrom(file: string): Promise<number[]> {
  // Node with tsx, then the watchdog, then the server: seconds on a loaded 2-core machine.
  const deadline = Date.now() + 15_000;
  while (!existsSync(file)) {
    assert.ok(Date.now() < deadline, 'the server did not start');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return readFileSync(file, 'utf8').trim().split(' ').map(Number);
}

async function gone(pids: number[]): Promise<boolean> {
  for (let tries = 0; tries < 100; tries++) {
    if (pids.every((pid) => !isAlive(pid))) {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

(isPosix ? describe : () => undefined)('the stdio MCP server watchdog: no server outlives the extension host', function () {
  this.timeout(20_000);
  let folder: string;
  const started: ChildProcess[] = [];
  beforeEach(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'toolgate-watchdog-'));
  });
  afterEach(() => {
    for (const child of started.splice(0)) {
      child.kill('SIGKILL');
    }
    rmSync(folder, { recursive: true, force: true });
  });
  const start = (command: string[], stdio: 'pipe' | 'ignore' = 'pipe'): ChildProcess => {
    const child = spawn(process.execPath, ['--import', 'tsx', watchdog, '--', ...command], { stdio: [stdio, 'ignore', 'ignore'] });
    started.push(child);
    return child;
  };

  it('the host closes the connection: a server that ignores it and SIGTERM is killed after the grace period, with what it started', async () => {
    const file = path.join(folder, 'pids');
    const child = start(stubborn(file));
    const pids = await pidsFrom(file);
    assert.ok(pids.every(isAlive));
    const exited = once(child, 'exit');
    child.stdin?.end();
    await exited;
    assert.ok(await gone(pids), `still running: ${pids.filter(isAlive).join(', ')}`);
  });

  for (const how of ['the host alone', "the host's whole process group"] as const) {
    it(`the host dies without a word (SIGKILL to ${how}): the server and its children go too`, async () => {
      const file = path.join(folder, 'pids');
      // A stand-in host that starts the watchdog with a pipe on its stdin, as the extension host does, and is then killed.
      const hostScript = `const { spawn } = require('node:child_process');
        spawn(process.execPath, ['--import', 'tsx', ${JSON.stringify(watchdog)}, '--', ...${JSON.stringify(stubborn(file))}], { stdio: ['pipe', 'ignore', 'ignore'] });
        setInterval(() => {}, 1000);`;
      const host = spawn(process.execPath, ['-e', hostScript], { stdio: 'ignore', detached: true });
      started.push(host);
      const pids = await pidsFrom(file);
      const exited = once(host, 'exit');
      process.kill(how === 'the host alone' ? (host.pid ?? 0) : -(host.pid ?? 0), 'SIGKILL');
      await exited;
      for (let tries = 0; tries < 300 && pids.some(isAlive); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.deepEqual(pids.filter(isAlive), [], 'no process of the server is left');
    });
  }

  it('a server that exits ends the watchdog with its code, and what it left running is killed', async () => {
    const file = path.join(folder, 'pids');
    const child = start(['sh', '-c', `sleep 1000 & echo "$$ $!" > ${file}.tmp && mv ${file}.tmp ${file}; sleep 0.2; exit 3`]);
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 3);
    assert.ok(await gone(await pidsFrom(file)));
  });

  it('a command that cannot start is said on stderr, with exit code 127', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', watchdog, '--', path.join(folder, 'no-such-server')], { stdio: ['pipe', 'ignore', 'pipe'] });
    started.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 127);
    assert.match(stderr, /mcpWatchdog: could not start .*no-such-server/);
  });
});
