/**
 * The agent in this window: chats (kept in workspace state across reloads), one task at a time, the bridge from the
 * agent loop to the gate (gated calls of a turn go to the panel as one batch; ask_user goes to the chat), stop,
 * new chat, and decisions typed in the chat.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import * as z from 'zod';
import { runAgent, defaultSystemPrompt, type AgentStopReason, type ToolOutcome, type ToolRunner } from '../core/agent/agent';
import { parseChatDecision } from '../core/agent/chatDecisions';
import type { Gate } from '../core/approval/gate';
import type { GrantStore, KeyValueStore } from '../core/approval/grants';
import { Emitter } from '../core/disposable';
import { OpenAICompatibleModel, type ChatMessage, type ChatModel, type ModelErrorKind, type ToolCall, type ToolSpec } from '../core/llm/client';
import type { McpServerStatus } from '../core/mcp/manager';
import { failureKey, mcpStartupWaitMs, settledNotices, startingNotice } from '../core/mcp/startup';
import { ignoredSettingNote, type IgnoredSetting } from '../core/settings';
import { parseBuiltinCall } from '../core/tools/definitions';
import { builtinToolSpecs } from '../core/tools/specs';
import { ChatEntry } from '../shared/messages';
import { isRemoteWindow } from './commandBridge';
import type { Log } from './log';
import type { ApiKeyStore } from './secrets';
import type { Settings } from './settings';
import type { ToolService } from './toolService';
import { VsCodeLmModel } from './vscodeLmModel';

const StoredMessage = z.strictObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullable(),
  toolCalls: z.array(z.strictObject({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
  toolCallId: z.string().optional(),
});

const ChatRecord = z.strictObject({
  id: z.string(),
  title: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  messages: z.array(StoredMessage),
  entries: z.array(ChatEntry),
});
type ChatRecord = z.infer<typeof ChatRecord>;

const StoredChats = z.strictObject({
  version: z.literal(1),
  revision: z.number().int().nonnegative(),
  currentId: z.string(),
  chats: z.array(ChatRecord),
});

/** What a task needs of MCP: the tools the model may call now, the servers' states, and a bounded wait for them. */
export interface McpForAgent {
  specs(): ToolSpec[];
  servers(): McpServerStatus[];
  /** Resolves once the servers of the configuration are known (or at `deadline`, ms since epoch). */
  whenConfigured(deadline: number): Promise<void>;
  /** Resolves once no server is starting (or at `deadline`, or when `signal` aborts). */
  whenSettled(deadline: number, signal: AbortSignal): Promise<void>;
}

export const chatsKey = 'toolgate.chats';
const maxChats = 20;
const maxEntries = 400;

export interface TaskResult {
  reason: AgentStopReason;
  answer: string;
  error?: string;
  /** This task's messages: the prompt, the model's turns and the tool results it was given. */
  transcript: ChatMessage[];
}

interface Running {
  controller: AbortController;
  questions: Map<string, { options: string[]; allowFreeText: boolean; resolve: (answer: string | undefined) => void }>;
}

function summarize(call: ToolCall): string {
  const parsed = parseBuiltinCall(call.name, call.arguments);
  if (!parsed.ok) {
    return call.arguments.length > 200 ? `${call.arguments.slice(0, 200)}…` : call.arguments;
  }
  switch (parsed.tool) {
    case 'write_file':
    case 'edit_file':
    case 'read_file':
      return parsed.args.path;
    case 'list_files':
      return parsed.args.path ?? '.';
    case 'search_text':
      return `"${parsed.args.query}"${parsed.args.path !== undefined ? ` in ${parsed.args.path}` : ''}`;
    case 'run_in_terminal':
      return parsed.args.command.length > 200 ? `${parsed.args.command.slice(0, 200)}…` : parsed.args.command;
    case 'ask_user':
      return parsed.args.question;
  }
}

/** A stored message as the client's type (optional fields absent rather than undefined). */
function toChatMessage(stored: z.infer<typeof StoredMessage>): ChatMessage {
  return {
    role: stored.role,
    content: stored.content,
    ...(stored.toolCalls !== undefined ? { toolCalls: stored.toolCalls } : {}),
    ...(stored.toolCallId !== undefined ? { toolCallId: stored.toolCallId } : {}),
  };
}

export class AgentHost implements vscode.Disposable {
  private chats: ChatRecord[] = [];
  private current: ChatRecord;
  private revision = 0;
  private running: Running | undefined;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly onDidChangeEmitter = new Emitter<void>();
  readonly onDidChange = this.onDidChangeEmitter.event;

  constructor(
    private readonly store: KeyValueStore,
    private readonly settings: Settings,
    private readonly tools: ToolService,
    private readonly gate: Gate,
    private readonly grants: GrantStore,
    private readonly apiKeys: ApiKeyStore,
    private readonly log: Log,
    private readonly mcp: McpForAgent,
    /** What the workspace sets for toolgate.model.baseUrl that VS Code ignores (the workspace is not trusted). */
    private readonly ignoredModelUrl: () => Promise<IgnoredSetting[]>,
  ) {
    const raw = store.get(chatsKey);
    const parsed = raw === undefined ? undefined : StoredChats.safeParse(raw);
    if (parsed && !parsed.success) {
      log.warn('ignored the stored chats: they do not fit the expected format');
    }
    if (parsed?.success) {
      this.chats = parsed.data.chats;
      this.revision = parsed.data.revision;
    }
    this.current = this.chats.find((chat) => chat.id === (parsed?.success ? parsed.data.currentId : '')) ?? this.createChat();
  }

  get chatId(): string {
    return this.current.id;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  entries(): ChatEntry[] {
    return this.current.entries;
  }

  chatList(): { id: string; title: string; updatedAt: string }[] {
    return [...this.chats]
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
      .map(({ id, title, updatedAt }) => ({ id, title, updatedAt }));
  }

  private createChat(): ChatRecord {
    const now = new Date().toISOString();
    const chat: ChatRecord = { id: `chat-${randomUUID()}`, title: 'New chat', createdAt: now, updatedAt: now, messages: [], entries: [] };
    this.chats.push(chat);
    while (this.chats.length > maxChats) {
      this.chats.shift();
    }
    return chat;
  }

  private changed(): void {
    this.current.updatedAt = new Date().toISOString();
    this.onDidChangeEmitter.fire();
    if (this.saveTimer === undefined) {
      this.saveTimer = setTimeout(() => {
        this.saveTimer = undefined;
        void this.save();
      }, 300);
    }
  }

  private async save(): Promise<void> {
    this.revision += 1;
    try {
      await this.store.update(chatsKey, { version: 1, revision: this.revision, currentId: this.current.id, chats: this.chats });
    } catch (error) {
      this.log.error(`could not save the chats: ${String(error)}`);
    }
  }

  private push(entry: ChatEntry): ChatEntry {
    this.current.entries.push(entry);
    if (this.current.entries.length > maxEntries) {
      this.current.entries.splice(0, this.current.entries.length - maxEntries);
    }
    this.changed();
    return entry;
  }

  private update<T extends ChatEntry>(entry: T, change: Partial<T>): void {
    Object.assign(entry, change, { v: entry.v + 1 });
    this.changed();
  }

  private notice(text: string, level: 'info' | 'error' = 'info', actions?: Extract<ChatEntry, { kind: 'notice' }>['actions']): void {
    this.push({ kind: 'notice', id: `n-${randomUUID()}`, v: 1, level, text, ...(actions !== undefined ? { actions } : {}) });
  }

  /** MCP failures already reported, per chat: the same failure is said once. */
  private readonly reportedMcpFailures = new Map<string, Set<string>>();

  /**
   * Before the first model turn: waits (bounded) for MCP servers that are starting, so that the model is offered
   * their tools, saying so in the chat; then reports what failed or is still starting. The task goes on either way.
   */
  private async awaitMcpServers(chatId: string, signal: AbortSignal): Promise<void> {
    const began = Date.now();
    const deadline = began + mcpStartupWaitMs;
    await this.mcp.whenConfigured(deadline);
    const starting = startingNotice(this.mcp.servers());
    if (starting !== undefined) {
      this.notice(starting.text);
    }
    await this.mcp.whenSettled(deadline, signal);
    if (signal.aborted) {
      return;
    }
    const servers = this.mcp.servers();
    const reported = this.reportedMcpFailures.get(chatId) ?? new Set<string>();
    this.reportedMcpFailures.set(chatId, reported);
    for (const notice of settledNotices(servers, starting?.servers ?? [], Date.now() - began, reported)) {
      this.notice(notice.text, notice.level);
    }
    for (const server of servers.filter((candidate) => candidate.state === 'failed')) {
      reported.add(failureKey(server));
    }
  }

  /** A model error, with why when the workspace's toolgate.model.baseUrl was ignored, and what to do about it. */
  private async modelFailed(error: string, kind: ModelErrorKind | undefined): Promise<void> {
    const ignored = kind !== undefined && this.settings.get('model.provider') === 'openai-compatible' ? await this.ignoredModelUrl() : [];
    const first = ignored[0];
    if (first === undefined) {
      this.notice(`The model failed: ${error}`, 'error');
      return;
    }
    const where = isRemoteWindow() ? 'the Remote settings of this window' : 'your user settings';
    this.notice(`The model failed: ${error}. ${ignoredSettingNote(first, this.settings.get('model.baseUrl'), where)}`, 'error', [
      { command: 'manageWorkspaceTrust', label: 'Trust this folder…' },
      { command: 'openModelSettings', label: 'Open the setting' },
    ]);
  }

  private async model(): Promise<ChatModel> {
    if (this.settings.get('model.provider') === 'vscode-lm') {
      return new VsCodeLmModel(this.settings.get('model.name'));
    }
    // The key comes from SecretStorage only; a loopback endpoint works without one.
    const apiKey = await this.apiKeys.get();
    return new OpenAICompatibleModel({
      baseUrl: this.settings.get('model.baseUrl'),
      model: this.settings.get('model.name'),
      ...(apiKey !== undefined ? { apiKey } : {}),
    });
  }

  /** What the person typed in the chat: a decision on waiting calls, or a new task. */
  submit(prompt: string): void {
    if (this.running) {
      this.decideFromChat(prompt);
      return;
    }
    void this.runTask(prompt).catch((error: unknown) => this.log.error(`task failed: ${String(error)}`));
  }

  private decideFromChat(text: string): void {
    const waiting = this.gate.pendingViews().filter((view) => view.source === 'agent');
    const decision = parseChatDecision(text);
    this.push({ kind: 'user', id: `u-${randomUUID()}`, v: 1, text });
    if (waiting.length === 0 || decision.kind === 'none') {
      this.notice(
        waiting.length === 0
          ? 'A task is running; wait for it or press Stop before giving a new one.'
          : `${waiting.length} call${waiting.length === 1 ? '' : 's'} wait${waiting.length === 1 ? 's' : ''}: answer "yes" or "no, because …" (with a number when several wait), or use the Approvals panel.`,
      );
      return;
    }
    let targets = waiting;
    if (decision.target === 'only' && waiting.length > 1) {
      this.notice(
        `Which call? ${waiting.map((view, index) => `${index + 1}: ${view.tool} ${view.preview.kind === 'diff' ? view.preview.path : view.preview.kind === 'command' ? view.preview.command : ''}`).join('; ')}. Say "yes 1", "no 2 because …" or "yes all".`,
      );
      return;
    }
    if (typeof decision.target === 'number') {
      const chosen = waiting[decision.target - 1];
      if (!chosen) {
        this.notice(`There is no call ${decision.target}; ${waiting.length} wait.`);
        return;
      }
      targets = [chosen];
    }
    for (const view of targets) {
      const outcome = this.gate.decide({
        type: 'decide',
        requestId: 'chat',
        callId: view.callId,
        argsHash: view.argsHash,
        action: decision.allow ? 'allow-once' : 'deny',
        ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
      });
      if (!outcome.ok) {
        this.notice(outcome.error, 'error');
      }
    }
  }

  /** Runs one task in the current chat and resolves with its transcript. Gated calls wait for the panel. */
  async runTask(prompt: string): Promise<TaskResult> {
    if (this.running) {
      throw new Error('a task is already running in this window; stop it first');
    }
    const running: Running = { controller: new AbortController(), questions: new Map() };
    this.running = running;
    void vscode.commands.executeCommand('setContext', 'toolgate.running', true);
    const chat = this.current;
    if (chat.messages.length === 0) {
      chat.title = prompt.length > 60 ? `${prompt.slice(0, 60)}…` : prompt;
    }
    const historyLength = chat.messages.length;
    this.push({ kind: 'user', id: `u-${randomUUID()}`, v: 1, text: prompt });
    const toolEntries = new Map<string, Extract<ChatEntry, { kind: 'tool' }>>();
    let assistant: Extract<ChatEntry, { kind: 'assistant' }> | undefined;
    const runner: ToolRunner = { run: (calls, options) => this.runCalls(calls, chat.id, running, options) };
    let failure: { error: string; kind: ModelErrorKind | undefined } | undefined;
    try {
      const result = await runAgent(
        {
          model: await this.model(),
          tools: () => [...builtinToolSpecs(), ...this.mcp.specs()],
          beforeFirstTurn: (signal) => this.awaitMcpServers(chat.id, signal),
          runner,
          systemPrompt: defaultSystemPrompt,
          maxSteps: this.settings.get('agent.maxSteps'),
        },
        chat.messages.map(toChatMessage),
        prompt,
        running.controller.signal,
        (event) => {
          switch (event.type) {
            case 'turnStart':
              assistant = this.push({ kind: 'assistant', id: `a-${randomUUID()}`, v: 1, text: '', streaming: true }) as typeof assistant;
              break;
            case 'text':
              if (assistant) {
                this.update(assistant, { text: assistant.text + event.delta });
              }
              break;
            case 'toolCalls':
              if (assistant) {
                this.update(assistant, { streaming: false });
              }
              for (const call of event.calls) {
                if (call.name === 'ask_user') {
                  continue;
                }
                toolEntries.set(
                  call.id,
                  this.push({ kind: 'tool', id: `t-${randomUUID()}`, v: 1, name: call.name, summary: summarize(call), status: 'running' }) as Extract<ChatEntry, { kind: 'tool' }>,
                );
              }
              break;
            case 'toolStatus': {
              const entry = toolEntries.get(event.callId);
              if (entry) {
                this.update(entry, { status: event.status, ...(event.output !== undefined ? { output: event.output } : {}) });
              }
              break;
            }
            case 'done':
              if (assistant) {
                this.update(assistant, { streaming: false });
              }
              if (event.reason === 'error') {
                failure = { error: event.error ?? 'unknown error', kind: event.errorKind };
              } else if (event.reason === 'cancelled') {
                this.notice('Stopped. Waiting calls were denied and nothing else will run.');
              } else if (event.reason === 'step-limit') {
                this.notice(`Stopped: ${event.error ?? 'step limit reached'}.`);
              }
              break;
          }
        },
      );
      chat.messages = result.messages;
      if (failure !== undefined) {
        await this.modelFailed(failure.error, failure.kind);
      }
      return {
        reason: result.reason,
        answer: result.answer,
        transcript: result.messages.slice(historyLength),
        ...(result.error !== undefined ? { error: result.error } : {}),
      };
    } finally {
      for (const question of running.questions.values()) {
        question.resolve(undefined);
      }
      this.running = undefined;
      void vscode.commands.executeCommand('setContext', 'toolgate.running', false);
      this.changed();
    }
  }

  private async runCalls(
    calls: ToolCall[],
    chatId: string,
    running: Running,
    options: Parameters<ToolRunner['run']>[1],
  ): Promise<ToolOutcome[]> {
    const gated = calls.map((call, index) => ({ call, index })).filter(({ call }) => call.name !== 'ask_user');
    const asked = calls.map((call, index) => ({ call, index })).filter(({ call }) => call.name === 'ask_user');
    const outcomes: ToolOutcome[] = calls.map((call) => ({ id: call.id, ok: false, status: 'failed', output: 'Error: not run.' }));
    await Promise.all([
      (async () => {
        if (gated.length === 0) {
          return;
        }
        const results = await this.tools.runBatch(
          gated.map(({ call }) => ({ tool: call.name, args: call.arguments, source: 'agent' })),
          {
            chatId,
            signal: options.signal,
            onStatus: (index, status) => {
              const call = gated[index]?.call;
              if (call) {
                options.onStatus(call.id, status);
              }
            },
          },
        );
        results.forEach((result, position) => {
          const item = gated[position];
          if (item) {
            outcomes[item.index] = {
              id: item.call.id,
              ok: result.ok,
              output: result.output,
              status: result.decision?.verdict === 'deny' ? 'denied' : result.ok ? 'done' : 'failed',
            };
          }
        });
      })(),
      ...asked.map(async ({ call, index }) => {
        outcomes[index] = await this.ask(call, running, options.signal);
      }),
    ]);
    return outcomes;
  }

  private async ask(call: ToolCall, running: Running, signal: AbortSignal): Promise<ToolOutcome> {
    const parsed = parseBuiltinCall('ask_user', call.arguments);
    if (!parsed.ok || parsed.tool !== 'ask_user') {
      return { id: call.id, ok: false, status: 'failed', output: `Error: ${parsed.ok ? 'not ask_user' : parsed.error}. Nothing was asked.` };
    }
    const { question, options, allowFreeText = false } = parsed.args;
    const entry = this.push({ kind: 'question', id: `q-${randomUUID()}`, v: 1, question, options, allowFreeText }) as Extract<ChatEntry, { kind: 'question' }>;
    const answer = await new Promise<string | undefined>((resolve) => {
      if (signal.aborted) {
        resolve(undefined);
        return;
      }
      running.questions.set(entry.id, { options, allowFreeText, resolve });
      signal.addEventListener('abort', () => resolve(undefined), { once: true });
    });
    running.questions.delete(entry.id);
    if (answer === undefined) {
      this.update(entry, { answer: '(not answered: the task was stopped)' });
      return { id: call.id, ok: false, status: 'failed', output: 'The question was not answered: the task was stopped.' };
    }
    this.update(entry, { answer });
    return { id: call.id, ok: true, status: 'done', output: `The person answered: ${JSON.stringify(answer)}` };
  }

  /** An answer clicked or typed in the chat: it must be one of the options, or free text where that is allowed. */
  answer(questionId: string, answer: string): { ok: true } | { ok: false; error: string } {
    const question = this.running?.questions.get(questionId);
    if (!question) {
      return { ok: false, error: `question ${questionId} is not waiting for an answer` };
    }
    if (!question.options.includes(answer) && !(question.allowFreeText && answer.trim() !== '')) {
      return { ok: false, error: 'the answer is not one of the options, and free text is not allowed for this question' };
    }
    question.resolve(question.options.includes(answer) ? answer : answer.trim());
    return { ok: true };
  }

  /** Stops the task: the model stream ends, waiting calls are denied, a running command is interrupted. */
  cancel(): boolean {
    if (!this.running) {
      return false;
    }
    this.running.controller.abort();
    this.gate.cancel('the task was stopped', this.current.id);
    return true;
  }

  newChat(): { ok: true } | { ok: false; error: string } {
    if (this.running) {
      return { ok: false, error: 'stop the running task before starting a new chat' };
    }
    this.grants.endSession(this.current.id);
    this.current = this.createChat();
    this.changed();
    return { ok: true };
  }

  openChat(id: string): { ok: true } | { ok: false; error: string } {
    if (this.running) {
      return { ok: false, error: 'stop the running task before switching chats' };
    }
    const chat = this.chats.find((candidate) => candidate.id === id);
    if (!chat) {
      return { ok: false, error: `no chat ${id}` };
    }
    this.grants.endSession(this.current.id);
    this.current = chat;
    this.changed();
    return { ok: true };
  }

  dispose(): void {
    this.cancel();
    if (this.saveTimer !== undefined) {
      clearTimeout(this.saveTimer);
      void this.save();
    }
    this.onDidChangeEmitter.dispose();
  }
}
