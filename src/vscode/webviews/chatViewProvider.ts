import * as vscode from 'vscode';
import { DisposableStore } from '../../core/disposable';
import type { ChatState } from '../../shared/messages';
import { answerWebviewRequests } from './hostCommands';
import type { ChatRequest, Outcome } from '../../core/views/viewRequests';
import type { Log } from '../log';
import { WebviewChannel } from '../../core/views/webviewChannel';
import { renderWebviewHtml, webviewOptions } from './webviewHtml';

/** The sidebar chat view (a WebviewView in the Toolgate view container). */
export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewType = 'toolgate.chat';
  private viewStore: DisposableStore | undefined;
  private channel: WebviewChannel<'chat'> | undefined;
  private pushTimer: ReturnType<typeof setTimeout> | undefined;
  private view: vscode.WebviewView | undefined;
  private badge: vscode.ViewBadge | undefined;
  /** A field asked for before the view could take it (not shown yet, or still loading its page). */
  private pendingFocus: 'prompt' | 'model-setup' | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Log,
    private readonly getState: () => ChatState,
    private readonly handle: (message: ChatRequest) => Outcome | Promise<Outcome>,
    /** What a push waits for first: the stored chat caught up with what the view is about to show (ChatBook.whenSaved). */
    private readonly beforePush: () => Promise<void> = () => Promise.resolve(),
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    // One store per resolved view, replaced (and disposed) when VS Code resolves the view again: none is left behind.
    this.viewStore?.dispose();
    const viewStore = (this.viewStore = new DisposableStore());
    this.view = view;
    view.badge = this.badge;
    view.webview.options = webviewOptions(this.extensionUri);
    const channel = viewStore.add(new WebviewChannel(view.webview, 'chat', this.getState, this.log));
    this.channel = channel;
    viewStore.add(answerWebviewRequests(channel, this.log, this.handle));
    viewStore.add(channel.onDidInit(() => this.pendingFocus !== undefined && this.focusField(this.pendingFocus)));
    viewStore.add(
      view.onDidDispose(() => {
        if (this.channel === channel) {
          this.channel = undefined;
          this.view = undefined;
        }
        viewStore.dispose();
      }),
    );
    view.webview.html = renderWebviewHtml(view.webview, this.extensionUri, 'chat');
  }

  /** Re-sends the state after anything it shows has changed; bursts (streaming tokens) are coalesced. */
  refresh(): void {
    if (this.pushTimer !== undefined) {
      return;
    }
    this.pushTimer = setTimeout(() => {
      void this.beforePush().then(() => {
        this.pushTimer = undefined;
        this.channel?.pushState();
      });
    }, 30);
  }

  /** The badge on the view (and so on the Toolgate activity-bar icon); kept for a view resolved later. */
  setBadge(badge: vscode.ViewBadge | undefined): void {
    this.badge = badge;
    if (this.view) {
      this.view.badge = badge;
    }
  }

  /** Shows the chat view with the focus. */
  reveal(): void {
    void vscode.commands.executeCommand('toolgate.chat.focus');
  }

  /** Whether the chat view is on screen. */
  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  /** Brings a waiting call's card into view with the focus; false when the view is not ready. */
  focusCall(callId: string): boolean {
    if (!this.channel?.isReady) {
      return false;
    }
    this.channel.post({ type: 'focusCard', callId });
    return true;
  }

  /** Says `text` to a screen reader in the view's live region. */
  announce(text: string): void {
    if (this.channel?.isReady === true) {
      this.channel.post({ type: 'announce', text });
    }
  }

  /** Puts the cursor in the prompt, or opens the model setup with the focus in it: now, or once the view is ready. */
  focusField(field: 'prompt' | 'model-setup'): void {
    this.pendingFocus = this.channel?.isReady === true ? undefined : field;
    if (this.pendingFocus === undefined) {
      this.channel?.post({ type: 'focus', field });
    }
  }

  dispose(): void {
    if (this.pushTimer !== undefined) {
      clearTimeout(this.pushTimer);
    }
    this.channel = undefined;
    this.viewStore?.dispose();
  }
}
