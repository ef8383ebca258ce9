/**
 * Agent benchmarks:
 * - the loop's own overhead per tool round trip: a zero-latency scripted model and a real file read allowed by the
 *   gate (policy, audit log), against reading the same file directly;
 * - how fast the real chat view keeps up with a streamed answer, against the raw stream read by the openai client.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { runAgent, type ToolRunner } from '../src/core/agent/agent';
import { callHash } from '../src/core/approval/hash';
import { OpenAICompatibleModel, type ChatModel, type TurnResult } from '../src/core/llm/client';
import { startFakeOpenAI } from '../test/fixtures/fakeOpenAI';
import { createMemoryGate, locateUnder } from '../test/fixtures/memoryGate';
import { startCodeServer } from '../test/e2e/harness/codeServer';
import { Workbench } from '../test/e2e/harness/workbench';
import { median, type Row } from './table';

async function loopOverhead(): Promise<Row[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-agent-'));
  const file = path.join(dir, 'data.txt');
  writeFileSync(file, 'x'.repeat(4096));
  const { gate } = createMemoryGate({ locate: locateUnder(dir) }, undefined, { keepAudit: false });
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
  const runner: ToolRunner = {
    run: async (calls, { onStatus }) =>
      Promise.all(
        calls.map(async (call) => {
          const args = JSON.parse(call.arguments) as { path: string };
          const [decision] = gate.request(
            [{ call: { tool: 'read_file', args, argsHash: callHash('read_file', args), target: { input: args.path, absolute: file, real: file, root: dir, relative: args.path } }, preview: { kind: 'none' }, source: 'bench' }],
            { chatId: 'bench' },
          );
          const outcome = await decision;
          onStatus(call.id, 'running');
          const output = outcome?.verdict === 'allow' ? readFileSync(file, 'utf8') : 'denied';
          return { id: call.id, ok: true, output, status: 'done' as const };
        }),
      ),
  };
  // One warm-up run (JIT), then the median of three: single cold runs spread from 17 to 46 µs here.
  const loopSamples: number[] = [];
  const directSamples: number[] = [];
  for (let run = 0; run < 4; run++) {
    remaining = rounds;
    const started = performance.now();
    await runAgent({ model, tools: () => [], runner, systemPrompt: '', maxSteps: rounds + 5 }, [], 'bench', new AbortController().signal, () => undefined);
    loopSamples.push((performance.now() - started) / rounds);
    const directStart = performance.now();
    for (let i = 0; i < rounds; i++) {
      readFileSync(file, 'utf8');
    }
    directSamples.push((performance.now() - directStart) / rounds);
  }
  const looped = median(loopSamples.slice(1));
  const direct = median(directSamples.slice(1));
  gate.dispose();
  rmSync(dir, { recursive: true, force: true });
  return [
    {
      metric: `agent loop + gate per tool round trip (read_file allowed by policy, ${rounds} rounds, zero-latency model; median of 3 warm runs)`,
      value: `${(looped * 1000).toFixed(1)} µs`,
      baseline: `${(direct * 1000).toFixed(1)} µs (direct read)`,
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
