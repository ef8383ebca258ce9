/**
 * The person's edit of a waiting call (the proposed content, or the command), held by the host like the hunk choices:
 * one live state for the approvals panel, the chat's card and the diff editor's proposed side (issue "what you see is
 * what you approve"). An edit made on any surface is shown on every surface, and Allow anywhere applies it, but only
 * from a view that showed it: each change bumps a revision, a view's Allow names the revision it showed, and an Allow
 * for another revision is refused. Keyed by call id and bound to the arguments hash that was shown.
 */

/** Where an edit was made, as the other surfaces name it. */
export type EditSource = 'panel' | 'chat' | 'diff-editor';

export interface HeldEdit {
  /** The edited text; absent when the call is as proposed (never edited, or edited back). */
  text?: string;
  /** Where the last change was made (the edit, or its undoing). */
  where?: EditSource;
  /** 0 until the first change; bumped by every change (from a counter shared by all calls, so never reused). */
  revision: number;
}

interface Entry {
  argsHash: string;
  /** What the edit is of: the proposed content or command. */
  original: string;
  edit: HeldEdit;
}

export type SetEditOutcome = { ok: true; changed: boolean } | { ok: false; error: string };

export class HeldEdits {
  private readonly entries = new Map<string, Entry>();
  private counter = 0;

  /** A waiting call that can be edited, as proposed. */
  open(callId: string, argsHash: string, original: string): void {
    this.entries.set(callId, { argsHash, original, edit: { revision: 0 } });
  }

  close(callId: string): void {
    this.entries.delete(callId);
  }

  /** Sets (or, with `undefined` or the original text, clears) a call's edit. */
  set(ref: { callId: string; argsHash: string }, text: string | undefined, where: EditSource): SetEditOutcome {
    const entry = this.entries.get(ref.callId);
    if (!entry) {
      return { ok: false, error: `call ${ref.callId} is not waiting with anything to edit` };
    }
    if (entry.argsHash !== ref.argsHash) {
      return { ok: false, error: `call ${ref.callId}: the arguments hash does not match what was shown` };
    }
    const next = text === undefined || text === entry.original ? undefined : text;
    if (next === entry.edit.text) {
      return { ok: true, changed: false };
    }
    this.counter += 1;
    // Where the last change was made is kept when it undid the edit too (the diff editor's own undo is not news to it).
    entry.edit = next === undefined ? { where, revision: this.counter } : { text: next, where, revision: this.counter };
    return { ok: true, changed: true };
  }

  /** A call's edit state (a copy), or undefined for a call that cannot be edited or is not waiting. */
  get(callId: string): HeldEdit | undefined {
    const edit = this.entries.get(callId)?.edit;
    return edit === undefined ? undefined : { ...edit };
  }
}

const surfaceNames: Record<EditSource, string> = { panel: 'the Approvals panel', chat: 'the chat', 'diff-editor': 'the diff editor' };

/** What a surface is called in a sentence: "edited in the diff editor". */
export function editSourceName(where: EditSource): string {
  return surfaceNames[where];
}

/** An allowing choice, as far as an edit is concerned: what the person pressed and the edit revision their view showed. */
export interface EditChoice {
  action: 'allow' | 'allow-edited' | 'grant' | 'deny';
  /** The revision the view showed; undefined from a surface that shows no edit (a key with no card, a notification). */
  shownRevision?: number;
}

/**
 * What a choice does with the held edit: `apply` (allow exactly the held text), `as-chosen`, or why it is refused.
 * - Deny, and Allow with the edited text in hand (`allow-edited`), need nothing of the held edit.
 * - An Allow from a view that showed another revision is refused: the call changed under it.
 * - An Allow from a surface that shows no edit is refused while an edit is held.
 * - A grant allows the original: refused while an edit is held.
 */
export function editDecision(held: HeldEdit | undefined, choice: EditChoice): { kind: 'apply'; text: string } | { kind: 'as-chosen' } | { kind: 'refused'; error: string } {
  if (held === undefined || choice.action === 'deny' || choice.action === 'allow-edited') {
    return { kind: 'as-chosen' };
  }
  const where = held.where === undefined ? '' : ` in ${editSourceName(held.where)}`;
  if (choice.action === 'grant') {
    return held.text === undefined ? { kind: 'as-chosen' } : { kind: 'refused', error: `it was edited${where}, and a grant would allow the original: allow the edit once, or undo the edit` };
  }
  if (choice.shownRevision === undefined) {
    return held.text === undefined ? { kind: 'as-chosen' } : { kind: 'refused', error: `it was edited${where}: decide it on a card that shows the edit` };
  }
  if (choice.shownRevision !== held.revision) {
    return { kind: 'refused', error: held.text === undefined ? 'its edit was undone after this view showed it: look at it again' : `it was edited${where} after this view showed it: look at it again` };
  }
  return held.text === undefined ? { kind: 'as-chosen' } : { kind: 'apply', text: held.text };
}
