/**
 * The gate: policy + broker + grants + audit. `request()` decides each call of a batch; calls that ask wait in the
 * broker (shown together in the panel) until the person, a timeout or a cancellation settles them. Every outcome
 * is written to the audit log with who decided and why.
 */
import type { AuditLog } from '../audit/auditLog';
import { askEntry, resultEntry } from './auditEntries';
import { DisposableStore, Emitter, type Disposable } from '../disposable';
import { Broker, newCallId, type Resolution, type Waiting } from './broker';
import { TaskCaps } from './caps';
import { editAction, refusal, type PersonChoice } from './choices';
import { grantLimitsUnder, grantsInForceUnder } from './managedRules';
import { decisionCount, groupPlans, oncePerGroup } from './groups';
import { grantOptions } from './grantOptions';
import { grantInForce, type Grant, type GrantScope, type GrantStore } from './grants';
import { personResult } from './personResult';
import { judge, type Judgement, type GateCall, type PolicyContext } from './policy';
import { choiceSubject, grantable, reviewableHunks, type CallPlace, type CallRef, type GateInput, type GateResult, type LiveCallState, type WaitingCall } from './waitingCall';
import { editDecision, type EditSource, type HeldEdit } from '../review/heldEdits';
import { LiveReview } from '../review/liveReview';

export type { CallGroup } from './groups';
export type { DecisionAction, PersonChoice } from './choices';
export type { CallPlace, CallRef, CallRemedy, GateInput, GateResult, LiveCallState, WaitingCall } from './waitingCall';

interface PendingEntry extends Waiting, WaitingCall {
  /** The agent's task the call belongs to, for the caps. */
  taskId?: string;
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

/** A batch's chat, its cancellation and its task; `uncapped`: see request(). */
type BatchOptions = { chatId: string; signal?: AbortSignal; turn?: GateTask | undefined; uncapped?: boolean };

export class Gate implements Disposable {
  private readonly store = new DisposableStore();
  private readonly broker = this.store.add(new Broker<PendingEntry, PersonChoice>());
  /** Set by dispose: calls cancelled from then on never ran because the window went away. */
  private closing = false;
  /** The hunk choices and held edits of the waiting calls: one live state for every surface, closed when a call settles. */
  private readonly review = new LiveReview();
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
    return this.judgeAt(call, at, this.deps.policy(), this.now());
  }

  /** evaluate, with the policy and the moment a batch reads once for all its calls. */
  private judgeAt(call: GateCall, at: CallPlace, policy: Omit<PolicyContext, 'grants'>, now: Date): Judgement {
    return judge(call, { ...policy, grants: this.activeGrants(at, policy.managed, now) });
  }

  /** The grants in force at `now` for a caller in a chat: expiry (and a managed file's limits) checked against it. */
  private activeGrants(at: CallPlace, managed: PolicyContext['managed'], now: Date): Grant[] {
    return grantsInForceUnder(this.deps.grants.active(at.chatId, { now, taskId: at.taskId }, at.source), managed, now);
  }

  /**
   * Decides a batch of calls (one model turn); those that ask wait together. One promise per input, in order.
   * `uncapped`: the calls are what an allowed call already did (a staged command's changed files), not calls of their
   * own, so they do not count toward, nor are held by, the task's caps.
   */
  request(inputs: GateInput[], options: BatchOptions): Promise<GateResult>[] {
    return this.decide(inputs, options).map((outcome) => (outcome instanceof Promise ? outcome : Promise.resolve(outcome)));
  }

  /** request(), with the result itself (no promise, no turn to wait) of each call decided without asking. */
  decide(inputs: GateInput[], options: BatchOptions): (GateResult | Promise<GateResult>)[] {
    const taskId = options.turn?.taskId;
    const capsTask = options.uncapped === true ? undefined : taskId;
    if (taskId !== undefined) {
      this.currentTask.set(options.chatId, taskId);
    }
    /** Made only if a call of the batch asks (most batches of a task with grants ask nothing). */
    let batchId: string | undefined;
    const results: (GateResult | Promise<GateResult> | undefined)[] = [];
    const asking: PendingEntry[] = [];
    const askingIndex: number[] = [];
    const timeoutSeconds = this.deps.timeoutSeconds();
    // One read of the policy and of the clock for the batch: its calls are judged by the same policy, at one moment.
    const policy = this.deps.policy();
    const now = this.now();
    const managed = policy.managed;
    const limits = grantLimitsUnder(managed);
    inputs.forEach((input, index) => {
      const callId = input.callId ?? newCallId();
      const judged = this.judgeAt(input.call, { chatId: options.chatId, source: input.source, taskId }, policy, now);
      const decision = this.caps.apply(capsTask, input.call.argsHash, judged, this.deps.maxConsecutive?.() ?? 0);
      this.caps.decided(capsTask, decision);
      if (decision.verdict !== 'ask') {
        const result: GateResult =
          decision.verdict === 'allow'
            ? { verdict: 'allow', callId, decidedBy: decision.decidedBy, reason: decision.reason, ...(decision.allowedBy ? { allowedBy: decision.allowedBy } : {}) }
            : { verdict: 'deny', callId, decidedBy: decision.decidedBy === 'managed' ? 'managed' : 'policy', reason: decision.reason };
        this.record(input, result, decision.grant?.scope, now);
        results[index] = result;
        return;
      }
      batchId ??= newCallId();
      const entry: PendingEntry = {
        callId,
        batchId,
        chatId: options.chatId,
        argsHash: input.call.argsHash,
        input,
        judgement: decision,
        ...(taskId !== undefined ? { taskId } : {}),
        options: decision.grantable ? grantOptions(input.call) : [],
        waitingSince: now,
        timeoutSeconds,
        activeGrants: this.activeGrants({ chatId: options.chatId, source: input.source, taskId }, managed, now),
        ...(limits !== undefined ? { grantLimits: limits } : {}),
      };
      this.deps.audit.record(askEntry(callId, input, decision, now));
      this.review.open({ callId, argsHash: input.call.argsHash }, { editable: input.editable?.text, hunks: reviewableHunks(input) });
      asking.push(entry);
      askingIndex.push(index);
    });
    if (asking.length > 0) {
      const waits = this.broker.add(asking, { timeoutSeconds, ...(options.signal ? { signal: options.signal } : {}) });
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
    this.review.close(callId);
    let result: GateResult;
    let scope: 'once' | GrantScope | undefined;
    switch (resolution.kind) {
      case 'timeout':
        result = { verdict: 'deny', callId, decidedBy: 'timeout', reason: `denied: nobody answered within ${resolution.afterSeconds} s` };
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
        const outcome = personResult(entry, resolution.decision, this.now());
        if (outcome.grant !== undefined) {
          await this.deps.grants.add(outcome.grant, entry.chatId);
          this.releaseCovered(entry.chatId);
        }
        ({ result, scope } = outcome);
        break;
      }
    }
    if (result.verdict === 'allow' && result.decidedBy === 'person') {
      this.caps.allowedByPerson(entry.taskId);
    }
    this.record(input, result, scope);
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

  private record(input: GateInput, result: GateResult, scope: 'once' | GrantScope | undefined, at = this.now()): void {
    this.deps.audit.record(resultEntry(input, result, scope, at, this.closing));
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
      const edit = editDecision(this.review.edit(entry.callId), { action: editAction(choice.action), ...(choice.editRevision !== undefined ? { shownRevision: choice.editRevision } : {}) });
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
      const problem = refusal(choiceSubject(entry, this.review.facts(entry.callId)), settled);
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
    const planned = groupPlans(this.broker.waiting().filter((waiting) => waiting.input.group?.id === groupId), this.review, choice);
    if (!planned.ok) {
      return planned;
    }
    for (const plan of planned.plans) {
      const problem = refusal(choiceSubject(plan.member, this.review.facts(plan.member.callId)), plan.choice);
      if (problem !== undefined) {
        return { ok: false, error: problem };
      }
    }
    for (const plan of planned.plans) {
      this.broker.resolveByPerson(plan.member.callId, plan.member.argsHash, plan.choice);
    }
    return { ok: true };
  }

  /** allow-once without hunks of its own settles with the hunk choices held for the call (from any surface). */
  private withHeldHunks(entry: PendingEntry, choice: PersonChoice): PersonChoice {
    if (choice.action !== 'allow-once' || choice.hunks !== undefined) {
      return choice;
    }
    const held = this.review.heldHunks(entry.callId);
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
    const outcome = this.review.setEdit(ref, text, where);
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
    return this.review.edit(callId);
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
    const outcome = this.review.chooseHunk(ref, index, accepted, reason);
    if (!outcome.ok) {
      return { ok: false, error: outcome.error };
    }
    if (outcome.changed) {
      this.onDidChangeEmitter.fire();
    }
    return { ok: true };
  }

  /** Allow all / Deny all: applies to the listed calls whose hash still matches; the rest keep waiting. */
  settleAll(refs: readonly CallRef[], choice: { allow: boolean; reason?: string }): { decided: number; errors: string[] } {
    let decided = 0;
    const errors: string[] = [];
    for (const ref of oncePerGroup(refs, (callId) => this.broker.get(callId)?.input.group?.id)) {
      const outcome = this.settle(ref, { action: choice.allow ? 'allow-once' : 'deny', ...(choice.reason !== undefined ? { reason: choice.reason } : {}) });
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
    return decisionCount(this.broker.waiting());
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
    return this.review.revision(callId);
  }

  /** A waiting call's live state (see liveRevision): what every surface shows of it now. */
  liveState(call: WaitingCall): LiveCallState {
    const state = this.review.state(call.callId);
    return { ...state, facts: { ...state.facts, grantable: grantable(call) } };
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
