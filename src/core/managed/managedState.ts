/**
 * The managed settings file as this window knows it: read when the window starts (before its first decision) and again
 * whenever the file changes, its problems and why it is ignored said once per change.
 */
import fs from 'node:fs';
import { Emitter, type Disposable } from '../disposable';
import type { LogPort } from '../logPort';
import { managedFileVariable, readManagedFile, systemManagedFile, type ManagedFileState } from './managedFile';
import type { ManagedPolicy } from './managedSettings';

export interface ManagedStateDeps {
  read?: () => ManagedFileState;
  /** Calls `changed` when `file` may have changed (created, written, removed). */
  watch?: (file: string, changed: () => void) => Disposable;
  log: LogPort;
  /** The person is told, once per change, what went wrong with the file (a notification). */
  warn: (message: string) => void;
  platform?: NodeJS.Platform;
  env?: Readonly<Record<string, string | undefined>>;
}

/** Polls the file's metadata (it may not exist yet, and its folder neither): a change within a couple of seconds. */
function watchByPolling(file: string, changed: () => void): Disposable {
  const listener = (): void => changed();
  fs.watchFile(file, { interval: 2_000, persistent: false }, listener);
  return { dispose: () => fs.unwatchFile(file, listener) };
}

export class ManagedState implements Disposable {
  private current: ManagedFileState;
  private readonly watchers: Disposable[] = [];
  private readonly onDidChangeEmitter = new Emitter<void>();
  /** The policy changed (the file was written, removed, or became honoured or ignored). */
  readonly onDidChange = this.onDidChangeEmitter.event;

  constructor(private readonly deps: ManagedStateDeps) {
    const platform = deps.platform ?? process.platform;
    const env = deps.env ?? process.env;
    const read = deps.read ?? (() => readManagedFile(platform, env));
    this.current = read();
    this.report();
    const watch = deps.watch ?? watchByPolling;
    const files = new Set([systemManagedFile(platform, env), env[managedFileVariable]].filter((file): file is string => file !== undefined && file !== ''));
    for (const file of files) {
      this.watchers.push(
        watch(file, () => {
          const next = read();
          if (JSON.stringify(next) !== JSON.stringify(this.current)) {
            this.current = next;
            this.report();
            this.onDidChangeEmitter.fire();
          }
        }),
      );
    }
  }

  /** The policy in force: undefined when no managed file is honoured. */
  policy(): ManagedPolicy | undefined {
    return this.current.state === 'honoured' ? this.current.policy : undefined;
  }

  state(): ManagedFileState {
    return this.current;
  }

  private report(): void {
    const state = this.current;
    if (state.state === 'ignored') {
      const message = `Toolgate ignores the managed settings file ${state.file}: ${state.why}`;
      this.deps.log.warn(message);
      this.deps.warn(message);
    } else if (state.state === 'honoured') {
      this.deps.log.info(`managed settings: ${state.file} is in force`);
      for (const problem of state.problems) {
        this.deps.log.warn(`managed settings: ${problem}`);
      }
      if (state.problems.length > 0) {
        this.deps.warn(`The managed settings file ${state.file} has ${state.problems.length === 1 ? 'a problem' : `${state.problems.length} problems`}: ${state.problems.join('; ')}. What could not be read is read as its narrowest meaning; its valid parts apply.`);
      }
    }
  }

  dispose(): void {
    for (const watcher of this.watchers.splice(0)) {
      watcher.dispose();
    }
    this.onDidChangeEmitter.dispose();
  }
}
