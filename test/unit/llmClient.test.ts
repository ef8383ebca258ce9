import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import {
  type ChatMessage,
  ModelError,
  type ModelErrorKind,
  OpenAICompatibleModel,
  type ToolSpec,
} from '../../src/core/llm/client';
import { type FakeOpenAI, NO_TURN_LEFT, startFakeOpenAI } from '../fixtures/fakeOpenAI';

const MODEL = 'toolgate-test-model';
const user: ChatMessage[] = [{ role: 'user', content: 'hello' }];

const readFileTool: ToolSpec = {
  name: 'read_file',
  description: 'Read a text file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
};

/** The ModelError a promise must reject with, checked for its kind. */
async function modelErrorOf(promise: Promise<unknown>, kind: ModelErrorKind): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ModelError, `expected a ModelError, got ${String(error)}`);
    assert.equal(error.kind, kind, `expected kind '${kind}', got '${error.kind}': ${error.message}`);
    return error;
  }
  assert.fail(`expected a ModelError of kind '${kind}', but the call succeeded`);
}

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `data:` payloads of an SSE body, `[DONE]` excluded. */
function ssePayloads(body: string): unknown[] {
  return body
    .split('\n\n')
    .filter((event) => event.startsWith('data: ') && event !== 'data: [DONE]')
    .map((event) => JSON.parse(event.slice('data: '.length)) as unknown);
}

describe('OpenAI-compatible model client (against the fake server)', () => {
  let fake: FakeOpenAI;
  let model: OpenAICompatibleModel;

  beforeEach(async () => {
    fake = await startFakeOpenAI();
    model = new OpenAICompatibleModel({ baseUrl: fake.baseUrl, model: MODEL });
  });

  afterEach(async () => {
    await fake.close();
  });

  it('streams plain text: onText gets every delta and they join to the text', async () => {
    const text = 'The quick brown fox jumps over the lazy dog, twice: the quick brown fox jumps again.';
    fake.script([{ text, chunkSize: 5 }]);
    const deltas: string[] = [];
    const result = await model.complete(user, [], { onText: (delta) => deltas.push(delta) });
    assert.equal(result.text, text);
    assert.equal(deltas.join(''), text);
    assert.equal(deltas.length, Math.ceil(text.length / 5));
    assert.deepEqual(result.toolCalls, []);
    assert.equal(result.finishReason, 'stop');
  });

  it('assembles one tool call whose arguments arrive in many small chunks', async () => {
    const args = JSON.stringify({ path: 'src/deeply/nested/folder/with "quotes" and \\ backslashes/file.ts' });
    fake.script([{ toolCalls: [{ id: 'call_abc', name: 'read_file', arguments: args }], chunkSize: 2 }]);
    const deltas: string[] = [];
    const result = await model.complete(user, [readFileTool], { onText: (delta) => deltas.push(delta) });
    assert.deepEqual(result.toolCalls, [{ id: 'call_abc', name: 'read_file', arguments: args }]);
    assert.equal(result.text, '');
    assert.deepEqual(deltas, []);
    assert.equal(result.finishReason, 'tool_calls');
  });

  it('returns two parallel tool calls of one turn, in order, with their ids', async () => {
    fake.script([
      {
        text: 'Reading both.',
        toolCalls: [
          { id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' },
          { id: 'call_2', name: 'list_files', arguments: '{"path":"some/folder"}' },
        ],
        chunkSize: 3,
      },
    ]);
    const result = await model.complete(user, [readFileTool], {});
    assert.equal(result.text, 'Reading both.');
    assert.deepEqual(result.toolCalls, [
      { id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' },
      { id: 'call_2', name: 'list_files', arguments: '{"path":"some/folder"}' },
    ]);
    assert.equal(result.finishReason, 'tool_calls');
  });

  it('sends the conversation and tools in the OpenAI format, streaming', async () => {
    fake.script([{ text: 'done' }]);
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are careful.' },
      { role: 'user', content: 'Read a.txt' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' }] },
      { role: 'tool', toolCallId: 'call_1', content: 'contents of a' },
    ];
    await model.complete(messages, [readFileTool], {});
    assert.equal(fake.requests.length, 1);
    const request = fake.requests[0];
    assert.ok(request !== undefined);
    assert.ok(isRecord(request.body));
    assert.equal(request.body['model'], MODEL);
    assert.equal(request.body['stream'], true);
    assert.deepEqual(request.body['messages'], [
      { role: 'system', content: 'You are careful.' },
      { role: 'user', content: 'Read a.txt' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'contents of a' },
    ]);
    assert.deepEqual(request.body['tools'], [
      {
        type: 'function',
        function: { name: 'read_file', description: 'Read a text file.', parameters: readFileTool.parameters },
      },
    ]);
    assert.equal(request.headers['authorization'], 'Bearer not-needed');
  });

  it('leaves tools out of the request when there are none, and sends the API key it was given', async () => {
    const keyed = new OpenAICompatibleModel({ baseUrl: fake.baseUrl, model: MODEL, apiKey: 'sk-test-123' });
    fake.script([{ text: 'hi' }]);
    await keyed.complete(user, [], {});
    const request = fake.requests[0];
    assert.ok(request !== undefined && isRecord(request.body));
    assert.equal('tools' in request.body, false);
    assert.equal(request.headers['authorization'], 'Bearer sk-test-123');
  });

  it('retries a 429 and succeeds', async () => {
    fake.script([{ error: { status: 429, message: 'Rate limit reached', code: 'rate_limit_exceeded' } }, { text: 'after the wait' }]);
    const result = await model.complete(user, [], {});
    assert.equal(result.text, 'after the wait');
    assert.equal(fake.requests.length, 2);
    assert.equal(fake.remaining(), 0);
  });

  it('says before each retry what failed, which attempt comes and how long it waits', async () => {
    const notices: unknown[] = [];
    fake.script([
      { error: { status: 503, message: 'overloaded', retryAfterMs: 20 } },
      { error: { status: 429, message: 'Slow down', retryAfterMs: 10 } },
      { text: 'at last' },
    ]);
    const result = await model.complete(user, [], { onRetry: (notice) => notices.push(notice) });
    assert.equal(result.text, 'at last');
    assert.deepEqual(notices, [
      { attempt: 2, maxAttempts: 3, delayMs: 20, reason: 'answered 503 (overloaded)' },
      { attempt: 3, maxAttempts: 3, delayMs: 10, reason: 'answered 429 (Slow down)' },
    ]);
  });

  it('stops waiting for a retry when the task is stopped', async () => {
    const controller = new AbortController();
    fake.script([{ error: { status: 503, message: 'overloaded', retryAfterMs: 30_000 } }, { text: 'never' }]);
    const pending = model.complete(user, [], { signal: controller.signal, onRetry: () => controller.abort() });
    await modelErrorOf(pending, 'cancelled');
    assert.equal(fake.requests.length, 1);
  });

  it('gives up on repeated 429s with kind rate-limited', async () => {
    const once = new OpenAICompatibleModel({ baseUrl: fake.baseUrl, model: MODEL, maxRetries: 1 });
    fake.script([
      { error: { status: 429, message: 'Slow down', retryAfterMs: 1 } },
      { error: { status: 429, message: 'Slow down', retryAfterMs: 1 } },
    ]);
    const error = await modelErrorOf(once.complete(user, [], {}), 'rate-limited');
    assert.match(error.message, /Slow down/);
    assert.equal(fake.requests.length, 2);
  });

  it('maps 401 to kind auth, pointing at Set API Key', async () => {
    fake.script([{ error: { status: 401, message: 'Incorrect API key provided', code: 'invalid_api_key' } }]);
    const error = await modelErrorOf(model.complete(user, [], {}), 'auth');
    assert.match(error.message, /refused the API key/);
    assert.match(error.message, /Toolgate: Set API Key/);
    assert.equal(error.status, 401);
    assert.equal(fake.requests.length, 1, 'a 401 is not retried');
  });

  it('maps 403 to kind auth', async () => {
    fake.script([{ error: { status: 403, message: 'Forbidden' } }]);
    await modelErrorOf(model.complete(user, [], {}), 'auth');
  });

  it('maps an unknown model (404) to kind model-not-found, naming the model', async () => {
    const unknown = new OpenAICompatibleModel({ baseUrl: fake.baseUrl, model: 'no-such-model' });
    const error = await modelErrorOf(unknown.complete(user, [], {}), 'model-not-found');
    assert.match(error.message, /'no-such-model'/);
    assert.equal(error.status, 404);
  });

  it("maps Ollama's 404 'model not found, try pulling it first' to model-not-found", async () => {
    fake.script([{ error: { status: 404, message: 'model "llama9" not found, try pulling it first' } }]);
    await modelErrorOf(model.complete(user, [], {}), 'model-not-found');
  });

  it('maps a 400 saying tools are not supported to kind no-tool-support', async () => {
    fake.script([{ error: { status: 400, message: 'registry.ollama.ai/library/gemma:2b does not support tools' } }]);
    const error = await modelErrorOf(model.complete(user, [readFileTool], {}), 'no-tool-support');
    assert.match(error.message, new RegExp(MODEL));
  });

  it('maps any other 400 to kind server with the endpoint message', async () => {
    fake.script([{ error: { status: 400, message: 'messages must not be empty' } }]);
    const error = await modelErrorOf(model.complete(user, [], {}), 'server');
    assert.match(error.message, /400: messages must not be empty/);
  });

  it('maps a closed port to kind unreachable, naming the base URL', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const nowhere = new OpenAICompatibleModel({ baseUrl, model: MODEL, maxRetries: 0 });
    const error = await modelErrorOf(nowhere.complete(user, [], {}), 'unreachable');
    assert.ok(error.message.includes(baseUrl), error.message);
    assert.match(error.message, /ECONNREFUSED/);
    assert.match(error.message, /: check that the server is running and that 'toolgate\.model\.baseUrl' points to it$/);
  });

  it('cancels promptly when aborted during a slow stream', async () => {
    // 200 chunks 200 ms apart: far beyond the test timeout unless the abort really stops the stream.
    fake.script([{ text: 'x'.repeat(200), chunkSize: 1, delayMs: 200 }]);
    const controller = new AbortController();
    const deltas: string[] = [];
    const pending = model.complete(user, [], {
      signal: controller.signal,
      onText: (delta) => {
        deltas.push(delta);
        if (deltas.length === 2) {
          controller.abort();
        }
      },
    });
    await modelErrorOf(pending, 'cancelled');
    assert.equal(deltas.length, 2);
    assert.equal(fake.requests.length, 1, 'a cancelled request is not retried');
  });

  it('refuses at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await modelErrorOf(model.complete(user, [], { signal: controller.signal }), 'cancelled');
    assert.equal(fake.requests.length, 0);
  });

  it("reports the fake server's empty queue as kind server with its message", async () => {
    const error = await modelErrorOf(model.complete(user, [], {}), 'server');
    assert.ok(error.message.includes(NO_TURN_LEFT), error.message);
    assert.equal(error.status, 500);
    assert.equal(fake.requests.length, 1, 'the fake server tells the client not to retry');
  });

  it('maps a 500 that persists through the retries to kind server', async () => {
    const once = new OpenAICompatibleModel({ baseUrl: fake.baseUrl, model: MODEL, maxRetries: 1 });
    fake.script([
      { error: { status: 503, message: 'overloaded', retryAfterMs: 1 } },
      { error: { status: 503, message: 'still overloaded', retryAfterMs: 1 } },
    ]);
    const error = await modelErrorOf(once.complete(user, [], {}), 'server');
    assert.match(error.message, /503: still overloaded/);
    assert.equal(fake.requests.length, 2);
  });

  it('maps a stream that stops before a finish_reason to kind bad-response', async () => {
    const chunk = { id: 'x', object: 'chat.completion.chunk', created: 0, model: MODEL, choices: [{ index: 0, delta: { content: 'half' }, finish_reason: null }] };
    const truncated: typeof fetch = () =>
      Promise.resolve(new Response(`data: ${JSON.stringify(chunk)}\n\n`, { headers: { 'content-type': 'text/event-stream' } }));
    const cut = new OpenAICompatibleModel({ baseUrl: fake.baseUrl, model: MODEL, fetch: truncated });
    const error = await modelErrorOf(cut.complete(user, [], {}), 'bad-response');
    assert.match(error.message, /ended before the model finished/);
  });

  it('maps a stream event that is not JSON to kind bad-response', async () => {
    const garbled: typeof fetch = () =>
      Promise.resolve(new Response('data: {not json\n\n', { headers: { 'content-type': 'text/event-stream' } }));
    const broken = new OpenAICompatibleModel({ baseUrl: fake.baseUrl, model: MODEL, fetch: garbled });
    await modelErrorOf(broken.complete(user, [], {}), 'bad-response');
  });

  it('rejects a tool message without toolCallId before sending anything', async () => {
    await assert.rejects(model.complete([{ role: 'tool', content: 'x' }], [], {}), /toolCallId/);
    assert.equal(fake.requests.length, 0);
  });
});

describe('fake OpenAI server (fixture self-test)', () => {
  let fake: FakeOpenAI;

  beforeEach(async () => {
    fake = await startFakeOpenAI({ models: ['model-a', 'model-b'] });
  });

  afterEach(async () => {
    await fake.close();
  });

  const post = (body: unknown): Promise<Response> =>
    fetch(`${fake.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('lists the models it was given', async () => {
    const response = await fetch(`${fake.baseUrl}/models`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as { object: string; data: { id: string; object: string }[] };
    assert.equal(body.object, 'list');
    assert.deepEqual(
      body.data.map((entry) => [entry.id, entry.object]),
      [
        ['model-a', 'model'],
        ['model-b', 'model'],
      ],
    );
  });

  it('answers a non-streaming request with one JSON completion', async () => {
    fake.script([{ text: 'Looking.', toolCalls: [{ id: 'call_9', name: 'read_file', arguments: '{"path":"b"}' }] }]);
    const response = await post({ model: 'model-b', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /application\/json/);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body['object'], 'chat.completion');
    assert.equal(body['model'], 'model-b');
    assert.deepEqual(body['choices'], [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'Looking.',
          refusal: null,
          tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'read_file', arguments: '{"path":"b"}' } }],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ]);
    assert.equal(fake.requests.length, 1);
  });

  it('streams in the OpenAI chunk shape: id and name only in the first delta of each call', async () => {
    fake.script([
      {
        toolCalls: [
          { id: 'c0', name: 'one', arguments: '{"a":"0123456789"}' },
          { id: 'c1', name: 'two', arguments: '{}' },
        ],
      },
    ]);
    const response = await post({ model: 'model-a', messages: [], stream: true });
    assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
    const raw = await response.text();
    assert.ok(raw.trimEnd().endsWith('data: [DONE]'));
    const chunks = ssePayloads(raw) as {
      object: string;
      choices: { delta: { tool_calls?: { index: number; id?: string; function: { name?: string; arguments: string } }[] }; finish_reason: string | null }[];
    }[];
    assert.ok(chunks.every((chunk) => chunk.object === 'chat.completion.chunk'));
    const calls = chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
    const first = calls.filter((call) => call.index === 0);
    assert.equal(first.length, 3, '18 characters of arguments in chunks of 7');
    assert.deepEqual(
      first.map((call) => [call.id, call.function.name]),
      [
        ['c0', 'one'],
        [undefined, undefined],
        [undefined, undefined],
      ],
    );
    assert.equal(first.map((call) => call.function.arguments).join(''), '{"a":"0123456789"}');
    assert.deepEqual(
      calls.filter((call) => call.index === 1).map((call) => [call.id, call.function.name, call.function.arguments]),
      [['c1', 'two', '{}']],
    );
    const finishes = chunks.map((chunk) => chunk.choices[0]?.finish_reason);
    assert.equal(finishes.at(-1), 'tool_calls');
    assert.ok(finishes.slice(0, -1).every((reason) => reason === null));
  });

  it('answers a scripted error with its status and an OpenAI-style error body', async () => {
    fake.script([{ error: { status: 418, message: 'teapot', code: 'short_and_stout' } }]);
    const response = await post({ model: 'model-a', messages: [] });
    assert.equal(response.status, 418);
    const body = (await response.json()) as { error: { message: string; type: string; code: string } };
    assert.equal(body.error.message, 'teapot');
    assert.equal(body.error.code, 'short_and_stout');
    assert.equal(typeof body.error.type, 'string');
  });

  it('answers 500 with a clear message when no turn is left', async () => {
    const response = await post({ model: 'model-a', messages: [] });
    assert.equal(response.status, 500);
    const body = (await response.json()) as { error: { message: string } };
    assert.equal(body.error.message, NO_TURN_LEFT);
  });

  it('closes while a slow stream is still open', async () => {
    fake.script([{ text: 'slow'.repeat(50), chunkSize: 1, delayMs: 100 }]);
    const response = await post({ model: 'model-a', messages: [], stream: true });
    const reading = response.text();
    await fake.close();
    await assert.rejects(reading);
  });
});
