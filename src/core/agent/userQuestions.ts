/**
 * The `ask_user` questions of a running task: each asked in the chat, waiting for the person's answer (clicked, or
 * typed in the prompt), and left unanswered when the task stops.
 */
import { randomUUID } from 'node:crypto';
import type { ToolCall } from '../llm/client';
import { parseBuiltinCall } from '../toolDefinitions';
import type { ChatEntry } from '../../shared/messages';
import type { ToolOutcome } from './agent';
import type { ChatBook } from './chats';

/** An `ask_user` question as the prompt answers it. */
export interface QuestionInChat {
  options: readonly string[];
  allowFreeText: boolean;
}

export type QuestionAnswerPlan = { kind: 'answer'; answer: string } | { kind: 'notice'; text: string };

/**
 * What text typed in the prompt answers to a waiting question: an option named exactly (any case), by its number
 * ("2", "#2", "option 2"), or by a word only one option has; else the text itself where free text is allowed; else
 * what the person can answer.
 */
export function planQuestionAnswer(input: string, question: QuestionInChat): QuestionAnswerPlan {
  const text = input.trim();
  const lower = text.toLowerCase().replace(/[.!]+$/, '');
  const { options } = question;
  const exact = options.find((option) => option.toLowerCase() === lower);
  if (exact !== undefined) {
    return { kind: 'answer', answer: exact };
  }
  const number = /^(?:option\s+|#)?(\d+)$/.exec(lower);
  const numbered = number?.[1] !== undefined ? options[Number(number[1]) - 1] : undefined;
  if (numbered !== undefined) {
    return { kind: 'answer', answer: numbered };
  }
  if (lower.length >= 3 && !question.allowFreeText) {
    const words = (option: string): string[] => option.toLowerCase().split(/[^\p{L}\p{N}]+/u);
    const naming = options.filter((option) => option.toLowerCase().startsWith(lower) || words(option).includes(lower));
    if (naming.length === 1 && naming[0] !== undefined) {
      return { kind: 'answer', answer: naming[0] };
    }
  }
  if (question.allowFreeText && text !== '') {
    return { kind: 'answer', answer: text };
  }
  return { kind: 'notice', text: `The agent asks you to choose: ${options.map((option, index) => `${index + 1}: ${option}`).join('; ')}. Type one of them or its number, or click it.` };
}

/** The refusal of an answer to a question that is not waiting (answered, its task ended, or never asked). */
export function notWaiting(questionId: string): { ok: false; error: string } {
  return { ok: false, error: `question ${questionId} is not waiting for an answer` };
}

interface Question {
  question: string;
  options: string[];
  allowFreeText: boolean;
  resolve: (answer: string | undefined) => void;
}

/** One task's questions waiting for the person, by the id of their chat entry, oldest first. */
export class UserQuestions {
  private readonly waiting = new Map<string, Question>();

  constructor(private readonly chats: Pick<ChatBook, 'push' | 'update' | 'notice'>) {}

  /** Questions waiting for the person's answer. */
  get size(): number {
    return this.waiting.size;
  }

  /** The questions waiting for the person's answer, by entry id, oldest first. */
  views(): { id: string; question: string }[] {
    return [...this.waiting.entries()].map(([id, { question }]) => ({ id, question }));
  }

  async ask(call: ToolCall, signal: AbortSignal): Promise<ToolOutcome> {
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
      this.waiting.set(entry.id, { question, options, allowFreeText, resolve });
      onAbort = () => resolve(undefined);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    this.chats.push(entry);
    const given = await answer;
    if (onAbort) {
      signal.removeEventListener('abort', onAbort);
    }
    this.waiting.delete(entry.id);
    if (given === undefined) {
      this.chats.update(entry, { answer: '(not answered: the task was stopped)' });
      return { id: call.id, ok: false, status: 'failed', output: 'The question was not answered: the task was stopped.' };
    }
    this.chats.update(entry, { answer: given });
    return { id: call.id, ok: true, status: 'done', output: `The person answered: ${JSON.stringify(given)}` };
  }

  /** An answer clicked or typed in the chat: it must be one of the options, or free text where that is allowed. */
  answer(questionId: string, answer: string): { ok: true } | { ok: false; error: string } {
    const question = this.waiting.get(questionId);
    if (!question) {
      return notWaiting(questionId);
    }
    if (!question.options.includes(answer) && !(question.allowFreeText && answer.trim() !== '')) {
      return { ok: false, error: 'the answer is not one of the options, and free text is not allowed for this question' };
    }
    question.resolve(question.options.includes(answer) ? answer : answer.trim());
    return { ok: true };
  }

  /** Text typed in the prompt answers the oldest waiting question, or the chat says what it can answer. */
  answerTyped(text: string): void {
    const [question] = this.waiting.values();
    if (question === undefined) {
      return;
    }
    const answer = planQuestionAnswer(text, question);
    if (answer.kind === 'answer') {
      question.resolve(answer.answer);
    } else {
      this.chats.notice(answer.text);
    }
  }

  /** The task ended: every question still waiting goes unanswered. */
  endAll(): void {
    for (const question of this.waiting.values()) {
      question.resolve(undefined);
    }
  }
}
