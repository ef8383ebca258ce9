/**
 * MCP benchmark: the median time of an `echo` call to the stdio fixture server through a bare SDK Client, against
 * the same call through McpManager.callTool (its bookkeeping on top of the SDK), and through the tool service and the
 * gate with a grant. Each way has a server process of its own, called as often as the others: with one server shared by
 * the manager and the gated call, that server was twice as warm as the bare client's, and the manager read 0.7-0.9x of
 * the bare client for no reason of its own. Run alone: `npx tsx bench/mcp.ts`.
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

/**
 * The median of each way's calls, taken in turns (one call each way, then again, each turn starting with the next
 * way): this machine's speed drifts by 2x and more within a minute, and three ways timed one after the other would each
 * see another machine; a fixed order would charge each way with what the one before it left (its garbage, its I/O).
 */
async function timeInTurns(n: number, ways: readonly ((i: number) => Promise<unknown>)[]): Promise<number[]> {
  for (let i = 0; i < 20; i++) {
    for (const call of ways) {
      await call(i); // warm up
    }
  }
  const samples = ways.map((): number[] => []);
  for (let i = 0; i < n; i++) {
    for (let turn = 0; turn < ways.length; turn++) {
      const index = (i + turn) % ways.length;
      const started = performance.now();
      await ways[index]?.(i);
      samples[index]?.push(performance.now() - started);
    }
  }
  return samples.map((taken) => median(taken));
}

export async function mcpDirectBench(n = 500): Promise<{ directMs: number; managerMs: number; gatedMs: number }> {
  const client = new Client({ name: 'toolgate-bench', version: '0.0.0' }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ARGS, cwd: process.cwd(), stderr: 'ignore' }));
  const manager = new McpManager();
  try {
    const server = (name: string) =>
      ({ name, origin: 'user', source: 'bench', requireApproval: 'all', sandbox: false, type: 'stdio', command: process.execPath, args: ARGS, env: {}, cwd: process.cwd() }) as const;
    await manager.setServers([server('fixture'), server('gated')]);
    const tool = manager.server('gated')?.tools.find((candidate) => candidate.name === 'echo');
    if (!tool) {
      throw new Error('the fixture offers no echo tool');
    }
    const { gate, grants } = createMemoryGate({ gatedTools: {}, protectedPaths: [], locate: locateUnder(null) }, undefined, { keepAudit: false });
    await grants.add({ id: 'g-bench', tool: 'mcp__gated__echo', matcher: { kind: 'tool' }, scope: 'workspace', createdAt: new Date().toISOString(), definitionHash: tool.definitionHash }, 'bench');
    const { service } = memoryToolService(gate, new MemoryFiles(), {
      mcp: {
        resolve: (name) => (name === 'mcp__gated__echo' ? { modelName: name, server: 'gated', tool, gated: true } : undefined),
        call: (server, name, args, options) => manager.callTool(server, name, args, options),
      },
    });
    try {
      const [directMs = NaN, managerMs = NaN, gatedMs = NaN] = await timeInTurns(n, [
        (i) => client.callTool({ name: 'echo', arguments: { text: `call ${String(i)}` } }),
        (i) => manager.callTool('fixture', 'echo', { text: `call ${String(i)}` }),
        async (i) => {
          const [result] = await service.runBatch([{ tool: 'mcp__gated__echo', args: { text: `call ${String(i)}` } }], { chatId: 'bench' });
          if (result?.decision?.verdict !== 'allow' || !result.ok) {
            throw new Error(`the granted call was not allowed and run: ${result?.output ?? 'no result'}`);
          }
          return result;
        },
      ]);
      return { directMs, managerMs, gatedMs };
    } finally {
      gate.dispose();
    }
  } finally {
    await client.close();
    await manager.close();
  }
}

export async function mcpBench(): Promise<Row[]> {
  const { directMs, managerMs, gatedMs } = await mcpDirectBench();
  const baseline = `${directMs.toFixed(3)} ms (bare SDK client)`;
  return [
    { metric: 'MCP echo over stdio via McpManager.callTool (median of 500, in turns with the baseline)', value: `${managerMs.toFixed(3)} ms`, baseline, ratio: `${(managerMs / directMs).toFixed(2)}x` },
    { metric: 'MCP echo, gated but granted: ToolService + gate decision + McpManager (median of 500, in turns with the baseline)', value: `${gatedMs.toFixed(3)} ms`, baseline, ratio: `${(gatedMs / directMs).toFixed(2)}x` },
  ];
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve('bench/mcp.ts')) {
  void mcpBench().then((rows) => {
    printTable('MCP echo over stdio', rows);
  });
}
