/** What the model (or an API caller) is told when a gated call was denied, or a write was applied. */
import type { GateResult } from '../approval/gate';
import { maxOutputChars, OutputBuffer } from '../terminal/output';
import type { Proposal } from './fileTools';

export function deniedMessage(decision: Extract<GateResult, { verdict: 'deny' }>): string {
  switch (decision.decidedBy) {
    case 'person':
      return decision.personReason !== undefined
        ? `The person denied this call and said: "${decision.personReason}". Nothing was changed.`
        : 'The person denied this call. Nothing was changed.';
    case 'timeout':
      return `Nobody answered in time, so the call was denied (${decision.reason}). Nothing was changed.`;
    case 'cancel':
      return `The call was not run: ${decision.cancelReason ?? 'it was cancelled'}. Nothing was changed.`;
    case 'policy':
      return `The call was refused by policy (${decision.reason}). Nothing was changed.`;
    case 'managed':
      return `The call was refused by the organisation's managed policy (${decision.reason}). Nothing was changed; the person cannot allow it either, so do not ask them to.`;
  }
}

/** After a write: where it went, and the person's version in full when they edited it before allowing. */
export function writtenMessage(proposal: Proposal, written: { text: string; savedToDisk: boolean; edited: boolean }): string {
  const where = written.savedToDisk ? '' : ' (in the open editor, unsaved: the person had unsaved changes there)';
  const relative = proposal.target.relative ?? proposal.target.real;
  if (written.edited) {
    return `The person edited the content before allowing it. Wrote their version to ${relative}${where}; it now reads:\n${written.text}`;
  }
  return `${proposal.base.exists ? 'Updated' : 'Created'} ${relative}${where}.`;
}

/**
 * A tool result as the model gets it: whole up to the terminal output's cap, else its head and tail with the size
 * (as command output is), saying that the person has it whole.
 */
export function boundedForModel(text: string): { text: string; cut: boolean } {
  if (text.length <= maxOutputChars) {
    return { text, cut: false }; // within the cap: nothing to keep apart
  }
  const buffer = new OutputBuffer();
  buffer.append(text);
  if (buffer.droppedChars === 0) {
    return { text, cut: false };
  }
  return {
    text: `(The result is ${text.length.toLocaleString('en-US')} characters; its middle is left out here. The person can open it whole.)\n${buffer.render()}`,
    cut: true,
  };
}
