/**
 * Approving or denying waiting calls by typing in the chat: "yes", "approve", "no", "deny, because …", with an
 * optional call number ("yes 2", "no all because …"). Anything that is neither, or that could mean more than one
 * call, is not a decision: the caller asks which call is meant.
 */
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
