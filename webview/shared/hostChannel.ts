/**
 * The webview's end of the host channel (the host's end is src/core/views/webviewChannel.ts). The webview never
 * decides anything: it renders what the host sends and reports what the person did. Inbound messages are taken only
 * from VS Code's frame (foreignMessages.ts) and parsed from `unknown`; anything else is dropped.
 */
import {
  HostToWebview,
  WebviewToHost,
  describeDrop,
  type HostCommand,
  type ViewKind,
  type ViewState,
} from '../../src/shared/messages';
import { PatchReader } from '../../src/shared/statePatch';
import { DropReports, senderOf } from './foreignMessages';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

export interface HostChannel {
  /** Asks the host to run one of the commands in the contract. */
  command(command: HostCommand): void;
  /** Sends any other message of the contract (validated before it leaves); returns its request id. */
  send(message: DistributiveOmit<WebviewToHost, 'requestId'>): string;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface HostHandlers {
  /**
   * `sentAt`: when the host posted it (host clock, the same machine); `receivedAt`: when this webview's message handler
   * began, before parsing, so the time to the paint can be told apart as transport, parsing and rendering.
   */
  onState(state: ViewState, reason: 'init' | 'state', sentAt: number, receivedAt: number, builtMs?: number): void;
  onResult?(requestId: string, ok: boolean, error: string | undefined): void;
  onFocus?(field: 'prompt' | 'model-setup'): void;
  /** Bring the card of a waiting call into view, focused. */
  onFocusCall?(callId: string): void;
}

/** The host's answer to one request: done or refused, with what the request asked for (`loadDiffRows`: the rows). */
export type Answer = Extract<HostToWebview, { type: 'result' }>;

/** Callbacks waiting for the host's answer to one request, by request id (see `whenAnswered`). */
const answerWaiters = new Map<string, (answer: Answer) => void>();

/** Runs `callback` once the host has answered the request (after any state it pushed while handling it). */
export function whenAnswered(requestId: string, callback: (answer: Answer) => void): void {
  answerWaiters.set(requestId, callback);
}

/** Hands the host's answer to whoever waits for it (the message handler; a DOM test plays the host with it). */
export function takeAnswer(answer: Answer): void {
  const waiter = answerWaiters.get(answer.requestId);
  answerWaiters.delete(answer.requestId);
  waiter?.(answer);
}

/** The view's live region: what a screen reader says without moving the focus (a keyboard decision, echoed). */
function announce(text: string): void {
  let region = document.querySelector<HTMLElement>('[data-field="announcement"]');
  if (!region) {
    region = document.createElement('div');
    region.setAttribute('data-field', 'announcement');
    region.setAttribute('role', 'status');
    region.setAttribute('aria-live', 'polite');
    region.className = 'visually-hidden';
    document.body.append(region);
  }
  region.textContent = text;
}

export function connect(view: ViewKind, handlers: HostHandlers): HostChannel {
  const api = acquireVsCodeApi();
  let counter = 0;
  const nextId = (): string => `${view}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
  const send = (message: WebviewToHost): void => {
    api.postMessage(WebviewToHost.parse(message));
  };

  const held = new PatchReader();
  // Said in this view's console and the host's log, a line a second at most however many come.
  const drops = new DropReports((reason, count) => {
    console.warn(`toolgate: ${describeDrop(reason, count)}`);
    send({ type: 'dropped', requestId: nextId(), reason, count });
  });
  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    const receivedAt = Date.now();
    // Any frame of the window can post here; only VS Code's frame around this one speaks for the host.
    const sender = senderOf(event, window);
    if (sender !== 'host') {
      drops.add(sender);
      return;
    }
    const parsed = HostToWebview.safeParse(event.data);
    if (!parsed.success) {
      console.warn('toolgate: ignored a message from the host that does not fit the contract');
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'init':
      case 'state':
        if (message.state.view === view) {
          held.full(message.state, message.version);
          handlers.onState(message.state, message.type, message.sentAt, receivedAt);
        }
        break;
      case 'patch': {
        if (message.state.view !== view) {
          break;
        }
        const state = held.apply(message);
        if (state === 'resync') {
          // Out of step with the host (a patch was missed): ask for the whole state again.
          send({ type: 'ready', requestId: nextId(), view });
        } else {
          handlers.onState(state, 'state', message.sentAt, receivedAt, message.builtMs);
        }
        break;
      }
      case 'result':
        takeAnswer(message);
        handlers.onResult?.(message.requestId, message.ok, message.error);
        break;
      case 'focus':
        handlers.onFocus?.(message.field);
        break;
      case 'focusCard':
        handlers.onFocusCall?.(message.callId);
        break;
      case 'announce':
        announce(message.text);
        break;
    }
  });

  send({ type: 'ready', requestId: nextId(), view });
  return {
    command: (command) => send({ type: 'command', requestId: nextId(), command }),
    send: (message) => {
      const requestId = nextId();
      send({ ...message, requestId });
      return requestId;
    },
  };
}
