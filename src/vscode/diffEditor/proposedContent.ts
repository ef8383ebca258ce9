import * as vscode from 'vscode';
import type { HeldEdit } from '../../core/review/heldEdits';
import type { Proposal } from '../../core/tools/fileTools';
import { firstChangedLine, parseProposedQuery, proposedDocumentParts, type ProposedDocument, type ProposedSide } from '../../core/views/proposedDocument';

/** The host-held edit of a waiting call (the gate's), as the diff editor's proposed side reads and writes it. */
export interface HeldEditPort {
  get(callId: string): HeldEdit | undefined;
  /** The proposed side as the person left it in the diff editor (the proposal's own text undoes the edit). */
  set(callId: string, text: string): void;
}

/**
 * In-memory documents with the proposed content of waiting edits, so the person can compare them in VS Code's own diff
 * editor and edit the proposed side there. The proposed side is the call's host-held edit (made here, in the panel or
 * in the chat), else the proposal: typing or saving here edits the call for every surface, and never writes the real
 * file; only an Allow through the gate writes anything. URIs: toolgate-proposed:/<relative path>?call=<callId> (the
 * proposal) and the same with `&side=original` (the empty original of a new file): see core/views/proposedDocument.
 */
export class ProposedContentProvider implements vscode.FileSystemProvider {
  static readonly scheme = 'toolgate-proposed';
  private readonly onDidChangeFileEmitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.onDidChangeFileEmitter.event;
  private readonly started = Date.now();
  /** Each proposed side's modification time as last told to the editor (see `mtimeOf`). */
  private readonly mtimes = new Map<string, number>();

  constructor(
    private readonly proposal: (callId: string) => Proposal | undefined,
    private readonly held: HeldEditPort,
  ) {}

  /** The call a URI of this scheme belongs to, and whether it is the proposed side (both in its query). */
  static parse(uri: vscode.Uri): ProposedDocument | undefined {
    return uri.scheme === ProposedContentProvider.scheme ? parseProposedQuery(uri.query) : undefined;
  }

  /** A call's document: its path is the file's own (what the breadcrumb and the tab show); the call is in the query. */
  private uriOf(callId: string, proposal: Proposal, side: ProposedSide): vscode.Uri {
    return vscode.Uri.from({ scheme: ProposedContentProvider.scheme, ...proposedDocumentParts(callId, proposal.target, side) });
  }

  /** The proposed side's URI for a waiting call, if it has a proposal. */
  proposedUri(callId: string): vscode.Uri | undefined {
    const proposal = this.proposal(callId);
    return proposal ? this.uriOf(callId, proposal, 'proposed') : undefined;
  }

  private text(uri: vscode.Uri): string | undefined {
    const parsed = ProposedContentProvider.parse(uri);
    const proposal = parsed && this.proposal(parsed.callId);
    if (!parsed || !proposal) {
      return undefined;
    }
    return parsed.side === 'original' ? '' : (this.held.get(parsed.callId)?.text ?? proposal.newText);
  }

  /** The open document of a call's proposed side, if any. */
  private openDocument(callId: string): vscode.TextDocument | undefined {
    const uri = this.proposedUri(callId)?.toString();
    return uri === undefined ? undefined : vscode.workspace.textDocuments.find((candidate) => !candidate.isClosed && candidate.uri.toString() === uri);
  }

  /**
   * Makes what the diff editor shows the call's held edit, before a decision there: the open proposed side's text,
   * typed or saved (the editor may hold a keystroke the host has not heard of yet). Nothing when it is not open.
   */
  async flush(callId: string): Promise<void> {
    const document = this.hold(callId);
    // Saved too (in memory: the edit it already is), so the tab that closes once the call is decided asks nothing.
    if (document?.isDirty === true) {
      await document.save();
    }
  }

  /** The open proposed side's text as the call's held edit; the document, if it is open and the call waits. */
  private hold(callId: string): vscode.TextDocument | undefined {
    const document = this.openDocument(callId);
    if (!document || !this.proposal(callId)) {
      return undefined;
    }
    this.held.set(callId, document.getText());
    return document;
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

  /** Whether the call carries an edit (made here or on another surface). */
  isEdited(callId: string): boolean {
    return this.held.get(callId)?.text !== undefined;
  }

  /**
   * The proposed side follows the held edit: a document open here and not being edited is told to read it again when
   * the edit changed on another surface (a dirty one keeps the person's typing, which becomes the edit itself).
   */
  followHeldEdits(): void {
    for (const document of vscode.workspace.textDocuments) {
      const parsed = ProposedContentProvider.parse(document.uri);
      if (parsed?.side !== 'proposed' || document.isDirty || document.isClosed) {
        continue;
      }
      const text = this.text(document.uri);
      if (text !== undefined && text !== document.getText()) {
        this.onDidChangeFileEmitter.fire([{ type: vscode.FileChangeType.Changed, uri: document.uri }]);
      }
    }
  }

  /** Typing in a proposed side edits the call for every surface (after a pause, not on every key). */
  trackTyping(): vscode.Disposable {
    const timers = new Map<string, NodeJS.Timeout>();
    const subscription = vscode.workspace.onDidChangeTextDocument((event) => {
      const parsed = ProposedContentProvider.parse(event.document.uri);
      if (parsed?.side !== 'proposed' || event.contentChanges.length === 0 || !event.document.isDirty) {
        return;
      }
      clearTimeout(timers.get(parsed.callId));
      timers.set(parsed.callId, setTimeout(() => {
        timers.delete(parsed.callId);
        this.hold(parsed.callId);
      }, 150));
    });
    return new vscode.Disposable(() => {
      subscription.dispose();
      for (const timer of timers.values()) {
        clearTimeout(timer);
      }
    });
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const text = this.text(uri);
    const parsed = ProposedContentProvider.parse(uri);
    if (parsed?.side === 'proposed' && text === undefined) {
      // Decided while its tab held unsaved typing (the edit was already the call's): the tab's closing save is taken
      // and dropped (writeFile), rather than VS Code making folders for a file it thinks is gone, and asking.
      return { type: vscode.FileType.File, ctime: this.started, mtime: this.mtimes.get(parsed.callId) ?? this.started, size: 0 };
    }
    if (text === undefined || !parsed) {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    const mtime = parsed.side === 'proposed' ? this.mtimeOf(parsed.callId) : this.started;
    return { type: vscode.FileType.File, ctime: this.started, mtime, size: Buffer.byteLength(text) };
  }

  /**
   * Both sides are handed to the editor in the encoding it will decode them with (`files.encoding` may name another
   * than UTF-8), and a saved proposed side is decoded the same way: the text the person saw is the text written.
   */
  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const text = this.text(uri);
    if (text === undefined) {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return await vscode.workspace.encode(text, { uri });
  }

  /** Saving the proposed side makes it the call's held edit; the real file is never touched. */
  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    const parsed = ProposedContentProvider.parse(uri);
    if (!parsed || parsed.side !== 'proposed') {
      throw vscode.FileSystemError.NoPermissions(uri);
    }
    if (!this.proposal(parsed.callId)) {
      // Decided meanwhile (its tab is closing): nothing to keep.
      return;
    }
    this.held.set(parsed.callId, await vscode.workspace.decode(content, { uri }));
    this.onDidChangeFileEmitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  delete(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  rename(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  /**
   * Opens the native diff: the file as it is now (or an empty document for a new file) against the proposal, with the
   * cursor on the proposed side's first change. Given here, VS Code does not move the cursor there itself once its diff
   * is computed, which on a busy machine came after the person had moved it and started typing.
   */
  async openDiff(callId: string): Promise<void> {
    const proposal = this.proposal(callId);
    const right = this.proposedUri(callId);
    if (!proposal || !right) {
      throw new Error('that call is no longer waiting');
    }
    const name = proposal.target.relative ?? proposal.target.input;
    const file = vscode.Uri.file(proposal.target.absolute);
    const left = proposal.base.exists ? file : this.uriOf(callId, proposal, 'original');
    const line = firstChangedLine(proposal.base.text, this.held.get(callId)?.text ?? proposal.newText);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${name} ↔ proposed by the agent`, {
      preview: true,
      selection: new vscode.Range(line, 0, line, 0),
    } satisfies vscode.TextDocumentShowOptions);
  }

  dispose(): void {
    this.onDidChangeFileEmitter.dispose();
  }
}
