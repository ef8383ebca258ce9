/**
 * The diff editor's decisions (src/core/views/diffDecisions.ts) as VS Code commands: which waiting call an editor
 * shows, where its cursor is, its input boxes and warnings, and the cursor put on the first change for Edit.
 */
import * as vscode from 'vscode';
import type { Gate } from '../../core/approval/gate';
import type { DiffCommandId } from '../../core/commandIds';
import { DiffDecisions, type DiffGate, type DiffPrompts, type ProposedCursor } from '../../core/views/diffDecisions';
import { ProposedContentProvider } from './proposedContent';

export interface DiffActionDeps {
  gate: DiffGate & Pick<Gate, 'onDidChange'>;
  proposed: ProposedContentProvider;
}

const prompts: DiffPrompts = {
  askReason: (title, prompt, value) => vscode.window.showInputBox({ title, prompt, ignoreFocusOut: true, ...(value !== undefined ? { value } : {}) }),
  warn: (text) => void vscode.window.showWarningMessage(text),
};

/** The call whose proposal a command is about: its URI argument (from the title bar), else the active diff editor. */
function callOf(arg: unknown): string | undefined {
  if (arg instanceof vscode.Uri) {
    return ProposedContentProvider.parse(arg)?.callId;
  }
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputTextDiff) {
    return ProposedContentProvider.parse(input.modified)?.callId;
  }
  const document = vscode.window.activeTextEditor?.document;
  return document ? ProposedContentProvider.parse(document.uri)?.callId : undefined;
}

/** The proposed side the active editor's cursor is in (the hunk under it, for the context menu and the palette). */
function cursor(): ProposedCursor | undefined {
  const editor = vscode.window.activeTextEditor;
  const parsed = editor ? ProposedContentProvider.parse(editor.document.uri) : undefined;
  return editor && parsed ? { ...parsed, line: editor.selection.active.line } : undefined;
}

export function createDiffCommands({ gate, proposed }: DiffActionDeps): Record<DiffCommandId, (...args: unknown[]) => unknown> {
  const decisions = new DiffDecisions(gate, prompts);
  return {
    'toolgate.diff.allow': (arg?: unknown) => decisions.allow(callOf(arg), (callId) => proposed.flush(callId)),
    'toolgate.diff.deny': (arg?: unknown, reasonArg?: unknown) => decisions.deny(callOf(arg), reasonArg),
    'toolgate.diff.edit': async (arg?: unknown) => {
      const target = decisions.editable(callOf(arg), (callId) => proposed.proposedUri(callId));
      if (!('uri' in target)) {
        return target;
      }
      if (callOf(undefined) !== target.callId) {
        await proposed.openDiff(target.callId);
      }
      // The cursor goes on the first change before the focus moves there, so typing can start once it has.
      const editor = vscode.window.visibleTextEditors.find((candidate) => candidate.document.uri.toString() === target.uri.toString());
      if (editor && target.line !== undefined) {
        const position = new vscode.Position(target.line, 0);
        editor.selection = new vscode.Selection(position, position);
        editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
      await vscode.commands.executeCommand('workbench.action.compareEditor.focusPrimarySide');
      return { done: true, callId: target.callId };
    },
    'toolgate.diff.acceptHunk': (callId?: unknown, index?: unknown) => decisions.acceptHunk(callId, index, cursor()),
    'toolgate.diff.rejectHunk': (callId?: unknown, index?: unknown, reasonArg?: unknown) => decisions.rejectHunk(callId, index, reasonArg, cursor()),
  };
}
