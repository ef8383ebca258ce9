import type * as vscode from 'vscode';
import { DisposableStore } from '../core/disposable';
import type { ChatState } from '../shared/messages';
import { answerCommands } from './commandBridge';
import type { Log } from './log';
import { WebviewChannel } from './webviewChannel';
import { renderWebviewHtml, webviewOptions } from './webviewHtml';

/** The sidebar chat view (a WebviewView in the Toolgate view container). */
export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewType = 'toolgate.chat';
  private readonly store = new DisposableStore();
  private viewStore: DisposableStore | undefined;
  private channel: WebviewChannel | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Log,
    private readonly getState: () => ChatState,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.viewStore?.dispose();
    const viewStore = (this.viewStore = this.store.add(new DisposableStore()));
    view.webview.options = webviewOptions(this.extensionUri);
    const channel = viewStore.add(new WebviewChannel(view.webview, 'chat', this.getState, this.log));
    this.channel = channel;
    viewStore.add(answerCommands(channel));
    viewStore.add(
      view.onDidDispose(() => {
        if (this.channel === channel) {
          this.channel = undefined;
        }
        viewStore.dispose();
      }),
    );
    view.webview.html = renderWebviewHtml(view.webview, this.extensionUri, 'chat');
  }

  /** Re-sends the state after anything it shows has changed. */
  refresh(): void {
    this.channel?.pushState();
  }

  dispose(): void {
    this.channel = undefined;
    this.store.dispose();
  }
}
