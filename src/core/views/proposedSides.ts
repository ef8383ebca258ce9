/**
 * What the diff editor's two sides of a waiting write hold: the proposed side is the call's host-held edit (made in the
 * diff editor, in the panel or in the chat), else the proposal; the original of a new file is empty. Typing or saving
 * there edits the call for every surface and never writes the real file; only an Allow through the gate writes
 * anything. The documents themselves (a file system of VS Code's) are src/vscode/diffEditor/proposedContent.ts.
 */
import type { HeldEdit } from '../review/heldEdits';
import { firstChangedLine, proposedDocumentParts, type ProposedDocument, type ProposedSide } from './proposedDocument';

/** The host-held edit of a waiting call (the gate's), as the diff editor's proposed side reads and writes it. */
export interface HeldEditPort {
  get(callId: string): HeldEdit | undefined;
  /** The proposed side as the person left it in the diff editor (the proposal's own text undoes the edit). */
  set(callId: string, text: string): void;
}

/** A waiting write's proposal (src/core/tools/fileTools.ts), as far as its diff shows it. */
export interface ShownProposal {
  target: { input: string; absolute: string; relative?: string | undefined };
  base: { exists: boolean; text: string };
  newText: string;
}

/** A side's file status: when it last changed (ms since epoch) and its length in UTF-8. */
export interface SideStat {
  ctime: number;
  mtime: number;
  size: number;
}

export class ProposedSides {
  /** Each proposed side's modification time as last told to the editor (see `mtimeOf`). */
  private readonly mtimes = new Map<string, number>();

  constructor(
    private readonly proposal: (callId: string) => ShownProposal | undefined,
    readonly held: HeldEditPort,
    private readonly started = Date.now(),
  ) {}

  /** Whether the call still waits with a proposal. */
  waits(callId: string): boolean {
    return this.proposal(callId) !== undefined;
  }

  /** A call's document: its path is the file's own (what the breadcrumb and the tab show); the call is in the query. */
  parts(callId: string, side: ProposedSide): ReturnType<typeof proposedDocumentParts> | undefined {
    const proposal = this.proposal(callId);
    return proposal ? proposedDocumentParts(callId, proposal.target, side) : undefined;
  }

  /** The text a side shows; undefined when its call no longer waits. */
  text(document: ProposedDocument | undefined): string | undefined {
    const proposal = document && this.proposal(document.callId);
    if (!document || !proposal) {
      return undefined;
    }
    return document.side === 'original' ? '' : (this.held.get(document.callId)?.text ?? proposal.newText);
  }

  /** Whether the call carries an edit (made in the diff editor or on another surface). */
  isEdited(callId: string): boolean {
    return this.held.get(callId)?.text !== undefined;
  }

  /**
   * A proposed side is newer (and an open document reads it again) only when its edit changed on another surface: its
   * own typing and saving must not make the file look changed under the editor, which would refuse the next save.
   */
  private mtimeOf(callId: string): number {
    const held = this.held.get(callId);
    const previous = this.mtimes.get(callId) ?? this.started;
    const next = held === undefined || held.where === 'diff-editor' ? previous : Math.max(previous, this.started + held.revision);
    this.mtimes.set(callId, next);
    return next;
  }

  /** A side's status; undefined when it is not found. */
  stat(document: ProposedDocument | undefined): SideStat | undefined {
    const text = this.text(document);
    if (document?.side === 'proposed' && text === undefined) {
      // Decided while its tab held unsaved typing (the edit was already the call's): the tab's closing save is taken
      // and dropped (see ProposedContentProvider.writeFile), rather than the editor making folders for a file it
      // thinks is gone, and asking.
      return { ctime: this.started, mtime: this.mtimes.get(document.callId) ?? this.started, size: 0 };
    }
    if (text === undefined || !document) {
      return undefined;
    }
    const mtime = document.side === 'proposed' ? this.mtimeOf(document.callId) : this.started;
    return { ctime: this.started, mtime, size: Buffer.byteLength(text) };
  }

  /**
   * The native diff of a call: the file as it is now (or the empty original of a new file) against the proposed side,
   * its title, and the line of the proposed side's first change (where the cursor goes).
   */
  diff(callId: string): { file: string; newFile: boolean; title: string; line: number } | undefined {
    const proposal = this.proposal(callId);
    if (!proposal) {
      return undefined;
    }
    const name = proposal.target.relative ?? proposal.target.input;
    const line = firstChangedLine(proposal.base.text, this.held.get(callId)?.text ?? proposal.newText);
    return { file: proposal.target.absolute, newFile: !proposal.base.exists, title: `${name} ↔ proposed by the agent`, line };
  }
}
