/**
 * Approving or denying waiting calls by typing in the chat: "yes", "approve", "no", "deny, because …", with an
 * optional call number ("yes 2", "no all because …"). Anything that is neither, or that could mean more than one
 * call, is not a decision: the caller asks which call is meant. While the task's `ask_user` question waits, what is
 * typed answers it instead, unless it decides calls that wait beside it.
 */
import { randomUUID } from 'node:crypto';
import type { Gate, WaitingCall } from '../approval/gate';
import { chatShowsCall } from '../callers';
import type { Preview } from '../review/preview';
import type { ChatBook } from './chats';
import type { UserQuestions } from './userQuestions';

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
  // The em and en dash as escapes: Toolgate's bundle stays ASCII (src/loadBundle.ts).
  const reason = rest.replace(/^[,:;\u2014\u2013-]\s*/, '').replace(/^because\s+/i, '').trim();
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

/** A call waiting for the person as a decision typed in the chat names it. */
function inChat(call: Pick<WaitingCall, 'callId' | 'input'>): WaitingInChat {
  return { callId: call.callId, argsHash: call.input.call.argsHash, tool: call.input.call.tool, preview: call.input.preview };
}

/** What a decision typed in the chat reaches: the gate's waiting calls (never their views), the chat, the task's questions. */
export interface ChatDecisionPorts {
  gate: { waitingCalls(): readonly Pick<WaitingCall, 'callId' | 'input'>[]; settle: Gate['settle'] };
  chats: Pick<ChatBook, 'push' | 'notice'>;
  questions: Pick<UserQuestions, 'size' | 'answerTyped'>;
}

/** What the person typed in the chat while a task runs: an answer to its question, or a decision on waiting calls. */
export function decideFromChat(text: string, { gate, chats, questions }: ChatDecisionPorts): void {
  chats.push({ kind: 'user', id: `u-${randomUUID()}`, v: 1, text });
  const waiting = gate.waitingCalls().filter((call) => chatShowsCall(call.input)).map(inChat);
  // With a question waiting, what the person sends answers it; "yes" / "no" still decide calls that wait beside it.
  if (questions.size > 0 && (waiting.length === 0 || parseChatDecision(text).kind === 'none')) {
    questions.answerTyped(text);
    return;
  }
  const plan = planChatDecision(text, waiting);
  if (plan.kind === 'notice') {
    chats.notice(plan.text);
    return;
  }
  for (const call of plan.targets) {
    const outcome = gate.settle(call, { action: plan.allow ? 'allow-once' : 'deny', ...(plan.reason !== undefined ? { reason: plan.reason } : {}) });
    if (!outcome.ok) {
      chats.notice(outcome.error, 'error');
    }
  }
}
