/**
 * MCP benchmark: the median time of an `echo` call to the stdio fixture server through a bare SDK Client, against
 * the same call through McpManager.callTool (its bookkeeping on top of the SDK). Run alone: `npx tsx bench/mcp.ts`.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpManager } from '../src/core/mcp/manager';
import { MemoryFiles, memoryToolService } from '../test/fixtures/memoryFiles';
import { createMemoryGate, locateUnder } from '../test/fixtures/memoryGate';
import { median, printTable, type Row } from './table';

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

export async function mcpDirectBench(n = 500): Promise<{ directMs: number; managerMs: number; gatedMs: number }> {
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
  let gatedMs: number;
  try {
    await manager.setServers([
      {
        name: 'fixture',
        origin: 'user',
        source: 'bench',
        requireApproval: 'all',
        sandbox: false,
        type: 'stdio',
        command: process.execPath,
        args: ARGS,
        env: {},
        cwd: process.cwd(),
      },
    ]);
    managerMs = await timeCalls(n, (i) => manager.callTool('fixture', 'echo', { text: `call ${String(i)}` }));
    // Gated but granted: the gate decides (a workspace grant for the tool, pinned to its definition), then the call.
    const tool = manager.server('fixture')?.tools.find((candidate) => candidate.name === 'echo');
    if (!tool) {
      throw new Error('the fixture offers no echo tool');
    }
    const { gate, grants } = createMemoryGate({ gatedTools: {}, protectedPaths: [], locate: locateUnder(null) }, undefined, { keepAudit: false });
    await grants.add({ id: 'g-bench', tool: 'mcp__fixture__echo', matcher: { kind: 'tool' }, scope: 'workspace', createdAt: new Date().toISOString(), definitionHash: tool.definitionHash }, 'bench');
    // The production path: the tool service prepares the call (arguments, pinned definition), the gate decides, the
    // service calls the server through the manager.
    const { service } = memoryToolService(gate, new MemoryFiles(), {
      mcp: {
        resolve: (name) => (name === 'mcp__fixture__echo' ? { modelName: name, server: 'fixture', tool, gated: true } : undefined),
        call: (server, name, args, options) => manager.callTool(server, name, args, options),
      },
    });
    gatedMs = await timeCalls(n, async (i) => {
      const [result] = await service.runBatch([{ tool: 'mcp__fixture__echo', args: { text: `call ${String(i)}` } }], { chatId: 'bench' });
      if (result?.decision?.verdict !== 'allow' || !result.ok) {
        throw new Error(`the granted call was not allowed and run: ${result?.output ?? 'no result'}`);
      }
      return result;
    });
    gate.dispose();
  } finally {
    await manager.close();
  }
  return { directMs, managerMs, gatedMs };
}

export async function mcpBench(): Promise<Row[]> {
  const { directMs, managerMs, gatedMs } = await mcpDirectBench();
  const baseline = `${directMs.toFixed(3)} ms (bare SDK client)`;
  return [
    { metric: 'MCP echo over stdio via McpManager.callTool (median of 500)', value: `${managerMs.toFixed(3)} ms`, baseline, ratio: `${(managerMs / directMs).toFixed(2)}x` },
    { metric: 'MCP echo, gated but granted: ToolService + gate decision + McpManager (median of 500)', value: `${gatedMs.toFixed(3)} ms`, baseline, ratio: `${(gatedMs / directMs).toFixed(2)}x` },
  ];
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve('bench/mcp.ts')) {
  void mcpBench().then((rows) => {
    printTable('MCP echo over stdio', rows);
  });
}
