/**
 * Task checkpoints: per chat, task and model turn, what the agent changed through the gate (each file's text before
 * and after, each command that ran), kept in a key-value store (workspace state) so they survive a window reload, and
 * bounded in size: when the stored total passes the budget, the oldest tasks are dropped first, then the oldest turns
 * of the task being recorded, and a note says so (budget.ts). Stored data that does not parse or check out is ignored
 * with a warning, never trusted (records.ts reads a task's stored form).
 *
 * Every change is serialised through one queue, so records of concurrent tool calls never interleave their writes.
 */
import { Buffer } from 'node:buffer';
import type { KeyValueStore } from '../storage/keyValueStore';
import { type BudgetView, DEFAULT_CHECKPOINT_BUDGET_BYTES, budgetMessages, keepsTurnAlone, nextDrop } from './budget';
import {
  type RecordInput,
  type TaskSummary,
  type TurnRef,
  checkInput,
  describeIssue,
  newTask,
  readStoredTask,
  storedEntryOf,
  summaryOf,
  taskRecordOf,
  textRoots,
} from './records';
import {
  CHECKPOINT_VERSION,
  CheckpointIndex,
  type IndexEntry,
  indexKey,
  type StoredTask,
  type StoredTurn,
  taskKeyPrefix,
  type DropNote,
  type TaskRecord,
} from './schema';
import { TextStore } from './texts';

// What the store's callers name, from the files that hold each.
export type { RecordInput, TaskSummary, TurnRef } from './records';

/** The key-value store the checkpoints live in (VS Code's workspace state, mirrored to a file by the wiring). */
export interface CheckpointStorage extends KeyValueStore {
  /** All keys, when the store can list them: used to remove task values no index lists. */
  keys?(): readonly string[];
}

const MAX_NOTES = 100;

export interface CheckpointStoreOptions {
  /** Most bytes (UTF-8 JSON of the stored tasks) kept; default 16 MiB. */
  budgetBytes?: number;
  warn: (message: string) => void;
  now?: () => Date;
}

export type RecordOutcome =
  | { kind: 'recorded'; taskBytes: number; totalBytes: number; dropped: DropNote[] }
  /** The turn alone is larger than the budget (or was dropped before): this change has no checkpoint. */
  | { kind: 'not-recorded'; note: DropNote; dropped: DropNote[] };

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
    const { stored, texts } = readStoredTask(this.storage.get(taskKeyPrefix + String(entry.seq)), entry);
    const loaded = { entry, stored, texts };
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
      const { entry, stored } = newTask(ref, this.index.nextSeq++, at);
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
    turn.entries.push(storedEntryOf(input, at, task.stored.turns, task.texts));
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

  /** Drops what the budget (budget.ts) says, until the total fits. The current task's value is not yet written. */
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
        message: budgetMessages.turnOverBudget(turn, this.budget),
      });
      dropped.push(notRecorded);
    };
    const recording = current?.stored.turns.find((turn) => turn.turn === recordingTurn);
    if (current && recording && this.totalBytes() > this.budget) {
      const alone = this.bytesOfTurnAlone(current, recording);
      if (!keepsTurnAlone(this.budget, alone)) {
        this.dropTurns(current, [recording.turn]);
        json = this.serialise(current);
        dropCurrentTurn(recording.turn, alone);
      }
    }
    for (let drop = nextDrop(this.budgetView(current)); drop !== undefined; drop = nextDrop(this.budgetView(current))) {
      const victim = drop.kind === 'task' ? this.index.tasks[drop.index] : undefined;
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
            message: budgetMessages.taskDropped(victim.title ?? victim.taskId),
          }),
        );
        continue;
      }
      if (!current || drop.kind !== 'turn') {
        break; // nothing left to drop
      }
      const before = current.entry.bytes;
      this.dropTurns(current, [drop.turn]);
      json = this.serialise(current);
      const bytes = before - current.entry.bytes;
      if (drop.turn === recordingTurn) {
        dropCurrentTurn(drop.turn, bytes);
      } else {
        dropped.push(
          this.note({
            kind: 'turns-dropped',
            chatId: current.entry.chatId,
            taskId: current.entry.taskId,
            turns: [drop.turn],
            bytes,
            message: budgetMessages.turnDropped(drop.turn, current.entry.title ?? current.entry.taskId),
          }),
        );
      }
    }
    return { json, dropped, ...(notRecorded ? { notRecorded } : {}) };
  }

  /** What the budget sees: every task's size, oldest first, which of them is `current`, and its turns. */
  private budgetView(current: Loaded | undefined): BudgetView {
    return {
      budget: this.budget,
      tasks: this.index.tasks.map((entry) => ({ bytes: entry.bytes, current: entry === current?.entry })),
      currentTurns: current?.stored.turns.map((turn) => turn.turn) ?? [],
    };
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
      .map(summaryOf)
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
        return { kind: 'ok', task: taskRecordOf(stored, texts) };
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
