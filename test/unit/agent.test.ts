import * as assert from 'node:assert/strict';
import { runAgent, type AgentEvent, type ToolOutcome, type ToolRunner } from '../../src/core/agent/agent';
import { ModelError, type ChatMessage, type ChatModel } from '../../src/core/llm/client';
import { calls, ScriptedModel, text } from '../fixtures/scriptedModel';

function runner(outcome: (id: string, name: string) => Omit<ToolOutcome, 'id'>): ToolRunner & { batches: string[][] } {
  const batches: string[][] = [];
  return {
    batches,
    run: (toolCalls, { onStatus }) => {
      batches.push(toolCalls.map((call) => call.id));
      return Promise.resolve(
        toolCalls.map((call) => {
          onStatus(call.id, 'running');
          return { id: call.id, ...outcome(call.id, call.name) };
        }),
      );
    },
  };
}

const options = (model: ChatModel, toolRunner: ToolRunner, maxSteps = 10) => ({ model, tools: () => [], runner: toolRunner, systemPrompt: 'sys', maxSteps });

describe('the agent loop', () => {
  it('finishes when the model answers without tools', async () => {
    const model = new ScriptedModel([text('hi')]);
    const events: AgentEvent[] = [];
    const result = await runAgent(options(model, runner(() => ({ ok: true, output: '', status: 'done' }))), [], 'hello', new AbortController().signal, (e) => events.push(e));
    assert.equal(result.reason, 'finished');
    assert.equal(result.answer, 'hi');
    assert.deepEqual(model.seen[0]?.map((m) => m.role), ['system', 'user']);
    assert.deepEqual(events.map((e) => e.type), ['turnStart', 'text', 'done']);
  });

  it('sends one turn\'s calls as one batch and returns results to the model in order', async () => {
    const model = new ScriptedModel([calls(['c1', 'write_file', { path: 'a' }], ['c2', 'write_file', { path: 'b' }]), text('done')]);
    const tools = runner((id) => ({ ok: true, output: `result of ${id}`, status: 'done' }));
    const result = await runAgent(options(model, tools), [], 'go', new AbortController().signal, () => undefined);
    assert.deepEqual(tools.batches, [['c1', 'c2']]);
    const second = model.seen[1] ?? [];
    assert.deepEqual(second.filter((m) => m.role === 'tool').map((m) => [m.toolCallId, m.content]), [['c1', 'result of c1'], ['c2', 'result of c2']]);
    assert.equal(result.reason, 'finished');
  });

  it('tells the model what the person decided and carries on', async () => {
    const model = new ScriptedModel([calls(['c1', 'write_file', { path: 'a' }]), text('ok, another way')]);
    const denied = 'The person denied this call and said: "not there". Nothing was changed.';
    const result = await runAgent(options(model, runner(() => ({ ok: false, output: denied, status: 'denied' }))), [], 'go', new AbortController().signal, () => undefined);
    assert.equal(model.seen[1]?.at(-1)?.content, denied);
    assert.equal(result.answer, 'ok, another way');
  });

  it('continues from earlier history of the same chat', async () => {
    const model = new ScriptedModel([text('second answer')]);
    const history: ChatMessage[] = [{ role: 'system', content: 'sys' }, { role: 'user', content: 'first' }, { role: 'assistant', content: 'first answer' }];
    const result = await runAgent(options(model, runner(() => ({ ok: true, output: '', status: 'done' }))), history, 'again', new AbortController().signal, () => undefined);
    assert.deepEqual(model.seen[0]?.map((m) => m.content), ['sys', 'first', 'first answer', 'again']);
    assert.equal(result.messages.length, 5);
  });

  it('stops at the step limit and says so', async () => {
    const model = new ScriptedModel([calls(['c1', 'read_file', { path: 'a' }]), calls(['c2', 'read_file', { path: 'a' }]), calls(['c3', 'read_file', { path: 'a' }])]);
    const result = await runAgent(options(model, runner(() => ({ ok: true, output: 'x', status: 'done' })), 2), [], 'loop', new AbortController().signal, () => undefined);
    assert.equal(result.reason, 'step-limit');
    assert.match(result.error ?? '', /stopped after 2 steps/);
  });

  it('reports a model error with its message and kind', async () => {
    const model = new ScriptedModel([new ModelError('auth', "the endpoint refused the API key: run 'Toolgate: Set API Key'")]);
    const events: AgentEvent[] = [];
    const result = await runAgent(options(model, runner(() => ({ ok: true, output: '', status: 'done' }))), [], 'go', new AbortController().signal, (e) => events.push(e));
    assert.equal(result.reason, 'error');
    assert.match(result.error ?? '', /Set API Key/);
    assert.equal(result.errorKind, 'auth');
    assert.deepEqual(events.at(-1), { type: 'done', reason: 'error', error: result.error, errorKind: 'auth' });
    const other = await runAgent(options(new ScriptedModel([new Error('a bug')]), runner(() => ({ ok: true, output: '', status: 'done' }))), [], 'go', new AbortController().signal, () => undefined);
    assert.deepEqual([other.reason, other.error, other.errorKind], ['error', 'a bug', undefined]);
  });

  it('waits for beforeFirstTurn, then offers the tools as they are at each turn', async () => {
    const order: string[] = [];
    const offered: string[][] = [];
    let tools = [{ name: 'read_file', description: '', parameters: {} }];
    const model: ChatModel = {
      complete: (_messages, specs) => {
        order.push('turn');
        offered.push(specs.map((spec) => spec.name));
        return Promise.resolve(offered.length === 1 ? calls(['c1', 'read_file', { path: 'a' }]) : text('done'));
      },
    };
    const result = await runAgent(
      {
        ...options(
          model,
          runner(() => {
            // A server that came up while the first turn's calls ran: the next turn offers its tool.
            tools = [...tools, { name: 'mcp__git__status', description: '', parameters: {} }];
            return { ok: true, output: 'x', status: 'done' };
          }),
        ),
        tools: () => tools,
        beforeFirstTurn: async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          order.push('waited');
          tools = [...tools, { name: 'mcp__fs__write_file', description: '', parameters: {} }];
        },
      },
      [],
      'go',
      new AbortController().signal,
      () => undefined,
    );
    assert.equal(result.reason, 'finished');
    assert.deepEqual(order, ['waited', 'turn', 'turn']);
    assert.deepEqual(offered, [
      ['read_file', 'mcp__fs__write_file'],
      ['read_file', 'mcp__fs__write_file', 'mcp__git__status'],
    ]);
  });

  it('is cancelled while it waits before the first turn, and asks the model nothing', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([text('must not be asked')]);
    const result = await runAgent(
      {
        ...options(model, runner(() => ({ ok: true, output: '', status: 'done' }))),
        beforeFirstTurn: (signal) =>
          new Promise<void>((resolve) => {
            signal.addEventListener('abort', () => resolve());
            controller.abort();
          }),
      },
      [],
      'go',
      controller.signal,
      () => undefined,
    );
    assert.equal(result.reason, 'cancelled');
    assert.equal(model.seen.length, 0);
  });

  it('is cancelled while the model streams', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([
      (signal) =>
        new Promise((_, reject) => {
          signal?.addEventListener('abort', () => reject(new ModelError('cancelled', 'cancelled')));
        }),
    ]);
    const pending = runAgent(options(model, runner(() => ({ ok: true, output: '', status: 'done' }))), [], 'go', controller.signal, () => undefined);
    controller.abort();
    assert.equal((await pending).reason, 'cancelled');
  });

  it('makes no further model turn when cancelled while tools run', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([calls(['c1', 'write_file', { path: 'a' }]), text('must not be asked')]);
    const tools: ToolRunner = {
      run: (toolCalls) => {
        controller.abort();
        return Promise.resolve(toolCalls.map((call) => ({ id: call.id, ok: false, output: 'The call was not run: the task was stopped.', status: 'denied' as const })));
      },
    };
    const result = await runAgent(options(model, tools), [], 'go', controller.signal, () => undefined);
    assert.equal(result.reason, 'cancelled');
    assert.equal(model.seen.length, 1);
  });

  it('turns a runner failure into failed results for every call, and carries on', async () => {
    const model = new ScriptedModel([calls(['c1', 'write_file', { path: 'a' }]), text('recovered')]);
    const tools: ToolRunner = { run: () => Promise.reject(new Error('disk on fire')) };
    const events: AgentEvent[] = [];
    const result = await runAgent(options(model, tools), [], 'go', new AbortController().signal, (e) => events.push(e));
    assert.match(model.seen[1]?.at(-1)?.content ?? '', /Error: the tool could not be run: disk on fire/);
    assert.ok(events.some((e) => e.type === 'toolStatus' && e.status === 'failed'));
    assert.equal(result.reason, 'finished');
  });
});
