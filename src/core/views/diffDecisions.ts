/**
 * Decisions from VS Code's own diff editor, for the waiting call whose proposal it shows: Allow, Deny (with an
 * optional reason) and Edit in its title bar, and Accept / Reject hunk (from the CodeLens and marks of the hunks, the
 * context menu or the palette). Each is translated into the gate's own calls (`settle`, `chooseHunk`), with the id and
 * hash of the call shown: the hunk choices and the edit are the same live state as the panel's and the chat's.
 * Allowing with the proposed side edited (there or elsewhere, and shown there) allows the edited text, and the model is
 * told. The editor's part (which call an editor shows, its input boxes) is src/vscode/diffEditor/diffActions.ts.
 */
import type { Gate } from '../approval/gate';
import { hunkAnchorLine, hunkAtLine } from '../review/hunkChoices';
import type { PendingCallView } from '../../shared/approvals';
import { pendingView, type GateState } from './pendingCall';
import type { ProposedDocument } from './proposedDocument';

/** What a diff editor action did: the call it settled or changed, or why nothing. */
export type DiffActionResult = { done: true; callId: string; edited?: boolean } | { done: false; why: string };

export type DiffGate = GateState & Pick<Gate, 'settle' | 'chooseHunk' | 'heldEdit'>;

/** What the diff editor asks and says. */
export interface DiffPrompts {
  /** An optional reason in an input box; undefined when the person pressed Escape. */
  askReason(title: string, prompt: string, value?: string): PromiseLike<string | undefined>;
  warn(text: string): void;
}

/** The proposed side the cursor is in, and its line (0-based). */
export type ProposedCursor = ProposedDocument & { line: number };

interface HunkTarget {
  call: PendingCallView;
  index: number;
}

/** The file a call's diff writes, else its tool: what the input boxes name. */
function targetOf(call: PendingCallView): string {
  return call.preview.kind === 'diff' ? call.preview.path : call.tool;
}

export class DiffDecisions {
  constructor(
    private readonly gate: DiffGate,
    private readonly prompts: DiffPrompts,
  ) {}

  private refused(why: string): DiffActionResult {
    this.prompts.warn(`Toolgate: ${why}`);
    return { done: false, why };
  }

  /** The waiting call an editor shows (`callId`: from its URI, undefined when no proposed diff is active), or why none. */
  private waiting(callId: string | undefined): PendingCallView | string {
    if (callId === undefined) {
      return 'no proposed diff is active';
    }
    return pendingView(this.gate, callId) ?? `call ${callId} is no longer waiting`;
  }

  /**
   * Allow: what the editor shows is the call's edit (typed there, or made on another surface and shown there), allowed
   * as shown, by the revision the proposed side holds once `flush` has made it the held edit.
   */
  async allow(callId: string | undefined, flush: (callId: string) => Promise<void>): Promise<DiffActionResult> {
    const call = this.waiting(callId);
    if (typeof call === 'string') {
      return this.refused(call);
    }
    await flush(call.callId);
    const held = this.gate.heldEdit(call.callId);
    const outcome = this.gate.settle(call, { action: 'allow-once', editRevision: held?.revision ?? 0 });
    return outcome.ok ? { done: true, callId: call.callId, edited: held?.text !== undefined } : this.refused(outcome.error);
  }

  /** Deny, with the reason given, else one asked for (Escape keeps the call waiting). */
  async deny(callId: string | undefined, reasonArg: unknown): Promise<DiffActionResult> {
    const call = this.waiting(callId);
    if (typeof call === 'string') {
      return this.refused(call);
    }
    const reason =
      typeof reasonArg === 'string'
        ? reasonArg
        : await this.prompts.askReason(`Toolgate: deny ${call.tool} ${targetOf(call)}`, 'Why? The reason goes back to the model (optional). Escape keeps the call waiting.');
    if (reason === undefined) {
      return { done: false, why: 'the deny was cancelled' };
    }
    const trimmed = reason.trim();
    const outcome = this.gate.settle(call, { action: 'deny', ...(trimmed ? { reason: trimmed } : {}) });
    return outcome.ok ? { done: true, callId: call.callId } : this.refused(outcome.error);
  }

  /**
   * Edit: the call whose proposed side (`proposedUri`) takes the cursor, and the line of its first change; or why
   * there is none.
   */
  editable<U>(callId: string | undefined, proposedUri: (callId: string) => U | undefined): { callId: string; uri: U; line: number | undefined } | DiffActionResult {
    const call = this.waiting(callId);
    if (typeof call === 'string') {
      return this.refused(call);
    }
    const uri = proposedUri(call.callId);
    if (uri === undefined || call.editable?.kind !== 'content') {
      return this.refused(`call ${call.callId} cannot be edited`);
    }
    const firstHunk = call.preview.kind === 'diff' ? call.preview.hunks[0] : undefined;
    return { callId: call.callId, uri, line: firstHunk && hunkAnchorLine(firstHunk.rows) };
  }

  acceptHunk(callId: unknown, index: unknown, cursor: ProposedCursor | undefined): DiffActionResult {
    const target = this.hunkTarget(callId, index, cursor);
    return typeof target === 'string' ? this.refused(target) : this.chooseHunk(target, true, '');
  }

  /** Reject hunk, with the reason given, else one asked for (its earlier reason offered; Escape leaves it as it is). */
  async rejectHunk(callId: unknown, index: unknown, reasonArg: unknown, cursor: ProposedCursor | undefined): Promise<DiffActionResult> {
    const target = this.hunkTarget(callId, index, cursor);
    if (typeof target === 'string') {
      return this.refused(target);
    }
    let reason = typeof reasonArg === 'string' ? reasonArg : undefined;
    if (reason === undefined) {
      reason = await this.prompts.askReason(
        `Toolgate: reject hunk ${target.index + 1} of ${targetOf(target.call)}`,
        'Why not this hunk? (optional, sent to the model). Escape leaves it as it is.',
        target.call.hunkChoices?.[target.index]?.reason ?? '',
      );
      if (reason === undefined) {
        return { done: false, why: 'the reject was cancelled' };
      }
    }
    return this.chooseHunk(target, false, reason);
  }

  /**
   * The hunk a command is about: the call and index it was given (from a CodeLens or a hover link), else the hunk under
   * the cursor of the active proposed side (from the context menu or the palette).
   */
  private hunkTarget(callId: unknown, index: unknown, cursor: ProposedCursor | undefined): HunkTarget | string {
    if (typeof callId === 'string' && typeof index === 'number') {
      const call = pendingView(this.gate, callId);
      return call ? { call, index } : `call ${callId} is no longer waiting`;
    }
    if (cursor?.side !== 'proposed') {
      return "put the cursor in a waiting call's proposed side first";
    }
    const call = pendingView(this.gate, cursor.callId);
    if (!call || call.preview.kind !== 'diff') {
      return `call ${cursor.callId} is no longer waiting`;
    }
    const at = hunkAtLine(call.preview.hunks, cursor.line);
    return at === undefined ? 'this diff has no hunks' : { call, index: at };
  }

  private chooseHunk(target: HunkTarget, accepted: boolean, reason: string): DiffActionResult {
    const outcome = this.gate.chooseHunk(target.call, target.index, accepted, accepted ? undefined : reason.trim());
    return outcome.ok ? { done: true, callId: target.call.callId } : this.refused(outcome.error);
  }
}
