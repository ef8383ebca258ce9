/**
 * The model client behind a small interface: one streamed chat turn against any OpenAI-compatible endpoint
 * (OpenAI, Ollama, LM Studio, vLLM, OpenRouter), with its failures mapped to `ModelError`s a person can act on.
 */
import type { APIError, OpenAI } from 'openai';
import type * as OpenAIPackage from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';

import { retryDelayMs, waitFor } from './retry';

type OpenAIModule = typeof OpenAIPackage;
let openaiLoading: Promise<OpenAIModule> | undefined;

/**
 * The openai package, loaded on the first model request: it is the largest part of the host bundle and activation
 * does not need it. The extension bundles it as its own file (see esbuild.mjs), imported with `import()`.
 */
function loadOpenAI(): Promise<OpenAIModule> {
  openaiLoading ??= import('openai');
  return openaiLoading;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The raw JSON string from the model (an empty string from the model becomes `{}`). */
  arguments: string;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  toolCalls?: ToolCall[];
  toolCallId?: string;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface TurnResult {
  text: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
}

/** A failed request that is tried again after `delayMs`: attempt `attempt` of `maxAttempts` comes next. */
export interface RetryNotice {
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  /** What went wrong: "answered 503 (overloaded)", "could not be reached (ECONNREFUSED)". */
  reason: string;
}

export interface CompleteOptions {
  signal?: AbortSignal;
  onText?: (delta: string) => void;
  /** Called before each wait for a retry, so the person sees that the request goes on and for how long it waits. */
  onRetry?: (notice: RetryNotice) => void;
}

export interface ChatModel {
  complete(messages: ChatMessage[], tools: ToolSpec[], options: CompleteOptions): Promise<TurnResult>;
}

export type ModelErrorKind =
  | 'auth'
  | 'model-not-found'
  | 'unreachable'
  | 'no-tool-support'
  | 'rate-limited'
  | 'server'
  | 'cancelled'
  | 'bad-response'
  /** Not asked at all: the managed settings file does not allow this model endpoint. */
  | 'refused';

export class ModelError extends Error {
  override readonly name = 'ModelError';
  readonly kind: ModelErrorKind;
  /** The HTTP status, when the endpoint answered. */
  readonly status: number | undefined;

  constructor(kind: ModelErrorKind, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.status = options.status;
  }
}

export interface OpenAICompatibleModelOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Retries on 408/409/429/5xx and connection errors, with the openai package's backoff (default 2). */
  maxRetries?: number;
  fetch?: typeof fetch;
}

const TOOLS_WORDS = /\b(tools?|tool[ _-]?(use|calls?|calling|choice)|functions?|function[ _-]?calling)\b/i;
const UNSUPPORTED_WORDS = /\b(not|n't|un)\s*supported?\b|\bunsupported\b|does not support|doesn't support|no endpoints found|enable-auto-tool-choice/i;
const MODEL_NOT_FOUND = /model.*(not (be )?found|does not exist|doesn't exist|unknown|no such)|(unknown|no such|invalid) model|try pulling/i;

function toOpenAIMessage(message: ChatMessage, position: number): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content ?? '' };
    case 'user':
      return { role: 'user', content: message.content ?? '' };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) {
        return { role: 'assistant', content: message.content ?? '' };
      }
      return {
        role: 'assistant',
        content: message.content,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    }
    case 'tool':
      if (message.toolCallId === undefined) {
        throw new TypeError(`message ${position} has role 'tool' but no toolCallId`);
      }
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content ?? '' };
  }
}

function toOpenAITool(tool: ToolSpec): ChatCompletionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

interface PartialCall {
  index: number;
  id: string;
  name: string;
  arguments: string;
}

/** Folds streamed chunks into one turn: text concatenated, tool calls grouped by `index`. */
class TurnAssembler {
  text = '';
  finishReason: string | null = null;
  private readonly calls: PartialCall[] = [];

  /** Returns the text delta of this chunk ('' when none). */
  add(chunk: ChatCompletionChunk): string {
    let textDelta = '';
    for (const choice of chunk.choices) {
      if (choice.index !== 0) {
        continue;
      }
      const content = choice.delta.content;
      if (typeof content === 'string' && content !== '') {
        this.text += content;
        textDelta += content;
      }
      for (const delta of choice.delta.tool_calls ?? []) {
        this.addToolDelta(delta);
      }
      if (choice.finish_reason !== null) {
        this.finishReason = choice.finish_reason;
      }
    }
    return textDelta;
  }

  private addToolDelta(delta: ChatCompletionChunk.Choice.Delta.ToolCall): void {
    const id = delta.id ?? '';
    let slot: PartialCall | undefined;
    for (const call of this.calls) {
      if (call.index === delta.index) {
        slot = call;
      }
    }
    // Some servers repeat an index for a second call; a new id means a new call.
    if (slot === undefined || (id !== '' && slot.id !== '' && id !== slot.id)) {
      slot = { index: delta.index, id: '', name: '', arguments: '' };
      this.calls.push(slot);
    }
    if (slot.id === '' && id !== '') {
      slot.id = id;
    }
    const fn = delta.function;
    if (fn !== undefined) {
      if (slot.name === '' && fn.name !== undefined && fn.name !== '') {
        slot.name = fn.name;
      }
      if (fn.arguments !== undefined) {
        slot.arguments += fn.arguments;
      }
    }
  }

  toolCalls(): ToolCall[] {
    const ordered = [...this.calls].sort((a, b) => a.index - b.index);
    return ordered.map((call, position) => {
      if (call.name === '') {
        throw new ModelError('bad-response', `the model streamed tool call ${position} without a function name`);
      }
      return {
        id: call.id === '' ? `call_${position}_${Date.now().toString(36)}` : call.id,
        name: call.name,
        arguments: call.arguments.trim() === '' ? '{}' : call.arguments,
      };
    });
  }
}

export class OpenAICompatibleModel implements ChatModel {
  private client: OpenAI | undefined;
  private readonly baseUrl: string;
  private readonly model: string;

  constructor(private readonly options: OpenAICompatibleModelOptions) {
    this.baseUrl = options.baseUrl;
    this.model = options.model;
  }

  private createClient(openai: OpenAIModule): OpenAI {
    const options = this.options;
    this.client ??= new openai.OpenAI({
      baseURL: options.baseUrl,
      apiKey: options.apiKey ?? 'not-needed',
      // Never send the OPENAI_ORG_ID / OPENAI_PROJECT_ID of the environment to some other endpoint.
      organization: null,
      project: null,
      // Retries are ours (see retry.ts), so that each one is reported.
      maxRetries: 0,
      // Every failure reaches the caller as a ModelError; the package's own console logging would only be noise.
      logLevel: 'off',
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    });
    return this.client;
  }

  async complete(messages: ChatMessage[], tools: ToolSpec[], options: CompleteOptions): Promise<TurnResult> {
    const { signal, onText } = options;
    if (isAborted(signal)) {
      throw new ModelError('cancelled', 'the request to the model was cancelled');
    }
    const openai = await loadOpenAI();
    const client = this.createClient(openai);
    const body = {
      model: this.model,
      messages: messages.map(toOpenAIMessage),
      stream: true as const,
      ...(tools.length === 0 ? {} : { tools: tools.map(toOpenAITool) }),
    };
    const turn = new TurnAssembler();
    const maxRetries = this.options.maxRetries ?? 2;
    for (let attempt = 0; ; attempt++) {
      let streaming = false;
      try {
        const stream = await client.chat.completions.create(body, signal === undefined ? {} : { signal });
        streaming = true;
        for await (const chunk of stream) {
          const delta = turn.add(chunk);
          if (delta !== '' && onText !== undefined) {
            onText(delta);
          }
        }
        break;
      } catch (error) {
        // A request is tried again only before anything of its answer arrived: a stream cut midway is not resent.
        const delayMs = !streaming && attempt < maxRetries && !isAborted(signal) ? this.retryDelay(openai, error, attempt) : undefined;
        if (delayMs === undefined) {
          throw this.toModelError(openai, error, signal);
        }
        options.onRetry?.({ attempt: attempt + 2, maxAttempts: maxRetries + 1, delayMs, reason: this.failureReason(openai, error) });
        await waitFor(delayMs, signal);
        if (isAborted(signal)) {
          throw new ModelError('cancelled', 'the request to the model was cancelled');
        }
      }
    }
    // The openai package ends the iteration quietly, without an error, when the signal aborts it.
    if (isAborted(signal)) {
      throw new ModelError('cancelled', 'the request to the model was cancelled');
    }
    if (turn.finishReason === null) {
      throw new ModelError(
        'bad-response',
        `the stream from ${this.baseUrl} ended before the model finished its turn (no finish_reason): the connection may have dropped`,
      );
    }
    return { text: turn.text, toolCalls: turn.toolCalls(), finishReason: turn.finishReason };
  }

  /** The ids the endpoint's `GET /models` lists, once, without retries (the model setup's list and its test). */
  async listModels(signal?: AbortSignal): Promise<string[]> {
    const openai = await loadOpenAI();
    const client = this.createClient(openai);
    try {
      const ids: string[] = [];
      for await (const model of client.models.list(signal === undefined ? {} : { signal })) {
        ids.push(model.id);
      }
      return ids;
    } catch (error) {
      throw this.toModelError(openai, error, signal);
    }
  }

  private retryDelay(openai: OpenAIModule, error: unknown, attempt: number): number | undefined {
    const { APIConnectionError, APIError, APIUserAbortError } = openai;
    if (error instanceof APIUserAbortError) {
      return undefined;
    }
    if (error instanceof APIConnectionError) {
      return retryDelayMs({ status: undefined, headers: undefined, connection: true }, attempt);
    }
    if (error instanceof APIError) {
      const answered = error as APIError<number | undefined, Headers | undefined, object | undefined>;
      return answered.status === undefined ? undefined : retryDelayMs({ status: answered.status, headers: answered.headers, connection: false }, attempt);
    }
    return undefined;
  }

  private failureReason(openai: OpenAIModule, error: unknown): string {
    if (error instanceof openai.APIError) {
      const answered = error as APIError<number | undefined, Headers | undefined, object | undefined>;
      const detail = apiMessage(answered);
      return `answered ${String(answered.status)}${detail === '' ? '' : ` (${detail.length > 120 ? `${detail.slice(0, 119)}…` : detail})`}`;
    }
    const cause = error instanceof openai.APIConnectionError ? describeCause(error.cause) : '';
    return `could not be reached${cause === '' ? '' : ` (${cause})`}`;
  }

  /** Maps what the openai package throws to a `ModelError`; anything else (a bug in `onText`, say) is returned as is. */
  private toModelError(openai: OpenAIModule, error: unknown, signal: AbortSignal | undefined): unknown {
    const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = openai;
    if (error instanceof ModelError) {
      return error;
    }
    if (isAborted(signal) || error instanceof APIUserAbortError) {
      return new ModelError('cancelled', 'the request to the model was cancelled', { cause: error });
    }
    if (error instanceof APIConnectionTimeoutError) {
      return new ModelError(
        'unreachable',
        `the model endpoint ${this.baseUrl} did not answer in time: check that the server is running and that 'toolgate.model.baseUrl' points to it`,
        { cause: error },
      );
    }
    if (error instanceof APIConnectionError) {
      const reason = describeCause(error.cause);
      return new ModelError(
        'unreachable',
        `cannot reach the model endpoint ${this.baseUrl}${reason === '' ? '' : ` (${reason})`}: check that the server is running and that 'toolgate.model.baseUrl' points to it`,
        { cause: error },
      );
    }
    if (!(error instanceof APIError)) {
      if (error instanceof SyntaxError) {
        return new ModelError('bad-response', `the model endpoint ${this.baseUrl} sent a reply that is not valid JSON: ${error.message}`, {
          cause: error,
        });
      }
      return error;
    }
    const apiError = error as APIError<number | undefined, Headers | undefined, object | undefined>;
    const status = apiError.status;
    const detail = apiMessage(apiError);
    const code = typeof apiError.code === 'string' ? apiError.code : '';
    const withStatus = (options: { cause: unknown }): { status?: number; cause: unknown } =>
      status === undefined ? options : { ...options, status };
    if (status === 401 || status === 403) {
      return new ModelError(
        'auth',
        `the endpoint refused the API key (${status}${detail === '' ? '' : `: ${detail}`}): run 'Toolgate: Set API Key'`,
        withStatus({ cause: error }),
      );
    }
    if ((status === 400 || status === 404 || status === 422) && TOOLS_WORDS.test(detail) && UNSUPPORTED_WORDS.test(detail)) {
      return new ModelError(
        'no-tool-support',
        `the model '${this.model}' at ${this.baseUrl} does not support tool calls (${detail}): choose a model that supports tools in 'toolgate.model.name'`,
        withStatus({ cause: error }),
      );
    }
    if (code === 'model_not_found' || (status === 404 && MODEL_NOT_FOUND.test(detail))) {
      return new ModelError(
        'model-not-found',
        `the endpoint ${this.baseUrl} has no model '${this.model}'${detail === '' ? '' : ` (${detail})`}: check 'toolgate.model.name'`,
        withStatus({ cause: error }),
      );
    }
    if (status === 429) {
      return new ModelError(
        'rate-limited',
        `the endpoint ${this.baseUrl} is rate limiting requests and retries did not help${detail === '' ? '' : ` (${detail})`}: wait and try again`,
        withStatus({ cause: error }),
      );
    }
    if (status === 404) {
      return new ModelError(
        'server',
        `the endpoint ${this.baseUrl} answered 404${detail === '' ? '' : ` (${detail})`}: check 'toolgate.model.baseUrl' (it usually ends in /v1)`,
        withStatus({ cause: error }),
      );
    }
    if (status === undefined) {
      // An `error` event inside the stream.
      return new ModelError('server', `the model endpoint ${this.baseUrl} reported an error mid-stream: ${detail || error.message}`, {
        cause: error,
      });
    }
    if (status >= 500) {
      return new ModelError(
        'server',
        `the model endpoint ${this.baseUrl} failed with ${status}${detail === '' ? '' : `: ${detail}`}`,
        withStatus({ cause: error }),
      );
    }
    return new ModelError(
      'server',
      `the model endpoint ${this.baseUrl} rejected the request with ${status}${detail === '' ? '' : `: ${detail}`}`,
      withStatus({ cause: error }),
    );
  }
}

/** A function so that TypeScript does not carry the narrowing of `signal.aborted` across an `await`. */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** The endpoint's own error message, without the status prefix the openai package adds. */
function apiMessage(error: APIError<number | undefined, Headers | undefined, object | undefined>): string {
  const body: unknown = error.error;
  if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') {
    return body.message;
  }
  return error.message.replace(/^\d{3}\s+/, '').replace(/^\d{3} status code \(no body\)$/, '');
}

/** `ECONNREFUSED`, `ENOTFOUND host` and the like, from a fetch failure's cause chain. */
function describeCause(cause: unknown): string {
  const seen = new Set<unknown>();
  let current = cause;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current);
    if ('code' in current && typeof current.code === 'string') {
      const hostname = 'hostname' in current && typeof current.hostname === 'string' ? ` ${current.hostname}` : '';
      return `${current.code}${hostname}`;
    }
    current = 'cause' in current ? current.cause : undefined;
  }
  return cause instanceof Error ? cause.message : '';
}
