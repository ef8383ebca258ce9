/**
 * Between a task's stored form (schema.ts) and what the store takes in and hands out: a change checked against the
 * schema before it is stored and its stored entry, a new task, the texts a task's turns name, a stored value read back
 * and checked, and a stored task as the TaskRecord and the summary the store hands out.
 */
import * as z from '../../zod';
import type { CommandGitEffect } from './gitStatus';
import type { LandedGroup } from './landedUnreviewed';
import {
  CHECKPOINT_VERSION,
  IndexEntry,
  StoredCommandEntry,
  StoredFileEntry,
  StoredTask,
  StoredTurn,
  StoredUnreviewedEntry,
  type CommandRecord,
  type FileContent,
  type TaskRecord,
  type TurnRecord,
} from './schema';
import { CorruptCheckpoint, TextStore } from './texts';

type StoredEntry = StoredTurn['entries'][number];

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

/** The first issue zod found, where and what. */
export function describeIssue(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}` : 'unknown';
}

/** Why the stored schema would not read this change back, if it would not. */
export function checkInput(ref: TurnRef, input: RecordInput): string | undefined {
  const at = new Date(0).toISOString();
  const entry =
    input.kind === 'file'
      ? StoredFileEntry.safeParse({ kind: 'file', path: input.path, ...(input.relativePath !== undefined ? { relativePath: input.relativePath } : {}), tool: input.tool, at, before: null, after: null })
      : input.kind === 'unreviewed'
        ? StoredUnreviewedEntry.safeParse({ ...input, at })
        : StoredCommandEntry.safeParse({ ...input, at });
  const turn = StoredTurn.safeParse({ turn: ref.turn, startedAt: at, entries: [] });
  const ids = z.pick(IndexEntry, { chatId: true, taskId: true }).safeParse({ chatId: ref.chatId, taskId: ref.taskId });
  for (const result of [ids, turn, entry]) {
    if (!result.success) {
      return describeIssue(result.error);
    }
  }
  return undefined;
}

/** The texts the turns' file entries name. */
export function textRoots(turns: readonly StoredTurn[]): string[] {
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

/** A stored task read back with its texts (each checked against its hash by `texts`). */
export function taskRecordOf(stored: StoredTask, texts: TextStore): TaskRecord {
  const text = (hash: string | null): string | null => (hash === null ? null : texts.get(hash));
  return {
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
}

/**
 * A task's stored value read back for its index entry, every text rebuilt and checked; throws CorruptCheckpoint when
 * it is missing, does not parse, belongs to another task, or a text does not check out.
 */
export function readStoredTask(raw: unknown, entry: IndexEntry): { stored: StoredTask; texts: TextStore } {
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
    const loaded = { stored: parsed.data, texts: new TextStore(parsed.data.texts) };
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
    return loaded;
}

/** The stored entry of one change, at `at`; a file's texts go into the task's texts. */
export function storedEntryOf(input: RecordInput, at: string, turns: readonly StoredTurn[], texts: TextStore): StoredEntry {
  if (input.kind === 'file') {
    // The file's latest text in this task: a later base is usually that text, or close to it.
    let previous: string | null | undefined;
    for (const other of [...turns].reverse()) {
      const last = [...other.entries].reverse().find((change) => change.kind === 'file' && change.path === input.path);
      if (last?.kind === 'file') {
        previous = last.after ?? last.before;
        break;
      }
    }
    const before = input.before === null ? null : texts.add(input.before, [previous]);
    const after = input.after === null ? null : texts.add(input.after, [before, previous]);
    return {
      kind: 'file',
      path: input.path,
      ...(input.relativePath !== undefined ? { relativePath: input.relativePath } : {}),
      tool: input.tool,
      at,
      before,
      after,
    };
  }
  if (input.kind === 'unreviewed') {
    return { kind: 'unreviewed', command: input.command, at, groups: input.groups.map((group) => ({ ...group })), ...(input.more !== undefined && input.more > 0 ? { more: input.more } : {}) };
  }
  return {
    kind: 'command',
    command: input.command,
    cwd: input.cwd,
    at,
    ...(input.exitCode !== undefined ? { exitCode: input.exitCode } : {}),
    ...(input.git !== undefined ? { git: input.git } : {}),
    ...(input.staged === true ? { staged: true } : {}),
    ...(input.recovered !== undefined && input.recovered.length > 0 ? { recovered: input.recovered } : {}),
  };
}

/** A task's first index entry and stored value, empty, as it starts at `at`. */
export function newTask(ref: TurnRef, seq: number, at: string): { entry: IndexEntry; stored: StoredTask } {
  const title = ref.title?.slice(0, 500);
  const entry: IndexEntry = {
    chatId: ref.chatId,
    taskId: ref.taskId,
    ...(title !== undefined ? { title } : {}),
    seq,
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
  return { entry, stored };
}

/** What a list of tasks shows of one: from its index entry alone, nothing loaded. */
export function summaryOf(entry: IndexEntry): TaskSummary {
  return {
    chatId: entry.chatId,
    taskId: entry.taskId,
    ...(entry.title !== undefined ? { title: entry.title } : {}),
    startedAt: entry.startedAt,
    updatedAt: entry.updatedAt,
    bytes: entry.bytes,
    turns: entry.turns.map((turn) => ({ ...turn })),
    droppedTurns: [...entry.droppedTurns],
  };
}
