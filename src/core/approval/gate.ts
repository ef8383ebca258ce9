/**
 * The gate: policy + broker + grants + audit. `request()` decides each call of a batch; calls that ask wait in the
 * broker (shown together in the panel) until the person, a timeout or a cancellation settles them. Every outcome
 * is written to the audit log with who decided and why.
 */
import type { AuditLog } from '../audit/auditLog';
import { DisposableStore, Emitter, type Disposable } from '../disposable';
import { Broker, newCallId, type Resolution, type Waiting } from './broker';
import { TaskCaps } from './caps';
import { grantOptions, type GrantOption } from './grantOptions';
import { describeGrant, grantInForce, grantMinutes, newGrantId, type Grant, type GrantScope, type GrantStore } from './grants';
import { HunkChoices, type HunkChoice } from '../review/hunkChoices';
import { editDecision, HeldEdits, type EditSource, type HeldEdit } from '../review/heldEdits';
import { checkHunkDecisions, type HunkDecision } from '../review/hunks';
import { judge, type AllowedBy, type Judgement, type GateCall, type PolicyContext } from './policy';
import { whyOff, type ChoiceFacts } from '../review/choiceRules';
import type { Preview } from '../review/preview';
import type { StagingStatus } from '../sandbox/commandSandbox';
import { grantCaller } from '../../shared/callers';

/**
 * What a person can do with a waiting call: `allow-task`, a grant for the agent's current task; `allow-minutes`, a
 * grant for the next minutes; `allow-unconfined`, once, without the sandbox (the only allow of a call that would run
 * unconfined); `allow-remedy`, one of the narrow fixes the call's card offers (`GateInput.remedies`). The core's own
 * words for the webview contract's DecisionAction (src/core/views checks they are the same).
 */
export type DecisionAction = 'allow-once' | 'allow-session' | 'allow-workspace' | 'allow-edited' | 'deny' | 'allow-task' | 'allow-minutes' | 'allow-unconfined' | 'allow-remedy';

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

/** Calls decided together on one card: the files a staged command changed. */
export interface CallGroup {
  id: string;
  /** What made the calls: the command as it ran. */
  command: string;
  /** How many changes the command made in the workspace in all (those that landed by a rule included). */
  changed: number;
}

export interface GateInput {
  /** The id the call will carry (a fresh one if absent), so the caller can key its own state by it. */
  callId?: string;
  call: GateCall;
  preview: Preview;
  /** Who asks, as src/shared/callers.ts makes it: 'agent', the API's caller, a language-model tool call, an MCP client. */
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
      decidedBy: 'person' | 'grant' | 'rule' | 'setting' | 'policy';
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
      decidedBy: 'person' | 'timeout' | 'cancel' | 'policy';
      reason: string;
      /** The person's own words, for the model. */
      personReason?: string;
      /** decidedBy 'cancel': why the call was cancelled, in words for the model. */
      cancelReason?: string;
    };


/**
 * A call waiting for the person, as it started waiting: what src/core/views draws its card from. The same object while
 * the call waits (a view built from it can be kept); its live state is liveState().
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
}

/** What changes while a call waits, from any surface: its hunk choices, the person's edit, and what the choice rules read. */
export interface LiveCallState {
  /** A diff decided hunk by hunk: each hunk's choice, in file order. */
  hunkChoices?: HunkChoice[];
  edit?: HeldEdit;
  facts: ChoiceFacts;
}

interface PendingEntry extends Waiting, WaitingCall {
  /** The agent's task the call belongs to, for the caps. */
  taskId?: string;
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

/** A waiting call as the person saw it: its id and the hash of the arguments that were shown. */
export interface CallRef {
  callId: string;
  argsHash: string;
}

export interface GateDeps {
  grants: GrantStore;
  policy: () => Omit<PolicyContext, 'grants'>;
  audit: AuditLog;
  timeoutSeconds: () => number;
  now?: () => Date;
  /** `toolgate.autoApprove.maxConsecutive`: calls in a row a task may run without asking (0: no cap; unset: 0). */
  maxConsecutive?: () => number;
}

/** What the gate needs to know of the agent's task a batch belongs to (the checkpoint's turn carries it). */
export interface GateTask {
  taskId: string;
}

/** The grant each allowing action makes. */
const grantScopes: Readonly<Partial<Record<DecisionAction, GrantScope>>> & Record<'allow-session' | 'allow-workspace' | 'allow-task' | 'allow-minutes', GrantScope> = {
  'allow-session': 'session',
  'allow-workspace': 'workspace',
  'allow-task': 'task',
  'allow-minutes': 'timed',
};

export class Gate implements Disposable {
  private readonly store = new DisposableStore();
  private readonly broker = this.store.add(new Broker<PendingEntry, PersonChoice>());
  /** Set by dispose: calls cancelled from then on never ran because the window went away. */
  private closing = false;
  /** Per-hunk choices of waiting edits: one live state for every surface, cleared when the call settles. */
  private readonly hunkChoices = new HunkChoices();
  /** The person's edit of each waiting call that can be edited: one live state for every surface. */
  private readonly edits = new HeldEdits();
  private readonly onDidChangeEmitter = this.store.add(new Emitter<void>());
  private readonly caps = new TaskCaps();
  /** The task each chat's calls last came from: its task grants are the ones the panel lists. */
  private readonly currentTask = new Map<string, string>();
  /** The waiting calls or the grants changed. */
  readonly onDidChange = this.onDidChangeEmitter.event;

  constructor(private readonly deps: GateDeps) {
    this.store.add(this.broker.onDidChange(() => this.onDidChangeEmitter.fire()));
    this.store.add(deps.grants.onDidChange(() => this.onDidChangeEmitter.fire()));
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /**
   * The verdict and reason the policy gives right now to a caller's call in a chat (of the agent's task `taskId`), by
   * the grants given to that caller alone; nothing is asked, run or logged.
   */
  evaluate(call: GateCall, at: CallPlace): Judgement {
    return judge(call, { ...this.deps.policy(), grants: this.activeGrants(at) });
  }

  /** The grants in force now for a caller in a chat: expiry is checked here, against the gate's clock. */
  private activeGrants(at: CallPlace): Grant[] {
    return this.deps.grants.active(at.chatId, { now: this.now(), taskId: at.taskId }, at.source);
  }

  /** Decides a batch of calls (one model turn); those that ask wait together. One promise per input, in order. */
  /**
   * `uncapped`: the calls are what an allowed call already did (a staged command's changed files), not calls of their
   * own, so they do not count toward, nor are held by, the task's caps.
   */
  request(inputs: GateInput[], options: { chatId: string; signal?: AbortSignal; turn?: GateTask | undefined; uncapped?: boolean }): Promise<GateResult>[] {
    const taskId = options.turn?.taskId;
    const capsTask = options.uncapped === true ? undefined : taskId;
    if (taskId !== undefined) {
      this.currentTask.set(options.chatId, taskId);
    }
    const batchId = newCallId();
    const results: (Promise<GateResult> | undefined)[] = [];
    const asking: PendingEntry[] = [];
    const askingIndex: number[] = [];
    const timeoutSeconds = this.deps.timeoutSeconds();
    inputs.forEach((input, index) => {
      const callId = input.callId ?? newCallId();
      const decision = this.caps.apply(capsTask, input.call.argsHash, this.evaluate(input.call, { chatId: options.chatId, source: input.source, taskId }), this.deps.maxConsecutive?.() ?? 0);
      this.caps.decided(capsTask, decision);
      if (decision.verdict !== 'ask') {
        const result: GateResult =
          decision.verdict === 'allow'
            ? { verdict: 'allow', callId, decidedBy: decision.decidedBy, reason: decision.reason, ...(decision.allowedBy ? { allowedBy: decision.allowedBy } : {}) }
            : { verdict: 'deny', callId, decidedBy: 'policy', reason: decision.reason };
        this.record(callId, input, result, decision.grant?.scope);
        results[index] = Promise.resolve(result);
        return;
      }
      const waitingSince = this.now();
      const grantOptionsForCall = decision.grantable ? grantOptions(input.call) : [];
      const entry: PendingEntry = {
        callId,
        batchId,
        chatId: options.chatId,
        argsHash: input.call.argsHash,
        input,
        judgement: decision,
        ...(taskId !== undefined ? { taskId } : {}),
        options: grantOptionsForCall,
        waitingSince,
        timeoutSeconds,
        activeGrants: this.activeGrants({ chatId: options.chatId, source: input.source, taskId }),
      };
      this.deps.audit.record({
        time: waitingSince.toISOString(),
        callId,
        tool: input.call.tool,
        argsHash: input.call.argsHash,
        verdict: 'ask',
        decidedBy: 'policy',
        reason: decision.reason,
        source: input.source,
        ...auditTarget(input),
      });
      if (input.editable) {
        this.edits.open(callId, input.call.argsHash, input.editable.text);
      }
      if (hunkReviewable(input)) {
        this.hunkChoices.open(callId, input.call.argsHash, input.preview.kind === 'diff' ? input.preview.hunks.length : 0);
      }
      asking.push(entry);
      askingIndex.push(index);
    });
    if (asking.length > 0) {
      const waits = this.broker.add(asking, {
        timeoutSeconds,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      waits.forEach((wait, i) => {
        const entry = asking[i];
        const index = askingIndex[i];
        if (entry && index !== undefined) {
          results[index] = wait.then((resolution) => this.conclude(entry, resolution));
        }
      });
    }
    return results.map((result, index) => result ?? Promise.reject(new Error(`no result for call ${index}`)));
  }

  private async conclude(entry: PendingEntry, resolution: Resolution<PersonChoice>): Promise<GateResult> {
    const { callId, input } = entry;
    this.hunkChoices.close(callId);
    this.edits.close(callId);
    let result: GateResult;
    let scope: 'once' | GrantScope | undefined;
    switch (resolution.kind) {
      case 'timeout':
        result = {
          verdict: 'deny',
          callId,
          decidedBy: 'timeout',
          reason: `denied: nobody answered within ${resolution.afterSeconds} s`,
        };
        break;
      case 'cancel':
        result = { verdict: 'deny', callId, decidedBy: 'cancel', reason: `denied: ${resolution.reason}`, cancelReason: resolution.reason };
        break;
      case 'auto': {
        // A grant made meanwhile covers it: name that grant, as for a call allowed without waiting.
        const allowedBy = this.evaluate(input.call, { chatId: entry.chatId, source: input.source, taskId: entry.taskId }).allowedBy;
        result = { verdict: 'allow', callId, decidedBy: 'grant', reason: resolution.reason, ...(allowedBy ? { allowedBy } : {}) };
        break;
      }
      case 'person': {
        const decision = resolution.decision;
        if (decision.action === 'deny') {
          const personReason = decision.reason?.trim();
          result = {
            verdict: 'deny',
            callId,
            decidedBy: 'person',
            reason: personReason ? `denied by the person: ${personReason}` : 'denied by the person',
            ...(personReason ? { personReason } : {}),
          };
        } else if (decision.action === 'allow-edited') {
          scope = 'once';
          result = {
            verdict: 'allow',
            callId,
            decidedBy: 'person',
            scope,
            reason: 'allowed once by the person, after editing',
            edited: decision.edited ?? '',
          };
        } else if (decision.action === 'allow-remedy') {
          scope = 'once';
          const remedy = input.remedies?.find((offered) => offered.id === decision.remedy);
          result = { verdict: 'allow', callId, decidedBy: 'person', scope, reason: `allowed by the person: ${remedy?.label ?? decision.remedy ?? ''}`, ...(remedy ? { remedy: remedy.id } : {}) };
        } else if (decision.action === 'allow-unconfined') {
          scope = 'once';
          result = { verdict: 'allow', callId, decidedBy: 'person', scope, reason: 'allowed once by the person, without the sandbox' };
        } else if (decision.action === 'allow-once') {
          scope = 'once';
          const preview = input.preview;
          const check = decision.hunks !== undefined && preview.kind === 'diff' ? checkHunkDecisions(preview.hunks.length, decision.hunks, 'accept') : undefined;
          result =
            check?.kind === 'ok' && check.accepted.size < check.decisions.length
              ? {
                  verdict: 'allow',
                  callId,
                  decidedBy: 'person',
                  scope,
                  reason: `allowed once by the person: ${check.accepted.size} of ${check.decisions.length} hunks`,
                  hunks: check.decisions,
                }
              : { verdict: 'allow', callId, decidedBy: 'person', scope, reason: 'allowed once by the person' };
        } else {
          const grantScope: GrantScope = grantScopes[decision.action];
          scope = grantScope;
          const option = entry.options.find((candidate) => candidate.id === decision.grantOption) ?? entry.options[0];
          let reason = `allowed by the person for this ${scope}`;
          let granted: Grant | undefined;
          if (option) {
            const now = this.now();
            const grant: Grant = {
              id: newGrantId(),
              tool: input.call.tool,
              matcher: option.matcher,
              scope: grantScope,
              createdAt: now.toISOString(),
              ...(grantScope === 'task' && entry.taskId !== undefined ? { taskId: entry.taskId } : {}),
              ...(grantScope === 'timed' ? { expiresAt: new Date(now.getTime() + (decision.minutes ?? grantMinutes.default) * 60_000).toISOString() } : {}),
              caller: grantCaller(input.source),
              ...(input.call.external?.definitionHash !== undefined
                ? { definitionHash: input.call.external.definitionHash }
                : {}),
            };
            await this.deps.grants.add(grant, entry.chatId);
            granted = grant;
            reason = `allowed by the person: new ${describeGrant(grant)}`;
            this.releaseCovered(entry.chatId);
          }
          result = { verdict: 'allow', callId, decidedBy: 'person', scope, reason, ...(granted ? { granted } : {}) };
        }
        break;
      }
    }
    if (result.verdict === 'allow' && result.decidedBy === 'person') {
      this.caps.allowedByPerson(entry.taskId);
    }
    this.record(callId, input, result, scope);
    return result;
  }

  /** What an allowed call of a task did when it ran: the same call failing again and again asks before it runs. */
  noteRun(turn: GateTask | undefined, argsHash: string, ok: boolean): void {
    this.caps.ran(turn?.taskId, argsHash, ok);
  }

  /** After a new grant, calls still waiting that it now covers are allowed without asking again. */
  private releaseCovered(chatId: string): void {
    for (const waiting of this.broker.waiting()) {
      if (waiting.chatId !== chatId || waiting.judgement.cap !== undefined) {
        continue;
      }
      const decision = this.evaluate(waiting.input.call, { chatId, source: waiting.input.source, taskId: waiting.taskId });
      if (decision.verdict === 'allow') {
        this.broker.resolveAuto(waiting.callId, decision.reason);
      }
    }
  }

  private record(
    callId: string,
    input: GateInput,
    result: GateResult,
    scope: 'once' | GrantScope | undefined,
  ): void {
    this.deps.audit.record({
      time: this.now().toISOString(),
      callId,
      tool: input.call.tool,
      argsHash: input.call.argsHash,
      verdict: result.verdict,
      decidedBy: result.decidedBy,
      ...(scope ? { scope } : {}),
      reason: result.reason,
      source: input.source,
      ...(result.verdict === 'allow' && result.edited !== undefined ? { edited: true } : {}),
      ...auditTarget(input),
      ...(this.closing && result.decidedBy === 'cancel' ? { notRun: 'shutdown' as const } : {}),
    });
  }

  /**
   * The person's choice on a waiting call (from the panel, the chat or a command). Anything that does not address a
   * waiting call with the hash that was shown is refused.
   */
  settle(ref: CallRef, choice: PersonChoice): { ok: true } | { ok: false; error: string } {
    const entry = this.broker.get(ref.callId);
    let settled = choice;
    if (entry?.input.group !== undefined && entry.argsHash === ref.argsHash && (choice.action === 'allow-once' || choice.action === 'deny') && choice.hunks === undefined) {
      return this.settleGroup(entry.input.group.id, choice);
    }
    if (entry && entry.argsHash === ref.argsHash) {
      const edit = editDecision(this.edits.get(entry.callId), { action: editAction(choice.action), ...(choice.editRevision !== undefined ? { shownRevision: choice.editRevision } : {}) });
      if (edit.kind === 'refused') {
        return { ok: false, error: `call ${entry.callId}: ${edit.error}` };
      }
      if (edit.kind === 'apply') {
        if (choice.action !== 'allow-once') {
          return { ok: false, error: `call ${entry.callId}: it was edited; run the edited version with its own button` };
        }
        settled = { action: 'allow-edited', edited: edit.text };
      }
      settled = this.withHeldHunks(entry, settled);
      const problem = this.checkChoice(entry, settled);
      if (problem !== undefined) {
        return { ok: false, error: problem };
      }
    }
    return this.broker.resolveByPerson(ref.callId, ref.argsHash, settled);
  }

  /**
   * A group's Allow once or Deny, from any member: Deny denies every member still waiting; Allow once allows each with
   * its held hunk choices, and denies a member whose every hunk was rejected (its reasons go to the model). Refused
   * when every hunk of every member is rejected: that is a Deny.
   */
  private settleGroup(groupId: string, choice: PersonChoice): { ok: true } | { ok: false; error: string } {
    const members = this.broker.waiting().filter((waiting) => waiting.input.group?.id === groupId);
    // A file of the group edited (in the diff editor) lands as edited, if the deciding view showed that edit.
    const edits = new Map(members.map((member) => [member.callId, this.edits.get(member.callId)]));
    const latest = Math.max(0, ...[...edits.values()].map((edit) => edit?.revision ?? 0));
    if (choice.action !== 'deny') {
      const shown = editDecision({ revision: latest, ...([...edits.values()].some((edit) => edit?.text !== undefined) ? { text: '' } : {}) }, { action: 'allow', ...(choice.editRevision !== undefined ? { shownRevision: choice.editRevision } : {}) });
      if (shown.kind === 'refused') {
        return { ok: false, error: `the group's files: ${shown.error}` };
      }
    }
    const plans = members.map((member) => {
      if (choice.action === 'deny') {
        return { member, choice };
      }
      const edited = edits.get(member.callId)?.text;
      if (edited !== undefined) {
        return { member, choice: { action: 'allow-edited' as const, edited } };
      }
      const held = this.hunkChoices.decisions(member.callId);
      const count = this.hunkChoices.view(member.callId)?.length ?? 0;
      if (held !== undefined && held.length >= count && count > 0) {
        const reasons = held.flatMap((hunk) => (hunk.reason !== undefined ? [hunk.reason] : []));
        return { member, choice: { action: 'deny' as const, reason: reasons.length > 0 ? [...new Set(reasons)].join('; ') : 'rejected in the review' } };
      }
      return { member, choice: { action: 'allow-once' as const, ...(held !== undefined ? { hunks: held } : {}) } };
    });
    if (choice.action === 'allow-once' && plans.every((plan) => plan.choice.action === 'deny')) {
      return { ok: false, error: 'every change of the group is rejected: use Deny to refuse them all' };
    }
    for (const plan of plans) {
      const problem = this.checkChoice(plan.member, plan.choice);
      if (problem !== undefined) {
        return { ok: false, error: problem };
      }
    }
    for (const plan of plans) {
      this.broker.resolveByPerson(plan.member.callId, plan.member.argsHash, plan.choice);
    }
    return { ok: true };
  }

  /** allow-once without hunks of its own settles with the hunk choices held for the call (from any surface). */
  private withHeldHunks(entry: PendingEntry, choice: PersonChoice): PersonChoice {
    if (choice.action !== 'allow-once' || choice.hunks !== undefined) {
      return choice;
    }
    const held = this.hunkChoices.decisions(entry.callId);
    return held === undefined ? choice : { ...choice, hunks: held };
  }

  /**
   * The person edits a waiting call (the proposed content or command) on one surface, or undoes the edit (`undefined`,
   * or the original text): every view shows it, and an Allow from a view that showed it applies it.
   */
  setEdit(ref: CallRef, text: string | undefined, where: EditSource): { ok: true } | { ok: false; error: string } {
    if (!this.broker.get(ref.callId)) {
      return { ok: false, error: `call ${ref.callId} is not waiting` };
    }
    const outcome = this.edits.set(ref, text, where);
    if (!outcome.ok) {
      return outcome;
    }
    if (outcome.changed) {
      this.onDidChangeEmitter.fire();
    }
    return { ok: true };
  }

  /** A waiting call's held edit, for a surface that shows it (the diff editor's proposed side). */
  heldEdit(callId: string): HeldEdit | undefined {
    return this.edits.get(callId);
  }

  /**
   * The person accepts or rejects one hunk of a waiting edit's diff (from the panel, the chat or the diff editor).
   * Refused (and left to the caller to log) for a call that is not waiting, a hash that is not the one shown, a call
   * with no diff to decide hunk by hunk, or an index that is not a hunk of it.
   */
  chooseHunk(ref: CallRef, index: number, accepted: boolean, reason?: string): { ok: true } | { ok: false; error: string } {
    if (!this.broker.get(ref.callId)) {
      return { ok: false, error: `call ${ref.callId} is not waiting` };
    }
    const outcome = this.hunkChoices.choose(ref, index, accepted, reason);
    if (!outcome.ok) {
      return { ok: false, error: outcome.error };
    }
    if (outcome.changed) {
      this.onDidChangeEmitter.fire();
    }
    return { ok: true };
  }

  private checkChoice(entry: PendingEntry, choice: PersonChoice): string | undefined {
    // Running without the sandbox takes its own button: a careless Allow once (or Allow all, a notification, a key)
    // must not lift the sandbox.
    if (entry.judgement.runsUnconfined === true && choice.action === 'allow-once') {
      return `call ${entry.callId}: it would run without the sandbox; only its "Run without sandbox" button allows that`;
    }
    if (choice.action === 'allow-unconfined' && entry.judgement.runsUnconfined !== true) {
      return `call ${entry.callId}: it runs in the sandbox; allow it once instead`;
    }
    if (choice.action === 'allow-remedy' && !(entry.input.remedies ?? []).some((remedy) => remedy.id === choice.remedy)) {
      return `call ${entry.callId}: '${choice.remedy ?? ''}' is not one of the fixes its card offers`;
    }
    if (choice.action === 'allow-task' && entry.taskId === undefined) {
      return `call ${entry.callId}: it is not part of an agent's task; allow it for the session instead`;
    }
    if (choice.action === 'allow-minutes' && choice.minutes !== undefined && !(Number.isInteger(choice.minutes) && choice.minutes >= grantMinutes.min && choice.minutes <= grantMinutes.max)) {
      return `call ${entry.callId}: a timed grant lasts ${grantMinutes.min} to ${grantMinutes.max} minutes, not ${choice.minutes}`;
    }
    if (choice.action in grantScopes) {
      const off = whyOff(this.choiceFacts(entry), 'grant');
      if (off !== undefined) {
        return `call ${entry.callId}: ${off}`;
      }
      if (choice.grantOption !== undefined && !entry.options.some((option) => option.id === choice.grantOption)) {
        return `call ${entry.callId}: '${choice.grantOption}' is not one of the offered grant scopes`;
      }
    }
    if (choice.hunks !== undefined) {
      const preview = entry.input.preview;
      if (choice.action !== 'allow-once' || preview.kind !== 'diff' || !hunkReviewable(entry.input)) {
        return `call ${entry.callId}: only a file's diff can be decided hunk by hunk, and only with allow-once`;
      }
      const check = checkHunkDecisions(preview.hunks.length, choice.hunks, 'accept');
      if (check.kind !== 'ok') {
        return `call ${entry.callId}: ${check.message}`;
      }
      if (check.accepted.size === 0) {
        return `call ${entry.callId}: every hunk was rejected; deny the call instead`;
      }
    }
    if (choice.action === 'allow-edited') {
      if (!entry.input.editable) {
        return `call ${entry.callId}: this call cannot be edited`;
      }
      if (choice.edited === undefined) {
        return `call ${entry.callId}: allow-edited needs the edited text`;
      }
      if (entry.input.editable.kind === 'command' && choice.edited.trim() === '') {
        return `call ${entry.callId}: the edited command is empty`;
      }
    }
    return undefined;
  }

  /** Allow all / Deny all: applies to the listed calls whose hash still matches; the rest keep waiting. */
  settleAll(refs: readonly CallRef[], choice: { allow: boolean; reason?: string }): { decided: number; errors: string[] } {
    let decided = 0;
    const errors: string[] = [];
    // A group is settled once, through its first member listed (the others went with it).
    const groupOf = new Map(refs.map(({ callId }) => [callId, this.broker.get(callId)?.input.group?.id]));
    const decidedGroups = new Set<string>();
    for (const { callId, argsHash } of refs) {
      const group = groupOf.get(callId);
      if (group !== undefined) {
        if (decidedGroups.has(group)) {
          continue;
        }
        decidedGroups.add(group);
      }
      const outcome = this.settle({ callId, argsHash }, {
        action: choice.allow ? 'allow-once' : 'deny',
        ...(choice.reason !== undefined ? { reason: choice.reason } : {}),
      });
      if (outcome.ok) {
        decided++;
      } else {
        errors.push(outcome.error);
      }
    }
    return { decided, errors };
  }

  /** Denies every waiting call (of one chat, or all). */
  cancel(reason: string, chatId?: string): number {
    return this.broker.cancel(reason, (entry) => chatId === undefined || entry.chatId === chatId);
  }

  get waitingCount(): number {
    return this.broker.waiting().length;
  }

  /**
   * How many decisions wait, as the badge, the status bar and the views count them: a group (the files a staged
   * command changed, decided on one card) is one however many files it has; every other waiting call is one.
   */
  get waitingDecisions(): number {
    const waiting = this.broker.waiting();
    const groups = new Set(waiting.flatMap((entry) => (entry.input.group === undefined ? [] : [entry.input.group.id])));
    return waiting.filter((entry) => entry.input.group === undefined).length + groups.size;
  }

  /** What the rules of a person's choice read of a waiting call now (choiceRules.ts). */
  private choiceFacts(entry: WaitingCall, hunkChoices = this.hunkChoices.view(entry.callId)): ChoiceFacts {
    return {
      grantable: entry.judgement.grantable && entry.options.length > 0,
      edited: this.edits.get(entry.callId)?.text !== undefined,
      ...(hunkChoices !== undefined ? { hunks: { count: hunkChoices.length, accepted: hunkChoices.filter((choice) => choice.accepted).length } } : {}),
    };
  }

  /** The calls waiting for the person, oldest first; with `chatId`, only the calls of that chat. */
  waitingCalls(chatId?: string): readonly WaitingCall[] {
    return this.broker.waiting().filter((entry) => chatId === undefined || entry.chatId === chatId);
  }

  /**
   * Changes each time a waiting call's hunk choices or held edit change; undefined while neither was ever shown (no
   * hunk review, no edit made), when the call is as it started waiting.
   */
  liveRevision(callId: string): string | undefined {
    const choices = this.hunkChoices.revision(callId);
    const edit = this.edits.get(callId);
    return choices === undefined && (edit === undefined || edit.revision === 0) ? undefined : `${choices ?? ''}:${edit?.revision ?? ''}`;
  }

  /** A waiting call's live state (see liveRevision): what every surface shows of it now. */
  liveState(call: WaitingCall): LiveCallState {
    const hunkChoices = this.hunkChoices.revision(call.callId) !== undefined ? this.hunkChoices.view(call.callId) ?? [] : undefined;
    const edit = this.edits.get(call.callId);
    return {
      ...(hunkChoices !== undefined ? { hunkChoices } : {}),
      ...(edit !== undefined ? { edit } : {}),
      facts: this.choiceFacts(call, hunkChoices),
    };
  }

  /** Whether a call is waiting for the person. */
  isWaiting(callId: string): boolean {
    return this.broker.get(callId) !== undefined;
  }

  /**
   * The grants a person can revoke: the session grants of these chats (the agent's, and those of other agents' calls),
   * their grants for their current task and their timed grants that have not ended, then the workspace's.
   */
  revocableGrants(chatIds: readonly string[]): Grant[] {
    const inForce = chatIds.flatMap((chatId) => {
      const moment = { now: this.now(), taskId: this.currentTask.get(chatId) };
      return this.deps.grants.sessionGrants(chatId).filter((grant) => grantInForce(grant, moment));
    });
    return [...inForce, ...this.deps.grants.workspaceGrants()];
  }

  /** The window is going: what still waits is denied and recorded as not run (`notRun: 'shutdown'`). */
  dispose(): void {
    this.closing = true;
    this.broker.cancel('the window was closed or reloaded while it waited');
    this.store.dispose();
  }

}

/** What a decision action is, as far as a held edit is concerned. */
function editAction(action: DecisionAction): 'allow' | 'allow-edited' | 'grant' | 'deny' {
  if (action === 'deny' || action === 'allow-edited') {
    return action;
  }
  return action === 'allow-once' || action === 'allow-unconfined' || action === 'allow-remedy' ? 'allow' : 'grant';
}

/** Whether a waiting call's diff can be decided hunk by hunk: a file's content the host writes, or a group's member, with hunks. */
function hunkReviewable(input: GateInput): boolean {
  return input.preview.kind === 'diff' && input.preview.hunks.length > 0 && (input.editable?.kind === 'content' || input.group !== undefined);
}

/** What a call was about, for the audit log's reader: the command (cut), the MCP server's tool, or the path. */
function auditTarget(input: GateInput): { target?: string } {
  const preview = input.preview;
  const target =
    preview.kind === 'command'
      ? preview.command
      : (input.call.external?.label ?? input.call.target?.relative ?? input.call.target?.absolute);
  if (target === undefined) {
    return {};
  }
  return { target: target.length > 500 ? `${target.slice(0, 499)}…` : target };
}
