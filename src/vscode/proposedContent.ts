import * as vscode from 'vscode';
import type { Proposal } from '../core/tools/fileTools';

/**
 * Read-only virtual documents with the proposed content of waiting edits, so the person can compare them in VS Code's
 * own diff editor. URIs: toolgate-proposed:/<callId>/<file name> and toolgate-proposed:/<callId>/empty.
 */
export class ProposedContentProvider implements vscode.TextDocumentContentProvider {
  static readonly scheme = 'toolgate-proposed';

  constructor(private readonly proposal: (callId: string) => Proposal | undefined) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    const [, callId, kind] = uri.path.split('/');
    const proposal = callId === undefined ? undefined : this.proposal(callId);
    if (!proposal) {
      return '(this call is no longer waiting)';
    }
    return kind === 'empty' ? '' : proposal.newText;
  }

  /** Closes the diff tabs of calls that no longer wait (decided, timed out or cancelled): a stale proposal never lingers. */
  async closeDecided(isWaiting: (callId: string) => boolean): Promise<void> {
    const stale = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => {
        const input = tab.input;
        if (!(input instanceof vscode.TabInputTextDiff) || input.modified.scheme !== ProposedContentProvider.scheme) {
          return false;
        }
        const callId = input.modified.path.split('/')[1];
        return callId !== undefined && !isWaiting(callId);
      });
    if (stale.length > 0) {
      await vscode.window.tabGroups.close(stale, true);
    }
  }

  /** Opens the native diff: the file as it is now (or an empty document for a new file) against the proposal. */
  async openDiff(callId: string): Promise<void> {
    const proposal = this.proposal(callId);
    if (!proposal) {
      throw new Error('that call is no longer waiting');
    }
    const name = proposal.target.relative ?? proposal.target.input;
    const file = vscode.Uri.file(proposal.target.absolute);
    const base = file.path.split('/').pop() ?? 'file';
    const right = vscode.Uri.from({ scheme: ProposedContentProvider.scheme, path: `/${callId}/${base}` });
    const left = proposal.base.exists
      ? file
      : vscode.Uri.from({ scheme: ProposedContentProvider.scheme, path: `/${callId}/empty` });
    await vscode.commands.executeCommand('vscode.diff', left, right, `${name} ↔ proposed by the agent`, {
      preview: true,
    });
  }
}
