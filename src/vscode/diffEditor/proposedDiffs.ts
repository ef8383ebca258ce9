/**
 * VS Code's own diff editor for waiting calls, wired to the gate: the proposed sides (an in-memory file system whose
 * edits are the calls' held edits), Accept / Reject over each hunk, the title-bar actions' context, and diff tabs that
 * close once their call is decided.
 */
import * as vscode from 'vscode';
import type { Gate } from '../../core/approval/gate';
import type { DisposableStore } from '../../core/disposable';
import { DiffEditorEdits } from '../../core/views/diffEditorEdits';
import type { ToolService } from '../../core/tools/service';
import type { PendingCallView } from '../../shared/approvals';
import { HunkLenses, HunkMarks } from './hunkMarks';
import type { Log } from '../log';
import { ProposedContentProvider } from './proposedContent';

export interface ProposedDiffsDeps {
  gate: Gate;
  tools: Pick<ToolService, 'proposal'>;
  log: Log;
}

/** The proposed sides' provider, registered with everything that follows the gate; disposed with `store`. */
export function createProposedDiffs(store: DisposableStore, { gate, tools, log }: ProposedDiffsDeps): ProposedContentProvider {
  const edits = store.add(new DiffEditorEdits(gate, log, (warning) => {
    void vscode.window.showWarningMessage(warning, 'Open Approvals').then((picked) => picked === undefined ? undefined : vscode.commands.executeCommand('toolgate.openApprovals'));
  }));
  const proposed = store.add(new ProposedContentProvider((callId) => tools.proposal(callId), edits));
  store.add(proposed.trackTyping());
  store.add(gate.onDidChange(() => proposed.followHeldEdits()));
  // In memory: saving the proposed side keeps it for an Allow and never writes the real file.
  store.add(vscode.workspace.registerFileSystemProvider(ProposedContentProvider.scheme, proposed, { isCaseSensitive: true }));
  // Accept / Reject over each hunk of a waiting call's proposed side: the same live choices as the panel and the chat.
  // CodeLens is off in diff editors unless `diffEditor.codeLens` is on: each hunk also gets a mark with the choice.
  store.add(vscode.languages.registerCodeLensProvider({ scheme: ProposedContentProvider.scheme }, store.add(new HunkLenses({ gate, proposed }))));
  store.add(new HunkMarks({ gate, proposed }));
  return proposed;
}

/** The diff tabs of waiting calls: the title-bar actions' context, and the tabs of decided calls closed. */
export class DiffTabs {
  private readonly uris = new Map<string, string>();
  private sent: string | undefined;

  constructor(
    private readonly proposed: ProposedContentProvider,
    private readonly log: Log,
  ) {}

  /** After the waiting calls changed (`waiting`: every one of them). */
  update(waiting: readonly PendingCallView[]): void {
    const waitingIds = new Set(waiting.map((call) => call.callId));
    void closeDecided((callId) => waitingIds.has(callId)).catch((error: unknown) => this.log.warn(`could not close a decided diff: ${String(error)}`));
    // The diff editor's title-bar actions show only on a waiting call's proposed side. Each call's URI is made once
    // and the context is set only when the list changed: 500 URIs made and sent on every refresh cost 50 ms each time.
    for (const callId of this.uris.keys()) {
      if (!waitingIds.has(callId)) {
        this.uris.delete(callId);
      }
    }
    const waitingDiffs = [...waitingIds].flatMap((callId) => {
      const known = this.uris.get(callId) ?? this.proposed.proposedUri(callId)?.toString();
      if (known !== undefined) {
        this.uris.set(callId, known);
      }
      return known ?? [];
    });
    if (waitingDiffs.join('\n') !== this.sent) {
      this.sent = waitingDiffs.join('\n');
      void vscode.commands.executeCommand('setContext', 'toolgate.waitingDiffs', waitingDiffs);
    }
  }
}

/**
 * Closes the diff tabs of calls that no longer wait (decided, timed out or cancelled): a stale proposal never
 * lingers. An edited, unsaved proposed side is kept in memory first, so closing asks nothing.
 */
async function closeDecided(isWaiting: (callId: string) => boolean): Promise<void> {
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
  if (stale.length === 0) {
    return;
  }
  const uris = new Set(stale.map((tab) => (tab.input as vscode.TabInputTextDiff).modified.toString()));
  await Promise.all(
    vscode.workspace.textDocuments.filter((document) => document.isDirty && uris.has(document.uri.toString())).map((document) => document.save()),
  );
  await vscode.window.tabGroups.close(stale, true);
}
