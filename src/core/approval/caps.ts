/**
 * Caps on what runs without asking, per task: after `maxConsecutive` calls in a row allowed by a rule or grant, the
 * next one asks anyway; the same call (same arguments hash) that failed `repeatFailures` times in a task asks before
 * it runs again. State lives here, per task id, and is dropped when a task ends; the reason says which cap asked.
 */
import type { Judgement } from './policy';

/** The same call failing this many times in a task asks before it runs again. */
export const repeatFailures = 3;

/** Why a cap made a call ask, as a typed kind beside the words. */
export type CapKind = 'max-consecutive' | 'repeated-failure';

interface TaskState {
  /** Calls allowed without asking since the person last decided one. */
  consecutive: number;
  /** Failures by arguments hash. */
  failures: Map<string, number>;
}

/** Allowed without asking by a rule or a grant: what the cap counts (not ungated reads, not the policy's own allows). */
const automatic = (judgement: Judgement): boolean => judgement.verdict === 'allow' && (judgement.decidedBy === 'rule' || judgement.decidedBy === 'grant');

/** A call a cap makes ask was not allowed by anything: the rule or grant that would have allowed it is not named. */
function withoutAllowedBy(judgement: Judgement): Judgement {
  const rest = { ...judgement };
  delete rest.allowedBy;
  return rest;
}

export class TaskCaps {
  private readonly tasks = new Map<string, TaskState>();

  private state(taskId: string): TaskState {
    let state = this.tasks.get(taskId);
    if (state === undefined) {
      // Old tasks' counts are dropped first; a window runs one task at a time.
      for (const old of [...this.tasks.keys()].slice(0, Math.max(0, this.tasks.size - 50))) {
        this.tasks.delete(old);
      }
      state = { consecutive: 0, failures: new Map() };
      this.tasks.set(taskId, state);
    }
    return state;
  }

  /**
   * The judgement with the caps applied: an allow by a rule or grant past the cap asks; a call that failed too often
   * asks (and an ask says so too). `maxConsecutive` 0: no cap on calls in a row.
   */
  apply(taskId: string | undefined, argsHash: string, judgement: Judgement, maxConsecutive: number): Judgement & { cap?: CapKind } {
    if (taskId === undefined || judgement.verdict === 'deny') {
      return judgement;
    }
    const state = this.state(taskId);
    const failed = state.failures.get(argsHash) ?? 0;
    if (failed >= repeatFailures) {
      const why = `this exact call already failed ${failed} times in this task, so it asks before running again`;
      const plainWhy = `This exact call already failed ${failed} times in this task, so it asks before running again.`;
      return judgement.verdict === 'ask'
        ? { ...judgement, reason: `${judgement.reason}; and ${why}`, plain: `${judgement.plain} ${plainWhy}`, cap: 'repeated-failure' }
        : { ...withoutAllowedBy(judgement), verdict: 'ask', reason: `asks: ${why} (otherwise ${judgement.reason})`, plain: plainWhy, cap: 'repeated-failure' };
    }
    if (automatic(judgement) && maxConsecutive > 0 && state.consecutive >= maxConsecutive) {
      return {
        ...withoutAllowedBy(judgement),
        verdict: 'ask',
        reason: `asks: ${state.consecutive} calls in a row ran without asking in this task (toolgate.autoApprove.maxConsecutive is ${maxConsecutive}); otherwise ${judgement.reason}`,
        plain: `${state.consecutive} calls in a row ran without asking in this task, so this one asks (\`toolgate.autoApprove.maxConsecutive\` is ${maxConsecutive}).`,
        cap: 'max-consecutive',
      };
    }
    return judgement;
  }

  /** A call was decided without asking: one allowed by a rule or grant counts toward the cap. */
  decided(taskId: string | undefined, judgement: Judgement): void {
    if (taskId !== undefined && automatic(judgement)) {
      this.state(taskId).consecutive += 1;
    }
  }

  /** The person allowed a call: the count starts again. */
  allowedByPerson(taskId: string | undefined): void {
    if (taskId !== undefined) {
      this.state(taskId).consecutive = 0;
    }
  }

  /** What an allowed call did: a failure counts toward the repeat guard; a success clears it. */
  ran(taskId: string | undefined, argsHash: string, ok: boolean): void {
    if (taskId === undefined) {
      return;
    }
    const failures = this.state(taskId).failures;
    if (ok) {
      failures.delete(argsHash);
    } else {
      failures.set(argsHash, (failures.get(argsHash) ?? 0) + 1);
    }
  }

  endTask(taskId: string): void {
    this.tasks.delete(taskId);
  }
}
