import type * as vscode from 'vscode';
import { DisposableStore, Emitter, type Disposable } from '../core/disposable';
import {
  HostToWebview,
  WebviewToHost,
  describeIssues,
  inboundTypes,
  type InboundFor,
  type ViewKind,
  type ViewState,
} from '../shared/messages';
import type { Log } from './log';


/**
 * The typed, validated pipe between the host and one webview.
 * - Nothing is posted before the webview says `ready`; the answer to `ready` is `init` with the whole state.
 * - Every inbound message is parsed from `unknown`; one that does not fit the contract is dropped with a log line.
 * - Every outbound message is checked against the contract too, so a host bug cannot send the webview garbage.
 */
export class WebviewChannel<V extends ViewKind = ViewKind> implements Disposable {
  private ready = false;
  private readonly store = new DisposableStore();
  private readonly onDidReceiveEmitter = this.store.add(new Emitter<Exclude<InboundFor<V>, { type: 'ready' }>>());
  /** A validated message other than `ready`, for the owner to handle. */
  readonly onDidReceive = this.onDidReceiveEmitter.event;

  constructor(
    private readonly webview: vscode.Webview,
    readonly view: V,
    private readonly getState: () => ViewState,
    private readonly log: Log,
  ) {
    this.store.add(webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)));
  }

  get isReady(): boolean {
    return this.ready;
  }

  private receive(raw: unknown): void {
    const parsed = WebviewToHost.safeParse(raw);
    if (!parsed.success) {
      this.log.warn(
        `[${this.view}] dropped a webview message that does not fit the contract: ${describeIssues(parsed.error)} ` +
          `(${summarize(raw)})`,
      );
      return;
    }
    const message = parsed.data;
    if (!(inboundTypes[this.view] as readonly string[]).includes(message.type)) {
      this.log.warn(`[${this.view}] dropped '${message.type}': this view does not send that`);
      return;
    }
    if (message.type === 'ready') {
      if (message.view !== this.view) {
        this.log.warn(`[${this.view}] dropped a ready message for the wrong view '${message.view}'`);
        return;
      }
      this.ready = true;
      this.log.info(`[${this.view}] webview ready (request ${message.requestId})`);
      this.post({ type: 'init', requestId: message.requestId, state: this.getState(), sentAt: Date.now() });
      return;
    }
    if (!this.ready) {
      this.log.warn(`[${this.view}] dropped '${message.type}' received before ready`);
      return;
    }
    this.log.info(`[${this.view}] received '${message.type}' (request ${message.requestId})`);
    this.onDidReceiveEmitter.fire(message as Exclude<InboundFor<V>, { type: 'ready' }>);
  }

  /** Pushes the current state, if the webview is listening; otherwise it gets it with `init` when it says ready. */
  pushState(): void {
    if (this.ready) {
      this.post({ type: 'state', state: this.getState(), sentAt: Date.now() });
    }
  }

  post(message: HostToWebview): void {
    const checked = HostToWebview.safeParse(message);
    if (!checked.success) {
      this.log.error(`[${this.view}] refused to post an invalid message: ${describeIssues(checked.error)}`);
      return;
    }
    void this.webview.postMessage(checked.data).then(undefined, (error: unknown) => {
      this.log.warn(`[${this.view}] post failed: ${String(error)}`);
    });
  }

  dispose(): void {
    this.ready = false;
    this.store.dispose();
  }

}

/** A bounded, single-line rendering of an untrusted value for the log. */
function summarize(raw: unknown): string {
  let text: string;
  try {
    const json = JSON.stringify(raw) as string | undefined;
    text = json ?? String(raw);
  } catch {
    text = Object.prototype.toString.call(raw);
  }
  return text.length > 200 ? `${text.slice(0, 200)}… (${text.length} chars)` : text;
}
