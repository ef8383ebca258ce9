/**
 * The hunks of a waiting call's proposed side in VS Code's diff editor, with their host-held choices: a CodeLens over
 * each (Accept hunk, Reject hunk) and a mark at the end of its first changed line that shows whether or not CodeLens
 * is on in diff editors. What they say and where is src/core/views/hunkMarks.ts; both run the commands of
 * diffActions.ts, which change the same live state as the panel's.
 */
import * as vscode from 'vscode';
import type { Disposable } from '../../core/disposable';
import { hunkCommands, hunkMarks } from '../../core/views/hunkMarks';
import type { DiffActionDeps } from './diffActions';
import { ProposedContentProvider } from './proposedContent';

/**
 * A CodeLens over each hunk of a waiting call's proposed side: its current (host-held) choice, Accept hunk and Reject
 * hunk. None once the proposed side was edited: Allow then writes the edited text as a whole.
 */
export class HunkLenses implements vscode.CodeLensProvider, Disposable {
  private readonly onDidChangeEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.onDidChangeEmitter.event;
  private readonly subscription: Disposable;

  constructor(private readonly deps: DiffActionDeps) {
    // Only while a proposed side is open: each event is a message to the workbench, sent with every change of the gate,
    // ahead of the views' own (and so delaying their cards) when nothing could show a lens.
    this.subscription = deps.gate.onDidChange(() => {
      if (vscode.workspace.textDocuments.some((document) => document.uri.scheme === ProposedContentProvider.scheme)) {
        this.onDidChangeEmitter.fire();
      }
    });
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const parsed = ProposedContentProvider.parse(document.uri);
    const edited = document.isDirty || (parsed !== undefined && this.deps.proposed.isEdited(parsed.callId));
    return hunkMarks(this.deps.gate, parsed, document.lineCount, edited).flatMap((mark) => {
      const range = new vscode.Range(mark.line, 0, mark.line, 0);
      const args = [mark.callId, mark.index];
      return [
        new vscode.CodeLens(range, { title: mark.choice, command: '' }),
        new vscode.CodeLens(range, { ...mark.accept, command: hunkCommands[0], arguments: args }),
        new vscode.CodeLens(range, { ...mark.reject, command: hunkCommands[1], arguments: args }),
      ];
    });
  }

  dispose(): void {
    this.subscription.dispose();
    this.onDidChangeEmitter.dispose();
  }
}

/**
 * A mark at the end of each hunk's first changed line on a waiting call's proposed side, with the hunk's host-held
 * choice, and Accept / Reject links in its hover: shown whether or not CodeLens is on in diff editors (off by default).
 */
export class HunkMarks implements Disposable {
  private readonly store: Disposable[] = [];
  private readonly type = vscode.window.createTextEditorDecorationType({
    after: { margin: '0 0 0 3em', color: new vscode.ThemeColor('editorCodeLens.foreground'), fontStyle: 'italic' },
  });

  constructor(private readonly deps: DiffActionDeps) {
    this.store.push(
      this.type,
      deps.gate.onDidChange(() => this.update()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.update()),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (ProposedContentProvider.parse(event.document.uri)) {
          this.update();
        }
      }),
    );
    this.update();
  }

  update(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const document = editor.document;
      const parsed = ProposedContentProvider.parse(document.uri);
      if (parsed?.side !== 'proposed') {
        continue;
      }
      const edited = document.isDirty || this.deps.proposed.isEdited(parsed.callId);
      editor.setDecorations(
        this.type,
        hunkMarks(this.deps.gate, parsed, document.lineCount, edited).map((mark) => {
          const hover = new vscode.MarkdownString(mark.hover);
          hover.isTrusted = { enabledCommands: [...hunkCommands] };
          return { range: document.lineAt(mark.line).range, hoverMessage: hover, renderOptions: { after: { contentText: mark.choice } } };
        }),
      );
    }
  }

  dispose(): void {
    for (const disposable of this.store.splice(0)) {
      disposable.dispose();
    }
  }
}
