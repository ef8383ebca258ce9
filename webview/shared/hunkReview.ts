/**
 * Per-hunk review of a waiting edit: which hunks of the shown diff the person accepts and which they reject (with an
 * optional reason each). The host holds the choices (one live state for the panel, the chat and the diff editor): a
 * view reports each change with `report` and takes the host's state with `apply`; `allow-once` then settles with what
 * the host holds. No DOM here, so the state and the key map are tested in plain Node.
 */
import type { DiffHunkView, HunkDecision, HunkChoiceMessage, PendingCallView } from '../../src/shared/approvals';
import { whenAnswered } from './hostChannel';

export type HunkKeyAction = 'next' | 'previous' | 'accept' | 'reject';

interface HunkState {
  accepted: boolean;
  reason: string;
}

export class HunkReview {
  private readonly states: HunkState[];
  private readonly listeners: ((index: number) => void)[] = [];

  /** Choices reported to the host and not yet answered, by hunk: a state pushed meanwhile may predate them. */
  private readonly unanswered = new Map<number, number>();

  constructor(
    readonly count: number,
    /**
     * Tells the host of a choice made here (a hunk accepted or rejected, a reason typed); calls `answered` once the
     * host has answered it.
     */
    private readonly report?: (index: number, accepted: boolean, reason: string, answered: () => void) => void,
  ) {
    this.states = Array.from({ length: count }, () => ({ accepted: true, reason: '' }));
  }

  /** The host's state (made here or in another view): listeners hear of each hunk whose choice or reason changed. */
  apply(choices: readonly { accepted: boolean; reason: string }[]): void {
    choices.forEach((choice, index) => {
      const state = this.states[index];
      // A hunk changed here and not yet answered keeps its choice: this state may be from before the host had it.
      if (state && !this.unanswered.has(index) && (state.accepted !== choice.accepted || state.reason !== choice.reason)) {
        state.accepted = choice.accepted;
        state.reason = choice.reason;
        this.fire(index);
      }
    });
  }

  private send(index: number, accepted: boolean, reason: string): void {
    if (!this.report) {
      return;
    }
    this.unanswered.set(index, (this.unanswered.get(index) ?? 0) + 1);
    this.report(index, accepted, reason, () => {
      const left = (this.unanswered.get(index) ?? 1) - 1;
      if (left > 0) {
        this.unanswered.set(index, left);
      } else {
        this.unanswered.delete(index);
      }
    });
  }

  private fire(index: number): void {
    for (const listener of this.listeners) {
      listener(index);
    }
  }

  isAccepted(index: number): boolean {
    return this.states[index]?.accepted ?? true;
  }

  reason(index: number): string {
    return this.states[index]?.reason ?? '';
  }

  /** Accepts or rejects one hunk; listeners hear of it only when it changes. */
  set(index: number, accepted: boolean): void {
    const state = this.states[index];
    if (state && state.accepted !== accepted) {
      state.accepted = accepted;
      this.fire(index);
      this.send(index, accepted, state.reason);
    }
  }

  setReason(index: number, reason: string): void {
    const state = this.states[index];
    if (state && state.reason !== reason) {
      state.reason = reason;
      this.send(index, state.accepted, reason);
    }
  }

  onDidChange(listener: (index: number) => void): void {
    this.listeners.push(listener);
  }

  get acceptedCount(): number {
    return this.states.filter((state) => state.accepted).length;
  }

  get allRejected(): boolean {
    return this.count > 0 && this.acceptedCount === 0;
  }

  /** "2 of 3 hunks accepted". */
  summary(): string {
    return `${this.acceptedCount} of ${this.count} ${this.count === 1 ? 'hunk' : 'hunks'} accepted`;
  }

  /**
   * What `allow-once` reports: the rejected hunks with their reasons (a hunk not listed counts as accepted), or
   * undefined when none is rejected, so the message is the whole change exactly as before.
   */
  decisions(): HunkDecision[] | undefined {
    const rejected: HunkDecision[] = [];
    this.states.forEach((state, index) => {
      if (!state.accepted) {
        const reason = state.reason.trim();
        rejected.push({ index, accepted: false, ...(reason === '' ? {} : { reason }) });
      }
    });
    return rejected.length === 0 ? undefined : rejected;
  }
}

/**
 * The review of a waiting call whose hunks the host lets the person choose (it publishes `hunkChoices`), starting
 * from the host's state and reporting each choice made in this view with `chooseHunk`; undefined for other calls.
 */
export function hunkReviewOf(
  call: PendingCallView,
  channel: { send(message: Omit<HunkChoiceMessage, 'requestId'>): string },
): HunkReview | undefined {
  if (call.hunkChoices === undefined || call.preview.kind !== 'diff' || call.preview.hunks.length === 0) {
    return undefined;
  }
  const review = new HunkReview(call.preview.hunks.length, (index, accepted, reason, answered) => {
    const requestId = channel.send({
      type: 'chooseHunk',
      callId: call.callId,
      argsHash: call.argsHash,
      index,
      choice: accepted ? 'accept' : 'reject',
      reason,
    });
    whenAnswered(requestId, () => answered());
  });
  review.apply(call.hunkChoices);
  return review;
}

/** The changed lines of a hunk, for its label: "lines 10–14" of the proposed file, or of the old one for a removal. */
export function hunkLines(hunk: DiffHunkView): string {
  if (hunk.rowCount !== undefined) {
    // Only its first rows are here yet: its header says where it is.
    return hunk.header;
  }
  const added = hunk.rows.flatMap((row) => (row[0] === 'a' && row[2] !== null ? [row[2]] : []));
  const removed = hunk.rows.flatMap((row) => (row[0] === 'd' && row[1] !== null ? [row[1]] : []));
  const [numbers, prefix] = added.length > 0 ? [added, ''] : [removed, 'removed '];
  const first = numbers[0];
  const last = numbers[numbers.length - 1];
  if (first === undefined || last === undefined) {
    return hunk.header;
  }
  return first === last ? `${prefix}line ${first}` : `${prefix}lines ${first}–${last}`;
}

export interface KeyLike {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
}

/** The review keys: j/k or Alt+Down/Alt+Up move between hunks, a accepts, r rejects. Other chords are not ours. */
export function hunkKeyAction(event: KeyLike): HunkKeyAction | undefined {
  if (event.ctrlKey || event.metaKey || event.shiftKey) {
    return undefined;
  }
  if (event.altKey) {
    return event.key === 'ArrowDown' ? 'next' : event.key === 'ArrowUp' ? 'previous' : undefined;
  }
  switch (event.key) {
    case 'j':
      return 'next';
    case 'k':
      return 'previous';
    case 'a':
      return 'accept';
    case 'r':
      return 'reject';
    default:
      return undefined;
  }
}
