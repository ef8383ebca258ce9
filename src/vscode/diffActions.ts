/**
 * Decisions from VS Code's own diff editor, for the waiting call whose proposal it shows: Allow, Deny (with an
 * optional reason) and Edit in its title bar, and accepting or rejecting one hunk of it. Each is translated into the gate's own calls (`settle`, `chooseHunk`), with the id and hash of the call shown:
 * the hunk choices are the same live state as the panel's and the chat's. Allowing after the proposed side was edited
 * allows the edited text (`allow-edited`), so the model is told.
 */
import * as vscode from 'vscode';
import type { Gate } from '../core/approval/gate';
import { hunkAnchorLine } from '../core/review/hunkChoices';
import type { PendingCallView } from '../shared/approvals';
import type { DiffCommandId } from './commandIds';
import { ProposedContentProvider } from './proposedContent';

/** What a diff editor action did: the call it settled or changed, or why nothing. */
export type DiffActionResult = { done: true; callId: string; edited?: boolean } | { done: false; why: string };

export interface DiffActionDeps {
  gate: Pick<Gate, 'pendingViews' | 'settle' | 'chooseHunk' | 'onDidChange'>;
  proposed: ProposedContentProvider;
}

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

function waitingCall(gate: DiffActionDeps['gate'], arg: unknown): PendingCallView | string {
  const callId = callOf(arg);
  if (callId === undefined) {
    return 'no proposed diff is active';
  }
  return gate.pendingViews().find((call) => call.callId === callId) ?? `call ${callId} is no longer waiting`;
}

function refused(why: string): DiffActionResult {
  void vscode.window.showWarningMessage(`Toolgate: ${why}`);
  return { done: false, why };
}

function targetOf(call: PendingCallView): string {
  return call.preview.kind === 'diff' ? call.preview.path : call.tool;
}

export function createDiffCommands({ gate, proposed }: DiffActionDeps): Record<DiffCommandId, (...args: unknown[]) => unknown> {
  return {
    'toolgate.diff.allow': async (arg?: unknown): Promise<DiffActionResult> => {
      const call = waitingCall(gate, arg);
      if (typeof call === 'string') {
        return refused(call);
      }
      const edited = await proposed.editedText(call.callId);
      const outcome = gate.settle(call, edited !== undefined ? { action: 'allow-edited', edited } : { action: 'allow-once' });
      return outcome.ok ? { done: true, callId: call.callId, edited: edited !== undefined } : refused(outcome.error);
    },
    'toolgate.diff.deny': async (arg?: unknown, reasonArg?: unknown): Promise<DiffActionResult> => {
      const call = waitingCall(gate, arg);
      if (typeof call === 'string') {
        return refused(call);
      }
      const reason =
        typeof reasonArg === 'string'
          ? reasonArg
          : await vscode.window.showInputBox({
              title: `Toolgate: deny ${call.tool} ${targetOf(call)}`,
              prompt: 'Why? The reason goes back to the model (optional). Escape keeps the call waiting.',
              ignoreFocusOut: true,
            });
      if (reason === undefined) {
        return { done: false, why: 'the deny was cancelled' };
      }
      // An edited, unsaved proposed side is kept in memory, so closing its tab asks nothing.
      await proposed.editedText(call.callId);
      const trimmed = reason.trim();
      const outcome = gate.settle(call, { action: 'deny', ...(trimmed ? { reason: trimmed } : {}) });
      return outcome.ok ? { done: true, callId: call.callId } : refused(outcome.error);
    },
    'toolgate.diff.edit': async (arg?: unknown): Promise<DiffActionResult> => {
      const call = waitingCall(gate, arg);
      if (typeof call === 'string') {
        return refused(call);
      }
      const uri = proposed.proposedUri(call.callId);
      if (!uri || call.editable?.kind !== 'content') {
        return refused(`call ${call.callId} cannot be edited`);
      }
      if (callOf(undefined) !== call.callId) {
        await proposed.openDiff(call.callId);
      }
      await vscode.commands.executeCommand('workbench.action.compareEditor.focusPrimarySide');
      const editor = vscode.window.activeTextEditor;
      const firstHunk = call.preview.kind === 'diff' ? call.preview.hunks[0] : undefined;
      if (editor?.document.uri.toString() === uri.toString() && firstHunk) {
        const position = new vscode.Position(hunkAnchorLine(firstHunk.rows), 0);
        editor.selection = new vscode.Selection(position, position);
        editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
      return { done: true, callId: call.callId };
    },
    'toolgate.diff.acceptHunk': (callId?: unknown, index?: unknown): DiffActionResult => chooseHunk(gate, callId, index, true, ''),
    'toolgate.diff.rejectHunk': async (callId?: unknown, index?: unknown, reasonArg?: unknown): Promise<DiffActionResult> => {
      let reason = typeof reasonArg === 'string' ? reasonArg : undefined;
      if (reason === undefined) {
        reason = await vscode.window.showInputBox({
          title: `Toolgate: reject hunk ${typeof index === 'number' ? index + 1 : ''}`,
          prompt: 'Why not this hunk? (optional, sent to the model). Escape leaves it as it is.',
          ignoreFocusOut: true,
        });
        if (reason === undefined) {
          return { done: false, why: 'the reject was cancelled' };
        }
      }
      return chooseHunk(gate, callId, index, false, reason);
    },
  };
}

function chooseHunk(gate: DiffActionDeps['gate'], callId: unknown, index: unknown, accepted: boolean, reason: string): DiffActionResult {
  const call = typeof callId === 'string' ? gate.pendingViews().find((candidate) => candidate.callId === callId) : undefined;
  if (!call || typeof index !== 'number') {
    return refused(`call ${String(callId)} is no longer waiting`);
  }
  const outcome = gate.chooseHunk(call, index, accepted, accepted ? undefined : reason.trim());
  return outcome.ok ? { done: true, callId: call.callId } : refused(outcome.error);
}
