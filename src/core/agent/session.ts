/**
 * The agent in one window: one task at a time in the current chat, the bridge from the agent loop to the tool service
 * (a turn's gated calls go to the gate as one batch; ask_user goes to the chat), stop, new chat, and decisions typed
 * in the chat. The editor is reached through the ports of `AgentSessionDeps`.
 */
import { randomUUID } from 'node:crypto';
import type { Gate, WaitingCall } from '../approval/gate';
import { chatShowsCall } from '../callers';
import { startTask, type TaskRef } from '../checkpoints/recorder';
import { landedFiles } from '../checkpoints/landedUnreviewed';
import { listsChanges, type TaskChanges } from '../checkpoints/taskChanges';
import type { ChatMessage, ChatModel, ModelErrorKind, ToolCall, ToolSpec } from '../llm/client';
import type { McpServerStatus } from '../mcp/manager';
import { failureKey, mcpStartupWaitMs, settledNotices, startingNotice } from '../mcp/startup';
import { parseBuiltinCall } from '../toolDefinitions';
import type { LogPort } from '../tools/ports';
import type { ToolCallResult, ToolService } from '../tools/service';
import { builtinToolSpecs } from '../tools/specs';
import type { ChatEntry } from '../../shared/messages';
import { defaultSystemPrompt, runAgent, type AgentStopReason, type ToolDecisionNote, type ToolOutcome, type ToolRunner } from './agent';
import { parseChatDecision, planChatDecision, planQuestionAnswer, type WaitingInChat } from './chatDecisions';
import { toChatMessage, type ChatBook, type ChatRecord, type NoticeActions } from './chats';
import { TranscriptWriter } from './transcript';

/** The most files a task's "changes" entry lists; past it, it says how many more. */
const maxListedChanges = 200;

/** What a task needs of MCP: the tools the model may call now, the servers' states, and a bounded wait for them. */
export interface McpForAgent {
  specs(): ToolSpec[];
  servers(): McpServerStatus[];
  /** Resolves once the servers of the configuration are known (or at `deadline`, ms since epoch). */
  whenConfigured(deadline: number): Promise<void>;
  /** Resolves once no server is starting (or at `deadline`, or when `signal` aborts). */
  whenSettled(deadline: number, signal: AbortSignal): Promise<void>;
}

export interface AgentSessionDeps {
  chats: ChatBook;
  tools: Pick<ToolService, 'runBatch'>;
  gate: Pick<Gate, 'waitingCalls' | 'settle' | 'cancel'>;
  /** A chat's session grants end when the person leaves it. */
  endSessionGrants: (chatId: string) => void;
  /** The model of the settings, with its key. */
  model: () => Promise<ChatModel>;
  maxSteps: () => number;
  mcp: McpForAgent;
  /** What to tell the person about a model error, and what they can do about it (a setting VS Code ignored, say). */
  explainModelFailure: (error: string, kind: ModelErrorKind | undefined) => Promise<{ text: string; actions?: NoticeActions }>;
  /** A task started or ended (VS Code: the `toolgate.running` context key). */
  onRunning: (running: boolean) => void;
  /** What a task changed, from its checkpoints (undefined: none were kept); listed in the chat when it ends. */
  taskChanges?: (task: TaskRef) => Promise<TaskChanges | undefined>;
  log: LogPort;
}

export interface TaskResult {
  reason: AgentStopReason;
  answer: string;
  error?: string;
  /** This task's messages: the prompt, the model's turns and the tool results it was given. */
  transcript: ChatMessage[];
}

export type Outcome = { ok: true } | { ok: false; error: string };

interface Question {
  question: string;
  options: string[];
  allowFreeText: boolean;
  resolve: (answer: string | undefined) => void;
}

interface Running {
  controller: AbortController;
  questions: Map<string, Question>;
}

/** A task whose model turn failed: its chat, its prompt, and the error notice that offers Retry. */
interface Failed {
  chatId: string;
  prompt: string;
  notice: Extract<ChatEntry, { kind: 'notice' }>;
}

type ChangesListed = Pick<Extract<ChatEntry, { kind: 'changes' }>, 'files' | 'commands' | 'more' | 'unreviewed'>;

/** A task's changes as its chat entry lists them: at most `maxListedChanges` files and groups, the rest counted. */
function changesListed(changes: TaskChanges): ChangesListed {
  const listed = changes.files.slice(0, maxListedChanges);
  return {
    files: listed.map(({ shown, kind, added, removed }) => ({ file: shown, change: kind, added, removed })),
    commands: changes.commands,
    ...(changes.files.length > listed.length ? { more: changes.files.length - listed.length } : {}),
    ...(changes.unreviewed.length > 0 ? { unreviewed: { groups: changes.unreviewed.slice(0, maxListedChanges), more: changes.unreviewedMore + landedFiles(changes.unreviewed.slice(maxListedChanges)) } } : {}),
  };
}

export class AgentSession {
  private running: Running | undefined;
  private failed: Failed | undefined;
  /** MCP failures already reported, per chat: the same failure is said once. */
  private readonly reportedMcpFailures = new Map<string, Set<string>>();

  constructor(private readonly deps: AgentSessionDeps) {}

  get chatId(): string {
    return this.deps.chats.current.id;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** ask_user questions waiting for the person's answer. */
  get waitingQuestions(): number {
    return this.running?.questions.size ?? 0;
  }

  /** The ask_user questions waiting for the person's answer, by entry id, oldest first. */
  questionViews(): { id: string; question: string }[] {
    return [...(this.running?.questions.entries() ?? [])].map(([id, { question }]) => ({ id, question }));
  }

  /** The kept whole result a tool entry of the current chat shows, by the entry's id. */
  keptResult(entryId: string): string | undefined {
    const entry = this.entry(entryId);
    return entry?.kind === 'tool' ? entry.fullResult?.ref : undefined;
  }

  /** Where a finished write or edit of this chat keeps its change: only what the host itself wrote on its entry. */
  callChange(entryId: string): { chatId: string; taskId: string; turn: number; file: string } | undefined {
    const entry = this.entry(entryId);
    return entry?.kind === 'tool' && entry.change !== undefined ? { chatId: this.chatId, ...entry.change } : undefined;
  }

  /** The task and model turn a tool entry of this chat was made in (its Undo): only what the host itself wrote there. */
  turnOf(entryId: string): { chatId: string; taskId: string; turn: number } | undefined {
    const entry = this.entry(entryId);
    return entry?.kind === 'tool' && entry.step !== undefined ? { chatId: this.chatId, ...entry.step } : undefined;
  }

  /** The task a "changes" entry of this chat lists, and whether it lists `file`: only what the host itself wrote there. */
  taskChange(entryId: string, file: string): { chatId: string; taskId: string } | undefined {
    const entry = this.entry(entryId);
    return entry?.kind === 'changes' && entry.files.some((listed) => listed.file === file) ? { chatId: this.chatId, taskId: entry.taskId } : undefined;
  }

  /** An entry of the chat shown, by id: a view names entries, the host reads what they hold. */
  private entry(entryId: string): ChatEntry | undefined {
    return this.deps.chats.current.entries.find((candidate) => candidate.id === entryId);
  }

  /** What the person typed in the chat: a decision on waiting calls, or a new task. */
  submit(prompt: string): void {
    if (this.running) {
      this.decideFromChat(prompt);
      return;
    }
    void this.runTask(prompt).catch((error: unknown) => this.deps.log.error(`task failed: ${String(error)}`));
  }

  private decideFromChat(text: string): void {
    const chats = this.deps.chats;
    chats.push({ kind: 'user', id: `u-${randomUUID()}`, v: 1, text });
    const waiting = this.deps.gate.waitingCalls().filter((call) => chatShowsCall(call.input)).map(inChat);
    // With a question waiting, what the person sends answers it; "yes" / "no" still decide calls that wait beside it.
    const [questionId, question] = [...(this.running?.questions.entries() ?? [])][0] ?? [];
    if (question && questionId !== undefined && (waiting.length === 0 || parseChatDecision(text).kind === 'none')) {
      const answer = planQuestionAnswer(text, question);
      if (answer.kind === 'answer') {
        question.resolve(answer.answer);
      } else {
        chats.notice(answer.text);
      }
      return;
    }
    const plan = planChatDecision(text, waiting);
    if (plan.kind === 'notice') {
      chats.notice(plan.text);
      return;
    }
    for (const call of plan.targets) {
      const outcome = this.deps.gate.settle(call, { action: plan.allow ? 'allow-once' : 'deny', ...(plan.reason !== undefined ? { reason: plan.reason } : {}) });
      if (!outcome.ok) {
        chats.notice(outcome.error, 'error');
      }
    }
  }

  /**
   * Before the first model turn: waits (bounded) for MCP servers that are starting, so that the model is offered
   * their tools, saying so in the chat; then reports what failed or is still starting. The task goes on either way.
   */
  private async awaitMcpServers(chatId: string, signal: AbortSignal): Promise<void> {
    const { mcp, chats } = this.deps;
    const began = Date.now();
    const deadline = began + mcpStartupWaitMs;
    await mcp.whenConfigured(deadline);
    const starting = startingNotice(mcp.servers());
    if (starting !== undefined) {
      chats.notice(starting.text);
    }
    await mcp.whenSettled(deadline, signal);
    if (signal.aborted) {
      return;
    }
    const servers = mcp.servers();
    const reported = this.reportedMcpFailures.get(chatId) ?? new Set<string>();
    this.reportedMcpFailures.set(chatId, reported);
    for (const notice of settledNotices(servers, starting?.servers ?? [], Date.now() - began, reported)) {
      chats.notice(notice.text, notice.level);
    }
    for (const server of servers.filter((candidate) => candidate.state === 'failed')) {
      reported.add(failureKey(server));
    }
  }

  /** Runs one task in the current chat and resolves with its transcript. Gated calls wait for the person. */
  async runTask(prompt: string): Promise<TaskResult> {
    return await this.run(prompt, 'new');
  }

  /**
   * Continues the current chat's task that a window reload interrupted, from its last completed turn, telling the
   * model that the step under way when the window went away did not finish. Refused while a task runs, or when this
   * chat has no interrupted task.
   */
  resume(): Outcome {
    const chat = this.deps.chats.current;
    if (this.running) {
      return { ok: false, error: 'a task is running; stop it first' };
    }
    if (chat.task?.state !== 'interrupted') {
      return { ok: false, error: 'there is no interrupted task to resume in this chat' };
    }
    for (const entry of chat.entries) {
      if (entry.kind === 'notice' && entry.resume === true) {
        this.deps.chats.update(entry, { resume: false });
      }
    }
    void this.run(chat.task.prompt, 'resume').catch((error: unknown) => this.deps.log.error(`resume failed: ${String(error)}`));
    return { ok: true };
  }

  /**
   * Runs the current chat's failed model turn again, with the same history: the task continues from where the model
   * failed, and the person's message is not repeated. Refused while a task runs, or when this chat's last task did not
   * end with a model error.
   */
  retry(): Outcome {
    const failed = this.failed;
    if (this.running) {
      return { ok: false, error: 'a task is running; stop it first' };
    }
    if (failed?.chatId !== this.chatId) {
      return { ok: false, error: 'there is no failed model turn to retry in this chat' };
    }
    this.deps.chats.update(failed.notice, { retry: false });
    void this.run(failed.prompt, 'retry').catch((error: unknown) => this.deps.log.error(`retry failed: ${String(error)}`));
    return { ok: true };
  }

  /** `retry`: the same history again, no new message; `resume`: the history of the last completed turn and a note on why. */
  private async run(prompt: string, mode: 'new' | 'retry' | 'resume'): Promise<TaskResult> {
    if (this.running) {
      throw new Error('a task is already running in this window; stop it first');
    }
    const { chats, mcp } = this.deps;
    const running: Running = { controller: new AbortController(), questions: new Map() };
    this.running = running;
    this.failed = undefined;
    this.deps.onRunning(true);
    const chat = chats.current;
    if (chat.messages.length === 0) {
      chat.title = prompt.length > 60 ? `${prompt.slice(0, 60)}…` : prompt;
    }
    const historyLength = chat.messages.length;
    if (mode === 'new') {
      chats.push({ kind: 'user', id: `u-${randomUUID()}`, v: 1, text: prompt }, chat);
    } else if (mode === 'resume') {
      chats.notice('Resumed from the last completed step.');
    }
    // Kept with the chat, so a reload can tell that this task was cut off and resume it.
    chat.task = { prompt, state: 'running' };
    chats.saveNow();
    const message = mode === 'new' ? prompt : mode === 'resume' ? resumeNote : undefined;
    // What the task's calls change is kept per model turn, for "Undo this turn / task".
    const task = startTask(chat.id, prompt);
    const transcript = new TranscriptWriter(chats, chat, Date.now, task.taskId);
    let step = 0;
    const runner: ToolRunner = { run: (calls, options) => this.runCalls(calls, { chatId: chat.id, task, turn: step - 1 }, running, options) };
    try {
      const result = await runAgent(
        {
          model: await this.deps.model(),
          tools: () => [...builtinToolSpecs(), ...mcp.specs()],
          beforeFirstTurn: (signal) => this.awaitMcpServers(chat.id, signal),
          runner,
          systemPrompt: defaultSystemPrompt,
          maxSteps: this.deps.maxSteps(),
        },
        chat.messages.map(toChatMessage),
        message,
        running.controller.signal,
        (event) => {
          if (event.type === 'turnStart') {
            step = event.step;
          }
          if (event.type === 'turnEnd') {
            chat.messages = event.messages;
          }
          transcript.onEvent(event);
          if (event.type === 'toolCalls' || event.type === 'turnEnd' || event.type === 'toolStatus') {
            chats.saveNow();
          }
        },
      );
      chat.messages = result.messages;
      await this.listChanges(task, chat);
      if (transcript.failure !== undefined) {
        const explained = await this.deps.explainModelFailure(transcript.failure.error, transcript.failure.kind);
        const notice = chats.push(
          { kind: 'notice', id: `n-${randomUUID()}`, v: 1, level: 'error', text: explained.text, ...(explained.actions !== undefined ? { actions: explained.actions } : {}), retry: true },
          chat,
        );
        this.failed = { chatId: chat.id, prompt, notice };
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
      delete chat.task;
      this.running = undefined;
      this.deps.onRunning(false);
      chats.changed();
    }
  }

  /** At a task's end, the files it changed, each with its counts and a link to its diff (nothing when none). */
  private async listChanges(task: TaskRef, chat: ChatRecord): Promise<void> {
    let changes: TaskChanges | undefined;
    try {
      changes = await this.deps.taskChanges?.(task);
    } catch (error) {
      this.deps.log.warn(`the task's changes could not be read from its checkpoints: ${String(error)}`);
    }
    if (changes === undefined || !listsChanges(changes)) {
      return;
    }
    this.deps.chats.push({ kind: 'changes', id: `c-${randomUUID()}`, v: 1, taskId: task.taskId, ...changesListed(changes) }, chat);
  }

  /**
   * After an undo of a task of the chat shown: its list of changes says what is left (a file put back is no longer
   * listed; what landed without review stays, as the undo cannot revert it).
   */
  async refreshChanges(taskId: string): Promise<void> {
    const chat = this.deps.chats.current;
    const entries = chat.entries.filter((entry): entry is Extract<ChatEntry, { kind: 'changes' }> => entry.kind === 'changes' && entry.taskId === taskId);
    if (entries.length === 0) {
      return;
    }
    let changes: TaskChanges | undefined;
    try {
      changes = await this.deps.taskChanges?.({ chatId: chat.id, taskId });
    } catch (error) {
      this.deps.log.warn(`the task's changes could not be read from its checkpoints after the undo: ${String(error)}`);
    }
    const listed: ChangesListed = changes === undefined ? { files: [], commands: 0 } : changesListed(changes);
    for (const entry of entries) {
      // A field the new list has not (a cut list's `more`) goes.
      delete entry.more;
      delete entry.unreviewed;
      this.deps.chats.update(entry, listed);
    }
  }

  private async runCalls(
    calls: ToolCall[],
    where: { chatId: string; task: TaskRef; turn: number },
    running: Running,
    options: Parameters<ToolRunner['run']>[1],
  ): Promise<ToolOutcome[]> {
    const indexed = calls.map((call, index) => ({ call, index }));
    const gated = indexed.filter(({ call }) => call.name !== 'ask_user');
    const asked = indexed.filter(({ call }) => call.name === 'ask_user');
    const outcomes: ToolOutcome[] = calls.map((call) => ({ id: call.id, ok: false, status: 'failed', output: 'Error: not run.' }));
    const runGated = async (): Promise<void> => {
      if (gated.length === 0) {
        return;
      }
      const results = await this.deps.tools.runBatch(
        gated.map(({ call }) => ({ tool: call.name, args: call.arguments, source: 'agent' })),
        {
          chatId: where.chatId,
          turn: { ...where.task, turn: Math.max(0, where.turn) },
          signal: options.signal,
          onStatus: (index, status) => {
            const call = gated[index]?.call;
            if (call) {
              options.onStatus(call.id, status);
            }
          },
          // Shown as soon as it is there: a quick call's result does not wait for a slow one of the same turn.
          onResult: (index, result) => {
            const call = gated[index]?.call;
            if (call) {
              const { status, ...detail } = toolOutcome(call, result);
              options.onStatus(call.id, status, detail);
            }
          },
        },
      );
      results.forEach((result, position) => {
        const item = gated[position];
        if (item) {
          outcomes[item.index] = toolOutcome(item.call, result);
        }
      });
    };
    await Promise.all([
      runGated(),
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
    const entry: Extract<ChatEntry, { kind: 'question' }> = { kind: 'question', id: `q-${randomUUID()}`, v: 1, question, options, allowFreeText };
    let onAbort: (() => void) | undefined;
    const answer = new Promise<string | undefined>((resolve) => {
      if (signal.aborted) {
        resolve(undefined);
        return;
      }
      // Waiting before the entry shows, so that whoever the entry's change wakes (the badge) counts it.
      running.questions.set(entry.id, { question, options, allowFreeText, resolve });
      onAbort = () => resolve(undefined);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    this.deps.chats.push(entry);
    const given = await answer;
    if (onAbort) {
      signal.removeEventListener('abort', onAbort);
    }
    running.questions.delete(entry.id);
    if (given === undefined) {
      this.deps.chats.update(entry, { answer: '(not answered: the task was stopped)' });
      return { id: call.id, ok: false, status: 'failed', output: 'The question was not answered: the task was stopped.' };
    }
    this.deps.chats.update(entry, { answer: given });
    return { id: call.id, ok: true, status: 'done', output: `The person answered: ${JSON.stringify(given)}` };
  }

  /** An answer clicked or typed in the chat: it must be one of the options, or free text where that is allowed. */
  answer(questionId: string, answer: string): Outcome {
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
    this.deps.gate.cancel('the task was stopped', this.chatId);
    return true;
  }

  newChat(): Outcome {
    if (this.running) {
      return { ok: false, error: 'stop the running task before starting a new chat' };
    }
    this.deps.endSessionGrants(this.chatId);
    this.deps.chats.startNew();
    return { ok: true };
  }

  openChat(id: string): Outcome {
    if (this.running) {
      return { ok: false, error: 'stop the running task before switching chats' };
    }
    const previous = this.chatId;
    if (!this.deps.chats.open(id)) {
      return { ok: false, error: `no chat ${id}` };
    }
    this.deps.endSessionGrants(previous);
    return { ok: true };
  }
}

/** A call's result as the agent loop takes it: its status in the chat, what the model is told, how it was allowed. */
function toolOutcome(call: ToolCall, result: ToolCallResult): ToolOutcome {
  const status = result.decision?.verdict === 'deny' ? 'denied' : result.ok ? 'done' : 'failed';
  const decided = decisionNote(call, result);
  const note = result.landed === undefined ? decided : { ...decided, landed: result.landed };
  return { id: call.id, ok: result.ok, output: result.output, status, ...(note ? { note } : {}), ...(result.kept ? { kept: result.kept } : {}) };
}

/** What the model is told when a task goes on after a window reload cut it off. */
export const resumeNote =
  'The VS Code window was reloaded while you were working on this task, so the step that was under way did not finish: ' +
  'any tool calls of it were not run, and a command that was running may have run in part. Check the state of what you ' +
  'were changing, then continue the task.';

/** What the chat entry of an allowed call says about how it was allowed (typed, from the gate's result). */
function decisionNote(call: ToolCall, result: ToolCallResult): ToolDecisionNote | undefined {
  const decision = result.decision;
  if (decision?.verdict !== 'allow') {
    return undefined;
  }
  const note: ToolDecisionNote = {
    ...result.allowed,
    ...(decision.edited !== undefined && call.name === 'run_in_terminal' ? { ran: decision.edited } : {}),
  };
  return Object.keys(note).length > 0 ? note : undefined;
}

/** A call waiting for the person as a decision typed in the chat names it. */
function inChat(call: WaitingCall): WaitingInChat {
  return { callId: call.callId, argsHash: call.input.call.argsHash, tool: call.input.call.tool, preview: call.input.preview };
}
