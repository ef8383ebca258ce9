/**
 * What the tool service and the agent call to keep checkpoints: a file the gate let the agent write, and a terminal
 * command it let run (with what git saw the command touch). Recording never fails a tool call: a failure is reported
 * through `warn` and the call's own result (or error) passes through untouched.
 *
 * How the wiring uses it:
 * - the agent, when a task starts: `const task = startTask(chatId, prompt)`; at each model turn (the loop's `step`,
 *   1-based): `const turn: TurnRef = { ...task, turn: step - 1 }`, handed to the tool service with the turn's calls;
 * - the tool service, after a gated write or edit was applied: `await recorder.fileWritten(turn, { path, relativePath,
 *   tool, before, after })`, with the full texts (before `null`: the file did not exist);
 * - the tool service, around running a terminal command: `const result = await recorder.commandRan(turn, { command,
 *   cwd }, () => terminal.run(...))`.
 * A call without a task (the API's `invokeTool`) passes `undefined` as the turn: nothing is recorded.
 *
 * Shape chosen against the brief's: the constructor takes one options object (store, git, onNote, warn); the ref may be
 * `undefined`; `commandRan` also reads `notRun` off the result, so that a command that never started is not listed as
 * one that "cannot be undone".
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { groupLanded, landedFiles, maxGroups } from './landedUnreviewed';
import { observeCommand, type CommandGitEffect, type GitPort } from './gitStatus';
import type { DropNote } from './schema';
import type { CheckpointStore, RecordInput, TurnRef } from './store';

/** One task (one prompt) of a chat; a turn of it is `{ ...task, turn }`. */
export interface TaskRef {
  chatId: string;
  taskId: string;
  /** Shown in lists (the prompt, shortened). */
  title?: string;
}

export interface FileWritten {
  /** The key the undo reads and writes the file by: its absolute path. */
  path: string;
  /** For display: relative to the workspace folder. */
  relativePath?: string;
  tool: string;
  /** Full text before the write; `null`: the file did not exist. */
  before: string | null;
  /** Full text the write left; `null`: it removed the file. */
  after: string | null;
}

/** What a terminal run returns, as far as the recorder reads it. */
export interface CommandOutcome {
  exitCode?: number | null | undefined;
  /** Set when the command never started (with why): nothing is recorded. */
  notRun?: string | undefined;
  /** Set when it ran staged: what it changed is recorded file by file as it lands. */
  stage?: unknown;
}

export interface ChangeRecorderOptions {
  store: Pick<CheckpointStore, 'record'>;
  /** Without one, commands are recorded without what they touched. */
  git?: GitPort;
  /**
   * A file's UTF-8 text on disk now: `null` when it does not exist, undefined when it is not UTF-8 text (or cannot be
   * read). With it and git's `showText`, the files an unstaged command touched are recorded to be undone like edits.
   */
  readText?: (absolute: string) => Promise<string | null | undefined>;
  /** Something was dropped to stay within the checkpoint budget, or a change could not be kept: tell the person. */
  onNote: (note: DropNote) => void;
  /** A change could not be recorded (a bug or a storage failure); the tool call goes on regardless. */
  warn: (message: string) => void;
}

const maxTitle = 200;

/** A new task of a chat, with a fresh id and the prompt as its title. */
export function startTask(chatId: string, prompt: string): TaskRef {
  const title = prompt.trim().replace(/\s+/g, ' ');
  return { chatId, taskId: randomUUID(), title: title.length > maxTitle ? `${title.slice(0, maxTitle - 1)}…` : title };
}

const notObserved: CommandGitEffect = { kind: 'unavailable', message: 'git was not consulted' };

export class ChangeRecorder {
  constructor(private readonly options: ChangeRecorderOptions) {}

  private async record(ref: TurnRef, input: RecordInput): Promise<void> {
    try {
      const outcome = await this.options.store.record(ref, input);
      const notes = new Set(outcome.dropped);
      if (outcome.kind === 'not-recorded') {
        notes.add(outcome.note);
      }
      for (const note of notes) {
        this.options.onNote(note);
      }
    } catch (error) {
      const what = input.kind === 'file' ? input.path : `\`${input.command}\``;
      this.options.warn(`checkpoints: could not record ${what}: ${error instanceof Error ? error.message : String(error)}; it cannot be undone`);
    }
  }

  /** A gated write or edit was applied. Nothing is recorded when the text did not change. */
  async fileWritten(ref: TurnRef | undefined, change: FileWritten): Promise<void> {
    if (ref === undefined || change.before === change.after) {
      return;
    }
    await this.record(ref, {
      kind: 'file',
      path: change.path,
      ...(change.relativePath !== undefined ? { relativePath: change.relativePath } : {}),
      tool: change.tool,
      before: change.before,
      after: change.after,
    });
  }

  /**
   * What a staged command wrote that landed without review (`paths` as shown, relative to the workspace): kept grouped,
   * so the task's changed files count it. Never undone: nothing holds its before.
   */
  async landedUnreviewed(ref: TurnRef | undefined, landed: { command: string; paths: readonly string[] }): Promise<void> {
    if (ref === undefined || landed.paths.length === 0) {
      return;
    }
    const groups = groupLanded(landed.paths);
    const kept = groups.slice(0, maxGroups);
    await this.record(ref, { kind: 'unreviewed', command: landed.command, groups: kept, more: landedFiles(groups) - landedFiles(kept) });
  }

  /**
   * Runs a terminal command between two looks at git (when `cwd` is in a work tree) and records it with the files it
   * touched. `run`'s result or error is passed through as it is.
   */
  async commandRan<T extends CommandOutcome>(
    ref: TurnRef | undefined,
    command: { command: string; cwd: string },
    run: () => Promise<T>,
  ): Promise<T & { observed?: CommandGitEffect }> {
    if (ref === undefined) {
      return run();
    }
    type Ran = { ok: true; value: T } | { ok: false; error: unknown };
    const guarded = (): Promise<Ran> => run().then((value): Ran => ({ ok: true, value }), (error: unknown): Ran => ({ ok: false, error }));
    const { result, git } = this.options.git ? await observeCommand(this.options.git, command.cwd, guarded) : { result: await guarded(), git: notObserved };
    if (!result.ok || typeof result.value.notRun !== 'string') {
      const exitCode = result.ok ? result.value.exitCode : undefined;
      const staged = result.ok && result.value.stage !== undefined;
      // Unstaged (macOS, no overlay, staging off): the files git can tell the before of are kept to be undone.
      const recovered = staged ? [] : await this.recover(ref, git);
      await this.record(ref, {
        kind: 'command',
        command: command.command,
        cwd: command.cwd,
        ...(exitCode !== undefined ? { exitCode } : {}),
        git,
        ...(staged ? { staged } : {}),
        ...(recovered.length > 0 ? { recovered } : {}),
      });
    }
    if (!result.ok) {
      throw result.error;
    }
    // What git saw it change, for the model's report of a command that wrote directly.
    return result.value.stage === undefined && typeof result.value.notRun !== 'string' ? { ...result.value, observed: git } : result.value;
  }

  /**
   * Records, as file changes of the command, each file it touched whose text before it is known: one git listed as
   * clean before (its text in HEAD then) or that did not exist (not listed before, untracked after, not in HEAD), and
   * that is UTF-8 text (or gone) after. A file that was already changed before the command, or is not text, is not:
   * its before is unknown, and the undo lists it as one the command changed that cannot be undone. Returns the
   * recorded paths (relative to the repository).
   */
  private async recover(ref: TurnRef, git: CommandGitEffect): Promise<string[]> {
    const { readText } = this.options;
    const showText = this.options.git?.showText?.bind(this.options.git);
    if (git.kind !== 'observed' || git.more > 0 || readText === undefined || showText === undefined) {
      return [];
    }
    const recovered: string[] = [];
    for (const file of git.touched) {
      if (file.before !== 'clean' || file.contentChanged === true) {
        continue;
      }
      const before = git.headBefore === null ? null : await showText(git.root, git.headBefore, file.path);
      // Not in HEAD and clean before: it did not exist, unless git ignored it (then it is not listed after either).
      if (before === undefined || (before === null && file.after !== '??')) {
        continue;
      }
      const absolute = path.join(git.root, file.path);
      const after = await readText(absolute);
      if (after === undefined || after === before) {
        continue;
      }
      await this.fileWritten(ref, { path: absolute, relativePath: file.path, tool: 'run_in_terminal', before, after });
      recovered.push(file.path);
    }
    return recovered;
  }
}
