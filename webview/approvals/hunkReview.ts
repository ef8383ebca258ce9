/**
 * Per-hunk review of a waiting edit: which hunks of the shown diff the person accepts and which they reject (with an
 * optional reason each). The panel only collects this and reports it with `allow-once`; the host decides what is
 * written. No DOM here, so the state and the key map are tested in plain Node.
 */
import type { DiffHunkView, HunkDecision } from '../../src/shared/approvals';

export type HunkKeyAction = 'next' | 'previous' | 'accept' | 'reject';

interface HunkState {
  accepted: boolean;
  reason: string;
}

export class HunkReview {
  private readonly states: HunkState[];
  private readonly listeners: ((index: number) => void)[] = [];

  constructor(readonly count: number) {
    this.states = Array.from({ length: count }, () => ({ accepted: true, reason: '' }));
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
      for (const listener of this.listeners) {
        listener(index);
      }
    }
  }

  setReason(index: number, reason: string): void {
    const state = this.states[index];
    if (state) {
      state.reason = reason;
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

/** The changed lines of a hunk, for its label: "lines 10–14" of the proposed file, or of the old one for a removal. */
export function hunkLines(hunk: DiffHunkView): string {
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
