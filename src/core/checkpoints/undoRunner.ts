/**
 * Carries out "undo this turn" / "undo this task": finds the task's checkpoints, reads the files as they are now,
 * plans (undo.ts), asks the person about every conflict and every file the agent created that was changed since,
 * then writes the clean reverts and the answered ones in one go, only onto files still exactly as planned (else it
 * reads and plans again, keeping the answers to questions that did not change). Nothing is overwritten without an
 * answer. Turns whose every file is back are marked undone; each undo that found its task is written to the audit log.
 *
 * A file the person kept (a conflict answered "keep mine", a created file they kept, a file deleted since) leaves its
 * turns not undone, so the same undo offers them again; terminal commands are listed, never reverted.
 *
 * What it says, before and after, is undoWording.ts.
 *
 * Ports: `UndoFiles` (read a file, apply all writes at once: one WorkspaceEdit in VS Code, so the undo is itself
 * undoable) and `UndoQuestions` (the merge or diff editor and a modal in VS Code).
 */
import * as z from '../../zod';
import type { LeftWhy, NotUndoneReason, RevertedHow, UndoAuditEntry } from '../audit/auditLog';
import type { FileVersion } from '../review/hunks';
import type { FileContent, TaskRecord } from './schema';
import type { CheckpointStore } from './store';
import { planTaskUndo, planTurnUndo, turnsToUndo, undoPaths, type CommandUndoNote, type FileUndo, type UndoPlan, type UnreviewedUndoNote } from './undo';
import { type LeftFile, type RevertedFile, type UnchangedFile, type UndoPreview, plural, previewLines, undoneWords } from './undoWording';

// What the runner's callers name, from the file that holds it.
export { undoWouldChange, type LeftFile, type PreviewLine, type RevertedFile, type UnchangedFile, type UndoPreview } from './undoWording';

export type ConflictUndo = Extract<FileUndo, { kind: 'conflict' }>;
export type ConfirmDeleteUndo = Extract<FileUndo, { kind: 'confirm-delete' }>;

/** One file to write: its new text (`null`: delete it), only if it is still `expected`. */
export interface FileWrite {
  path: string;
  relativePath?: string;
  text: string | null;
  expected: FileVersion;
}

export type ApplyResult = { kind: 'applied' } | { kind: 'changed'; path: string } | { kind: 'refused'; message: string };

export interface UndoFiles {
  /** The file's text now (an open editor's unsaved text first); `null` when it does not exist. Rejects when unreadable. */
  read(path: string): Promise<FileContent>;
  /** Writes all at once, or nothing: `changed` when a file is no longer as `expected`. */
  apply(writes: readonly FileWrite[]): Promise<ApplyResult>;
}

export interface UndoQuestions {
  /** The agent's change and later edits overlap: keep the file as it is, or write the merge (with conflict markers). */
  conflict(file: ConflictUndo): Promise<'keep-mine' | 'use-merge'>;
  /** The agent created the file and it was changed since: delete it anyway, or keep it. */
  confirmDelete(file: ConfirmDeleteUndo): Promise<'keep' | 'delete'>;
}

export interface UndoRequest {
  scope: 'turn' | 'task';
  /** The chat to look in (the active one, or the one the caller named). */
  chatId: string;
  /** A task of that chat (or, if it has none by that id, of any chat); default: the chat's latest task. */
  taskId?: string;
  /** With scope `turn`: the turn (0-based); default: the task's latest turn not yet undone. */
  turn?: number;
}

const UndoArgument = z.union([
  z.undefined(),
  z.string().check(z.minLength(1), z.maxLength(200)),
  z.strictObject({
    taskId: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
    chatId: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
    turn: z.optional(z.int().check(z.nonnegative())),
  }),
]);

/**
 * The request an undo command's argument makes: nothing (the active chat's latest task), a task id, or
 * `{ taskId?, chatId?, turn? }` (turn 0-based; only undoTurn reads it). Anything else undoes nothing.
 */
export function undoRequest(scope: UndoRequest['scope'], arg: unknown, activeChatId: string): { kind: 'ok'; request: UndoRequest } | { kind: 'invalid'; result: UndoResult } {
  const parsed = UndoArgument.safeParse(arg);
  if (!parsed.success) {
    return { kind: 'invalid', result: { kind: 'not-undone', reason: 'invalid-argument', message: 'the argument must be a task id, or { taskId?, chatId?, turn? }' } };
  }
  const value = typeof parsed.data === 'string' ? { taskId: parsed.data } : (parsed.data ?? {});
  const turn = scope === 'turn' && 'turn' in value ? value.turn : undefined;
  return {
    kind: 'ok',
    request: {
      scope,
      chatId: value.chatId ?? activeChatId,
      ...(value.taskId !== undefined ? { taskId: value.taskId } : {}),
      ...(turn !== undefined ? { turn } : {}),
    },
  };
}

export type UndoResult =
  | {
      kind: 'undone';
      chatId: string;
      taskId: string;
      title?: string;
      scope: 'turn' | 'task';
      /** The turns the undo covered, and those now marked undone (all of them unless a file was left). */
      turns: number[];
      undoneTurns: number[];
      reverted: RevertedFile[];
      left: LeftFile[];
      /** Files already as before the agent's changes. */
      unchanged: UnchangedFile[];
      /** Newest first: they ran, and cannot be reverted. */
      commands: CommandUndoNote[];
      /** What commands landed without review: kept (nothing holds its before), named. */
      unreviewed: UnreviewedUndoNote[];
      notes: string[];
      /** One line for a notification. */
      summary: string;
      /** Everything, one item a line. */
      text: string;
    }
  | { kind: 'not-undone'; reason: NotUndoneReason; chatId?: string; taskId?: string; message: string };

export interface UndoRunnerDeps {
  store: Pick<CheckpointStore, 'tasks' | 'latestTask' | 'load' | 'markUndone'>;
  files: UndoFiles;
  questions: UndoQuestions;
  audit: { recordUndo(entry: UndoAuditEntry): void };
  now?: () => Date;
  /** Plans made before giving up on files that keep changing (default 3). */
  maxAttempts?: number;
}

type Answer = 'keep-mine' | 'use-merge' | 'keep' | 'delete';

/** The writes, and the files reverted and left, that a plan comes to with the person's answers. */
interface Decided {
  writes: FileWrite[];
  reverted: RevertedFile[];
  left: LeftFile[];
  unchanged: UnchangedFile[];
}

const cleanHow: Partial<Record<FileUndo['kind'], RevertedHow>> = { revert: 'reverted', merge: 'merged', restore: 'restored', delete: 'deleted' };

export class UndoRunner {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: UndoRunnerDeps) {}

  /** One undo at a time: a second waits for the first, then plans against what it left. */
  undo(request: UndoRequest): Promise<UndoResult> {
    const run = this.queue.then(() => this.run(request));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private findTask(request: UndoRequest): { chatId: string; taskId: string } | undefined {
    if (request.taskId === undefined) {
      return this.deps.store.latestTask(request.chatId);
    }
    const inChat = this.deps.store.tasks(request.chatId).find((task) => task.taskId === request.taskId);
    return inChat ?? this.deps.store.tasks().find((task) => task.taskId === request.taskId);
  }

  /**
   * What the undo would do now, without asking or writing anything: each file's fate and the commands it cannot undo.
   * The undo itself plans again against the files as they are then (and asks about what needs the person).
   */
  async preview(request: UndoRequest): Promise<UndoPreview | Extract<UndoResult, { kind: 'not-undone' }>> {
    const prepared = await this.prepare(request);
    if (prepared.kind === 'not-undone') {
      return prepared;
    }
    const { task, turns, paths, plan } = prepared;
    const current = await this.readCurrent(paths);
    if (typeof current === 'string') {
      return { kind: 'not-undone', reason: 'read-failed', chatId: task.chatId, taskId: task.taskId, message: current };
    }
    const planned = plan(current);
    return {
      kind: 'preview',
      chatId: task.chatId,
      taskId: task.taskId,
      turns,
      lines: previewLines(planned),
      notes: planned.notes,
    };
  }

  /** The task, the turns and the paths an undo covers, and how to plan it against the files as they are. */
  private async prepare(request: UndoRequest): Promise<
    | { kind: 'ready'; task: TaskRecord; turns: number[]; paths: string[]; plan: (current: ReadonlyMap<string, FileContent>) => UndoPlan }
    | Extract<UndoResult, { kind: 'not-undone' }>
  > {
    const found = this.findTask(request);
    if (!found) {
      const message = request.taskId === undefined ? 'this chat has no changes by the agent to undo' : `no checkpoints for task ${request.taskId}`;
      return { kind: 'not-undone', reason: 'no-checkpoints', chatId: request.chatId, ...(request.taskId !== undefined ? { taskId: request.taskId } : {}), message };
    }
    const ids = { chatId: found.chatId, taskId: found.taskId };
    const loaded = await this.deps.store.load(found.chatId, found.taskId);
    if (loaded.kind !== 'ok') {
      return { kind: 'not-undone', reason: loaded.kind === 'not-found' ? 'no-checkpoints' : 'unreadable', ...ids, message: loaded.message };
    }
    const task = loaded.task;
    const turns = this.turnsOf(task, request);
    if (turns.kind === 'none') {
      return { kind: 'not-undone', reason: 'nothing-to-undo', ...ids, message: turns.message };
    }
    const plan = (current: ReadonlyMap<string, FileContent>): UndoPlan =>
      request.scope === 'task' ? planTaskUndo(task, current) : planTurnUndo(task, turns.turns[0] ?? 0, current);
    const paths = undoPaths(task.turns.filter((turn) => turns.turns.includes(turn.turn)));
    return { kind: 'ready', task, turns: turns.turns, paths, plan };
  }

  private async run(request: UndoRequest): Promise<UndoResult> {
    const prepared = await this.prepare(request);
    if (prepared.kind === 'not-undone') {
      return prepared;
    }
    const { task, paths, plan, turns } = prepared;
    const answers = new Map<string, Answer>();
    const attempts = this.deps.maxAttempts ?? 3;
    let lastChanged = '';
    for (let attempt = 0; attempt < attempts; attempt++) {
      const current = await this.readCurrent(paths);
      if (typeof current === 'string') {
        return this.fail(request.scope, task, turns, 'read-failed', `${current}; nothing was written`);
      }
      const planned = plan(current);
      const decided = await this.decide(planned, answers);
      const applied = decided.writes.length > 0 ? await this.deps.files.apply(decided.writes) : ({ kind: 'applied' } as const);
      if (applied.kind === 'refused') {
        return this.fail(request.scope, task, turns, 'apply-refused', `the undo could not be written (${applied.message}); nothing was changed`);
      }
      if (applied.kind === 'changed') {
        lastChanged = applied.path;
        continue;
      }
      return this.finish(request.scope, task, turns, planned, await this.verified(decided));
    }
    return this.fail(request.scope, task, turns, 'kept-changing', `${lastChanged} kept changing while the undo was prepared; nothing was written, try again`);
  }

  /**
   * What the undo says it did is what happened: each file it wrote is read back once the edit was applied, and one that
   * does not hold what was written (a delete VS Code did not carry out, a write that did not take) is reported as not
   * put back, with why, and leaves its turns not undone, so the same undo offers it again.
   */
  private async verified(decided: Decided): Promise<Decided> {
    const missed = new Map<string, string>();
    await Promise.all(
      decided.writes.map(async (write) => {
        const name = write.relativePath ?? write.path;
        try {
          const now = await this.deps.files.read(write.path);
          if (write.text === null && now !== null) {
            missed.set(write.path, `${name}: NOT deleted: the edit was applied, yet the file is still there; delete it by hand if it should go`);
          } else if (write.text !== null && now === null) {
            missed.set(write.path, `${name}: NOT put back: the edit was applied, yet the file is not there`);
          } else if (write.text !== null && now !== write.text) {
            missed.set(write.path, `${name}: NOT put back: the edit was applied, yet the file does not hold the text put back`);
          }
        } catch (error) {
          missed.set(write.path, `${name}: not known to be put back: it could not be read after the edit (${error instanceof Error ? error.message : String(error)})`);
        }
      }),
    );
    if (missed.size === 0) {
      return decided;
    }
    return {
      writes: decided.writes,
      reverted: decided.reverted.filter((file) => !missed.has(file.path)),
      left: [...decided.left, ...decided.reverted.filter((file) => missed.has(file.path)).map((file): LeftFile => ({ ...file, why: 'not-carried-out', message: missed.get(file.path) ?? file.message }))],
      unchanged: decided.unchanged,
    };
  }

  /** The files as they are now, by path; or why one could not be read. */
  private async readCurrent(paths: readonly string[]): Promise<Map<string, FileContent> | string> {
    try {
      return new Map(await Promise.all(paths.map(async (path) => [path, await this.deps.files.read(path)] as const)));
    } catch (error) {
      return `could not read a file to undo: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  private turnsOf(task: TaskRecord, request: UndoRequest): { kind: 'some'; turns: number[] } | { kind: 'none'; message: string } {
    const name = `task "${task.title ?? task.taskId}"`;
    if (request.scope === 'task') {
      const open = turnsToUndo(task).map((turn) => turn.turn);
      return open.length > 0
        ? { kind: 'some', turns: open }
        : { kind: 'none', message: task.turns.length > 0 ? `${name} was already undone` : `${name} has no changes left to undo (its checkpoints were dropped)` };
    }
    const turn = request.turn ?? turnsToUndo(task).at(-1)?.turn;
    const record = task.turns.find((candidate) => candidate.turn === turn);
    if (turn === undefined) {
      return { kind: 'none', message: `every turn of ${name} was already undone` };
    }
    if (!record) {
      const dropped = task.droppedTurns.includes(turn);
      return { kind: 'none', message: `turn ${turn + 1} of ${name} ${dropped ? 'can no longer be undone: its checkpoint was dropped to stay within the checkpoint budget' : 'made no recorded changes'}` };
    }
    if (record.undoneAt !== undefined) {
      return { kind: 'none', message: `turn ${turn + 1} of ${name} was already undone` };
    }
    return { kind: 'some', turns: [turn] };
  }

  /** Asks what needs the person (once per file state), and sorts the plan into writes, reverted and left. */
  private async decide(plan: UndoPlan, answers: Map<string, Answer>): Promise<Decided> {
    const decided: Decided = { writes: [], reverted: [], left: [], unchanged: [] };
    for (const file of plan.files) {
      const base = { path: file.path, ...(file.relativePath !== undefined ? { relativePath: file.relativePath } : {}), turns: file.turns };
      const write = (text: string | null, how: RevertedHow, message = file.message): void => {
        decided.writes.push({ path: file.path, ...(file.relativePath !== undefined ? { relativePath: file.relativePath } : {}), text, expected: file.current });
        decided.reverted.push({ ...base, how, message });
      };
      const leave = (why: LeftWhy, message = file.message): void => {
        decided.left.push({ ...base, why, message });
      };
      const olderRemain = (remainingSteps: number): void => {
        if (remainingSteps > 0) {
          leave('older-changes-remain', `${file.relativePath ?? file.path}: ${plural(remainingSteps, 'older change')} by the agent not reverted yet; undo again once this one is settled`);
        }
      };
      const key = `${file.kind}\0${file.path}\0${String(file.current.exists)}\0${file.current.hash}`;
      switch (file.kind) {
        case 'revert':
        case 'merge':
        case 'restore':
          write(file.content, cleanHow[file.kind] ?? 'reverted');
          break;
        case 'delete':
          write(null, 'deleted');
          break;
        case 'already-reverted':
          decided.unchanged.push({ ...base, message: file.message });
          break;
        case 'deleted-since':
          leave('deleted-since');
          break;
        case 'conflict': {
          const answer = answers.get(key) ?? (await this.deps.questions.conflict(file));
          answers.set(key, answer);
          if (answer === 'use-merge') {
            write(file.merged, 'merged-with-conflicts', `${file.relativePath ?? file.path}: the merge was written with its conflict markers; resolve them in the editor`);
            olderRemain(file.remainingSteps);
          } else {
            leave('conflict-kept', `${file.relativePath ?? file.path}: the agent's change overlaps later edits; kept as it is (your choice)`);
          }
          break;
        }
        case 'confirm-delete': {
          const answer = answers.get(key) ?? (await this.deps.questions.confirmDelete(file));
          answers.set(key, answer);
          if (answer === 'delete') {
            write(null, 'deleted', `${file.relativePath ?? file.path}: created by the agent and changed since; deleted (your choice)`);
            olderRemain(file.remainingSteps);
          } else {
            leave('created-file-kept', `${file.relativePath ?? file.path}: created by the agent and changed since; kept (your choice)`);
          }
          break;
        }
      }
    }
    return decided;
  }

  private async finish(scope: UndoRequest['scope'], task: TaskRecord, turns: number[], plan: UndoPlan, decided: Decided): Promise<UndoResult> {
    const kept = new Set(decided.left.flatMap((file) => file.turns));
    const undoneTurns = turns.filter((turn) => !kept.has(turn));
    if (undoneTurns.length > 0) {
      await this.deps.store.markUndone(task.chatId, task.taskId, undoneTurns);
    }
    const { summary, text } = undoneWords(scope, task, turns, plan, decided);
    this.audit(scope, task, turns, undoneTurns, 'undone', decided, plan.commands, summary);
    return {
      kind: 'undone',
      chatId: task.chatId,
      taskId: task.taskId,
      ...(task.title !== undefined ? { title: task.title } : {}),
      scope,
      turns,
      undoneTurns,
      reverted: decided.reverted,
      left: decided.left,
      unchanged: decided.unchanged,
      commands: plan.commands,
      unreviewed: plan.unreviewed,
      notes: plan.notes,
      summary,
      text,
    };
  }

  private fail(scope: UndoRequest['scope'], task: TaskRecord, turns: number[], reason: NotUndoneReason, message: string): UndoResult {
    this.audit(scope, task, turns, [], reason, { writes: [], reverted: [], left: [], unchanged: [] }, [], message);
    return { kind: 'not-undone', reason, chatId: task.chatId, taskId: task.taskId, message };
  }

  private audit(
    scope: UndoRequest['scope'],
    task: TaskRecord,
    turns: number[],
    undoneTurns: number[],
    outcome: UndoAuditEntry['outcome'],
    decided: Decided,
    commands: readonly CommandUndoNote[],
    reason: string,
  ): void {
    this.deps.audit.recordUndo({
      kind: 'undo',
      time: (this.deps.now?.() ?? new Date()).toISOString(),
      chatId: task.chatId,
      taskId: task.taskId,
      scope,
      turns,
      undoneTurns,
      outcome,
      reverted: decided.reverted.map((file) => ({ path: file.path, how: file.how })),
      left: decided.left.map((file) => ({ path: file.path, why: file.why })),
      commands: commands.map((command) => command.command),
      reason,
    });
  }
}
