/**
 * What the gate is asked and what it answers: a call as it comes in (`GateInput`), a call that waits for the person
 * (`WaitingCall`, what src/core/views draws its card from), the reference a surface decides one by, and the result.
 */
import type { CallGroup } from './groups';
import type { GrantOption } from './grantOptions';
import type { Grant, GrantScope } from './grants';
import type { AllowedBy, GateCall, Judgement } from './policy';
import type { HunkDecision } from '../review/hunks';
import type { ReviewFacts, ReviewState } from '../review/liveReview';
import type { Preview } from '../review/preview';
import type { StagingStatus } from '../sandbox/commandSandbox';
import type { ChoiceFacts, ChoiceSubject, GrantLimits } from './choices';

/**
 * A narrow fix offered on the card of a command the sandbox made fail, before the wide "Run without sandbox": allow the
 * host the proxy refused, for this run or in the allow-list. Whoever asks offers them and acts on the one chosen (the
 * gate only checks it was offered); `id` is what the decision names, `label` the button, `title` what it does.
 */
export interface CallRemedy {
  id: string;
  label: string;
  title: string;
}

export interface GateInput {
  /** The id the call will carry (a fresh one if absent), so the caller can key its own state by it. */
  callId?: string;
  call: GateCall;
  preview: Preview;
  /** Who asks, as src/core/callers.ts makes it: 'agent', the API's caller, a language-model tool call, an MCP client. */
  source: string;
  /** What "Edit then allow" edits, if the call supports it. */
  editable?: { kind: 'content' | 'command'; text: string };
  /** For an editable command: the call the edited command makes, so the cards can show its analysis as it is typed. */
  editedCall?: (command: string) => GateCall;
  /** Why this call is shown again, or anything else the person must read first. */
  notices?: string[];
  /**
   * Decided with the other waiting calls of the same group on one card (a staged command's changed files): each by
   * its hunk choices (a call with no text diff shows one hunk that stands for its whole change), and Allow once or
   * Deny of any member settles them all.
   */
  group?: CallGroup;
  /** A command: whether its changes will be reviewed before they land, or why not (its card says so). */
  staging?: StagingStatus;
  /** The narrow fixes its card offers (`allow-remedy`), in the order shown. */
  remedies?: readonly CallRemedy[];
}

/** Where a call is judged: the chat, who asks, and the agent's task it belongs to (none for other callers). */
export interface CallPlace {
  chatId: string;
  source: string;
  taskId?: string | undefined;
}

export type GateResult =
  | {
      verdict: 'allow';
      callId: string;
      decidedBy: 'person' | 'grant' | 'rule' | 'setting' | 'policy' | 'managed';
      scope?: 'once' | GrantScope;
      reason: string;
      /** Set when the person edited the content or command before allowing: this is what must run. */
      edited?: string;
      /** Set when the person decided the diff hunk by hunk: one decision per shown hunk, in file order. */
      hunks?: HunkDecision[];
      /** Allowed without asking: the rule or grant that did it. */
      allowedBy?: AllowedBy;
      /** Allowed by the person with a new grant: that grant. */
      granted?: Grant;
      /** Allowed by one of the remedies the card offered: its id. */
      remedy?: string;
    }
  | {
      verdict: 'deny';
      callId: string;
      decidedBy: 'person' | 'timeout' | 'cancel' | 'policy' | 'managed';
      reason: string;
      /** The person's own words, for the model. */
      personReason?: string;
      /** decidedBy 'cancel': why the call was cancelled, in words for the model. */
      cancelReason?: string;
    };

/**
 * A call waiting for the person, as it started waiting: what src/core/views draws its card from. The same object while
 * the call waits (a view built from it can be kept); its live state is the gate's liveState().
 */
export interface WaitingCall {
  callId: string;
  batchId: string;
  chatId: string;
  input: GateInput;
  /** The agent's task the call belongs to (none for other callers). */
  readonly taskId?: string;
  judgement: Judgement & { cap?: string };
  readonly options: readonly GrantOption[];
  readonly waitingSince: Date;
  readonly timeoutSeconds: number;
  /** Grants active for the call's chat when it started waiting: a grant of this tool pinned to another definition means it was redefined. */
  readonly activeGrants: readonly Grant[];
  /** Which grants may be made at all (a managed settings file narrows them); absent: every kind, up to a day. */
  readonly grantLimits?: GrantLimits;
}

/** What changes while a call waits, from any surface: its hunk choices, the person's edit, and what the choice rules read. */
export interface LiveCallState extends ReviewState {
  facts: ChoiceFacts;
}

/** A waiting call as the person saw it: its id and the hash of the arguments that were shown. */
export interface CallRef {
  callId: string;
  argsHash: string;
}

/** Whether a grant can cover a waiting call at all: the policy says so and some grant scope is offered. */
export function grantable(call: Pick<WaitingCall, 'judgement' | 'options'>): boolean {
  return call.judgement.grantable && call.options.length > 0;
}

/** How many hunks of a waiting call's diff are decided one by one: a file's content the host writes, or a group's member, with hunks. */
export function reviewableHunks(input: GateInput): number | undefined {
  return input.preview.kind === 'diff' && input.preview.hunks.length > 0 && (input.editable?.kind === 'content' || input.group !== undefined) ? input.preview.hunks.length : undefined;
}

/** What the rules of a person's choice (choices.ts) read of a waiting call now, with its review's facts. */
export function choiceSubject(entry: WaitingCall, review: ReviewFacts): ChoiceSubject {
  const input = entry.input;
  const hunks = reviewableHunks(input);
  return {
    callId: entry.callId,
    facts: { grantable: grantable(entry), ...review },
    runsUnconfined: entry.judgement.runsUnconfined === true,
    remedies: (input.remedies ?? []).map((remedy) => remedy.id),
    grantOptions: entry.options.map((option) => option.id),
    inTask: entry.taskId !== undefined,
    ...(input.editable !== undefined ? { editable: input.editable.kind } : {}),
    ...(hunks !== undefined ? { reviewableHunks: hunks } : {}),
    ...(entry.grantLimits !== undefined ? { grantLimits: entry.grantLimits } : {}),
  };
}
