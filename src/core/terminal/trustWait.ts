/**
 * In a folder not trusted, nothing starts before VS Code's own trust request is answered: a new terminal makes VS Code
 * ask ("Creating a terminal process requires executing code"), and only a grant lets the command run. The grant
 * arrives as an event; a Cancel shows only as the terminal opening (code-server) or closing (desktop) without one, or
 * the task stopping. The terminal's events come from src/vscode/terminal/terminalRunner.ts.
 */
import { DisposableStore, type Disposable } from '../disposable';

/** After the terminal opens in a folder still untrusted, how long the trust grant may take to reach the extension. */
export const trustGrantGraceMs = 2_000;

export const untrustedNotRun =
  'this folder is not trusted: VS Code asked whether you trust its authors, and it was not trusted, so nothing was run. Trust the folder (Manage Workspace Trust), then ask again.';

export interface TrustRequest {
  /** The folder was trusted. */
  onDidGrant(listener: () => void): Disposable;
  /** The terminal that asked was closed. */
  onDidClose(listener: () => void): Disposable;
  /** Resolves when the terminal opened: after its trust request was answered, whichever way. */
  opened: Promise<void>;
  isTrusted(): boolean;
  signal?: AbortSignal | undefined;
  graceMs?: number;
}

/** Whether the folder was trusted in answer to the request the new terminal made. */
export function trustAnswered(request: TrustRequest): Promise<boolean> {
  const { signal } = request;
  return new Promise((resolve) => {
    const store = new DisposableStore();
    let timer: NodeJS.Timeout | undefined;
    const done = (trusted: boolean): void => {
      store.dispose();
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(trusted);
    };
    const onAbort = (): void => done(false);
    signal?.addEventListener('abort', onAbort, { once: true });
    store.add(request.onDidGrant(() => done(true)));
    store.add(request.onDidClose(() => done(false)));
    void request.opened.then(() => {
      if (request.isTrusted()) {
        done(true);
      } else {
        timer = setTimeout(() => done(request.isTrusted()), request.graceMs ?? trustGrantGraceMs);
      }
    });
    if (signal?.aborted) {
      done(false);
    }
  });
}
