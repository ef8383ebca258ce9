import * as vscode from 'vscode';
import { parseProposedQuery, type ProposedDocument, type ProposedSide } from '../../core/views/proposedDocument';
import { ProposedSides, type HeldEditPort, type ShownProposal } from '../../core/views/proposedSides';

/**
 * In-memory documents with the proposed content of waiting edits (what each side holds: src/core/views/proposedSides),
 * so the person can compare them in VS Code's own diff editor and edit the proposed side there. URIs:
 * toolgate-proposed:/<relative path>?call=<callId> (the proposal) and the same with `&side=original` (the empty
 * original of a new file): see core/views/proposedDocument.
 */
export class ProposedContentProvider implements vscode.FileSystemProvider {
  static readonly scheme = 'toolgate-proposed';
  private readonly onDidChangeFileEmitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.onDidChangeFileEmitter.event;
  private readonly sides: ProposedSides;

  constructor(proposal: (callId: string) => ShownProposal | undefined, held: HeldEditPort) {
    this.sides = new ProposedSides(proposal, held);
  }

  /** The call a URI of this scheme belongs to, and whether it is the proposed side (both in its query). */
  static parse(uri: vscode.Uri): ProposedDocument | undefined {
    return uri.scheme === ProposedContentProvider.scheme ? parseProposedQuery(uri.query) : undefined;
  }

  private uriOf(callId: string, side: ProposedSide): vscode.Uri | undefined {
    const parts = this.sides.parts(callId, side);
    return parts && vscode.Uri.from({ scheme: ProposedContentProvider.scheme, ...parts });
  }

  /** The proposed side's URI for a waiting call, if it has a proposal. */
  proposedUri(callId: string): vscode.Uri | undefined {
    return this.uriOf(callId, 'proposed');
  }

  private text(uri: vscode.Uri): string | undefined {
    return this.sides.text(ProposedContentProvider.parse(uri));
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
    if (!document || !this.sides.waits(callId)) {
      return undefined;
    }
    this.sides.held.set(callId, document.getText());
    return document;
  }

  /** Whether the call carries an edit (made here or on another surface). */
  isEdited(callId: string): boolean {
    return this.sides.isEdited(callId);
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
    const stat = this.sides.stat(ProposedContentProvider.parse(uri));
    if (stat === undefined) {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return { type: vscode.FileType.File, ...stat };
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
    if (!this.sides.waits(parsed.callId)) {
      // Decided meanwhile (its tab is closing): nothing to keep.
      return;
    }
    this.sides.held.set(parsed.callId, await vscode.workspace.decode(content, { uri }));
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
    const diff = this.sides.diff(callId);
    const right = this.proposedUri(callId);
    const left = diff?.newFile === true ? this.uriOf(callId, 'original') : diff && vscode.Uri.file(diff.file);
    if (!diff || !right || !left) {
      throw new Error('that call is no longer waiting');
    }
    await vscode.commands.executeCommand('vscode.diff', left, right, diff.title, {
      preview: true,
      selection: new vscode.Range(diff.line, 0, diff.line, 0),
    } satisfies vscode.TextDocumentShowOptions);
  }

  dispose(): void {
    this.onDidChangeFileEmitter.dispose();
  }
}
