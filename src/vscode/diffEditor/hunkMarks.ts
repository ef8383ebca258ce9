/**
 * The hunks of a waiting call's proposed side in VS Code's diff editor, with their host-held choices: a CodeLens over
 * each (Accept hunk, Reject hunk) and a mark at the end of its first changed line that shows whether or not CodeLens
 * is on in diff editors. Both run the commands of diffActions.ts, which change the same live state as the panel's.
 */
import { pendingViews } from '../../core/views/pendingCall';
import * as vscode from 'vscode';
import type { Disposable } from '../../core/disposable';
import { hunkAnchorLine } from '../../core/review/hunkChoices';
import type { PendingCallView } from '../../shared/approvals';
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
    const call = parsed?.side === 'proposed' ? pendingViews(this.deps.gate).find((candidate) => candidate.callId === parsed.callId) : undefined;
    if (!call || call.preview.kind !== 'diff' || call.hunkChoices === undefined || document.isDirty || this.deps.proposed.isEdited(call.callId)) {
      return [];
    }
    const count = call.preview.hunks.length;
    return call.preview.hunks.flatMap((hunk, index) => {
      const accepted = call.hunkChoices?.[index]?.accepted ?? true;
      const line = Math.min(hunkAnchorLine(hunk.rows), Math.max(document.lineCount - 1, 0));
      const range = new vscode.Range(line, 0, line, 0);
      return [
        new vscode.CodeLens(range, { title: choiceText(call, index), command: '' }),
        new vscode.CodeLens(range, {
          title: `${accepted ? '$(check) ' : ''}Accept hunk`,
          tooltip: `Accept hunk ${index + 1} of ${count}`,
          command: 'toolgate.diff.acceptHunk',
          arguments: [call.callId, index],
        }),
        new vscode.CodeLens(range, {
          title: `${accepted ? '' : '$(close) '}Reject hunk`,
          tooltip: `Reject hunk ${index + 1} of ${count} (asks an optional reason)`,
          command: 'toolgate.diff.rejectHunk',
          arguments: [call.callId, index],
        }),
      ];
    });
  }

  dispose(): void {
    this.subscription.dispose();
    this.onDidChangeEmitter.dispose();
  }
}

/** What a hunk's mark and lens say of its host-held choice. */
function choiceText(call: PendingCallView, index: number): string {
  const count = call.preview.kind === 'diff' ? call.preview.hunks.length : 0;
  const choice = call.hunkChoices?.[index];
  const reason = choice && !choice.accepted && choice.reason.trim() !== '' ? ` (${choice.reason.trim()})` : '';
  return `Hunk ${index + 1} of ${count}: ${choice?.accepted === false ? `rejected${reason}` : 'accepted'}`;
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
      const parsed = ProposedContentProvider.parse(editor.document.uri);
      if (parsed?.side !== 'proposed') {
        continue;
      }
      const call = pendingViews(this.deps.gate).find((candidate) => candidate.callId === parsed.callId);
      const edited = editor.document.isDirty || this.deps.proposed.isEdited(parsed.callId);
      if (!call || call.preview.kind !== 'diff' || call.hunkChoices === undefined || edited) {
        editor.setDecorations(this.type, []);
        continue;
      }
      const document = editor.document;
      editor.setDecorations(
        this.type,
        call.preview.hunks.map((hunk, index) => {
          const line = document.lineAt(Math.min(hunkAnchorLine(hunk.rows), Math.max(document.lineCount - 1, 0)));
          const args = encodeURIComponent(JSON.stringify([call.callId, index]));
          const hover = new vscode.MarkdownString(
            `${choiceText(call, index)}. [Accept hunk](command:toolgate.diff.acceptHunk?${args}) · [Reject hunk](command:toolgate.diff.rejectHunk?${args})`,
          );
          hover.isTrusted = { enabledCommands: ['toolgate.diff.acceptHunk', 'toolgate.diff.rejectHunk'] };
          return { range: line.range, hoverMessage: hover, renderOptions: { after: { contentText: choiceText(call, index) } } };
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
