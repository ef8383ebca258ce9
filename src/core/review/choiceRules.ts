/**
 * The rules of a person's choice on a waiting call, in one place: which of its actions are off now, and why. The gate
 * refuses a choice these rules forbid, and the views show the same reasons on the buttons they turn off, so a card
 * never offers what the host would refuse and never recomputes the rule itself.
 */

/** What the rules read of a waiting call: whether a grant can cover it, its hunk choices and its held edit. */
export interface ChoiceFacts {
  grantable: boolean;
  /** A diff decided hunk by hunk: how many hunks it has and how many are accepted now. */
  hunks?: { count: number; accepted: number };
  /** The person edited the call (the host holds the edit). */
  edited: boolean;
}

export type ChoiceKind = 'allow' | 'grant' | 'allow-all';

/** Each action that is off, with why, as the person reads it (the views carry it to the cards as it is). */
export type ActionsOff = Partial<Record<ChoiceKind, string>>;

/** Why `kind` is off for a call with these facts, as the person reads it; undefined when it is on. */
export function whyOff(facts: ChoiceFacts, kind: ChoiceKind): string | undefined {
  const rejected = facts.hunks !== undefined && facts.hunks.accepted < facts.hunks.count;
  const allRejected = facts.hunks !== undefined && facts.hunks.count > 0 && facts.hunks.accepted === 0;
  switch (kind) {
    case 'allow':
      return allRejected ? 'Every hunk is rejected: use Deny to refuse the whole call' : undefined;
    case 'grant':
      if (!facts.grantable) {
        return 'No grant can cover this call: allow it once';
      }
      if (facts.edited) {
        return 'You edited this call: a grant would allow the original. Allow the edit once, or undo the edit.';
      }
      return rejected ? 'A grant allows the whole change: with hunks rejected, allow once' : undefined;
    case 'allow-all':
      if (rejected) {
        return 'Some hunks are rejected: allow those calls once, on their cards';
      }
      return facts.edited ? 'A call has an edit pending: write or run the edited version on its card, or close its edit first' : undefined;
  }
}

/** The view's `off`: each action that is off with its reason; absent when every action is on. */
export function actionsOff(facts: ChoiceFacts): ActionsOff | undefined {
  const off: ActionsOff = {};
  for (const kind of ['allow', 'grant', 'allow-all'] as const) {
    const why = whyOff(facts, kind);
    if (why !== undefined) {
      off[kind] = why;
    }
  }
  return Object.keys(off).length === 0 ? undefined : off;
}
