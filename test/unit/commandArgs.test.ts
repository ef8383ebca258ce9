import * as assert from 'node:assert/strict';
import { readCommandArg, type ArgCommand } from '../../src/core/commandArgs';

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
