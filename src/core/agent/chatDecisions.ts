/**
 * Approving or denying waiting calls by typing in the chat: "yes", "approve", "no", "deny, because …", with an
 * optional call number ("yes 2", "no all because …"). Anything that is neither, or that could mean more than one
 * call, is not a decision: the caller asks which call is meant.
 */
import type { Preview } from '../review/preview';

export type ChatDecision =
  | { kind: 'decide'; allow: boolean; target: 'all' | number | 'only'; reason?: string }
  | { kind: 'none' };

const yes = /^(yes|y|yeah|yep|approve|approved|allow|allowed|ok|okay|sure|go ahead|do it|lgtm)\b/;
const no = /^(no|n|nope|deny|denied|reject|rejected|don't|do not|stop)\b/;

export function parseChatDecision(input: string): ChatDecision {
  const text = input.trim().toLowerCase().replace(/[.!]+$/, '');
  const allow = yes.test(text);
  const deny = no.test(text);
  if (allow === deny) {
    return { kind: 'none' };
  }
  const head = (allow ? yes : no).exec(text)?.[0] ?? '';
  let rest = input.trim().replace(/[.!]+$/, '').slice(head.length).trim();
  let target: 'all' | number | 'only' = 'only';
  const which = /^(?:to\s+)?(all|#?\d+)\b[,:]?\s*/i.exec(rest);
  if (which?.[1] !== undefined) {
    target = which[1].toLowerCase() === 'all' ? 'all' : Number(which[1].replace('#', ''));
    rest = rest.slice(which[0].length).trim();
  }
  const reason = rest.replace(/^[,:;—–-]\s*/, '').replace(/^because\s+/i, '').trim();
  if (allow && reason !== '' && !/^(please|thanks|thank you)$/i.test(reason)) {
    // "yes but change X" is not a plain yes: let the person use the panel's edit instead.
    return { kind: 'none' };
  }
  return { kind: 'decide', allow, target, ...(!allow && reason !== '' ? { reason } : {}) };
}

/** A waiting call as the chat names it. */
export interface WaitingInChat {
  callId: string;
  argsHash: string;
  tool: string;
  preview: Preview;
}

export type ChatDecisionPlan<W extends WaitingInChat> =
  /** Not a decision, or not clear which call it is about: the chat says so. */
  | { kind: 'notice'; text: string }
  | { kind: 'settle'; targets: W[]; allow: boolean; reason?: string };

function describeWaiting(call: WaitingInChat): string {
  const what = call.preview.kind === 'diff' ? call.preview.path : call.preview.kind === 'command' ? call.preview.command : '';
  return `${call.tool} ${what}`.trim();
}

/** What typed text means for the calls waiting in this chat: which of them it settles, and how, or what to say back. */
export function planChatDecision<W extends WaitingInChat>(text: string, waiting: readonly W[]): ChatDecisionPlan<W> {
  const decision = parseChatDecision(text);
  const count = waiting.length;
  if (count === 0) {
    return { kind: 'notice', text: 'A task is running; wait for it or press Stop before giving a new one.' };
  }
  if (decision.kind === 'none') {
    return {
      kind: 'notice',
      text: `${count} call${count === 1 ? '' : 's'} wait${count === 1 ? 's' : ''}: answer "yes" or "no, because …" (with a number when several wait), or use the Approvals panel.`,
    };
  }
  const settle = (targets: W[]): ChatDecisionPlan<W> => ({
    kind: 'settle',
    targets,
    allow: decision.allow,
    ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
  });
  if (decision.target === 'only') {
    return count === 1
      ? settle([...waiting])
      : { kind: 'notice', text: `Which call? ${waiting.map((call, index) => `${index + 1}: ${describeWaiting(call)}`).join('; ')}. Say "yes 1", "no 2 because …" or "yes all".` };
  }
  if (decision.target === 'all') {
    return settle([...waiting]);
  }
  const chosen = waiting[decision.target - 1];
  return chosen ? settle([chosen]) : { kind: 'notice', text: `There is no call ${decision.target}; ${count} wait.` };
}

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
