import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './harness/codeServer';
import { ChatDriver } from './harness/chat';
import { until } from './harness/until';
import { ApprovalsPanelDriver } from './harness/panel';
import { useSession } from './harness/session';

/** The published filesystem server, started through its bin in node_modules (no network). */
const filesystemBin = path.join(repoRoot, 'node_modules', '.bin', 'mcp-server-filesystem');
const startDelaySeconds = 4;

interface RecordedBody {
  tools?: { function: { name: string } }[];
}

describe('a task started while MCP servers are still starting', function () {
  this.timeout(180_000);
  const session = useSession({
    model: true,
    control: true,
    userSettings: {
      'toolgate.mcp.servers': {
        // A shell delays the server's start, so that the task certainly begins while it is starting.
        fs: { command: 'sh', args: ['-c', `sleep ${startDelaySeconds}; exec "$0" "$@"`, filesystemBin, '${workspaceFolder}'] },
        broken: { command: 'toolgate-no-such-command' },
      },
    },
  });
  const { model, control } = session;

  it('waits for them before the first model turn, offers their tools, and reports the one that failed', async () => {
    const target = path.join(session.server.workspace, 'from-mcp.txt');
    model.fake.script([
      { toolCalls: [{ id: 'fs_1', name: 'mcp__fs__write_file', arguments: JSON.stringify({ path: target, content: 'written by server-filesystem\n' }) }] },
      { text: 'Written.' },
    ]);
    // As early as anything can: the helper extension activates Toolgate and runs the task at once.
    const result = control.call<{ reason: string; answer: string }>('/command', { command: 'toolgate.runTask', args: ['Write from-mcp.txt with the fs server'] });
    await until(() => model.fake.requests.length >= 1, 'the first model request', { timeoutMs: 60_000 });
    const offered = ((model.fake.requests[0]?.body as RecordedBody | undefined)?.tools ?? []).map((tool) => tool.function.name);
    assert.ok(offered.includes('mcp__fs__write_file'), `the first request offers the server's tools: ${offered.join(', ')}`);
    assert.ok(offered.includes('write_file'), 'and the built-in ones');
    assert.ok(!offered.some((name) => name.startsWith('mcp__broken__')));

    const panel = new ApprovalsPanelDriver(session.workbench);
    await panel.act(await panel.waitForCall('mcp__fs__write_file', 'from-mcp.txt'), 'allow-once');
    const outcome = await result;
    assert.deepEqual([outcome.reason, outcome.answer], ['finished', 'Written.']);
    assert.equal(readFileSync(target, 'utf8'), 'written by server-filesystem\n');

    const frame = await new ChatDriver(session.workbench).frame();
    const notices = await frame.locator('[data-entry="notice"]').allInnerTexts();
    const index = (pattern: RegExp): number => notices.findIndex((text) => pattern.test(text));
    // Said only when fs was still starting as the task began: with its tools in the first request, the turn waited.
    // "broken" may still be starting too (its command check had not answered yet) or already have failed.
    assert.ok(index(/^Starting MCP servers: fs(, broken)?…$/) >= 0, `the chat said it was starting fs: ${JSON.stringify(notices)}`);
    assert.ok(index(/^MCP servers ready: fs \(\d+ tools\)\.$/) > index(/^Starting MCP servers/), JSON.stringify(notices));
    assert.ok(
      index(/^MCP server "broken" failed to start: command not found: toolgate-no-such-command\. This task goes on without its tools\.$/) >= 0,
      JSON.stringify(notices),
    );
    await session.workbench.screenshot('mcp-startup');
  });
});
