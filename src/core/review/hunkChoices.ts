/**
 * The person's per-hunk choices on waiting edits, held by the host so that every surface (the approvals panel, the
 * chat's inline card, the native diff editor) shows and changes one live state. Keyed by call id and bound to the
 * arguments hash that was shown; a choice for a call that is not open here, with another hash, or for an index that is
 * not a hunk of the shown diff is refused with a typed kind. The gate opens a call's entry when it starts waiting and
 * closes it when the call settles.
 */
import type { DiffRow } from './preview';
import type { HunkDecision } from './hunks';

/** One hunk's current choice; a hunk starts accepted. The reason is kept while accepted, for a later reject. */
export interface HunkChoice {
  accepted: boolean;
  reason: string;
}

export type HunkChoiceRefusal = { ok: false; kind: 'unknown-call' | 'stale-hash' | 'unknown-hunk'; error: string };
export type HunkChoiceOutcome = { ok: true; changed: boolean } | HunkChoiceRefusal;

interface Entry {
  argsHash: string;
  choices: HunkChoice[];
  /** Counts the changes, so a view built from the choices is built again only when they changed. */
  revision: number;
}

/** Longest reason kept per hunk (the message schema bounds it too). */
const maxReason = 4000;

export class HunkChoices {
  private readonly entries = new Map<string, Entry>();

  /** A call whose diff of `hunkCount` hunks can be decided hunk by hunk: every hunk accepted to start with. */
  open(callId: string, argsHash: string, hunkCount: number): void {
    this.entries.set(callId, { argsHash, choices: Array.from({ length: hunkCount }, () => ({ accepted: true, reason: '' })), revision: 0 });
  }

  close(callId: string): void {
    this.entries.delete(callId);
  }

  has(callId: string): boolean {
    return this.entries.has(callId);
  }

  /** Accepts or rejects one hunk (a reason given replaces the kept one); `changed` says whether anything did. */
  choose(ref: { callId: string; argsHash: string }, index: number, accepted: boolean, reason?: string): HunkChoiceOutcome {
    const entry = this.entries.get(ref.callId);
    if (!entry) {
      return { ok: false, kind: 'unknown-call', error: `call ${ref.callId} has no diff waiting to be decided hunk by hunk` };
    }
    if (entry.argsHash !== ref.argsHash) {
      return { ok: false, kind: 'stale-hash', error: `call ${ref.callId}: the arguments hash does not match what was shown` };
    }
    const choice = Number.isInteger(index) ? entry.choices[index] : undefined;
    if (!choice) {
      return { ok: false, kind: 'unknown-hunk', error: `call ${ref.callId}: no hunk ${index}, the diff has ${entry.choices.length}` };
    }
    const nextReason = reason === undefined ? choice.reason : reason.slice(0, maxReason);
    const changed = choice.accepted !== accepted || choice.reason !== nextReason;
    choice.accepted = accepted;
    choice.reason = nextReason;
    entry.revision += changed ? 1 : 0;
    return { ok: true, changed };
  }

  /** How many times a call's choices changed (undefined for a call not open here). */
  revision(callId: string): number | undefined {
    return this.entries.get(callId)?.revision;
  }

  /** Every hunk's choice, in file order (copies), or undefined for a call not open here. */
  view(callId: string): HunkChoice[] | undefined {
    return this.entries.get(callId)?.choices.map((choice) => ({ ...choice }));
  }

  /**
   * What allow-once settles with: the rejected hunks with their trimmed reasons (a hunk not listed is accepted), or
   * undefined when none is rejected (the whole change, as proposed).
   */
  decisions(callId: string): HunkDecision[] | undefined {
    const rejected: HunkDecision[] = [];
    this.entries.get(callId)?.choices.forEach((choice, index) => {
      if (!choice.accepted) {
        const reason = choice.reason.trim();
        rejected.push({ index, accepted: false, ...(reason === '' ? {} : { reason }) });
      }
    });
    return rejected.length === 0 ? undefined : rejected;
  }
}

/**
 * The 0-based line of the proposed text where a shown hunk's change starts (for a pure removal, the line after the
 * removed lines, else the one before): where the diff editor puts the cursor and a hunk's CodeLens.
 */
export function hunkAnchorLine(rows: readonly DiffRow[]): number {
  const first = Math.max(rows.findIndex((row) => row[0] !== 'c'), 0);
  const added = rows.slice(first).find((row) => row[0] !== 'd' && row[2] !== null);
  const before = rows.slice(0, first).reverse().find((row) => row[2] !== null);
  return Math.max(0, (added?.[2] ?? before?.[2] ?? 1) - 1);
}

/**
 * The hunk a cursor on 0-based line `line` of the proposed text is in: the one whose lines (context included) hold it,
 * else the nearest before it, else the first. Undefined for no hunks.
 */
export function hunkAtLine(hunks: readonly { rows: readonly DiffRow[] }[], line: number): number | undefined {
  let found: number | undefined;
  hunks.forEach((hunk, index) => {
    const first = hunk.rows.find((row) => row[2] !== null)?.[2] ?? null;
    const start = first !== null ? first - 1 : hunkAnchorLine(hunk.rows);
    if (start <= line) {
      found = index;
    }
  });
  return found ?? (hunks.length > 0 ? 0 : undefined);
}
