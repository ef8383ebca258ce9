/**
 * The agent loop: model turn -> tool calls -> the gate (one batch per turn) -> results, in order -> next turn.
 * It stops when the model answers without tools, at the step limit, on cancel, or on a model error; it never waits
 * for ever on anything it can cancel.
 */
import type { ChatMessage, ChatModel, ModelErrorKind, ToolCall, ToolSpec } from '../llm/client';
import { ModelError } from '../llm/client';
import type { AllowedByView, GrantView } from '../../shared/approvals';
import type { LandedView } from '../../shared/messages';

/**
 * How the gate let a call run, for its chat entry: the rule or grant, a grant just made, the edited command; and for a
 * staged command, what became of the files it changed (said on the entry, not only in its result).
 */
export interface ToolDecisionNote {
  allowedBy?: AllowedByView;
  granted?: GrantView;
  ran?: string;
  landed?: LandedView;
}

export type ToolStatus = 'waiting' | 'running' | 'done' | 'denied' | 'failed';

export type AgentEvent =
  | { type: 'turnStart'; step: number }
  | { type: 'text'; delta: string }
  /** The model request failed and is tried again after a wait (attempt `attempt` of `maxAttempts` comes next). */
  | { type: 'retry'; attempt: number; maxAttempts: number; delayMs: number; reason: string }
  | { type: 'toolCalls'; calls: ToolCall[] }
  | { type: 'toolStatus'; callId: string; status: ToolStatus; output?: string; note?: ToolDecisionNote; kept?: { ref: string; chars: number } }
  /** A turn and its tool results are complete: the conversation so far, from which the task can go on after a reload. */
  | { type: 'turnEnd'; messages: ChatMessage[] }
  | { type: 'done'; reason: AgentStopReason; error?: string; errorKind?: ModelErrorKind };

export type AgentStopReason = 'finished' | 'step-limit' | 'cancelled' | 'error';

export interface ToolOutcome {
  /** The model's tool call id. */
  id: string;
  ok: boolean;
  /** What the model is told. */
  output: string;
  status: Exclude<ToolStatus, 'waiting' | 'running'>;
  note?: ToolDecisionNote;
  /** The result was too long for the model: the whole of it, kept for the person. */
  kept?: { ref: string; chars: number };
}

/** A call's result as soon as it has one (before the rest of its turn): what the chat shows of it. */
export type ToolStatusDetail = Partial<Pick<ToolOutcome, 'output' | 'note' | 'kept'>>;

export interface ToolRunner {
  /** Runs one turn's calls (gated ones shown together); reports statuses; resolves with one outcome per call, in order. */
  run(calls: ToolCall[], options: { signal: AbortSignal; onStatus: (callId: string, status: ToolStatus, detail?: ToolStatusDetail) => void }): Promise<ToolOutcome[]>;
}

export interface AgentOptions {
  model: ChatModel;
  /** The tools offered to the model, read before every turn: a tool source that grows during a task joins it. */
  tools: () => ToolSpec[];
  /** Awaited before the first model turn (for example MCP servers that are still starting); cancelled with the task. */
  beforeFirstTurn?: (signal: AbortSignal) => Promise<void>;
  runner: ToolRunner;
  systemPrompt: string;
  maxSteps: number;
}

export interface AgentResult {
  reason: AgentStopReason;
  error?: string;
  /** For a model error: what kind (see ModelError). */
  errorKind?: ModelErrorKind;
  /** The whole conversation, including this task: the next task of the same chat continues from it. */
  messages: ChatMessage[];
  /** The model's final answer (its last text). */
  answer: string;
}

/** Read through a function: TypeScript would otherwise keep `aborted` narrowed across awaits. */
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

export async function runAgent(
  options: AgentOptions,
  history: ChatMessage[],
  /** The person's new message; `undefined` continues `history` as it is (a retry after a failed turn). */
  prompt: string | undefined,
  signal: AbortSignal,
  onEvent: (event: AgentEvent) => void,
): Promise<AgentResult> {
  const messages: ChatMessage[] = [
    ...(history.length === 0 || history[0]?.role !== 'system' ? [{ role: 'system' as const, content: options.systemPrompt }] : []),
    ...history,
    ...(prompt === undefined ? [] : [{ role: 'user' as const, content: prompt }]),
  ];
  let answer = '';
  const finish = (reason: AgentStopReason, error?: string, errorKind?: ModelErrorKind): AgentResult => {
    const detail = { ...(error !== undefined ? { error } : {}), ...(errorKind !== undefined ? { errorKind } : {}) };
    onEvent({ type: 'done', reason, ...detail });
    return { reason, messages, answer, ...detail };
  };
  if (options.beforeFirstTurn) {
    try {
      await options.beforeFirstTurn(signal);
    } catch (error) {
      if (!isAborted(signal)) {
        return finish('error', error instanceof Error ? error.message : String(error));
      }
    }
  }
  for (let step = 1; step <= options.maxSteps; step++) {
    if (isAborted(signal)) {
      return finish('cancelled');
    }
    onEvent({ type: 'turnStart', step });
    let turn;
    try {
      turn = await options.model.complete(messages, options.tools(), {
        signal,
        onText: (delta) => onEvent({ type: 'text', delta }),
        onRetry: (notice) => onEvent({ type: 'retry', ...notice }),
      });
    } catch (error) {
      if (isAborted(signal) || (error instanceof ModelError && error.kind === 'cancelled')) {
        return finish('cancelled');
      }
      return finish('error', error instanceof Error ? error.message : String(error), error instanceof ModelError ? error.kind : undefined);
    }
    if (turn.text !== '') {
      answer = turn.text;
    }
    messages.push({
      role: 'assistant',
      content: turn.text === '' ? null : turn.text,
      ...(turn.toolCalls.length > 0 ? { toolCalls: turn.toolCalls } : {}),
    });
    if (turn.toolCalls.length === 0) {
      return finish('finished');
    }
    onEvent({ type: 'toolCalls', calls: turn.toolCalls });
    let outcomes: ToolOutcome[];
    try {
      outcomes = await options.runner.run(turn.toolCalls, {
        signal,
        onStatus: (callId, status, detail) => onEvent({ type: 'toolStatus', callId, status, ...detail }),
      });
    } catch (error) {
      outcomes = turn.toolCalls.map((call) => ({
        id: call.id,
        ok: false,
        status: 'failed' as const,
        output: `Error: the tool could not be run: ${error instanceof Error ? error.message : String(error)}`,
      }));
    }
    for (const call of turn.toolCalls) {
      const outcome = outcomes.find((candidate) => candidate.id === call.id) ?? {
        id: call.id,
        ok: false,
        status: 'failed' as const,
        output: 'Error: no result was produced for this call. Nothing was run.',
      };
      onEvent({
        type: 'toolStatus',
        callId: call.id,
        status: outcome.status,
        output: outcome.output,
        ...(outcome.note ? { note: outcome.note } : {}),
        ...(outcome.kept ? { kept: outcome.kept } : {}),
      });
      messages.push({ role: 'tool', toolCallId: call.id, content: outcome.output });
    }
    onEvent({ type: 'turnEnd', messages: [...messages] });
    if (isAborted(signal)) {
      return finish('cancelled');
    }
  }
  return finish('step-limit', `stopped after ${options.maxSteps} steps (toolgate.agent.maxSteps)`);
}

export const defaultSystemPrompt = [
  'You are a coding agent working in the VS Code workspace of the person you talk to.',
  'Use the tools to read, search, write and edit files and to run terminal commands. Paths are relative to the workspace folder.',
  'Every write, edit and command is shown to the person for approval first; they may allow it, edit it, or deny it with a reason.',
  'When a call is denied, nothing was changed: read their reason, do not retry the same call, and take another way or ask with ask_user.',
  'When the person edited a call before allowing it, the result says what actually ran or was written: continue from that.',
  'Prefer edit_file with exact, unique `old` text for small changes; read a file before editing it.',
  'Keep answers short and say what you changed.',
].join(' ');
