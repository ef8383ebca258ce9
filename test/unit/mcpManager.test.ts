import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { isAlive } from '../fixtures/processes';
import type { McpServerConfig, McpStdioServerConfig } from '../../src/core/mcp/config';
import { McpCallError, McpManager, type McpServerStatus } from '../../src/core/mcp/manager';
import { CommandSandbox } from '../../src/core/sandbox/commandSandbox';
import { probeSandbox } from '../../src/core/sandbox/sandbox';

const FIXTURE = path.resolve('test/fixtures/mcp/fixtureServer.ts');
const NODE_MODULES = path.resolve('node_modules');

function fixture(name: string, env: Record<string, string> = {}): McpStdioServerConfig {
  return {
    name,
    origin: 'user',
    source: 'test',
    requireApproval: 'all',
    type: 'stdio',
    sandbox: false,
    command: process.execPath,
    args: ['--import', 'tsx', FIXTURE, '--stdio'],
    env,
    cwd: process.cwd(),
  };
}

function published(name: string, pkg: string, args: string[]): McpStdioServerConfig {
  return { ...fixture(name), args: [path.join(NODE_MODULES, '@modelcontextprotocol', pkg, 'dist', 'index.js'), ...args] };
}

/** Resolves with the server's status once `predicate` holds (checked now and on every change), or rejects after `ms`. */
function waitFor(manager: McpManager, name: string, predicate: (status: McpServerStatus) => boolean, ms = 20_000): Promise<McpServerStatus> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const status = manager.server(name);
      if (status !== undefined && predicate(status)) {
        done();
        resolve(status);
        return true;
      }
      return false;
    };
    const listener = manager.onDidChange(() => {
      check();
    });
    const timer = setTimeout(() => {
      done();
      reject(new Error(`timed out waiting for "${name}": ${JSON.stringify(manager.server(name)?.state)}`));
    }, ms);
    const done = (): void => {
      listener.dispose();
      clearTimeout(timer);
    };
    check();
  });
}

function until(condition: () => boolean, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = (): void => {
      if (condition()) {
        resolve();
      } else if (Date.now() - started > ms) {
        reject(new Error('condition not met in time'));
      } else {
        setTimeout(tick, 25);
      }
    };
    tick();
  });
}

function textOf(result: { content: unknown[] }): string {
  return result.content
    .map((item) => (typeof item === 'object' && item !== null && 'text' in item ? String(item.text) : ''))
    .join('');
}

async function rejection(promise: Promise<unknown>): Promise<McpCallError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof McpCallError, `expected an McpCallError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the call to reject');
}

describe('McpManager', function () {
  this.timeout(30_000);
  let manager: McpManager;
  let logs: string[];
  let root: string;

  beforeEach(() => {
    logs = [];
    manager = new McpManager({ log: (server, line) => logs.push(`${server}: ${line}`), startTimeoutMs: 15_000 });
    root = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-mcp-')));
  });

  afterEach(async () => {
    await manager.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('through the watchdog, a server that ignores close and SIGTERM is gone when the manager closes', async function () {
    if (process.platform === 'win32') {
      this.skip();
    }
    const watched = new McpManager({
      startTimeoutMs: 15_000,
      stdioWatchdog: { command: process.execPath, args: ['--import', 'tsx', path.resolve('src/core/mcp/watchdog.ts')] },
    });
    const pidFile = path.join(root, 'server.pid');
    await watched.setServers([fixture('stubborn', { FIXTURE_ROOT: root, FIXTURE_STUBBORN: '1', FIXTURE_PID_FILE: pidFile })]);
    assert.equal(watched.server('stubborn')?.state, 'running');
    assert.equal(textOf(await watched.callTool('stubborn', 'echo', { text: 'hi' })), 'hi');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(isAlive(pid));
    await watched.close();
    for (let tries = 0; tries < 200 && isAlive(pid); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(isAlive(pid), false, 'the server process is gone');
  });

  it('starts the fixture over stdio, lists its tools and calls them', async () => {
    await manager.setServers([fixture('fx', { FIXTURE_ROOT: root })]);
    const status = manager.server('fx');
    assert.equal(status?.state, 'running');
    assert.equal(status.origin, 'user');
    const names = status.tools.map((tool) => tool.name);
    for (const name of ['echo', 'add', 'write_note', 'crash', 'hang', 'fail', 'change_tools']) {
      assert.ok(names.includes(name), `lists ${name}`);
    }
    const echo = status.tools.find((tool) => tool.name === 'echo');
    assert.equal(echo?.description, 'Echo the text back.');
    assert.deepEqual(echo.annotations, { readOnlyHint: true });
    assert.match(echo.definitionHash, /^[0-9a-f]{64}$/);
    assert.equal(textOf(await manager.callTool('fx', 'echo', { text: 'hello' })), 'hello');
    assert.equal(textOf(await manager.callTool('fx', 'add', { a: 2, b: 40 })), '42');
    const failed = await manager.callTool('fx', 'fail', {});
    assert.equal(failed.isError, true);
    assert.equal(textOf(failed), 'this tool always fails');
    await manager.callTool('fx', 'write_note', { path: 'notes/a.txt', content: 'note' });
    assert.equal(readFileSync(path.join(root, 'notes', 'a.txt'), 'utf8'), 'note');
    const unknown = await rejection(manager.callTool('nope', 'echo', {}));
    assert.equal(unknown.kind, 'unknown-server');
  });

  it('talks streamable HTTP and renews a session the server forgot (404)', async () => {
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', FIXTURE, '--http', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /listening (\d+)/.exec(out);
          if (match?.[1] !== undefined) {
            resolve(Number(match[1]));
          }
        });
        child.on('exit', (code) => {
          reject(new Error(`the HTTP fixture exited with ${String(code)}`));
        });
      });
      const config: McpServerConfig = {
        name: 'web',
        origin: 'user',
        source: 'test',
        requireApproval: 'all',
        type: 'http',
        url: `http://127.0.0.1:${String(port)}/mcp`,
        headers: { 'x-test': '1' },
      };
      await manager.setServers([config]);
      assert.equal(manager.server('web')?.state, 'running');
      assert.equal(textOf(await manager.callTool('web', 'echo', { text: 'over http' })), 'over http');
      await manager.callTool('web', 'forget_sessions', {});
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(textOf(await manager.callTool('web', 'echo', { text: 'again' })), 'again');
      assert.ok(logs.some((line) => line.includes('forgot the session (404)')), 'the session was renewed');
      assert.equal(manager.server('web')?.state, 'running');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('changes the definition hash when the description changes across a restart', async () => {
    await manager.setServers([fixture('fx', { FIXTURE_DESCRIPTION: 'Echo the text.' })]);
    const before = manager.server('fx')?.tools.find((tool) => tool.name === 'echo');
    assert.equal(before?.description, 'Echo the text.');
    await manager.setServers([fixture('fx', { FIXTURE_DESCRIPTION: 'Echo the text, and send it to a stranger.' })]);
    const after = manager.server('fx')?.tools.find((tool) => tool.name === 'echo');
    assert.equal(after?.description, 'Echo the text, and send it to a stranger.');
    assert.notEqual(after.definitionHash, before.definitionHash);
    const add = (status: McpServerStatus | undefined): string | undefined => status?.tools.find((t) => t.name === 'add')?.definitionHash;
    await manager.setServers([fixture('fx', { FIXTURE_DESCRIPTION: 'Echo the text.' })]);
    assert.equal(manager.server('fx')?.tools.find((tool) => tool.name === 'echo')?.definitionHash, before.definitionHash);
    assert.ok(add(manager.server('fx')) !== undefined);
  });

  it('re-lists tools on tools/list_changed: a changed description changes the hash, an added tool appears', async () => {
    await manager.setServers([fixture('fx')]);
    const before = manager.server('fx')?.tools.find((tool) => tool.name === 'echo');
    assert.ok(before);
    await manager.callTool('fx', 'change_tools', { description: 'Echo, changed at run time.' });
    const changed = await waitFor(manager, 'fx', (status) =>
      status.tools.some((tool) => tool.name === 'echo' && tool.description === 'Echo, changed at run time.'),
    );
    assert.notEqual(changed.tools.find((tool) => tool.name === 'echo')?.definitionHash, before.definitionHash);
    await manager.callTool('fx', 'change_tools', {});
    await waitFor(manager, 'fx', (status) => status.tools.some((tool) => tool.name === 'extra_1'));
    assert.equal(textOf(await manager.callTool('fx', 'extra_1', {})), 'extra_1');
  });

  it('times out a call with a clear message, sends notifications/cancelled, and ignores the late answer', async () => {
    await manager.setServers([fixture('fx', { FIXTURE_IGNORE_CANCEL: '1' })]);
    const timedOut = await rejection(manager.callTool('fx', 'slow', { ms: 1500, text: 'late' }, { timeoutMs: 200 }));
    assert.equal(timedOut.kind, 'timeout');
    assert.equal(timedOut.message, 'MCP server "fx" did not answer "slow" within 200 ms; the call was cancelled');
    await until(() => logs.some((line) => line.startsWith('fx: fixture: got notifications/cancelled for request')));
    await until(() => logs.some((line) => line.startsWith('fx: ignored a late answer')));
    assert.equal(manager.server('fx')?.state, 'running');
    assert.equal(textOf(await manager.callTool('fx', 'echo', { text: 'still here' })), 'still here');

    const hung = await rejection(manager.callTool('fx', 'hang', {}, { timeoutMs: 300 }));
    assert.equal(hung.kind, 'timeout');
    const controller = new AbortController();
    const pending = manager.callTool('fx', 'hang', {}, { signal: controller.signal });
    setTimeout(() => {
      controller.abort();
    }, 100);
    const cancelled = await rejection(pending);
    assert.equal(cancelled.kind, 'cancelled');
    assert.equal(cancelled.message, 'the call to "hang" on MCP server "fx" was cancelled');
    assert.equal(textOf(await manager.callTool('fx', 'echo', { text: 'and still' })), 'and still');
  });

  it('a crash mid-call rejects the call, the server comes back, and the next call works', async () => {
    await manager.setServers([fixture('fx')]);
    const firstPid = manager.server('fx')?.pid;
    assert.ok(firstPid !== undefined);
    const states: string[] = [];
    const listener = manager.onDidChange((status) => states.push(status.state));
    const crashed = await rejection(manager.callTool('fx', 'crash', {}));
    assert.equal(crashed.kind, 'crashed');
    assert.match(crashed.message, /^MCP server "fx" closed the connection during "crash" \(it exited or crashed\)/);
    const back = await waitFor(manager, 'fx', (status) => status.state === 'running');
    listener.dispose();
    assert.deepEqual(states.slice(0, 1), ['starting']);
    assert.equal(states.at(-1), 'running');
    assert.ok(back.pid !== undefined && back.pid !== firstPid, 'a new process');
    assert.equal(isAlive(firstPid), false);
    assert.equal(textOf(await manager.callTool('fx', 'echo', { text: 'revived' })), 'revived');
    assert.equal(manager.server('fx')?.restartAttempt, 0);
  });

  it('a server that prints garbage, exits at start or does not exist fails with a reason; the others still work', async () => {
    await manager.setServers([
      fixture('garbage', { FIXTURE_GARBAGE: '1' }),
      fixture('never', { FIXTURE_NEVER_START: '1' }),
      { ...fixture('missing'), command: 'toolgate-no-such-command' },
      fixture('good'),
    ]);
    const garbage = manager.server('garbage');
    assert.equal(garbage?.state, 'failed');
    assert.match(garbage.error ?? '', /^it wrote something that is not JSON-RPC to stdout \(.*is not valid JSON\)/);
    const never = manager.server('never');
    assert.equal(never?.state, 'failed');
    assert.equal(never.error, 'it exited before it finished starting (stderr: fixture: refusing to start (FIXTURE_NEVER_START=1))');
    assert.equal(manager.server('missing')?.state, 'failed');
    assert.equal(manager.server('missing')?.error, 'command not found: toolgate-no-such-command');
    assert.equal(manager.server('good')?.state, 'running');
    assert.equal(textOf(await manager.callTool('good', 'echo', { text: 'fine' })), 'fine');
    const notRunning = await rejection(manager.callTool('garbage', 'echo', { text: 'x' }));
    assert.equal(notRunning.kind, 'not-running');
    assert.match(notRunning.message, /^MCP server "garbage" is not running \(failed: it wrote something that is not JSON-RPC/);
  });

  it('does not start a server that startAllowed refuses; restart and stop work by name', async () => {
    const asked: string[] = [];
    const gated = new McpManager({
      startAllowed: (config) => {
        asked.push(config.name);
        return Promise.resolve(config.origin === 'user');
      },
    });
    try {
      await gated.setServers([{ ...fixture('ws'), origin: 'workspace' }, fixture('mine')]);
      assert.deepEqual(asked.sort(), ['mine', 'ws']);
      const ws = gated.server('ws');
      assert.equal(ws?.state, 'stopped');
      assert.match(ws.error ?? '', /not allowed/);
      assert.equal(ws.pid, undefined);
      const first = gated.server('mine')?.pid;
      await gated.restart('mine');
      const second = gated.server('mine');
      assert.equal(second?.state, 'running');
      assert.notEqual(second.pid, first);
      await gated.stop('mine');
      assert.equal(gated.server('mine')?.state, 'stopped');
      assert.equal((await rejection(gated.callTool('mine', 'echo', { text: 'x' }))).kind, 'not-running');
    } finally {
      await gated.close();
    }
  });

  it('dispose leaves no child process, even with a call in flight', async () => {
    await manager.setServers([fixture('a'), fixture('b')]);
    const pids = manager.servers().map((status) => status.pid);
    assert.equal(pids.length, 2);
    const inFlight = manager.callTool('a', 'hang', {}).then(
      () => 'answered',
      (error: unknown) => (error instanceof McpCallError ? error.kind : String(error)),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    manager.dispose();
    await manager.close();
    for (const pid of pids) {
      assert.ok(pid !== undefined);
      assert.equal(isAlive(pid), false, `process ${String(pid)} is gone`);
    }
    assert.equal(await inFlight, 'crashed');
    assert.deepEqual(manager.servers(), []);
  });

  it('whenSettled resolves once no server is starting: after a slow start, a failed start and a removal', async () => {
    // The fixture, delayed by a shell before it starts: still starting when whenSettled is called.
    const slow: McpStdioServerConfig = { ...fixture('slow'), command: 'sh', args: ['-c', 'sleep 1; exec "$0" "$@"', process.execPath, ...fixture('slow').args] };
    const missing: McpStdioServerConfig = { ...fixture('missing'), command: 'toolgate-no-such-command' };
    const setting = manager.setServers([slow, missing]);
    assert.deepEqual(manager.servers().map((status) => status.state), ['starting', 'starting']);
    const started = Date.now();
    await manager.whenSettled(Date.now() + 20_000);
    assert.deepEqual(manager.servers().map((status) => [status.name, status.state]), [['slow', 'running'], ['missing', 'failed']]);
    assert.ok(Date.now() - started >= 900, 'it waited for the slow start');
    await setting;

    // Removing the only server that is starting settles it too.
    const hanging: McpStdioServerConfig = { ...fixture('hanging'), command: 'sh', args: ['-c', 'sleep 30'] };
    void manager.setServers([hanging]);
    const waiting = manager.whenSettled(Date.now() + 20_000);
    const removedAt = Date.now();
    await manager.setServers([]);
    await waiting;
    assert.ok(Date.now() - removedAt < 5_000, 'it did not wait for the deadline');
  });

  it('whenSettled gives up at its deadline and when its signal aborts', async () => {
    const hanging: McpStdioServerConfig = { ...fixture('hanging'), command: 'sh', args: ['-c', 'sleep 30'] };
    void manager.setServers([hanging]);
    const started = Date.now();
    await manager.whenSettled(Date.now() + 300);
    assert.ok(Date.now() - started >= 250 && Date.now() - started < 5_000);
    assert.equal(manager.server('hanging')?.state, 'starting');
    const controller = new AbortController();
    const waiting = manager.whenSettled(Date.now() + 20_000, controller.signal);
    setTimeout(() => controller.abort(), 100);
    await waiting;
    assert.ok(Date.now() - started < 5_000);
  });

  it('runs the published filesystem server against a temporary folder', async () => {
    writeFileSync(path.join(root, 'hello.txt'), 'hello from disk');
    await manager.setServers([published('filesystem', 'server-filesystem', [root])]);
    const status = manager.server('filesystem');
    assert.equal(status?.state, 'running', status?.error);
    const names = status.tools.map((tool) => tool.name);
    assert.ok(names.includes('write_file'), names.join(', '));
    assert.ok(names.includes('read_text_file'), names.join(', '));
    const target = path.join(root, 'out.txt');
    const written = await manager.callTool('filesystem', 'write_file', { path: target, content: 'written through MCP' });
    assert.notEqual(written.isError, true, textOf(written));
    assert.equal(readFileSync(target, 'utf8'), 'written through MCP');
    const read = await manager.callTool('filesystem', 'read_text_file', { path: path.join(root, 'hello.txt') });
    assert.equal(textOf(read), 'hello from disk');
    const outside = await manager.callTool('filesystem', 'read_text_file', { path: '/etc/hostname' });
    assert.equal(outside.isError, true, 'the server refuses paths outside its folder');
  });

  it('runs the published everything server and calls echo', async () => {
    await manager.setServers([published('everything', 'server-everything', ['stdio'])]);
    const status = manager.server('everything');
    assert.equal(status?.state, 'running', status?.error);
    assert.ok(status.tools.some((tool) => tool.name === 'echo'));
    const result = await manager.callTool('everything', 'echo', { message: 'hi there' });
    assert.match(textOf(result), /hi there/);
  });
});


describe('McpManager with the commands\' sandbox (real bubblewrap)', function () {
  this.timeout(30_000);
  let base: string;
  let workspace: string;
  let outside: string;
  let manager: McpManager | undefined;

  before(() => {
    // Not under /tmp: the sandbox gives each process a private /tmp.
    base = realpathSync(mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'toolgate-mcp-sandbox-')));
    workspace = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    mkdirSync(workspace);
    mkdirSync(outside);
  });
  afterEach(async () => {
    await manager?.close();
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  const start = async (root: string, sandbox: CommandSandbox): Promise<McpManager> => {
    const started = new McpManager({
      startTimeoutMs: 20_000,
      stdioSandbox: async (config) => {
        const prepared = await sandbox.launch(config.cwd ?? workspace, config.sandbox.network ? 'host' : 'none');
        return 'launch' in prepared ? prepared.launch : prepared;
      },
    });
    await started.setServers([{ ...fixture('boxed', { FIXTURE_ROOT: root }), origin: 'workspace', sandbox: { network: false } }]);
    return started;
  };
  const sandbox = (): CommandSandbox =>
    new CommandSandbox({
      probe: () => probeSandbox(),
      // The fixture runs from this checkout, which the sandbox's private /tmp would hide when the checkout is under /tmp.
      inputs: () => ({ workspaceFolders: [workspace], protectedGlobs: [], extraHidden: [], extraWritable: [process.cwd()], ownStorage: [], network: 'none', cacheRoot: path.join(base, 'cache') }),
      log: () => undefined,
    });

  it('a workspace server runs in it: its tools work and it writes in the workspace', async () => {
    manager = await start(workspace, sandbox());
    assert.equal(manager.server('boxed')?.state, 'running', manager.server('boxed')?.error);
    assert.equal(textOf(await manager.callTool('boxed', 'echo', { text: 'hi' })), 'hi');
    await manager.callTool('boxed', 'write_note', { path: 'note.txt', content: 'in' });
    assert.equal(readFileSync(path.join(workspace, 'note.txt'), 'utf8'), 'in');
  });

  it('it cannot write outside the workspace', async () => {
    manager = await start(outside, sandbox());
    const result = await manager.callTool('boxed', 'write_note', { path: 'note.txt', content: 'out' }).catch((error: unknown) => ({ isError: true, content: [{ type: 'text', text: String(error) }] }));
    assert.equal(result.isError, true);
    assert.match(textOf(result), /read-only file system/i);
    assert.equal(existsSync(path.join(outside, 'note.txt')), false);
  });

  it('where the sandbox cannot start, it does not start, and says why (fail closed)', async () => {
    const none = new CommandSandbox({ probe: () => Promise.resolve({ available: false, reason: 'bubblewrap is not installed' }), inputs: () => ({ workspaceFolders: [workspace], protectedGlobs: [], extraHidden: [], extraWritable: [], ownStorage: [], network: 'none' }), log: () => undefined });
    manager = await start(workspace, none);
    assert.deepEqual([manager.server('boxed')?.state, manager.server('boxed')?.error], ['failed', 'not started: it runs only in the sandbox, which cannot start here (bubblewrap is not installed)']);
  });
});

describe('what a stdio server started by the manager inherits from the host (real servers)', function () {
  this.timeout(30_000);
  const secrets: Record<string, string> = { OPENAI_API_KEY: 'CANARY-OPENAI', GITHUB_TOKEN: 'CANARY-GITHUB', SSH_AUTH_SOCK: '/run/CANARY-agent.sock', PASSED_BY_SETTING: 'passed-by-setting', LC_TOOLGATE_TEST: 'locale' };
  let base: string;
  let manager: McpManager | undefined;
  before(() => {
    // Not under /tmp: the sandbox gives each process a private /tmp.
    base = realpathSync(mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'toolgate-mcp-env-')));
    Object.assign(process.env, secrets);
  });
  afterEach(async () => {
    await manager?.close();
  });
  after(() => {
    for (const name of Object.keys(secrets)) {
      Reflect.deleteProperty(process.env, name);
    }
    rmSync(base, { recursive: true, force: true });
  });

  const sandbox = new CommandSandbox({
    probe: () => probeSandbox(),
    // The fixture runs from this checkout, which the sandbox's private /tmp would hide when the checkout is under /tmp.
    inputs: () => ({ workspaceFolders: [base], protectedGlobs: [], extraHidden: [], extraWritable: [process.cwd()], ownStorage: [], network: 'none', cacheRoot: path.join(base, 'cache') }),
    log: () => undefined,
  });
  const launches: [string, Partial<ConstructorParameters<typeof McpManager>[0]>, McpStdioServerConfig['sandbox']][] = [
    ['started directly', {}, false],
    ['through the watchdog', { stdioWatchdog: { command: process.execPath, args: ['--import', 'tsx', path.resolve('src/core/mcp/watchdog.ts')] } }, false],
    [
      'in the sandbox',
      {
        stdioSandbox: async (config) => {
          const prepared = await sandbox.launch(config.cwd ?? base, 'none'); // as the product launches a stdio server: its network named, no proxy
          return 'launch' in prepared ? prepared.launch : prepared;
        },
      },
      { network: false },
    ],
  ];
  for (const [how, options, boxed] of launches) {
    it(`${how}: the allow-list, the names toolgate.sandbox.passEnvironment lists and the server's own env; no token`, async () => {
      manager = new McpManager({ startTimeoutMs: 20_000, passEnvironment: () => ['PASSED_BY_SETTING'], ...options });
      await manager.setServers([{ ...fixture('env'), env: { CONFIGURED: 'by-config', LC_TOOLGATE_TEST: null }, sandbox: boxed }]);
      assert.equal(manager.server('env')?.state, 'running', manager.server('env')?.error);
      const env = textOf(await manager.callTool('env', 'environment', {}));
      assert.doesNotMatch(env, /CANARY/);
      assert.match(env, /^PASSED_BY_SETTING=passed-by-setting$/m);
      assert.match(env, /^CONFIGURED=by-config$/m);
      // `null` in the server's configuration removes a variable it would inherit.
      assert.doesNotMatch(env, /LC_TOOLGATE_TEST/);
      assert.match(env, /^HOME=/m);
    });
  }
});
