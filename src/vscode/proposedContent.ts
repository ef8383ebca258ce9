import * as vscode from 'vscode';
import type { Proposal } from '../core/tools/fileTools';

/**
 * In-memory documents with the proposed content of waiting edits, so the person can compare them in VS Code's own diff
 * editor and edit the proposed side there. Saving one keeps the text here, in memory, and never writes the real file:
 * only an Allow through the gate writes anything. URIs: toolgate-proposed:/<callId>/<file name> (the proposal) and
 * toolgate-proposed:/<callId>/.empty/<file name> (the empty original of a new file).
 */
export class ProposedContentProvider implements vscode.FileSystemProvider {
  static readonly scheme = 'toolgate-proposed';
  private readonly onDidChangeFileEmitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.onDidChangeFileEmitter.event;
  /** The proposed side as the person saved it, by call id (in memory only). */
  private readonly saved = new Map<string, { text: string; mtime: number }>();
  private readonly started = Date.now();

  constructor(private readonly proposal: (callId: string) => Proposal | undefined) {}

  /** The call a URI of this scheme belongs to, and whether it is the proposed side. */
  static parse(uri: vscode.Uri): { callId: string; side: 'proposed' | 'original' } | undefined {
    if (uri.scheme !== ProposedContentProvider.scheme) {
      return undefined;
    }
    const [, callId, second, third] = uri.path.split('/');
    if (callId === undefined || callId === '' || second === undefined) {
      return undefined;
    }
    return { callId, side: second === '.empty' && third !== undefined ? 'original' : 'proposed' };
  }

  /** The proposed side's URI for a waiting call, if it has a proposal. */
  proposedUri(callId: string): vscode.Uri | undefined {
    const proposal = this.proposal(callId);
    if (!proposal) {
      return undefined;
    }
    const base = vscode.Uri.file(proposal.target.absolute).path.split('/').pop() ?? 'file';
    return vscode.Uri.from({ scheme: ProposedContentProvider.scheme, path: `/${callId}/${base}` });
  }

  private text(uri: vscode.Uri): string | undefined {
    const parsed = ProposedContentProvider.parse(uri);
    const proposal = parsed && this.proposal(parsed.callId);
    if (!parsed || !proposal) {
      return undefined;
    }
    return parsed.side === 'original' ? '' : (this.saved.get(parsed.callId)?.text ?? proposal.newText);
  }

  /**
   * What the person made of the proposed side: the edited text if they changed it (an open document's unsaved text
   * is saved here first, in memory), else undefined. Saving never writes the real file.
   */
  async editedText(callId: string): Promise<string | undefined> {
    const proposal = this.proposal(callId);
    const uri = this.proposedUri(callId);
    if (!proposal || !uri) {
      return undefined;
    }
    // Saved whether or not this side knows it is dirty: the editor may have a keystroke this host has not heard of yet.
    const document = vscode.workspace.textDocuments.find((candidate) => candidate.uri.toString() === uri.toString());
    if (document && !document.isClosed) {
      await document.save();
    }
    const saved = this.saved.get(callId)?.text;
    return saved !== undefined && saved !== proposal.newText ? saved : undefined;
  }

  /** Whether the proposed side was saved with other text than proposed. */
  isEdited(callId: string): boolean {
    const saved = this.saved.get(callId)?.text;
    return saved !== undefined && saved !== this.proposal(callId)?.newText;
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const text = this.text(uri);
    const parsed = ProposedContentProvider.parse(uri);
    if (text === undefined || !parsed) {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    const mtime = (parsed.side === 'proposed' ? this.saved.get(parsed.callId)?.mtime : undefined) ?? this.started;
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

  /** Saving the proposed side keeps its text here for an Allow; the real file is never touched. */
  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    const parsed = ProposedContentProvider.parse(uri);
    if (!parsed || parsed.side !== 'proposed') {
      throw vscode.FileSystemError.NoPermissions(uri);
    }
    if (!this.proposal(parsed.callId)) {
      // Decided meanwhile (its tab is closing): nothing to keep.
      return;
    }
    const previous = this.saved.get(parsed.callId)?.mtime ?? this.started;
    const text = await vscode.workspace.decode(content, { uri });
    this.saved.set(parsed.callId, { text, mtime: Math.max(Date.now(), previous + 1) });
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
   * Closes the diff tabs of calls that no longer wait (decided, timed out or cancelled): a stale proposal never
   * lingers. An edited, unsaved proposed side is kept in memory first, so closing asks nothing.
   */
  async closeDecided(isWaiting: (callId: string) => boolean): Promise<void> {
    const stale = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => {
        const input = tab.input;
        if (!(input instanceof vscode.TabInputTextDiff)) {
          return false;
        }
        const parsed = ProposedContentProvider.parse(input.modified);
        return parsed !== undefined && !isWaiting(parsed.callId);
      });
    for (const callId of [...this.saved.keys()]) {
      if (!isWaiting(callId)) {
        this.saved.delete(callId);
      }
    }
    if (stale.length === 0) {
      return;
    }
    const uris = new Set(stale.map((tab) => (tab.input as vscode.TabInputTextDiff).modified.toString()));
    await Promise.all(
      vscode.workspace.textDocuments.filter((document) => document.isDirty && uris.has(document.uri.toString())).map((document) => document.save()),
    );
    await vscode.window.tabGroups.close(stale, true);
  }

  /** Opens the native diff: the file as it is now (or an empty document for a new file) against the proposal. */
  async openDiff(callId: string): Promise<void> {
    const proposal = this.proposal(callId);
    const right = this.proposedUri(callId);
    if (!proposal || !right) {
      throw new Error('that call is no longer waiting');
    }
    const name = proposal.target.relative ?? proposal.target.input;
    const file = vscode.Uri.file(proposal.target.absolute);
    const left = proposal.base.exists
      ? file
      : vscode.Uri.from({ scheme: ProposedContentProvider.scheme, path: `/${callId}/.empty/${right.path.split('/').pop() ?? 'file'}` });
    await vscode.commands.executeCommand('vscode.diff', left, right, `${name} ↔ proposed by the agent`, {
      preview: true,
    });
  }

  dispose(): void {
    this.onDidChangeFileEmitter.dispose();
    this.saved.clear();
  }
}
