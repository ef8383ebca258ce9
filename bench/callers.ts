/**
 * Other agents' benchmark: one gated call (write_file of a small new file, allowed by a grant the person gave that
 * caller) through each way in, in the real VS Code: Toolgate's own agent (the baseline), VS Code's language-model tool
 * API (vscode.lm.invokeTool, as Copilot agent mode calls it) and Toolgate's MCP endpoint (the MCP SDK's client over
 * streamable HTTP). Grants are limited to the caller they were given to, so each caller is granted once, in the
 * Approvals panel, before it is measured; then no card may appear.
 */
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startFakeOpenAI, type FakeOpenAI, type Turn } from '../test/fixtures/fakeOpenAI';
import { modelSettings } from '../test/e2e/harness/chat';
import { startCodeServer, type CodeServer } from '../test/e2e/harness/codeServer';
import { Control } from '../test/e2e/harness/control';
import { ApprovalsPanelDriver } from '../test/e2e/harness/panel';
import { Workbench } from '../test/e2e/harness/workbench';
import { median, type Row } from './table';

const CALLS = 30;
const WARM_UP = 3;
/**
 * A call that should have been allowed by its grant but waits on a card instead is denied after this long, so its
 * result says it was not written (and the bench throws) rather than hanging. Long enough for the grant cards.
 */
const APPROVAL_TIMEOUT_SECONDS = 60;

interface TaskResult {
  reason: string;
  error?: string;
  transcript: { role: string; content: string | null }[];
}

/** A small file of a few lines, different for every call. */
function content(caller: string, index: number): string {
  return `written by the ${caller} bench\ncall ${index}\n${'x'.repeat(40)}\nthe end\n`;
}

/** The tool's answer for a new file is "Created <path>." (src/core/tools/results.ts): anything else was not written. */
function expectWritten(text: string, relative: string, caller: string): void {
  if (text.trim() !== `Created ${relative}.`) {
    throw new Error(`the ${caller}'s write_file of ${relative} was not allowed by its grant and written: ${text}`);
  }
}

/** The model turns of a task that writes `paths` one per turn, then ends with a text. */
function writeTurns(caller: string, paths: string[]): Turn[] {
  return [
    ...paths.map((relative, index) => ({
      toolCalls: [{ id: `w${index}`, name: 'write_file', arguments: JSON.stringify({ path: relative, content: content(caller, index) }) }],
    })),
    { text: `Wrote ${paths.length} files.` },
  ];
}

class Bench {
  readonly panel: ApprovalsPanelDriver;
  private client: Client | undefined;

  constructor(
    readonly fake: FakeOpenAI,
    readonly control: Control,
    readonly workbench: Workbench,
  ) {
    this.panel = new ApprovalsPanelDriver(workbench);
  }

  // --- the three callers ---

  /** Toolgate's agent: one task whose scripted model writes `paths`, one call per model turn. */
  async agentTask(paths: string[]): Promise<void> {
    this.fake.script(writeTurns('agent', paths));
    const result = await this.control.call<TaskResult>('/command', { command: 'toolgate.runTask', args: [`Write ${paths.length} files`] });
    if (result.reason !== 'finished') {
      throw new Error(`the agent's task ended with ${result.reason}: ${result.error ?? ''}`);
    }
    const results = result.transcript.filter((message) => message.role === 'tool');
    if (results.length !== paths.length) {
      throw new Error(`the agent's task ran ${results.length} tool calls, not ${paths.length}`);
    }
    paths.forEach((relative, index) => expectWritten(results[index]?.content ?? '', relative, 'agent'));
  }

  /** Another extension through VS Code's language-model tool API (via the control extension's loopback HTTP). */
  async lmWrite(relative: string, index: number): Promise<void> {
    const { text } = await this.control.call<{ text: string }>('/lmInvoke', { name: 'toolgate_write_file', input: { path: relative, content: content('lm', index) } });
    expectWritten(text, relative, 'language-model tool caller');
  }

  /** An MCP client (the MCP SDK's) through Toolgate's MCP endpoint. */
  async mcpWrite(relative: string, index: number): Promise<void> {
    if (this.client === undefined) {
      const endpoint = await this.control.call<{ url: string; headers: Record<string, string> }>('/mcpEndpoint');
      const client = new Client({ name: 'toolgate-bench', version: '0.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: endpoint.headers } }));
      this.client = client;
    }
    const result = await this.client.callTool({ name: 'write_file', arguments: { path: relative, content: content('mcp', index) } }, undefined, {
      timeout: (APPROVAL_TIMEOUT_SECONDS + 30) * 1000,
    });
    const text = (result.content as { type: string; text?: string }[]).map((part) => part.text ?? '').join('');
    if (result.isError === true) {
      throw new Error(`the MCP client's write_file of ${relative} failed: ${text}`);
    }
    expectWritten(text, relative, 'MCP client');
  }

  async close(): Promise<void> {
    await this.client?.close();
    this.client = undefined;
  }

  // --- grants and timing ---

  /**
   * The caller's first call waits on a card; the person grants "every write_file call" for the session, to this
   * caller only. Resolves once that call has been written.
   */
  async grant(first: Promise<void>, relative: string): Promise<void> {
    // The call ending before its card shows (failed, or not gated at all) would otherwise leave the wait to time out.
    const failed = first.then((): never => {
      throw new Error(`${relative} was written without a card: the grant step needs its call to ask`);
    });
    const card = await Promise.race([this.panel.waitForCall('write_file', relative, 60_000), failed]);
    await card.locator('[data-field="grant-scope"]').selectOption('tool');
    await this.panel.act(card, 'allow-session');
    await first;
  }

  /** Per-call times, ms, of `CALLS` sequential calls after `WARM_UP` untimed ones. */
  static async timeEach(call: (index: number) => Promise<void>): Promise<number[]> {
    for (let i = 0; i < WARM_UP; i++) {
      await call(i);
    }
    const samples: number[] = [];
    for (let i = WARM_UP; i < WARM_UP + CALLS; i++) {
      const started = performance.now();
      await call(i);
      samples.push(performance.now() - started);
    }
    return samples;
  }
}

const paths = (caller: string, from: number, count: number): string[] => Array.from({ length: count }, (_, i) => `bench/${caller}-${from + i}.txt`);

interface CallerTimes {
  /** The agent's measured task time / CALLS, ms. */
  agentMs: number;
  /** The median time between two model requests of that task (one write_file call and one model round trip), ms. */
  agentTurnMs: number;
  lmMs: number;
  mcpMs: number;
}

async function callerTimes(): Promise<CallerTimes> {
  const fake = await startFakeOpenAI();
  // When the model's requests arrive, for the agent's time per turn (the fixture records them in order).
  const arrivals: number[] = [];
  const record = fake.requests.push.bind(fake.requests);
  fake.requests.push = (...requests) => {
    arrivals.push(performance.now());
    return record(...requests);
  };
  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;
  let bench: Bench | undefined;
  try {
    const control = new Control();
    server = await startCodeServer({
      env: control.env,
      extraExtensions: [control.vsix],
      settings: {
        ...modelSettings(fake),
        // Every new waiting call opens the Approvals panel, the agent's too (the chat view is not open here).
        'toolgate.approvals.revealPanel': 'always',
        'toolgate.approval.timeoutSeconds': APPROVAL_TIMEOUT_SECONDS,
        // The measured task's turns: its calls and the final answer (the default is 25).
        'toolgate.agent.maxSteps': CALLS + 10,
      },
    });
    workbench = await Workbench.open(server);
    bench = new Bench(fake, control, workbench);
    const b = bench;

    // Each caller's grant, all given before anything is measured, so the panel is in the same state for each.
    await b.grant(b.agentTask(['bench/agent-grant.txt']), 'bench/agent-grant.txt');
    await b.grant(b.lmWrite('bench/lm-grant.txt', -1), 'bench/lm-grant.txt');
    await b.grant(b.mcpWrite('bench/mcp-grant.txt', -1), 'bench/mcp-grant.txt');

    // The agent: a warm-up task, then one task of CALLS calls (toolgate.autoApprove.maxConsecutive, 50 by default,
    // counts per task: CALLS stays under it).
    await b.agentTask(paths('agent', 0, WARM_UP));
    const firstRequest = arrivals.length;
    const started = performance.now();
    await b.agentTask(paths('agent', WARM_UP, CALLS));
    const agentMs = (performance.now() - started) / CALLS;
    const turns = arrivals.slice(firstRequest);
    const gaps = turns.slice(1, CALLS + 1).map((at, i) => at - turns[i]!);

    const lm = await Bench.timeEach((i) => b.lmWrite(`bench/lm-${i}.txt`, i));
    const mcp = await Bench.timeEach((i) => b.mcpWrite(`bench/mcp-${i}.txt`, i));

    const waiting = await b.panel.callIds();
    if (waiting.length > 0) {
      throw new Error(`${waiting.length} call(s) wait in the Approvals panel after the bench`);
    }
    return { agentMs, agentTurnMs: median(gaps), lmMs: median(lm), mcpMs: median(mcp) };
  } finally {
    await bench?.close();
    await workbench?.close();
    await server?.stop();
    await fake.close();
  }
}

export async function callersBench(): Promise<Row[]> {
  const { agentMs, agentTurnMs, lmMs, mcpMs } = await callerTimes();
  // The agent's figure holds a model round trip per call (the fake model over local HTTP); the others have no model.
  const baseline = `${agentMs.toFixed(2)} ms (Toolgate's agent: ${CALLS}-call task time / ${CALLS}, each with its model round trip over local HTTP; median turn ${agentTurnMs.toFixed(2)} ms)`;
  const ratio = (ms: number): string => `${(ms / agentMs).toFixed(2)}x the agent`;
  return [
    {
      metric: `write_file through VS Code's language-model tool API (vscode.lm.invokeTool from another extension, reached over loopback HTTP), allowed by a grant to that caller (median of ${CALLS})`,
      value: `${lmMs.toFixed(2)} ms`,
      baseline,
      ratio: ratio(lmMs),
    },
    {
      metric: `write_file through Toolgate's MCP endpoint (MCP SDK client, streamable HTTP), allowed by a grant to that client (median of ${CALLS})`,
      value: `${mcpMs.toFixed(2)} ms`,
      baseline,
      ratio: ratio(mcpMs),
    },
  ];
}
