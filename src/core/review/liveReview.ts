/**
 * The live review state of the calls that wait: each one's hunk choices and the person's held edit, one state for
 * every surface (the panel, the chat's card, the diff editor), opened when a call starts waiting and closed when it
 * settles. The gate holds one; what it reads here (the facts) is what the rules of a person's choice decide on.
 */
import { HunkChoices, type HunkChoice, type HunkChoiceOutcome } from './hunkChoices';
import { HeldEdits, type EditSource, type HeldEdit, type SetEditOutcome } from './heldEdits';
import type { HunkDecision } from './hunks';

/** What the rules of a person's choice read of a call's review: its hunk choices and whether it was edited. */
export interface ReviewFacts {
  /** A diff decided hunk by hunk: how many hunks it has and how many are accepted now. */
  hunks?: { count: number; accepted: number };
  /** The person edited the call (the host holds the edit). */
  edited: boolean;
}

/** What every surface shows of a call's review now. */
export interface ReviewState {
  /** A diff decided hunk by hunk: each hunk's choice, in file order (absent until one was ever shown). */
  hunkChoices?: HunkChoice[];
  edit?: HeldEdit;
  facts: ReviewFacts;
}

type CallRef = { callId: string; argsHash: string };

export class LiveReview {
  private readonly hunkChoices = new HunkChoices();
  private readonly edits = new HeldEdits();

  /** A call starts waiting: `editable`, the text its edit starts from; `hunks`, its diff's hunks to decide one by one. */
  open(ref: CallRef, what: { editable?: string | undefined; hunks?: number | undefined }): void {
    if (what.editable !== undefined) {
      this.edits.open(ref.callId, ref.argsHash, what.editable);
    }
    if (what.hunks !== undefined) {
      this.hunkChoices.open(ref.callId, ref.argsHash, what.hunks);
    }
  }

  close(callId: string): void {
    this.hunkChoices.close(callId);
    this.edits.close(callId);
  }

  /** Sets or clears the held edit (see HeldEdits.set). */
  setEdit(ref: CallRef, text: string | undefined, where: EditSource): SetEditOutcome {
    return this.edits.set(ref, text, where);
  }

  /** Accepts or rejects one hunk (see HunkChoices.choose). */
  chooseHunk(ref: CallRef, index: number, accepted: boolean, reason?: string): HunkChoiceOutcome {
    return this.hunkChoices.choose(ref, index, accepted, reason);
  }

  /** A call's held edit, or undefined for one that cannot be edited. */
  edit(callId: string): HeldEdit | undefined {
    return this.edits.get(callId);
  }

  /** The rejected hunks allow-once settles with, or undefined when none is rejected (HunkChoices.decisions). */
  heldHunks(callId: string): HunkDecision[] | undefined {
    return this.hunkChoices.decisions(callId);
  }

  /** How many hunks a call decided hunk by hunk has (0 for any other call). */
  hunkCount(callId: string): number {
    return this.hunkChoices.view(callId)?.length ?? 0;
  }

  /**
   * Changes each time a call's hunk choices or held edit change; undefined while neither was ever shown (no hunk
   * review, no edit made), when the call is as it started waiting.
   */
  revision(callId: string): string | undefined {
    const choices = this.hunkChoices.revision(callId);
    const edit = this.edits.get(callId);
    return choices === undefined && (edit === undefined || edit.revision === 0) ? undefined : `${choices ?? ''}:${edit?.revision ?? ''}`;
  }

  /** What the rules read of a call's review now. */
  facts(callId: string, hunkChoices = this.hunkChoices.view(callId)): ReviewFacts {
    return {
      edited: this.edits.get(callId)?.text !== undefined,
      ...(hunkChoices !== undefined ? { hunks: { count: hunkChoices.length, accepted: hunkChoices.filter((choice) => choice.accepted).length } } : {}),
    };
  }

  /** A call's review as every surface shows it now. */
  state(callId: string): ReviewState {
    const hunkChoices = this.hunkChoices.revision(callId) !== undefined ? this.hunkChoices.view(callId) ?? [] : undefined;
    const edit = this.edits.get(callId);
    return {
      ...(hunkChoices !== undefined ? { hunkChoices } : {}),
      ...(edit !== undefined ? { edit } : {}),
      facts: this.facts(callId, hunkChoices),
    };
  }
}
