/**
 * The agent loop's events as chat entries: the assistant's streamed text, one entry per tool call with its status and
 * result, and a notice when the task stops early. ask_user calls get their own question entries (see session.ts).
 */
import { randomUUID } from 'node:crypto';
import type { ModelErrorKind, ToolCall } from '../llm/client';
import { parseBuiltinCall } from '../toolDefinitions';
import type { ChatEntry } from '../../shared/messages';
import type { AgentEvent } from './agent';
import type { ChatBook, ChatRecord } from './chats';

const maxSummaryChars = 200;

function clip(text: string): string {
  return text.length > maxSummaryChars ? `${text.slice(0, maxSummaryChars)}…` : text;
}

/** One line saying what a tool call is about: its path, query or command. */
export function summarizeCall(call: ToolCall): string {
  const parsed = parseBuiltinCall(call.name, call.arguments);
  if (!parsed.ok) {
    return clip(call.arguments);
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
      return clip(parsed.args.command);
    case 'ask_user':
      return parsed.args.question;
  }
}

/** Writes one task's events into its chat. */
export class TranscriptWriter {
  private assistant: Extract<ChatEntry, { kind: 'assistant' }> | undefined;
  /** The notice of a retry still waiting to be sent: its countdown ends when the next thing happens. */
  private retrying: Extract<ChatEntry, { kind: 'notice' }> | undefined;
  private readonly tools = new Map<string, Extract<ChatEntry, { kind: 'tool' }>>();
  /** The model turn (0-based) each call belongs to: a finished write or edit links to what it changed in it. */
  private readonly turns = new Map<string, number>();
  private turn = 0;
  /** The model error the task ended with, if it did. */
  failure: { error: string; kind: ModelErrorKind | undefined } | undefined;

  constructor(
    private readonly book: ChatBook,
    private readonly chat: ChatRecord,
    private readonly now: () => number = Date.now,
    /** The task whose checkpoints hold what its writes and edits changed (none: no links). */
    private readonly taskId?: string,
  ) {}

  readonly onEvent = (event: AgentEvent): void => {
    if (event.type !== 'retry') {
      this.retried();
    }
    switch (event.type) {
      case 'turnStart':
        this.turn = event.step - 1;
        this.assistant = this.book.push({ kind: 'assistant', id: `a-${randomUUID()}`, v: 1, text: '', streaming: true, since: this.now() }, this.chat);
        break;
      case 'retry': {
        this.retried();
        this.retrying = this.book.push(
          {
            kind: 'notice',
            id: `n-${randomUUID()}`,
            v: 1,
            level: 'info',
            // The view counts the wait down beside it.
            text: `The model endpoint ${event.reason}; trying again (attempt ${event.attempt} of ${event.maxAttempts}).`,
            retryAt: this.now() + event.delayMs,
          },
          this.chat,
        );
        if (this.assistant?.text === '') {
          // The turn's answer comes after the notice: its entry moves below it, counting from the new attempt.
          const at = this.chat.entries.indexOf(this.assistant);
          if (at >= 0) {
            this.chat.entries.splice(at, 1);
          }
          this.assistant = this.book.push({ kind: 'assistant', id: `a-${randomUUID()}`, v: 1, text: '', streaming: true, since: this.now() + event.delayMs }, this.chat);
        }
        break;
      }
      case 'text':
        if (this.assistant) {
          this.book.update(this.assistant, { text: this.assistant.text + event.delta });
        }
        break;
      case 'toolCalls':
        this.endStreaming();
        for (const call of event.calls.filter((candidate) => candidate.name !== 'ask_user')) {
          const step = this.taskId === undefined ? {} : { step: { taskId: this.taskId, turn: this.turn } };
          const entry = { kind: 'tool' as const, id: `t-${randomUUID()}`, v: 1, name: call.name, summary: summarizeCall(call), status: 'running' as const, ...step };
          this.tools.set(call.id, this.book.push(entry, this.chat));
          this.turns.set(call.id, this.turn);
        }
        break;
      case 'toolStatus': {
        const entry = this.tools.get(event.callId);
        if (entry) {
          const wrote = event.status === 'done' && (entry.name === 'write_file' || entry.name === 'edit_file') && this.taskId !== undefined;
          this.book.update(entry, {
            status: event.status,
            ...(wrote ? { change: { taskId: this.taskId, turn: this.turns.get(event.callId) ?? this.turn, file: entry.summary } } : {}),
            ...(event.output !== undefined ? { output: event.output } : {}),
            ...event.note,
            ...(event.kept ? { fullResult: event.kept } : {}),
          });
        }
        break;
      }
      case 'done':
        this.endStreaming();
        if (event.reason === 'error') {
          this.failure = { error: event.error ?? 'unknown error', kind: event.errorKind };
        } else if (event.reason === 'cancelled') {
          this.book.notice('Stopped. Waiting calls were denied and nothing else will run.');
        } else if (event.reason === 'step-limit') {
          this.book.notice(`Stopped: ${event.error ?? 'step limit reached'}.`);
        }
        break;
    }
  };

  private retried(): void {
    if (this.retrying) {
      // Sent: the countdown ends, the notice stays as what happened.
      delete this.retrying.retryAt;
      this.book.update(this.retrying, {});
      this.retrying = undefined;
    }
  }

  private endStreaming(): void {
    if (this.assistant?.streaming === true) {
      this.book.update(this.assistant, { streaming: false });
    }
  }
}
