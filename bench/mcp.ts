/**
 * MCP benchmark: the median time of an `echo` call to the stdio fixture server through a bare SDK Client, against
 * the same call through McpManager.callTool (its bookkeeping on top of the SDK). Run alone: `npx tsx bench/mcp.ts`.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpManager } from '../src/core/mcp/manager';
import { median, printTable } from './table';

const FIXTURE = path.resolve('test/fixtures/mcp/fixtureServer.ts');
const ARGS = ['--import', 'tsx', FIXTURE, '--stdio'];

async function timeCalls(n: number, call: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) {
    await call(i); // warm up
  }
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await call(i);
    samples.push(performance.now() - started);
  }
  return median(samples);
}

export async function mcpDirectBench(n = 500): Promise<{ directMs: number; managerMs: number }> {
  const client = new Client({ name: 'toolgate-bench', version: '0.0.0' }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ARGS, cwd: process.cwd(), stderr: 'ignore' }));
  let directMs: number;
  try {
    directMs = await timeCalls(n, (i) => client.callTool({ name: 'echo', arguments: { text: `call ${String(i)}` } }));
  } finally {
    await client.close();
  }
  const manager = new McpManager();
  let managerMs: number;
  try {
    await manager.setServers([
      {
        name: 'fixture',
        origin: 'user',
        source: 'bench',
        requireApproval: 'all',
        type: 'stdio',
        command: process.execPath,
        args: ARGS,
        env: {},
        cwd: process.cwd(),
      },
    ]);
    managerMs = await timeCalls(n, (i) => manager.callTool('fixture', 'echo', { text: `call ${String(i)}` }));
  } finally {
    await manager.close();
  }
  return { directMs, managerMs };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve('bench/mcp.ts')) {
  void mcpDirectBench().then(({ directMs, managerMs }) => {
    printTable('MCP echo over stdio (median of 500)', [
      { metric: 'echo via McpManager.callTool', value: `${managerMs.toFixed(3)} ms`, baseline: `${directMs.toFixed(3)} ms`, ratio: (managerMs / directMs).toFixed(2) },
    ]);
  });
}
