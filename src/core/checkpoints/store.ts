/**
 * Task checkpoints: per chat, task and model turn, what the agent changed through the gate (each file's text before
 * and after, each command that ran), kept in a key-value store (workspace state) so they survive a window reload, and
 * bounded in size: when the stored total passes the budget, the oldest tasks are dropped first, then the oldest turns
 * of the task being recorded, and a note says so. Stored data that does not parse or check out is ignored with a
 * warning, never trusted.
 *
 * Every change is serialised through one queue, so records of concurrent tool calls never interleave their writes.
 */
import { Buffer } from 'node:buffer';
import type { KeyValueStore } from '../storage/keyValueStore';
import type { CommandGitEffect } from './gitStatus';
import type { LandedGroup } from './landedUnreviewed';
import {
  CHECKPOINT_VERSION,
  CheckpointIndex,
  IndexEntry,
  indexKey,
  StoredCommandEntry,
  StoredFileEntry,
  StoredTask,
  StoredTurn,
  StoredUnreviewedEntry,
  taskKeyPrefix,
  type CommandRecord,
  type DropNote,
  type FileContent,
  type TaskRecord,
  type TurnRecord,
} from './schema';
import { CorruptCheckpoint, TextStore } from './texts';

/** The key-value store the checkpoints live in (VS Code's workspace state, mirrored to a file by the wiring). */
export interface CheckpointStorage extends KeyValueStore {
  /** All keys, when the store can list them: used to remove task values no index lists. */
  keys?(): readonly string[];
}

export const DEFAULT_CHECKPOINT_BUDGET_BYTES = 16 * 1024 * 1024;
const MAX_NOTES = 100;

export interface CheckpointStoreOptions {
  /** Most bytes (UTF-8 JSON of the stored tasks) kept; default 16 MiB. */
  budgetBytes?: number;
  warn: (message: string) => void;
  now?: () => Date;
}

/** Where a change belongs: the chat, the task (one prompt), and the model turn within it (0-based). */
export interface TurnRef {
  chatId: string;
  taskId: string;
  turn: number;
  /** Shown in lists; taken when the task is first recorded. */
  title?: string;
}

export type RecordInput =
  | { kind: 'file'; path: string; relativePath?: string; tool: string; before: FileContent; after: FileContent }
  | { kind: 'command'; command: string; cwd: string; exitCode?: number | null; git?: CommandGitEffect; staged?: boolean; recovered?: string[] }
  | { kind: 'unreviewed'; command: string; groups: LandedGroup[]; more?: number };

export type RecordOutcome =
  | { kind: 'recorded'; taskBytes: number; totalBytes: number; dropped: DropNote[] }
  /** The turn alone is larger than the budget (or was dropped before): this change has no checkpoint. */
  | { kind: 'not-recorded'; note: DropNote; dropped: DropNote[] };

export interface TaskSummary {
  chatId: string;
  taskId: string;
  title?: string;
  startedAt: string;
  updatedAt: string;
  bytes: number;
  turns: { turn: number; undone: boolean }[];
  droppedTurns: number[];
}

export type LoadResult =
  | { kind: 'ok'; task: TaskRecord }
  | { kind: 'not-found'; message: string }
  | { kind: 'unreadable'; message: string };

interface Loaded {
  entry: IndexEntry;
  stored: StoredTask;
  texts: TextStore;
}

const emptyIndex = (): CheckpointIndex => ({ version: CHECKPOINT_VERSION, revision: 0, nextSeq: 0, tasks: [], notes: [] });

function describeIssue(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}` : 'unknown';
}

function turnList(turns: readonly number[]): string {
  return turns.map((turn) => turn + 1).join(', ');
}

/** Why the stored schema would not read this change back, if it would not. */
function checkInput(ref: TurnRef, input: RecordInput): string | undefined {
  const at = new Date(0).toISOString();
  const entry =
    input.kind === 'file'
      ? StoredFileEntry.safeParse({ kind: 'file', path: input.path, ...(input.relativePath !== undefined ? { relativePath: input.relativePath } : {}), tool: input.tool, at, before: null, after: null })
      : input.kind === 'unreviewed'
        ? StoredUnreviewedEntry.safeParse({ ...input, at })
        : StoredCommandEntry.safeParse({ ...input, at });
  const turn = StoredTurn.safeParse({ turn: ref.turn, startedAt: at, entries: [] });
  const ids = IndexEntry.pick({ chatId: true, taskId: true }).safeParse({ chatId: ref.chatId, taskId: ref.taskId });
  for (const result of [ids, turn, entry]) {
    if (!result.success) {
      return describeIssue(result.error);
    }
  }
  return undefined;
}

/** The texts the turns' file entries name. */
function textRoots(turns: readonly StoredTurn[]): string[] {
  const roots: string[] = [];
  for (const turn of turns) {
    for (const entry of turn.entries) {
      if (entry.kind === 'file') {
        roots.push(...[entry.before, entry.after].filter((hash): hash is string => hash !== null));
      }
    }
  }
  return roots;
}

function commandRecord(change: StoredCommandEntry): CommandRecord {
  return {
    kind: 'command',
    command: change.command,
    cwd: change.cwd,
    at: change.at,
    ...(change.exitCode !== undefined ? { exitCode: change.exitCode } : {}),
    ...(change.git !== undefined ? { git: structuredClone(change.git) } : {}),
    ...(change.staged === true ? { staged: true } : {}),
    ...(change.recovered !== undefined ? { recovered: [...change.recovered] } : {}),
  };
}

export class CheckpointStore {
  private index: CheckpointIndex;
  private budget: number;
  private readonly cache = new Map<number, Loaded>(); // by seq
  private queue: Promise<unknown>;
  private readonly now: () => Date;

  constructor(
    private readonly storage: CheckpointStorage,
    private readonly options: CheckpointStoreOptions,
  ) {
    this.budget = options.budgetBytes ?? DEFAULT_CHECKPOINT_BUDGET_BYTES;
    this.now = options.now ?? ((): Date => new Date());
    const raw = storage.get(indexKey);
    const parsed = raw === undefined ? undefined : CheckpointIndex.safeParse(raw);
    if (parsed === undefined) {
      this.index = emptyIndex();
    } else if (parsed.success && new Set(parsed.data.tasks.map((entry) => entry.seq)).size === parsed.data.tasks.length) {
      this.index = parsed.data;
      // Never hand out a key that an entry already uses.
      this.index.nextSeq = Math.max(this.index.nextSeq, ...this.index.tasks.map((entry) => entry.seq + 1));
    } else if (parsed.success) {
      options.warn('ignored the stored checkpoints: two tasks share one key; undo starts afresh');
      this.index = emptyIndex();
    } else {
      options.warn(`ignored the stored checkpoints: they do not fit the expected format (${describeIssue(parsed.error)}); undo starts afresh`);
      this.index = emptyIndex();
    }
    this.queue = this.removeOrphans().catch((error: unknown) => options.warn(`checkpoints: cleaning up failed: ${String(error)}`));
  }

  /** Task values that no index entry names (a lost index write, or an index that was ignored). */
  private async removeOrphans(): Promise<void> {
    const keys = this.storage.keys?.() ?? [];
    const listed = new Set(this.index.tasks.map((entry) => taskKeyPrefix + String(entry.seq)));
    for (const key of keys) {
      if (key.startsWith(taskKeyPrefix) && !listed.has(key)) {
        await this.storage.update(key, undefined);
      }
    }
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private stamp(): string {
    return this.now().toISOString();
  }

  private note(note: Omit<DropNote, 'at'>): DropNote {
    const full: DropNote = { ...note, at: this.stamp() };
    this.index.notes.push(full);
    if (this.index.notes.length > MAX_NOTES) {
      this.index.notes.splice(0, this.index.notes.length - MAX_NOTES);
    }
    return full;
  }

  private find(chatId: string, taskId: string): IndexEntry | undefined {
    return this.index.tasks.find((entry) => entry.chatId === chatId && entry.taskId === taskId);
  }

  /** Reads a task's stored value; throws CorruptCheckpoint when it is missing or does not parse. */
  private loadStored(entry: IndexEntry): Loaded {
    const cached = this.cache.get(entry.seq);
    if (cached) {
      return cached;
    }
    const raw = this.storage.get(taskKeyPrefix + String(entry.seq));
    if (typeof raw !== 'string') {
      throw new CorruptCheckpoint(raw === undefined ? 'its stored value is missing' : 'its stored value is not a JSON text');
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new CorruptCheckpoint('its stored value is not valid JSON');
    }
    const parsed = StoredTask.safeParse(json);
    if (!parsed.success) {
      throw new CorruptCheckpoint(`it does not fit the expected format (${describeIssue(parsed.error)})`);
    }
    if (parsed.data.chatId !== entry.chatId || parsed.data.taskId !== entry.taskId) {
      throw new CorruptCheckpoint('its stored value belongs to another task');
    }
    const loaded = { entry, stored: parsed.data, texts: new TextStore(parsed.data.texts) };
    // Every text is rebuilt and checked once, so that nothing is built on a text that does not check out.
    for (const hash of Object.keys(parsed.data.texts)) {
      loaded.texts.get(hash);
    }
    for (const turn of parsed.data.turns) {
      for (const change of turn.entries) {
        if (change.kind === 'file') {
          for (const hash of [change.before, change.after]) {
            if (hash !== null) {
              loaded.texts.get(hash);
            }
          }
        }
      }
    }
    this.cache.set(entry.seq, loaded);
    return loaded;
  }

  /** Forgets an unreadable task, with a warning and a note. */
  private async dropUnreadable(entry: IndexEntry, reason: string): Promise<DropNote> {
    const message = `the checkpoints of task "${entry.title ?? entry.taskId}" could not be read (${reason}) and were ignored; its changes cannot be undone`;
    this.options.warn(message);
    await this.removeTask(entry);
    const note = this.note({ kind: 'unreadable', chatId: entry.chatId, taskId: entry.taskId, message });
    await this.writeIndex();
    return note;
  }

  private async removeTask(entry: IndexEntry): Promise<void> {
    this.index.tasks = this.index.tasks.filter((other) => other !== entry);
    this.cache.delete(entry.seq);
    await this.storage.update(taskKeyPrefix + String(entry.seq), undefined);
  }

  private async writeIndex(): Promise<void> {
    this.index.revision++;
    await this.storage.update(indexKey, structuredClone(this.index));
  }

  /** Serialises a task and updates its index entry (size, turns). Returns the JSON to store. */
  private serialise(loaded: Loaded): string {
    const json = JSON.stringify(loaded.stored);
    loaded.entry.bytes = Buffer.byteLength(json, 'utf8');
    loaded.entry.updatedAt = this.stamp();
    loaded.entry.turns = loaded.stored.turns.map((turn) => ({ turn: turn.turn, undone: turn.undoneAt !== undefined }));
    loaded.entry.droppedTurns = [...loaded.stored.droppedTurns];
    return json;
  }

  /** Drops the turns from the task and the texts only they used. */
  private dropTurns(loaded: Loaded, turns: readonly number[]): void {
    const gone = new Set(turns);
    loaded.stored.turns = loaded.stored.turns.filter((turn) => !gone.has(turn.turn));
    loaded.stored.droppedTurns = [...new Set([...loaded.stored.droppedTurns, ...turns])].sort((a, b) => a - b);
    loaded.texts.retain(textRoots(loaded.stored.turns));
  }

  /** The stored size the task would have with only this turn. */
  private bytesOfTurnAlone(loaded: Loaded, turn: StoredTurn): number {
    const texts = loaded.texts.standalone(textRoots([turn]));
    return Buffer.byteLength(JSON.stringify({ ...loaded.stored, turns: [turn], texts }), 'utf8');
  }

  /**
   * Records one change of a turn. Rejects with a RangeError, storing nothing, for input the stored schema would not
   * read back (ids longer than 200 characters, a negative or fractional turn or exit code, an empty path).
   */
  record(ref: TurnRef, input: RecordInput): Promise<RecordOutcome> {
    const invalid = checkInput(ref, input);
    if (invalid !== undefined) {
      return Promise.reject(new RangeError(`checkpoints: ${invalid}`));
    }
    return this.enqueue(() => this.recordNow(ref, input));
  }

  private async recordNow(ref: TurnRef, input: RecordInput): Promise<RecordOutcome> {
    const at = this.stamp();
    const dropped: DropNote[] = [];
    const existing = this.find(ref.chatId, ref.taskId);
    let loaded: Loaded | undefined;
    if (existing) {
      try {
        loaded = this.loadStored(existing);
      } catch (error) {
        dropped.push(await this.dropUnreadable(existing, error instanceof Error ? error.message : String(error)));
      }
    }
    if (!loaded) {
      const title = ref.title?.slice(0, 500);
      const entry: IndexEntry = {
        chatId: ref.chatId,
        taskId: ref.taskId,
        ...(title !== undefined ? { title } : {}),
        seq: this.index.nextSeq++,
        startedAt: at,
        updatedAt: at,
        bytes: 0,
        turns: [],
        droppedTurns: [],
      };
      const stored: StoredTask = {
        version: CHECKPOINT_VERSION,
        chatId: ref.chatId,
        taskId: ref.taskId,
        ...(title !== undefined ? { title } : {}),
        startedAt: at,
        turns: [],
        droppedTurns: [],
        texts: {},
      };
      loaded = { entry, stored, texts: new TextStore(stored.texts) };
      this.index.tasks.push(entry);
      this.cache.set(entry.seq, loaded);
    }
    const task = loaded;
    if (task.stored.droppedTurns.includes(ref.turn)) {
      const note = this.note({
        kind: 'turn-not-recorded',
        chatId: ref.chatId,
        taskId: ref.taskId,
        turns: [ref.turn],
        message: `a change of turn ${ref.turn + 1} was not recorded: the turn's earlier changes were already dropped`,
      });
      await this.writeIndex();
      return { kind: 'not-recorded', note, dropped };
    }
    let turn = task.stored.turns.find((candidate) => candidate.turn === ref.turn);
    if (!turn) {
      turn = { turn: ref.turn, startedAt: at, entries: [] };
      task.stored.turns.push(turn);
      task.stored.turns.sort((a, b) => a.turn - b.turn);
    }
    if (input.kind === 'file') {
      // The file's latest text in this task: a later base is usually that text, or close to it.
      let previous: string | null | undefined;
      for (const other of [...task.stored.turns].reverse()) {
        const last = [...other.entries].reverse().find((change) => change.kind === 'file' && change.path === input.path);
        if (last?.kind === 'file') {
          previous = last.after ?? last.before;
          break;
        }
      }
      const before = input.before === null ? null : task.texts.add(input.before, [previous]);
      const after = input.after === null ? null : task.texts.add(input.after, [before, previous]);
      turn.entries.push({
        kind: 'file',
        path: input.path,
        ...(input.relativePath !== undefined ? { relativePath: input.relativePath } : {}),
        tool: input.tool,
        at,
        before,
        after,
      });
    } else if (input.kind === 'unreviewed') {
      turn.entries.push({ kind: 'unreviewed', command: input.command, at, groups: input.groups.map((group) => ({ ...group })), ...(input.more !== undefined && input.more > 0 ? { more: input.more } : {}) });
    } else {
      turn.entries.push({
        kind: 'command',
        command: input.command,
        cwd: input.cwd,
        at,
        ...(input.exitCode !== undefined ? { exitCode: input.exitCode } : {}),
        ...(input.git !== undefined ? { git: input.git } : {}),
        ...(input.staged === true ? { staged: true } : {}),
        ...(input.recovered !== undefined && input.recovered.length > 0 ? { recovered: input.recovered } : {}),
      });
    }
    let json = this.serialise(task);
    const result = await this.enforceBudget(task, json, ref.turn);
    dropped.push(...result.dropped);
    json = result.json;
    if (task.stored.turns.length > 0 || task.stored.droppedTurns.length > 0) {
      await this.storage.update(taskKeyPrefix + String(task.entry.seq), json);
    }
    await this.writeIndex();
    if (result.notRecorded) {
      return { kind: 'not-recorded', note: result.notRecorded, dropped };
    }
    return { kind: 'recorded', taskBytes: task.entry.bytes, totalBytes: this.totalBytes(), dropped };
  }

  /** Drops what is oldest until the total fits the budget. The current task's value is not yet written. */
  private async enforceBudget(
    current: Loaded | undefined,
    json: string,
    recordingTurn?: number,
  ): Promise<{ json: string; dropped: DropNote[]; notRecorded?: DropNote }> {
    const dropped: DropNote[] = [];
    let notRecorded: DropNote | undefined;
    const dropCurrentTurn = (turn: number, bytes: number): void => {
      notRecorded = this.note({
        kind: 'turn-not-recorded',
        chatId: current?.entry.chatId ?? '',
        taskId: current?.entry.taskId ?? '',
        turns: [turn],
        bytes,
        message: `the changes of turn ${turn + 1} are larger than the checkpoint budget (${this.budget} bytes) and were not kept; they cannot be undone`,
      });
      dropped.push(notRecorded);
    };
    // A turn that alone is over the budget is not kept, and costs nothing older.
    const recording = current?.stored.turns.find((turn) => turn.turn === recordingTurn);
    if (current && recording && this.totalBytes() > this.budget) {
      const alone = this.bytesOfTurnAlone(current, recording);
      if (alone > this.budget) {
        this.dropTurns(current, [recording.turn]);
        json = this.serialise(current);
        dropCurrentTurn(recording.turn, alone);
      }
    }
    while (this.totalBytes() > this.budget) {
      const victim = this.index.tasks.find((entry) => entry !== current?.entry);
      if (victim) {
        await this.removeTask(victim);
        const turns = victim.turns.map((turn) => turn.turn);
        dropped.push(
          this.note({
            kind: 'task-dropped',
            chatId: victim.chatId,
            taskId: victim.taskId,
            turns,
            bytes: victim.bytes,
            message: `the checkpoints of task "${victim.title ?? victim.taskId}" were dropped to stay within the checkpoint budget; its changes can no longer be undone`,
          }),
        );
        continue;
      }
      if (!current || current.stored.turns.length === 0) {
        break; // nothing left to drop
      }
      const oldest = current.stored.turns[0];
      if (!oldest) {
        break;
      }
      const before = current.entry.bytes;
      this.dropTurns(current, [oldest.turn]);
      json = this.serialise(current);
      const bytes = before - current.entry.bytes;
      if (oldest.turn === recordingTurn) {
        dropCurrentTurn(oldest.turn, bytes);
      } else {
        dropped.push(
          this.note({
            kind: 'turns-dropped',
            chatId: current.entry.chatId,
            taskId: current.entry.taskId,
            turns: [oldest.turn],
            bytes,
            message: `the checkpoints of turn ${turnList([oldest.turn])} of task "${current.entry.title ?? current.entry.taskId}" were dropped to stay within the checkpoint budget; that turn can no longer be undone`,
          }),
        );
      }
    }
    return { json, dropped, ...(notRecorded ? { notRecorded } : {}) };
  }

  /** Sum of the stored tasks' sizes. */
  totalBytes(): number {
    return this.index.tasks.reduce((sum, entry) => sum + entry.bytes, 0);
  }

  /** Changes the budget (a setting changed); drops what no longer fits. */
  setBudget(bytes: number): Promise<DropNote[]> {
    return this.enqueue(async () => {
      this.budget = bytes;
      if (this.totalBytes() <= bytes) {
        return [];
      }
      // Oldest tasks first, then the oldest turns of the newest task.
      const newest = this.index.tasks[this.index.tasks.length - 1];
      let current: Loaded | undefined;
      if (newest) {
        try {
          current = this.loadStored(newest);
        } catch (error) {
          await this.dropUnreadable(newest, error instanceof Error ? error.message : String(error));
        }
      }
      const result = await this.enforceBudget(current, current ? JSON.stringify(current.stored) : '');
      if (current && this.index.tasks.includes(current.entry)) {
        await this.storage.update(taskKeyPrefix + String(current.entry.seq), result.json);
      }
      await this.writeIndex();
      return result.dropped;
    });
  }

  /** Tasks with checkpoints, newest first (of one chat, or all). */
  tasks(chatId?: string): TaskSummary[] {
    return this.index.tasks
      .filter((entry) => chatId === undefined || entry.chatId === chatId)
      .map(
        (entry): TaskSummary => ({
          chatId: entry.chatId,
          taskId: entry.taskId,
          ...(entry.title !== undefined ? { title: entry.title } : {}),
          startedAt: entry.startedAt,
          updatedAt: entry.updatedAt,
          bytes: entry.bytes,
          turns: entry.turns.map((turn) => ({ ...turn })),
          droppedTurns: [...entry.droppedTurns],
        }),
      )
      .reverse();
  }

  /** The latest task of a chat that has checkpoints. */
  latestTask(chatId: string): TaskSummary | undefined {
    return this.tasks(chatId)[0];
  }

  /** What was dropped or ignored (oldest first), of one chat or all: for the UI to say so. */
  notes(chatId?: string): DropNote[] {
    return this.index.notes.filter((note) => chatId === undefined || note.chatId === chatId).map((note) => structuredClone(note));
  }

  /** A task's checkpoints with their texts, every text checked against its hash. */
  load(chatId: string, taskId: string): Promise<LoadResult> {
    return this.enqueue(async (): Promise<LoadResult> => {
      const entry = this.find(chatId, taskId);
      if (!entry) {
        const note = [...this.index.notes].reverse().find((candidate) => candidate.chatId === chatId && candidate.taskId === taskId);
        return { kind: 'not-found', message: note?.message ?? `no checkpoints for task ${taskId}` };
      }
      try {
        const { stored, texts } = this.loadStored(entry);
        const text = (hash: string | null): string | null => (hash === null ? null : texts.get(hash));
        const task: TaskRecord = {
          chatId: stored.chatId,
          taskId: stored.taskId,
          ...(stored.title !== undefined ? { title: stored.title } : {}),
          startedAt: stored.startedAt,
          droppedTurns: [...stored.droppedTurns],
          turns: stored.turns.map(
            (turn: StoredTurn): TurnRecord => ({
              turn: turn.turn,
              startedAt: turn.startedAt,
              ...(turn.undoneAt !== undefined ? { undoneAt: turn.undoneAt } : {}),
              changes: turn.entries.map((change) =>
                change.kind === 'file'
                  ? {
                      kind: 'file' as const,
                      path: change.path,
                      ...(change.relativePath !== undefined ? { relativePath: change.relativePath } : {}),
                      tool: change.tool,
                      at: change.at,
                      before: text(change.before),
                      after: text(change.after),
                      beforeHash: change.before,
                      afterHash: change.after,
                    }
                  : change.kind === 'unreviewed'
                    ? { kind: 'unreviewed' as const, command: change.command, at: change.at, groups: change.groups.map((group) => ({ ...group })), ...(change.more !== undefined ? { more: change.more } : {}) }
                    : commandRecord(change),
              ),
            }),
          ),
        };
        return { kind: 'ok', task };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        const note = await this.dropUnreadable(entry, reason);
        return { kind: 'unreadable', message: note.message };
      }
    });
  }

  /** Marks turns as undone (after the undo was applied), so they are not offered again. */
  markUndone(chatId: string, taskId: string, turns: readonly number[]): Promise<void> {
    return this.enqueue(async () => {
      const entry = this.find(chatId, taskId);
      if (!entry) {
        return;
      }
      let loaded: Loaded;
      try {
        loaded = this.loadStored(entry);
      } catch (error) {
        await this.dropUnreadable(entry, error instanceof Error ? error.message : String(error));
        return;
      }
      const at = this.stamp();
      for (const turn of loaded.stored.turns) {
        if (turns.includes(turn.turn) && turn.undoneAt === undefined) {
          turn.undoneAt = at;
        }
      }
      const json = this.serialise(loaded);
      await this.storage.update(taskKeyPrefix + String(entry.seq), json);
      await this.writeIndex();
    });
  }

  /** Forgets a task's checkpoints (its chat was deleted). */
  forget(chatId: string, taskId: string): Promise<void> {
    return this.enqueue(async () => {
      const entry = this.find(chatId, taskId);
      if (entry) {
        await this.removeTask(entry);
        await this.writeIndex();
      }
    });
  }
}
