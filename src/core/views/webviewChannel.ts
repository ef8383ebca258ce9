import { DisposableStore, Emitter, type Disposable } from '../disposable';
import type { HostToWebview, InboundFor, ViewKind, ViewState } from '../../shared/messages';
import { messageSchemas } from '../protocolSchemas';
import { PatchWriter } from '../../shared/statePatch';
import type { LogPort } from '../logPort';

/** One webview as the channel talks to it (VS Code's `Webview`). */
export interface WebviewPort {
  onDidReceiveMessage(listener: (message: unknown) => void): Disposable;
  postMessage(message: unknown): PromiseLike<boolean>;
}


/** What the channel hands its owner: every request but the two it answers itself. */
type Received<V extends ViewKind> = Exclude<InboundFor<V>, { type: 'ready' | 'dropped' }>;

/**
 * The typed, validated pipe between the host and one webview.
 * - Nothing is posted before the webview says `ready`; the answer to `ready` is `init` with the whole state.
 * - Every inbound message is parsed from `unknown`; one that does not fit the contract is dropped with a log line.
 * - Every outbound message is checked against the contract too, so a host bug cannot send the webview garbage.
 */
export class WebviewChannel<V extends ViewKind = ViewKind> implements Disposable {
  private ready = false;
  /** What the webview holds, so that each push sends only what changed. */
  private readonly patches = new PatchWriter();
  /** A push waits for the end of this turn of the event loop: a burst of changes (200 calls arriving) is one post. */
  private pushTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly store = new DisposableStore();
  private readonly onDidReceiveEmitter = this.store.add(new Emitter<Received<V>>());
  /** A validated message other than `ready` and `dropped` (which the channel handles), for the owner to handle. */
  readonly onDidReceive = this.onDidReceiveEmitter.event;
  private readonly onDidInitEmitter = this.store.add(new Emitter<void>());
  /** The webview has been sent the whole state (`init`): on its first `ready`, and on each it sends to catch up. */
  readonly onDidInit = this.onDidInitEmitter.event;

  constructor(
    private readonly webview: WebviewPort,
    readonly view: V,
    private readonly getState: () => ViewState,
    private readonly log: LogPort,
  ) {
    this.store.add(webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)));
  }

  get isReady(): boolean {
    return this.ready;
  }

  private receive(raw: unknown): void {
    const { describeDrop, describeIssues, inboundTypes, WebviewToHost: inbound } = messageSchemas();
    const parsed = inbound.safeParse(raw);
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
    if (message.type === 'dropped') {
      // The webview refused messages that other frames posted into it as if from the host: said where the log is read.
      this.log.warn(`[${this.view}] ${describeDrop(message.reason, message.count)}`);
      return;
    }
    if (message.type === 'ready') {
      if (message.view !== this.view) {
        this.log.warn(`[${this.view}] dropped a ready message for the wrong view '${message.view}'`);
        return;
      }
      this.ready = true;
      this.log.info(`[${this.view}] webview ready (request ${message.requestId})`);
      // Also the webview's way to ask for the whole state again, when a patch did not follow what it held.
      const state = this.getState();
      this.post({ type: 'init', requestId: message.requestId, state, sentAt: Date.now(), version: this.patches.full(state) });
      this.onDidInitEmitter.fire();
      return;
    }
    if (!this.ready) {
      this.log.warn(`[${this.view}] dropped '${message.type}' received before ready`);
      return;
    }
    this.log.info(`[${this.view}] received '${message.type}' (request ${message.requestId})`);
    this.onDidReceiveEmitter.fire(message as Received<V>);
  }

  /**
   * Pushes the current state as a patch of what the webview holds, if the webview is listening (otherwise it gets it
   * with `init` when it says ready): once this turn of the event loop is over, so a burst of changes is one post, or
   * `now`, for an owner that has batched the burst already and wants the patch sent before its other work.
   */
  pushState(now = false): void {
    if (!this.ready) {
      return;
    }
    if (now) {
      clearTimeout(this.pushTimer);
      this.pushTimer = undefined;
      this.postPatch();
      return;
    }
    this.pushTimer ??= setTimeout(() => {
      this.pushTimer = undefined;
      this.postPatch();
    }, 0);
  }

  private postPatch(): void {
    if (this.ready) {
      const sentAt = Date.now();
      this.post({ type: 'patch', sentAt, ...this.patches.patch(this.getState()) }, sentAt);
    }
  }

  /** `builtAt`: a patch's `sentAt`, from which the time spent building and checking it is told to the webview. */
  post(message: HostToWebview, builtAt?: number): void {
    const { describeIssues, HostToWebview: outbound } = messageSchemas();
    const checked = outbound.safeParse(message);
    if (!checked.success) {
      this.log.error(`[${this.view}] refused to post an invalid message: ${describeIssues(checked.error)}`);
      return;
    }
    const data = checked.data.type === 'patch' && builtAt !== undefined ? { ...checked.data, builtMs: Date.now() - builtAt } : checked.data;
    void this.webview.postMessage(data).then(undefined, (error: unknown) => {
      this.log.warn(`[${this.view}] post failed: ${String(error)}`);
    });
  }

  dispose(): void {
    this.ready = false;
    clearTimeout(this.pushTimer);
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
