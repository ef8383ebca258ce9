/**
 * The suggestions panel (Toolgate: Show Suggested Rules): a webview of what src/core/suggestions/
 * suggestionsPanelState.ts computes from the audit log, whose Accept applies one suggestion there.
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../../core/disposable';
import { SuggestionsPanelState, type SuggestionsDeps } from '../../core/suggestions/suggestionsPanelState';
import { WebviewChannel } from '../../core/views/webviewChannel';
import type { Log } from '../log';
import { answerWebviewRequests } from './hostCommands';
import { renderWebviewHtml, webviewOptions } from './webviewHtml';

export class SuggestionsPanel implements vscode.Disposable {
  static readonly viewType = 'toolgate.suggestions';
  /** The open panel, its channel and the store that owns both (disposed when the panel closes). */
  private open: { panel: vscode.WebviewPanel; channel: WebviewChannel<'suggestions'>; store: DisposableStore } | undefined;
  private readonly suggestions: SuggestionsPanelState;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Log,
    deps: Omit<SuggestionsDeps, 'log'>,
  ) {
    this.suggestions = new SuggestionsPanelState({ ...deps, log }, () => this.open?.channel.pushState(), (text) => void vscode.window.showInformationMessage(text));
  }

  /** Opens (or reveals) the panel with suggestions computed now; resolves with how many there are. */
  async show(): Promise<number> {
    const computed = await this.suggestions.compute();
    if (this.open) {
      this.open.panel.reveal();
    } else {
      this.attach(vscode.window.createWebviewPanel(SuggestionsPanel.viewType, 'Toolgate Suggestions', vscode.ViewColumn.Active, webviewOptions(this.extensionUri)));
    }
    return computed.suggestions.length;
  }

  private attach(panel: vscode.WebviewPanel): void {
    const store = new DisposableStore();
    const channel = store.add(new WebviewChannel(panel.webview, 'suggestions', () => this.suggestions.state, this.log));
    const open = (this.open = { panel, channel, store });
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'toolgate.svg');
    store.add(answerWebviewRequests(channel, this.log, (request) => this.suggestions.accept(request.suggestionId)));
    store.add(panel.onDidDispose(() => {
      this.open = this.open === open ? undefined : this.open;
      store.dispose();
    }));
    panel.webview.html = renderWebviewHtml(panel.webview, this.extensionUri, 'suggestions');
  }

  dispose(): void {
    this.open?.panel.dispose();
    this.open?.store.dispose();
  }
}
