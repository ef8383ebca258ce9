/**
 * The hunks of a waiting call's proposed side in VS Code's diff editor, with their host-held choices: where each one's
 * CodeLens (Accept hunk, Reject hunk) and end-of-line mark go, and what they say. Both run the diff editor's hunk
 * commands (./diffDecisions.ts), which change the same live state as the panel's.
 */
import { hunkAnchorLine } from '../review/hunkChoices';
import type { PendingCallView } from '../../shared/approvals';
import { pendingView, type GateState } from './pendingCall';
import type { ProposedDocument } from './proposedDocument';

/** One hunk's mark: its line, what its choice is, and the words of its lenses and hover. */
export interface HunkMark {
  callId: string;
  index: number;
  /** 0-based, on the proposed side (its first changed line, within the document). */
  line: number;
  /** "Hunk 2 of 3: rejected (why)". */
  choice: string;
  accept: { title: string; tooltip: string };
  reject: { title: string; tooltip: string };
  /** The mark's hover (Markdown): the choice, with Accept / Reject links. */
  hover: string;
}

/** The commands a hover's links may run. */
export const hunkCommands = ['toolgate.diff.acceptHunk', 'toolgate.diff.rejectHunk'] as const;

/** What a hunk's mark and lens say of its host-held choice. */
function choiceText(call: PendingCallView, index: number): string {
  const count = call.preview.kind === 'diff' ? call.preview.hunks.length : 0;
  const choice = call.hunkChoices?.[index];
  const reason = choice && !choice.accepted && choice.reason.trim() !== '' ? ` (${choice.reason.trim()})` : '';
  return `Hunk ${index + 1} of ${count}: ${choice?.accepted === false ? `rejected${reason}` : 'accepted'}`;
}

/**
 * The marks of a document of `lineCount` lines: one per hunk when it is a waiting call's proposed side with hunk
 * choices; none once it was edited (`edited`: here or on another surface), since Allow then writes the edited text.
 */
export function hunkMarks(gate: GateState, document: ProposedDocument | undefined, lineCount: number, edited: boolean): HunkMark[] {
  const call = document?.side === 'proposed' ? pendingView(gate, document.callId) : undefined;
  if (!call || call.preview.kind !== 'diff' || call.hunkChoices === undefined || edited) {
    return [];
  }
  const count = call.preview.hunks.length;
  return call.preview.hunks.map((hunk, index) => {
    const accepted = call.hunkChoices?.[index]?.accepted ?? true;
    const choice = choiceText(call, index);
    const args = encodeURIComponent(JSON.stringify([call.callId, index]));
    return {
      callId: call.callId,
      index,
      line: Math.min(hunkAnchorLine(hunk.rows), Math.max(lineCount - 1, 0)),
      choice,
      accept: { title: `${accepted ? '$(check) ' : ''}Accept hunk`, tooltip: `Accept hunk ${index + 1} of ${count}` },
      reject: { title: `${accepted ? '' : '$(close) '}Reject hunk`, tooltip: `Reject hunk ${index + 1} of ${count} (asks an optional reason)` },
      hover: `${choice}. [Accept hunk](command:${hunkCommands[0]}?${args}) · [Reject hunk](command:${hunkCommands[1]}?${args})`,
    };
  });
}
