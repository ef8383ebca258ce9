import * as assert from 'node:assert/strict';
import { resetWorkspaceGrants } from '../../src/core/approval/resetGrants';
import { commandArgOrThrow, readCommandArg, type ArgCommand } from '../../src/core/commandArgs';

describe('what the commands that take an argument accept (core/commandArgs)', () => {
  const rows: { command: ArgCommand; arg: unknown; value?: unknown; error?: string }[] = [
    { command: 'toolgate.runTask', arg: 'Summarise the README', value: 'Summarise the README' },
    { command: 'toolgate.runTask', arg: undefined, value: undefined },
    { command: 'toolgate.runTask', arg: 42, error: 'toolgate.runTask takes a prompt (a string), got a number' },
    { command: 'toolgate.runTask', arg: { prompt: 'x' }, error: 'toolgate.runTask takes a prompt (a string), got an object' },
    { command: 'toolgate.allowOnce', arg: undefined, value: undefined },
    { command: 'toolgate.allowOnce', arg: 'yes', error: 'toolgate.allowOnce takes no argument, got a string' },
    { command: 'toolgate.deny', arg: 'not now', value: 'not now' },
    { command: 'toolgate.deny', arg: undefined, value: undefined },
    { command: 'toolgate.deny', arg: null, error: 'toolgate.deny takes a reason (a string), got null' },
    { command: 'toolgate.deny', arg: 'x'.repeat(4001), error: 'toolgate.deny takes a reason of at most 4000 characters' },
    { command: 'toolgate.resetWorkspaceApprovals', arg: true, value: true },
    { command: 'toolgate.resetWorkspaceApprovals', arg: 'yes', error: 'toolgate.resetWorkspaceApprovals takes true (remove without asking) or nothing, got a string' },
    { command: 'toolgate.mcp.restart', arg: 'fs', value: 'fs' },
    { command: 'toolgate.mcp.restart', arg: { kind: 'server', server: 'fs', status: {} }, value: 'fs' },
    { command: 'toolgate.mcp.restart', arg: undefined, value: undefined },
    { command: 'toolgate.mcp.stop', arg: { kind: 'tool' }, error: 'toolgate.mcp.stop takes an MCP server (its name, or a node of the MCP Servers view), got an object' },
    { command: 'toolgate.mcp.stop', arg: 7, error: 'toolgate.mcp.stop takes an MCP server (its name, or a node of the MCP Servers view), got a number' },
  ];
  for (const row of rows) {
    it(`${row.command} ${row.arg === undefined ? 'undefined' : JSON.stringify(row.arg).slice(0, 40)}: ${row.error ?? 'taken'}`, () => {
      assert.deepEqual(readCommandArg(row.command, row.arg), row.error === undefined ? { ok: true, value: row.value } : { ok: false, error: row.error });
    });
  }
});

describe("a command's argument, or its refusal thrown", () => {
  it('is the value, or an error the caller\'s executeCommand rejects with', () => {
    assert.equal(commandArgOrThrow('toolgate.deny', 'not now'), 'not now');
    assert.throws(() => commandArgOrThrow('toolgate.runTask', 42), { message: 'Toolgate: toolgate.runTask takes a prompt (a string), got a number' });
  });
});

describe('Toolgate: Reset Workspace Approvals', () => {
  const rows: { name: string; grants: number; confirm: boolean | undefined; answer: boolean; removed: number; said: string[] }[] = [
    { name: 'no grants: nothing to ask', grants: 0, confirm: undefined, answer: true, removed: 0, said: ['info Toolgate: there are no workspace grants to reset.'] },
    { name: 'asks first, and removes them', grants: 2, confirm: undefined, answer: true, removed: 2, said: ['ask Remove all 2 "always allow" grants of this workspace?', 'info Toolgate: removed 2 workspace grants.'] },
    { name: 'not confirmed: nothing removed', grants: 1, confirm: undefined, answer: false, removed: 0, said: ['ask Remove all 1 "always allow" grant of this workspace?'] },
    { name: 'given true: removed without asking', grants: 1, confirm: true, answer: false, removed: 1, said: ['info Toolgate: removed 1 workspace grant.'] },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const said: string[] = [];
      const grants = { workspaceGrants: () => Array.from<never>({ length: row.grants }), resetWorkspace: () => Promise.resolve(row.grants) };
      const removed = await resetWorkspaceGrants(grants, row.confirm, {
        info: (text) => void said.push(`info ${text}`),
        confirmRemove: (question) => (said.push(`ask ${question}`), Promise.resolve(row.answer)),
      });
      assert.deepEqual({ removed, said }, { removed: row.removed, said: row.said });
    });
  }
});
