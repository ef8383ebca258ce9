import * as vscode from 'vscode';
import { DisposableStore } from '../../core/disposable';
import type { ApprovalsState } from '../../shared/messages';
import { answerWebviewRequests } from './hostCommands';
import type { PanelRequest, Outcome } from '../../core/views/viewRequests';
import type { Log } from '../log';
import { WebviewChannel } from '../../core/views/webviewChannel';
import { renderWebviewHtml, webviewOptions } from './webviewHtml';


/**
 * The approvals panel: a WebviewPanel in the editor area. It holds no truth: every time it (re)connects the host
 * sends the whole state again, so closing it approves nothing and reopening it shows what still waits.
 */
export class ApprovalsPanel implements vscode.Disposable {
  static readonly viewType = 'toolgate.approvals';
  private panel: vscode.WebviewPanel | undefined;
  private panelStore: DisposableStore | undefined;
  private channel: WebviewChannel<'approvals'> | undefined;
  /** Set while Toolgate itself closes the panel (the extension stops): that is not the person's closing. */
  private closing = false;
  private readonly onDidCloseEmitter = new vscode.EventEmitter<void>();
  /** The person closed the panel (its tab, or its editor group); not fired when Toolgate closes it. */
  readonly onDidClose = this.onDidCloseEmitter.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Log,
    private readonly getState: () => ApprovalsState,
    private readonly handle: (message: PanelRequest) => Promise<Outcome>,
  ) {}

  /** After a window reload VS Code hands back the panel it had open (the entry's serializer): attach to it. */
  revive(panel: vscode.WebviewPanel): void {
    this.attach(panel);
  }

  /** Whether the panel is on screen. */
  get visible(): boolean {
    return this.panel?.visible ?? false;
  }

  /** Opens the panel, or reveals it; `preserveFocus` keeps the keyboard where the person is typing. */
  show(preserveFocus = false): void {
    if (this.panel) {
      if (!this.panel.visible) {
        this.panel.reveal(undefined, preserveFocus);
      }
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      ApprovalsPanel.viewType,
      'Toolgate Approvals',
      { viewColumn: vscode.ViewColumn.Active, preserveFocus },
      { ...webviewOptions(this.extensionUri), retainContextWhenHidden: true },
    );
    this.attach(panel);
  }

  private attach(panel: vscode.WebviewPanel): void {
    // One store per attached panel, replaced (and disposed) when another is attached: none is left behind.
    this.panelStore?.dispose();
    const panelStore = (this.panelStore = new DisposableStore());
    this.panel = panel;
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'toolgate.svg');
    panel.webview.options = webviewOptions(this.extensionUri);
    const channel = panelStore.add(new WebviewChannel(panel.webview, 'approvals', this.getState, this.log));
    this.channel = channel;
    panelStore.add(answerWebviewRequests(channel, this.log, this.handle));
    panelStore.add(
      panel.onDidDispose(() => {
        if (this.panel === panel) {
          this.panel = undefined;
          this.channel = undefined;
          if (!this.closing) {
            this.onDidCloseEmitter.fire();
          }
        }
        panelStore.dispose();
      }),
    );
    panel.webview.html = renderWebviewHtml(panel.webview, this.extensionUri, 'approvals');
  }

  /** Sends the state again; `now`: in this turn of the event loop (see WebviewChannel.pushState). */
  refresh(now = false): void {
    this.channel?.pushState(now);
  }

  /** Brings a waiting call's card into view with the focus (the panel shown first). */
  focusCall(callId: string): void {
    this.show();
    this.channel?.post({ type: 'focusCard', callId });
  }

  /** Says `text` to a screen reader in the panel's live region. */
  announce(text: string): void {
    this.channel?.post({ type: 'announce', text });
  }

  dispose(): void {
    this.closing = true;
    this.panel?.dispose();
    this.panelStore?.dispose();
    this.onDidCloseEmitter.dispose();
  }
}
