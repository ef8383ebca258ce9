import * as assert from 'node:assert/strict';
import type { McpStdioServerConfig } from '../../src/core/mcp/config';
import type { McpServerStatus } from '../../src/core/mcp/manager';
import { failureKey, settledNotices, startingNotice } from '../../src/core/mcp/startup';

const config: McpStdioServerConfig = {
  name: 'x',
  origin: 'user',
  source: 'test',
  requireApproval: 'all',
  sandbox: false,
  type: 'stdio',
  command: 'node',
  args: [],
  env: {},
};

function server(name: string, state: McpServerStatus['state'], tools = 0, error?: string): McpServerStatus {
  return {
    name,
    state,
    tools: Array.from({ length: tools }, (_, index) => ({ name: `t${index}`, description: '', inputSchema: {}, definitionHash: String(index) })),
    origin: 'user',
    config: { ...config, name },
    restartAttempt: 0,
    ...(error !== undefined ? { error } : {}),
  };
}

describe('MCP servers at the start of a task', () => {
  it('names the servers it waits for, and says nothing when none is starting', () => {
    assert.deepEqual(startingNotice([server('fs', 'starting'), server('git', 'running', 3), server('db', 'starting')]), {
      kind: 'starting',
      servers: ['fs', 'db'],
      level: 'info',
      text: 'Starting MCP servers: fs, db…',
    });
    assert.equal(startingNotice([server('git', 'running', 3), server('bad', 'failed', 0, 'boom')]), undefined);
  });

  it('after the wait: ready ones with their tools, failed ones with the reason, and those still starting', () => {
    const servers = [server('fs', 'running', 14), server('one', 'running', 1), server('bad', 'failed', 0, 'command not found: nope'), server('slow', 'starting')];
    assert.deepEqual(
      settledNotices(servers, ['fs', 'one', 'bad', 'slow'], 15_000, new Set()).map(({ kind, level, text }) => ({ kind, level, text })),
      [
        { kind: 'ready', level: 'info', text: 'MCP servers ready: fs (14 tools), one (1 tool).' },
        { kind: 'failed', level: 'error', text: 'MCP server "bad" failed to start: command not found: nope. This task goes on without its tools.' },
        {
          kind: 'still-starting',
          level: 'info',
          text: 'Still starting after 15 s: slow. The task goes on; their tools are offered from the first turn after they start.',
        },
      ],
    );
  });

  it('reports a failure of a server it did not wait for, once per chat', () => {
    const bad = server('bad', 'failed', 0, 'it exited before it finished starting');
    assert.deepEqual(settledNotices([bad, server('git', 'running', 2)], [], 0, new Set()).map((notice) => notice.kind), ['failed']);
    assert.deepEqual(settledNotices([bad], [], 0, new Set([failureKey(bad)])), []);
    const again = server('bad', 'failed', 0, 'a different reason');
    assert.deepEqual(settledNotices([again], [], 0, new Set([failureKey(bad)])).map((notice) => notice.servers), [['bad']]);
  });
});
