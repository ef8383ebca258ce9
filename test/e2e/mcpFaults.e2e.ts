import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAlive } from '../fixtures/processes';
import { repoRoot } from './harness/codeServer';
import { ChatDriver, sentToolResult } from './harness/chat';
import { useSession } from './harness/session';
import { until } from './harness/until';

const tsx = path.join(repoRoot, 'node_modules', '.bin', 'tsx');
const fixtureServer = path.join(repoRoot, 'test', 'fixtures', 'mcp', 'fixtureServer.ts');
const pidFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcp-pid-')), 'stubborn.pid');


describe('MCP faults stay where they are, in the real VS Code', function () {
  this.timeout(180_000);
  const fixture = (env: Record<string, string> = {}): Record<string, unknown> => ({ command: tsx, args: [fixtureServer, '--stdio'], env, requireApproval: 'none' });
  const session = useSession({
    model: true,
    userSettings: {
      'toolgate.mcp.servers': {
        slow: fixture(),
        quick: fixture(),
        stubborn: fixture({ FIXTURE_STUBBORN: '1', FIXTURE_PID_FILE: pidFile }),
      },
    },
  });
  const { model } = session;
  const chat = (): ChatDriver => new ChatDriver(session.workbench);

  it("a hung server does not hold up another server's call of the same turn", async () => {
    model.fake.script([
      {
        toolCalls: [
          { id: 'h1', name: 'mcp__slow__hang', arguments: '{}' },
          { id: 'q1', name: 'mcp__quick__echo', arguments: JSON.stringify({ text: 'quick answer' }) },
        ],
      },
    ]);
    await chat().task('Call both servers');
    const frame = await chat().frame();
    await frame.locator('[data-entry="tool"][data-tool="mcp__quick__echo"][data-status="done"]').waitFor({ timeout: 60_000 });
    assert.equal(await frame.locator('[data-entry="tool"][data-tool="mcp__slow__hang"]').getAttribute('data-status'), 'running', 'the hung call still runs');
    await frame.locator('[data-action="stop"]').click();
    await chat().idle();
  });

  it('a 5 MB result reaches the model as its head and tail with the size, and the person can open it whole', async () => {
    model.fake.script([{ toolCalls: [{ id: 'big1', name: 'mcp__quick__huge', arguments: JSON.stringify({ bytes: 5_000_000 }) }] }, { text: 'Read it.' }]);
    await chat().task('Get the huge result');
    const frame = await chat().frame();
    await frame.locator('[data-entry="assistant"]', { hasText: 'Read it.' }).waitFor({ timeout: 60_000 });
    const told = sentToolResult(model.fake, model.fake.requests.length - 1, 'big1');
    assert.ok(told.length < 31_000, `the model was sent ${told.length} characters`);
    assert.match(told, /^\(The result is 5,000,0\d\d characters; its middle is left out here\. The person can open it whole\.\)\nHEAD of the huge result/);
    assert.match(told, /TAIL of the huge result\n?$/);
    const entry = frame.locator('[data-entry="tool"][data-tool="mcp__quick__huge"]');
    await entry.locator('details summary').click();
    await entry.locator('[data-action="open-result"]').click();
    await session.workbench.page.locator('.tabs-container .tab', { hasText: '.txt' }).waitFor();
    const storage = path.join(session.server.userDataDir, 'User', 'workspaceStorage');
    const [kept] = execFileSync('find', [storage, '-path', '*/results/*.txt'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
    assert.ok(kept, 'the whole result is kept');
    const whole = readFileSync(kept, 'utf8');
    assert.ok(whole.length >= 5_000_000 && whole.startsWith('HEAD of the huge result') && whole.trimEnd().endsWith('TAIL of the huge result'));
  });

  it('no server outlives VS Code: with code-server killed outright, a server that ignores close and SIGTERM is gone too', async () => {
    await until(() => existsSync(pidFile), 'the stubborn server to start (its pid file)');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(isAlive(pid));
    const server = session.server.pid;
    assert.ok(server !== undefined);
    process.kill(-server, 'SIGKILL');
    const processes = (): string => execFileSync('ps', ['-eo', 'pid,ppid,pgid,args'], { encoding: 'utf8' }).split('\n').filter((line) => /node|code-server|tsx|watchdog/.test(line)).join('\n');
    await until(() => !isAlive(pid), `the MCP server ${pid} to end after code-server was killed`, { timeoutMs: 10_000, everyMs: 50, detail: () => `these still run:\n${processes()}` });
  });
});
