/**
 * A waiting call's whole arguments, opened as a read-only JSON document: the cards show long values cut (a 10,000-line
 * write_file's content is its diff there), and an editor is the place to read, search and copy a large value exactly.
 */
import * as vscode from 'vscode';
import type { Gate } from '../../core/approval/gate';
import { canonicalJson } from '../../core/approval/hash';
import type { Outcome } from '../../core/views/viewRequests';

export class ArgsDocuments implements vscode.TextDocumentContentProvider {
  static readonly scheme = 'toolgate-args';

  constructor(private readonly gate: Pick<Gate, 'waitingCalls'>) {}

  private args(callId: string): string | undefined {
    const call = this.gate.waitingCalls().find((candidate) => candidate.callId === callId);
    return call === undefined ? undefined : JSON.stringify(JSON.parse(canonicalJson(call.input.call.args)), null, 2);
  }

  /** The call's arguments, pretty-printed in full; a call decided since shows as gone rather than as something else. */
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.args(uri.path.split('/')[1] ?? '') ?? '"This call is no longer waiting: its arguments are in the audit log."\n';
  }

  async open(callId: string): Promise<Outcome> {
    const call = this.gate.waitingCalls().find((candidate) => candidate.callId === callId);
    if (call === undefined) {
      return { ok: false, error: `call ${callId} is no longer waiting` };
    }
    const uri = vscode.Uri.from({ scheme: ArgsDocuments.scheme, path: `/${callId}/${call.input.call.tool} arguments.json` });
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
    return { ok: true };
  }
}
