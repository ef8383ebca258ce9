/**
 * What an allowed write writes (write_file, edit_file, a staged command's text change): the person's decision on the
 * shown diff applied to the proposal, and what the model is told when only part of it lands.
 */
import type { GateResult } from '../approval/gate';
import { diffText } from '../diff/lineDiff';
import { applyHunksOf } from '../review/hunks';
import type { Proposal } from './fileTools';

/** What the model is told of a change allowed with some hunks rejected: "1 of 2 hunks; rejected hunk 2: why". */
export function partOf(proposal: Proposal | undefined, decision: Extract<GateResult, { verdict: 'allow' }>): string | undefined {
  if (proposal === undefined || decision.hunks === undefined) {
    return undefined;
  }
  const rejected = decision.hunks.filter((hunk) => !hunk.accepted);
  const total = diffText(proposal.base.text, proposal.newText).hunks.length;
  if (rejected.length === 0) {
    return undefined;
  }
  const why = rejected.map((hunk) => `hunk ${hunk.index + 1}${hunk.reason !== undefined ? `: "${hunk.reason}"` : ''}`).join(', ');
  return `${total - rejected.length} of ${total} hunks; rejected ${why}`;
}

/** The text an allowed write lands: the base with the accepted hunks of the shown diff, the person's edit, or all. */
export function textToWrite(proposal: Proposal, decision: Extract<GateResult, { verdict: 'allow' }>): string {
  if (decision.hunks === undefined) {
    return decision.edited ?? proposal.newText;
  }
  const shown = diffText(proposal.base.text, proposal.newText).hunks;
  const decided = new Map(decision.hunks.map((hunk) => [hunk.index, hunk]));
  const accepted = new Set(shown.map((_, index) => index).filter((index) => decided.get(index)?.accepted ?? true));
  return applyHunksOf(proposal.base.text, proposal.newText, shown, accepted);
}
