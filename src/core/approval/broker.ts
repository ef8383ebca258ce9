/**
 * The broker holds calls that wait for a person, by id, each bound to the hash of what was shown. It knows nothing of
 * policy: it resolves a waiting call once (by the person, a timeout, a cancellation, or the gate), and refuses
 * anything addressed to a call that is not waiting or with a hash that is not the one shown.
 */
import { randomUUID } from 'node:crypto';
import { Emitter } from '../disposable';

export interface Waiting {
  callId: string;
  batchId: string;
  chatId: string;
  argsHash: string;
}

export type Resolution<D> =
  | { kind: 'person'; decision: D }
  | { kind: 'timeout'; afterSeconds: number }
  | { kind: 'cancel'; reason: string }
  | { kind: 'auto'; reason: string };

interface Entry<T extends Waiting, D> {
  item: T;
  resolve(resolution: Resolution<D>): void;
  timer?: ReturnType<typeof setTimeout>;
  /** The batch's one abort listener, removed once the last call of the batch is settled. */
  abort?: { signal: AbortSignal; listener: () => void; waiting: { count: number } };
}

export type ResolveResult = { ok: true } | { ok: false; error: string };

export function newCallId(): string {
  return `c-${randomUUID()}`;
}

export class Broker<T extends Waiting, D> {
  private readonly entries = new Map<string, Entry<T, D>>();
  private readonly decided = new Set<string>();
  private readonly onDidChangeEmitter = new Emitter<void>();
  readonly onDidChange = this.onDidChangeEmitter.event;

  /**
   * Adds calls (one batch) and returns one promise per call, settled exactly once. `timeoutSeconds` 0 waits for ever;
   * an aborted `signal` cancels every call of the batch that still waits.
   */
  add(items: T[], options: { timeoutSeconds: number; signal?: AbortSignal }): Promise<Resolution<D>>[] {
    // One listener for the whole batch (not one per call: a batch of 500 would pile 500 onto the task's signal).
    const signal = options.signal;
    const batchAbort =
      signal === undefined
        ? undefined
        : {
            signal,
            listener: (): void => {
              for (const item of items) {
                this.settle(item.callId, { kind: 'cancel', reason: 'the task was cancelled' });
              }
            },
            waiting: { count: items.length },
          };
    if (batchAbort && items.length > 0) {
      batchAbort.signal.addEventListener('abort', batchAbort.listener, { once: true });
    }
    const promises = items.map(
      (item) =>
        new Promise<Resolution<D>>((resolve) => {
          if (this.entries.has(item.callId) || this.decided.has(item.callId)) {
            throw new Error(`call id ${item.callId} is already in use`);
          }
          const entry: Entry<T, D> = { item, resolve };
          if (options.timeoutSeconds > 0) {
            entry.timer = setTimeout(
              () => this.settle(item.callId, { kind: 'timeout', afterSeconds: options.timeoutSeconds }),
              options.timeoutSeconds * 1000,
            );
          }
          if (batchAbort) {
            entry.abort = batchAbort;
          }
          this.entries.set(item.callId, entry);
          if (options.signal?.aborted) {
            this.settle(item.callId, { kind: 'cancel', reason: 'the task was cancelled' });
          }
        }),
    );
    this.onDidChangeEmitter.fire();
    return promises;
  }

  waiting(): T[] {
    return [...this.entries.values()].map((entry) => entry.item);
  }

  get(callId: string): T | undefined {
    return this.entries.get(callId)?.item;
  }

  /** A decision from the person: counts only for a waiting call, with the hash that was shown. */
  resolveByPerson(callId: string, argsHash: string, decision: D): ResolveResult {
    const entry = this.entries.get(callId);
    if (!entry) {
      return {
        ok: false,
        error: this.decided.has(callId) ? `call ${callId} was already decided` : `call ${callId} is not waiting`,
      };
    }
    if (entry.item.argsHash !== argsHash) {
      return { ok: false, error: `call ${callId}: the arguments hash does not match what was shown` };
    }
    this.settle(callId, { kind: 'person', decision });
    return { ok: true };
  }

  /** Resolves a waiting call without the person (a new grant now covers it). */
  resolveAuto(callId: string, reason: string): boolean {
    return this.settle(callId, { kind: 'auto', reason });
  }

  /** Cancels every waiting call that matches (default: all). */
  cancel(reason: string, match: (item: T) => boolean = () => true): number {
    let count = 0;
    for (const entry of [...this.entries.values()]) {
      if (match(entry.item) && this.settle(entry.item.callId, { kind: 'cancel', reason })) {
        count++;
      }
    }
    return count;
  }

  private settle(callId: string, resolution: Resolution<D>): boolean {
    const entry = this.entries.get(callId);
    if (!entry) {
      return false;
    }
    this.entries.delete(callId);
    this.decided.add(callId);
    if (this.decided.size > 10_000) {
      // Ids are random UUIDs, so forgetting the oldest cannot let a stale decision land on a new call.
      const oldest = this.decided.values().next();
      if (oldest.done !== true) {
        this.decided.delete(oldest.value);
      }
    }
    if (entry.timer !== undefined) {
      clearTimeout(entry.timer);
    }
    if (entry.abort && --entry.abort.waiting.count === 0) {
      entry.abort.signal.removeEventListener('abort', entry.abort.listener);
    }
    entry.resolve(resolution);
    this.onDidChangeEmitter.fire();
    return true;
  }

  dispose(): void {
    this.cancel('Toolgate is shutting down');
    this.onDidChangeEmitter.dispose();
  }
}
