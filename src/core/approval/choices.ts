/**
 * The person's choices on a waiting call and their rules, in one place, as pure functions: which actions a person may
 * take, which grants a card offers, which actions are off now and why, and whether a choice is refused. The gate
 * refuses a choice these rules forbid, and the views show the same reasons on the buttons they turn off and offer the
 * same grants, so a card never offers what the host would refuse and never recomputes a rule itself.
 */
import { grantMinutes, type GrantScope } from './grants';
import { checkHunkDecisions, type HunkDecision } from '../review/hunks';
import type { ReviewFacts } from '../review/liveReview';

/**
 * What a person can do with a waiting call: `allow-task`, a grant for the agent's current task; `allow-minutes`, a
 * grant for the next minutes; `allow-unconfined`, once, without the sandbox (the only allow of a call that would run
 * unconfined); `allow-remedy`, one of the narrow fixes the call's card offers (`GateInput.remedies`). The core's own
 * words for the webview contract's DecisionAction (src/core/views checks they are the same).
 */
export type DecisionAction = 'allow-once' | 'allow-session' | 'allow-workspace' | 'allow-edited' | 'deny' | 'allow-task' | 'allow-minutes' | 'allow-unconfined' | 'allow-remedy';

/** The actions that allow by making a grant, in the order a card shows them. */
export type GrantAction = 'allow-session' | 'allow-task' | 'allow-minutes' | 'allow-workspace';

/** The grant each granting action makes. */
export const grantScopes: Readonly<Record<GrantAction, GrantScope>> = {
  'allow-session': 'session',
  'allow-task': 'task',
  'allow-minutes': 'timed',
  'allow-workspace': 'workspace',
};

export function isGrantAction(action: DecisionAction): action is GrantAction {
  return action in grantScopes;
}

/** What the person chose for a waiting call. */
export interface PersonChoice {
  action: DecisionAction;
  /** Deny: the person's reason, returned to the model. */
  reason?: string;
  /** Session/workspace/task/minutes: which of the offered grant options. */
  grantOption?: string;
  /** allow-minutes: how long the grant lasts (default 15). */
  minutes?: number;
  /** allow-remedy: which of the card's remedies. */
  remedy?: string;
  /** allow-edited: the edited content or command. */
  edited?: string;
  /** allow-once of a diff decided hunk by hunk: what was rejected (a hunk not listed is accepted). */
  hunks?: HunkDecision[];
  /**
   * The revision of the call's held edit that the deciding view showed (0: no edit); undefined from a surface that
   * shows no edit. An Allow applies the held edit only if it is the one shown (see ../review/heldEdits).
   */
  editRevision?: number;
}

/** What the rules read of a waiting call: whether a grant can cover it, its hunk choices and its held edit. */
export interface ChoiceFacts extends ReviewFacts {
  grantable: boolean;
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

/**
 * Which grants may be made at all: a managed settings file can take away the workspace's and shorten how long any
 * lasts. Absent: every kind, timed ones up to `grantMinutes.max`.
 */
export interface GrantLimits {
  workspace: boolean;
  /** The longest a grant is in force: timed grants up to it; session and task grants end at it too. */
  maxMinutes?: number;
  /** The managed file that set these, for the reasons a refusal gives. */
  file: string;
}

/** What the rules read of a waiting call besides its live facts: what it offers and what it is. */
export interface ChoiceSubject {
  callId: string;
  facts: ChoiceFacts;
  /** It would run without the sandbox: only `allow-unconfined` allows it. */
  runsUnconfined: boolean;
  /** The ids of the remedies its card offers. */
  remedies: readonly string[];
  /** The ids of the grant options offered for it. */
  grantOptions: readonly string[];
  /** Part of an agent's task (a task grant can cover it). */
  inTask: boolean;
  /** What "Edit then allow" edits, if it can be edited. */
  editable?: 'content' | 'command';
  /** A diff that can be decided hunk by hunk: how many hunks it has. */
  reviewableHunks?: number;
  grantLimits?: GrantLimits;
}

/** The grants a card offers for a call, in the order shown: none when no grant can cover it; a task's only in a task. */
export function grantsOffered(subject: Pick<ChoiceSubject, 'inTask' | 'grantLimits'> & { facts: Pick<ChoiceFacts, 'grantable'> }): GrantAction[] {
  if (!subject.facts.grantable) {
    return [];
  }
  const offered: GrantAction[] = subject.inTask ? ['allow-session', 'allow-task', 'allow-minutes', 'allow-workspace'] : ['allow-session', 'allow-minutes', 'allow-workspace'];
  return subject.grantLimits?.workspace === false ? offered.filter((action) => action !== 'allow-workspace') : offered;
}

/** The longest a timed grant may last for a call with these limits. */
export function longestMinutes(limits: GrantLimits | undefined): number {
  return Math.min(grantMinutes.max, limits?.maxMinutes ?? grantMinutes.max);
}

/** Why the gate refuses this choice on this call, as the caller logs it; undefined when it may be taken. */
export function refusal(subject: ChoiceSubject, choice: PersonChoice): string | undefined {
  const why = refusalReason(subject, choice);
  return why === undefined ? undefined : `call ${subject.callId}: ${why}`;
}

function refusalReason(subject: ChoiceSubject, choice: PersonChoice): string | undefined {
  // Running without the sandbox takes its own button: a careless Allow once (or Allow all, a notification, a key)
  // must not lift the sandbox.
  if (subject.runsUnconfined && choice.action === 'allow-once') {
    return 'it would run without the sandbox; only its "Run without sandbox" button allows that';
  }
  if (choice.action === 'allow-unconfined' && !subject.runsUnconfined) {
    return 'it runs in the sandbox; allow it once instead';
  }
  if (choice.action === 'allow-remedy' && !subject.remedies.some((id) => id === choice.remedy)) {
    return `'${choice.remedy ?? ''}' is not one of the fixes its card offers`;
  }
  if (choice.action === 'allow-task' && !subject.inTask) {
    return "it is not part of an agent's task; allow it for the session instead";
  }
  const longest = longestMinutes(subject.grantLimits);
  if (choice.action === 'allow-minutes' && choice.minutes !== undefined && !(Number.isInteger(choice.minutes) && choice.minutes >= grantMinutes.min && choice.minutes <= longest)) {
    return `a timed grant lasts ${grantMinutes.min} to ${longest} minutes${longest < grantMinutes.max ? ` (the managed policy's longest)` : ''}, not ${choice.minutes}`;
  }
  if (choice.action === 'allow-minutes' && choice.minutes === undefined && grantMinutes.default > longest) {
    return `a timed grant lasts at most ${longest} minutes here (the managed policy's longest): choose how long`;
  }
  if (isGrantAction(choice.action) && subject.facts.grantable && !grantsOffered(subject).includes(choice.action)) {
    return choice.action === 'allow-workspace'
      ? `the managed policy (${subject.grantLimits?.file ?? ''}) allows no grants for the whole workspace; allow it for the session instead`
      : `'${choice.action}' is not offered for this call`;
  }
  if (isGrantAction(choice.action)) {
    const off = whyOff(subject.facts, 'grant');
    if (off !== undefined) {
      return off;
    }
    if (choice.grantOption !== undefined && !subject.grantOptions.includes(choice.grantOption)) {
      return `'${choice.grantOption}' is not one of the offered grant scopes`;
    }
  }
  if (choice.hunks !== undefined) {
    if (choice.action !== 'allow-once' || subject.reviewableHunks === undefined) {
      return 'only a file\'s diff can be decided hunk by hunk, and only with allow-once';
    }
    const check = checkHunkDecisions(subject.reviewableHunks, choice.hunks, 'accept');
    if (check.kind !== 'ok') {
      return check.message;
    }
    if (check.accepted.size === 0) {
      return 'every hunk was rejected; deny the call instead';
    }
  }
  if (choice.action === 'allow-edited') {
    if (subject.editable === undefined) {
      return 'this call cannot be edited';
    }
    if (choice.edited === undefined) {
      return 'allow-edited needs the edited text';
    }
    if (subject.editable === 'command' && choice.edited.trim() === '') {
      return 'the edited command is empty';
    }
  }
  return undefined;
}

/** What a decision action is, as far as a held edit is concerned (../review/heldEdits: editDecision). */
export function editAction(action: DecisionAction): 'allow' | 'allow-edited' | 'grant' | 'deny' {
  if (action === 'deny' || action === 'allow-edited') {
    return action;
  }
  return action === 'allow-once' || action === 'allow-unconfined' || action === 'allow-remedy' ? 'allow' : 'grant';
}
