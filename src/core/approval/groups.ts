/**
 * Staged-change groups: the files a staged command changed, waiting as calls of their own but decided together on one
 * card. Allow once or Deny of any member settles them all; each member by its own hunk choices and held edit.
 */
import type { PersonChoice } from './choices';
import { editDecision } from '../review/heldEdits';
import type { LiveReview } from '../review/liveReview';

/** Calls decided together on one card: the files a staged command changed. */
export interface CallGroup {
  id: string;
  /** What made the calls: the command as it ran. */
  command: string;
  /** How many changes the command made in the workspace in all (those that landed by a rule included). */
  changed: number;
}

/** A member of a group as the plan reads it. */
interface Member {
  callId: string;
  input: { group?: CallGroup | undefined };
}

/**
 * What a group's Allow once or Deny, from any member, does to each member: Deny denies every member still waiting;
 * Allow once allows each with its held hunk choices (or its held edit, if the deciding view showed that edit), and
 * denies a member whose every hunk was rejected (its reasons go to the model). Refused when every hunk of every member
 * is rejected: that is a Deny.
 */
export function groupPlans<M extends Member>(members: readonly M[], review: LiveReview, choice: PersonChoice): { ok: true; plans: { member: M; choice: PersonChoice }[] } | { ok: false; error: string } {
  // A file of the group edited (in the diff editor) lands as edited, if the deciding view showed that edit.
  const edits = new Map(members.map((member) => [member.callId, review.edit(member.callId)]));
  const latest = Math.max(0, ...[...edits.values()].map((edit) => edit?.revision ?? 0));
  if (choice.action !== 'deny') {
    const shown = editDecision({ revision: latest, ...([...edits.values()].some((edit) => edit?.text !== undefined) ? { text: '' } : {}) }, { action: 'allow', ...(choice.editRevision !== undefined ? { shownRevision: choice.editRevision } : {}) });
    if (shown.kind === 'refused') {
      return { ok: false, error: `the group's files: ${shown.error}` };
    }
  }
  const plans = members.map((member): { member: M; choice: PersonChoice } => {
    if (choice.action === 'deny') {
      return { member, choice };
    }
    const edited = edits.get(member.callId)?.text;
    if (edited !== undefined) {
      return { member, choice: { action: 'allow-edited', edited } };
    }
    const held = review.heldHunks(member.callId);
    const count = review.hunkCount(member.callId);
    if (held !== undefined && held.length >= count && count > 0) {
      const reasons = held.flatMap((hunk) => (hunk.reason !== undefined ? [hunk.reason] : []));
      return { member, choice: { action: 'deny', reason: reasons.length > 0 ? [...new Set(reasons)].join('; ') : 'rejected in the review' } };
    }
    return { member, choice: { action: 'allow-once', ...(held !== undefined ? { hunks: held } : {}) } };
  });
  if (choice.action === 'allow-once' && plans.every((plan) => plan.choice.action === 'deny')) {
    return { ok: false, error: 'every change of the group is rejected: use Deny to refuse them all' };
  }
  return { ok: true, plans };
}

/**
 * How many decisions wait, as the badge, the status bar and the views count them: a group is one however many files it
 * has; every other waiting call is one.
 */
export function decisionCount(waiting: readonly Member[]): number {
  const groups = new Set(waiting.flatMap((entry) => (entry.input.group === undefined ? [] : [entry.input.group.id])));
  return waiting.filter((entry) => entry.input.group === undefined).length + groups.size;
}

/** Of calls listed for Allow all / Deny all, those to settle: a group once, through its first member listed. */
export function oncePerGroup<R extends { callId: string }>(refs: readonly R[], groupOf: (callId: string) => string | undefined): R[] {
  const seen = new Set<string>();
  return refs.filter(({ callId }) => {
    const group = groupOf(callId);
    if (group === undefined) {
      return true;
    }
    if (seen.has(group)) {
      return false;
    }
    seen.add(group);
    return true;
  });
}
