/**
 * Decisions from VS Code's own diff editor, for the waiting call whose proposal it shows: Allow, Deny (with an
 * optional reason) and Edit in its title bar, and Accept / Reject hunk (from the CodeLens and marks of hunkMarks.ts,
 * the context menu or the palette). Each is translated into the gate's own calls (`settle`, `chooseHunk`), with the id and hash of the call shown:
 * the hunk choices and the edit are the same live state as the panel's and the chat's. Allowing with the proposed side
 * edited (here or elsewhere, and shown here) allows the edited text, and the model is told.
 */
import * as vscode from 'vscode';
import type { Gate } from '../../core/approval/gate';
import { hunkAnchorLine, hunkAtLine } from '../../core/review/hunkChoices';
import type { PendingCallView } from '../../shared/approvals';
import type { DiffCommandId } from '../../core/commandIds';
import { ProposedContentProvider } from './proposedContent';
import { pendingViews, type GateState } from '../../core/views/pendingCall';

/** What a diff editor action did: the call it settled or changed, or why nothing. */
export type DiffActionResult = { done: true; callId: string; edited?: boolean } | { done: false; why: string };

export interface DiffActionDeps {
  gate: GateState & Pick<Gate, 'settle' | 'chooseHunk' | 'onDidChange' | 'heldEdit'>;
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
  return pendingViews(gate).find((call) => call.callId === callId) ?? `call ${callId} is no longer waiting`;
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
      // What this editor shows is the call's edit (typed here, or made on another surface and shown here): allowed as
      // shown, by the revision this side now holds.
      await proposed.flush(call.callId);
      const held = gate.heldEdit(call.callId);
      const outcome = gate.settle(call, { action: 'allow-once', editRevision: held?.revision ?? 0 });
      return outcome.ok ? { done: true, callId: call.callId, edited: held?.text !== undefined } : refused(outcome.error);
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
      // The cursor goes on the first change before the focus moves there, so typing can start once it has.
      const editor = vscode.window.visibleTextEditors.find((candidate) => candidate.document.uri.toString() === uri.toString());
      const firstHunk = call.preview.kind === 'diff' ? call.preview.hunks[0] : undefined;
      if (editor && firstHunk) {
        const position = new vscode.Position(hunkAnchorLine(firstHunk.rows), 0);
        editor.selection = new vscode.Selection(position, position);
        editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
      await vscode.commands.executeCommand('workbench.action.compareEditor.focusPrimarySide');
      return { done: true, callId: call.callId };
    },
    'toolgate.diff.acceptHunk': (callId?: unknown, index?: unknown): DiffActionResult => {
      const target = hunkTarget(gate, callId, index);
      return typeof target === 'string' ? refused(target) : chooseHunk(gate, target, true, '');
    },
    'toolgate.diff.rejectHunk': async (callId?: unknown, index?: unknown, reasonArg?: unknown): Promise<DiffActionResult> => {
      const target = hunkTarget(gate, callId, index);
      if (typeof target === 'string') {
        return refused(target);
      }
      let reason = typeof reasonArg === 'string' ? reasonArg : undefined;
      if (reason === undefined) {
        reason = await vscode.window.showInputBox({
          title: `Toolgate: reject hunk ${target.index + 1} of ${targetOf(target.call)}`,
          prompt: 'Why not this hunk? (optional, sent to the model). Escape leaves it as it is.',
          value: target.call.hunkChoices?.[target.index]?.reason ?? '',
          ignoreFocusOut: true,
        });
        if (reason === undefined) {
          return { done: false, why: 'the reject was cancelled' };
        }
      }
      return chooseHunk(gate, target, false, reason);
    },
  };
}

/**
 * The hunk a command is about: the call and index it was given (from a CodeLens or a hover link), else the hunk under
 * the cursor of the active proposed side (from the context menu or the palette).
 */
function hunkTarget(gate: DiffActionDeps['gate'], callId: unknown, index: unknown): { call: PendingCallView; index: number } | string {
  if (typeof callId === 'string' && typeof index === 'number') {
    const call = pendingViews(gate).find((candidate) => candidate.callId === callId);
    return call ? { call, index } : `call ${callId} is no longer waiting`;
  }
  const editor = vscode.window.activeTextEditor;
  const parsed = editor ? ProposedContentProvider.parse(editor.document.uri) : undefined;
  if (!editor || parsed?.side !== 'proposed') {
    return "put the cursor in a waiting call's proposed side first";
  }
  const call = pendingViews(gate).find((candidate) => candidate.callId === parsed.callId);
  if (!call || call.preview.kind !== 'diff') {
    return `call ${parsed.callId} is no longer waiting`;
  }
  const at = hunkAtLine(call.preview.hunks, editor.selection.active.line);
  return at === undefined ? 'this diff has no hunks' : { call, index: at };
}

function chooseHunk(gate: DiffActionDeps['gate'], target: { call: PendingCallView; index: number }, accepted: boolean, reason: string): DiffActionResult {
  const outcome = gate.chooseHunk(target.call, target.index, accepted, accepted ? undefined : reason.trim());
  return outcome.ok ? { done: true, callId: target.call.callId } : refused(outcome.error);
}
