/**
 * The suggestions panel (Toolgate: Show Suggested Rules): rules and grants proposed from the person's own decisions
 * in the audit log (src/core/suggestions), each with what it would and would not allow. Accepting is the only way
 * one takes effect: the host recomputes the suggestions, applies the one the message names (a key in the workspace
 * settings, or a workspace grant) and says what it did.
 */
import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import { newGrantId, type GrantStore } from '../../core/approval/grants';
import type { PathResolver } from '../../core/approval/paths';
import type { PolicyContext } from '../../core/approval/policy';
import type { AuditLog } from '../../core/audit/auditLog';
import { DisposableStore } from '../../core/disposable';
import { computeSuggestions, type ComputedSuggestions } from '../../core/suggestions/view';
import type { Suggestion } from '../../core/suggestions/proposals';
import type { SuggestionsState } from '../../shared/suggestions';
import { answerWebviewRequests } from './hostCommands';
import type { Outcome } from '../../core/views/viewRequests';
import type { Log } from '../log';
import type { Settings } from '../settings';
import { WebviewChannel } from '../../core/views/webviewChannel';
import { renderWebviewHtml, webviewOptions } from './webviewHtml';
import { addWorkspaceRule } from '../workspaceSettings';

export interface SuggestionsDeps {
  extensionUri: vscode.Uri;
  log: Log;
  audit: AuditLog;
  auditFile: string;
  settings: Settings;
  policy: () => Omit<PolicyContext, 'grants'>;
  resolver: () => PathResolver;
  shellParserReady: () => Promise<void>;
  grants: GrantStore;
  /** The current definition hash of an MCP tool the model can call (a grant is pinned to it), if it runs. */
  mcpDefinition: (tool: string) => string | undefined;
}

export class SuggestionsPanel implements vscode.Disposable {
  static readonly viewType = 'toolgate.suggestions';
  /** The open panel, its channel and the store that owns both (disposed when the panel closes). */
  private open: { panel: vscode.WebviewPanel; channel: WebviewChannel<'suggestions'>; store: DisposableStore } | undefined;
  private state: SuggestionsState;

  constructor(private readonly deps: SuggestionsDeps) {
    this.state = { view: 'suggestions', minDecisions: deps.settings.get('suggestions.minDecisions'), trusted: vscode.workspace.isTrusted, suggestions: [], groups: [] };
  }

  private async compute(done?: string): Promise<ComputedSuggestions> {
    await this.deps.audit.flush();
    await this.deps.shellParserReady();
    const text = await readFile(this.deps.auditFile, 'utf8').catch(() => '');
    const resolver = this.deps.resolver();
    const inputs = { policy: this.deps.policy(), resolver, minDecisions: this.deps.settings.get('suggestions.minDecisions') };
    const computed = computeSuggestions(text, inputs, resolver.roots[0] ?? process.cwd(), done);
    this.state = computed.state;
    this.open?.channel.pushState();
    return computed;
  }

  /** Opens (or reveals) the panel with suggestions computed now; resolves with how many there are. */
  async show(): Promise<number> {
    const computed = await this.compute();
    if (this.open) {
      this.open.panel.reveal();
    } else {
      this.attach(vscode.window.createWebviewPanel(SuggestionsPanel.viewType, 'Toolgate Suggestions', vscode.ViewColumn.Active, webviewOptions(this.deps.extensionUri)));
    }
    return computed.suggestions.length;
  }

  private attach(panel: vscode.WebviewPanel): void {
    const store = new DisposableStore();
    const channel = store.add(new WebviewChannel(panel.webview, 'suggestions', () => this.state, this.deps.log));
    const open = (this.open = { panel, channel, store });
    panel.iconPath = vscode.Uri.joinPath(this.deps.extensionUri, 'media', 'toolgate.svg');
    store.add(answerWebviewRequests(channel, this.deps.log, (request) => this.accept(request.suggestionId)));
    store.add(panel.onDidDispose(() => {
      this.open = this.open === open ? undefined : this.open;
      store.dispose();
    }));
    panel.webview.html = renderWebviewHtml(panel.webview, this.deps.extensionUri, 'suggestions');
  }

  /** The person clicked Accept: apply the suggestion that is offered now under this id, and say what was done. */
  async accept(suggestionId: string): Promise<Outcome> {
    const offered = (await this.compute()).suggestions.find((suggestion) => suggestion.id === suggestionId);
    if (offered === undefined) {
      return { ok: false, error: 'that suggestion is no longer offered (the log or the settings changed); nothing was changed' };
    }
    const applied = await this.apply(offered);
    if (!applied.ok) {
      return applied;
    }
    this.deps.log.info(`suggestion accepted by the person: ${applied.done}`);
    void vscode.window.showInformationMessage(`Toolgate: ${applied.done}`);
    await this.compute(applied.done);
    return { ok: true };
  }

  private async apply(suggestion: Suggestion): Promise<{ ok: true; done: string } | { ok: false; error: string }> {
    const proposal = suggestion.proposal;
    if (proposal.kind === 'rule') {
      const where = await addWorkspaceRule(proposal.setting, proposal.key, proposal.value);
      return { ok: true, done: `added "${proposal.key}": ${String(proposal.value)} to toolgate.${proposal.setting} in ${where}` };
    }
    const definitionHash = this.deps.mcpDefinition(proposal.tool);
    if (definitionHash === undefined) {
      return { ok: false, error: `${proposal.tool} is not offered by a running MCP server now, so no grant can be pinned to its definition` };
    }
    await this.deps.grants.add(
      { id: newGrantId(), tool: proposal.tool, matcher: { kind: 'tool' }, scope: 'workspace', createdAt: new Date().toISOString(), definitionHash },
      'suggestions',
    );
    return { ok: true, done: `granted every call of ${proposal.tool} in this workspace (until its definition changes)` };
  }

  dispose(): void {
    this.open?.panel.dispose();
    this.open?.store.dispose();
  }
}
