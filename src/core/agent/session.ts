/**
 * The agent in one window: one task at a time in the current chat (new, resumed after a reload, or retried after a
 * model error), stop, new chat and other chats. What is typed while a task runs goes to `chatDecisions.ts`, a turn's
 * calls to `turnCalls.ts`, its questions to `userQuestions.ts`, and its changes, at its end, to `taskChangesEntry.ts`.
 * The editor is reached through the ports of `AgentSessionDeps`.
 */
import { randomUUID } from 'node:crypto';
import type { Gate } from '../approval/gate';
import { startTask, type TaskRef } from '../checkpoints/recorder';
import type { TaskChanges } from '../checkpoints/taskChanges';
import type { ChatMessage, ChatModel, ModelErrorKind, ToolSpec } from '../llm/client';
import type { McpServerStatus } from '../mcp/manager';
import { failureKey, mcpStartupWaitMs, settledNotices, startingNotice } from '../mcp/startup';
import type { LogPort } from '../tools/ports';
import type { ToolService } from '../tools/service';
import { builtinToolSpecs } from '../tools/specs';
import type { ChatEntry } from '../../shared/messages';
import { defaultSystemPrompt, runAgent, type AgentStopReason, type ToolRunner } from './agent';
import { decideFromChat } from './chatDecisions';
import { toChatMessage, type ChatBook, type NoticeActions } from './chats';
import { listTaskChanges, refreshTaskChanges } from './taskChangesEntry';
import { TranscriptWriter } from './transcript';
import { runTurnCalls, type TurnCallPorts } from './turnCalls';
import { notWaiting, UserQuestions } from './userQuestions';

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

interface Running {
  controller: AbortController;
  questions: UserQuestions;
}

/** A task whose model turn failed: its chat, its prompt, and the error notice that offers Retry. */
interface Failed {
  chatId: string;
  prompt: string;
  notice: Extract<ChatEntry, { kind: 'notice' }>;
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
    return this.running?.questions.views() ?? [];
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
      decideFromChat(prompt, { gate: this.deps.gate, chats: this.deps.chats, questions: this.running.questions });
      return;
    }
    void this.runTask(prompt).catch((error: unknown) => this.deps.log.error(`task failed: ${String(error)}`));
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
    const running: Running = { controller: new AbortController(), questions: new UserQuestions(chats) };
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
    const ports: TurnCallPorts = { tools: this.deps.tools, ask: (call, signal) => running.questions.ask(call, signal) };
    const runner: ToolRunner = { run: (calls, options) => runTurnCalls(calls, { chatId: chat.id, task, turn: step - 1 }, ports, options) };
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
      await listTaskChanges(task, chat, this.deps);
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
      running.questions.endAll();
      delete chat.task;
      this.running = undefined;
      this.deps.onRunning(false);
      chats.changed();
    }
  }

  /**
   * After an undo of a task of the chat shown: its list of changes says what is left (a file put back is no longer
   * listed; what landed without review stays, as the undo cannot revert it).
   */
  async refreshChanges(taskId: string): Promise<void> {
    await refreshTaskChanges(taskId, this.deps);
  }

  /** An answer clicked or typed in the chat: it must be one of the options, or free text where that is allowed. */
  answer(questionId: string, answer: string): Outcome {
    return this.running?.questions.answer(questionId, answer) ?? notWaiting(questionId);
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

/** What the model is told when a task goes on after a window reload cut it off. */
export const resumeNote =
  'The VS Code window was reloaded while you were working on this task, so the step that was under way did not finish: ' +
  'any tool calls of it were not run, and a command that was running may have run in part. Check the state of what you ' +
  'were changing, then continue the task.';
