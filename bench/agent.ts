/**
 * Agent benchmarks:
 * - the production path's own overhead per tool round trip (AgentSession, the agent loop, ToolService, the gate with
 *   its policy and audit log) with a zero-latency scripted model and a read allowed by policy, against the same read
 *   from the files port directly;
 * - how fast the real chat view keeps up with a streamed answer, against the raw stream read by the openai client.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ChatBook } from '../src/core/agent/chats';
import { AgentSession } from '../src/core/agent/session';
import { OpenAICompatibleModel, type ChatModel, type TurnResult } from '../src/core/llm/client';
import { startFakeOpenAI } from '../test/fixtures/fakeOpenAI';
import { MemoryFiles, memoryToolService } from '../test/fixtures/memoryFiles';
import { createMemoryGate, locateUnder, MemoryStore } from '../test/fixtures/memoryGate';
import { startCodeServer } from '../test/e2e/harness/codeServer';
import { Workbench } from '../test/e2e/harness/workbench';
import { median, type Row } from './table';

/** The production path over in-memory ports: AgentSession -> runAgent -> ToolService -> gate (policy, audit) -> files. */
function productionSession(model: ChatModel, rounds: number, root: string) {
  const { gate } = createMemoryGate({ locate: locateUnder(root) }, undefined, { keepAudit: false });
  const files = new MemoryFiles({ [path.join(root, 'data.txt')]: 'x'.repeat(4096) });
  const { service: tools, log } = memoryToolService(gate, files, { root });
  const chats = new ChatBook(new MemoryStore(), log);
  const session = new AgentSession({
    chats,
    tools,
    gate,
    endSessionGrants: () => undefined,
    model: () => Promise.resolve(model),
    maxSteps: () => rounds + 5,
    mcp: { specs: () => [], servers: () => [], whenConfigured: () => Promise.resolve(), whenSettled: () => Promise.resolve() },
    explainModelFailure: (error) => Promise.resolve({ text: error }),
    onRunning: () => undefined,
    log,
  });
  return {
    session,
    files,
    dispose: () => {
      chats.dispose();
      gate.dispose();
    },
  };
}

async function loopOverhead(): Promise<Row[]> {
  const rounds = 2000;
  let remaining = rounds;
  const model: ChatModel = {
    complete: (): Promise<TurnResult> => {
      remaining -= 1;
      return Promise.resolve(
        remaining >= 0
          ? { text: '', toolCalls: [{ id: `c${remaining}`, name: 'read_file', arguments: '{"path":"data.txt"}' }], finishReason: 'tool_calls' }
          : { text: 'done', toolCalls: [], finishReason: 'stop' },
      );
    },
  };
  // One warm-up run (JIT), then the median of three: single cold runs spread from 17 to 46 µs here.
  const loopSamples: number[] = [];
  const directSamples: number[] = [];
  // The path resolver reads the real file system (realpath and one stat per path, as for a person's workspace): a
  // folder that exists, holding the file read, or every read would cost the exceptions of paths that do not.
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-bench-agent-')));
  writeFileSync(path.join(root, 'data.txt'), 'x'.repeat(4096));
  for (let run = 0; run < 4; run++) {
    const { session, files, dispose } = productionSession(model, rounds, root);
    remaining = rounds;
    const started = performance.now();
    const result = await session.runTask('bench');
    loopSamples.push((performance.now() - started) / rounds);
    if (result.reason !== 'finished') {
      throw new Error(`the bench task ended with ${result.reason}: ${result.error ?? ''}`);
    }
    const directStart = performance.now();
    for (let i = 0; i < rounds; i++) {
      await files.snapshot(path.join(root, 'data.txt'));
    }
    directSamples.push((performance.now() - directStart) / rounds);
    dispose();
  }
  rmSync(root, { recursive: true, force: true });
  const looped = median(loopSamples.slice(1));
  const direct = median(directSamples.slice(1));
  return [
    {
      metric: `agent session + tool service + gate per tool round trip (production path: read_file allowed by policy, ${rounds} rounds, zero-latency model, in-memory files port; median of 3 warm runs)`,
      value: `${(looped * 1000).toFixed(1)} µs`,
      baseline: `${(direct * 1000).toFixed(1)} µs (the same read from the files port)`,
      ratio: `+${((looped - direct) * 1000).toFixed(1)} µs`,
    },
  ];
}

async function streamingRate(): Promise<Row[]> {
  const fake = await startFakeOpenAI();
  const words = Array.from({ length: 6000 }, (_, i) => `word${i % 97}`).join(' ');
  const text = `# Streaming\n\n${words}`;
  // Baseline: the same stream consumed by the openai client alone, in this process.
  const client = new OpenAICompatibleModel({ baseUrl: fake.baseUrl, model: 'toolgate-test-model' });
  const rawSamples: number[] = [];
  let rawChunks = 0;
  for (let run = 0; run < 4; run++) {
    fake.script([{ text, chunkSize: 4 }]);
    rawChunks = 0;
    const rawStart = performance.now();
    await client.complete([{ role: 'user', content: 'go' }], [], { onText: () => rawChunks++ });
    rawSamples.push(performance.now() - rawStart);
  }
  const rawMs = median(rawSamples.slice(1));

  const server = await startCodeServer({ settings: { 'toolgate.model.baseUrl': fake.baseUrl, 'toolgate.model.name': 'toolgate-test-model' } });
  const workbench = await Workbench.open(server);
  const samples: number[] = [];
  try {
    await workbench.page.locator('.activitybar [aria-label^="Toolgate"]').first().click();
    const frame = await workbench.webviewFrame('body[data-view="chat"] main#root[data-state="connected"]', 30_000);
    for (let run = 0; run < 3; run++) {
      fake.script([{ text, chunkSize: 4 }]);
      await frame.locator('[data-field="prompt"]').fill(`stream ${run}`);
      const started = Date.now();
      await frame.locator('[data-action="send"]').click();
      await frame.locator('[data-entry="assistant"][data-streaming="false"]', { hasText: 'word96' }).nth(run).waitFor({ timeout: 120_000 });
      samples.push(Date.now() - started);
    }
  } finally {
    await workbench.close();
    await server.stop();
    await fake.close();
  }
  const viewMs = median(samples);
  const tokens = Math.round(text.length / 4);
  return [
    {
      metric: `chat view: streamed answer fully rendered (${text.length} chars ≈ ${tokens} tokens, ${rawChunks} chunks; median of 3)`,
      value: `${Math.round((tokens / viewMs) * 1000)} tokens/s`,
      baseline: `${Math.round((tokens / rawMs) * 1000)} tokens/s (raw stream)`,
      ratio: `${(viewMs / rawMs).toFixed(2)}x the time`,
    },
  ];
}

export async function agentBench(): Promise<Row[]> {
  return [...(await loopOverhead()), ...(await streamingRate())];
}
