/**
 * What the checkpoint store keeps in workspace state, as versioned zod schemas, and the records it hands out.
 *
 * Layout: one index under `toolgate.checkpoints` (the tasks, oldest first, with their sizes, and the notes about what
 * was dropped), and one value per task under `toolgate.checkpoints.task.<seq>` (its turns and their texts). Anything
 * that does not parse, or whose version is not this one, is ignored with a warning and never trusted.
 */
import * as z from '../../zod';
import { CommandGitEffect } from './gitStatus';
import { maxGroups, type LandedGroup } from './landedUnreviewed';
import { TextHash, TextTable } from './texts';

export const CHECKPOINT_VERSION = 1;
export const indexKey = 'toolgate.checkpoints';
export const taskKeyPrefix = 'toolgate.checkpoints.task.';

const Id = z.string().check(z.minLength(1), z.maxLength(200));
const Time = z.string().check(z.minLength(1), z.maxLength(40));

export const StoredFileEntry = z.strictObject({
  kind: z.literal('file'),
  /** The key the wiring reads and writes the file by (an absolute path). */
  path: z.string().check(z.minLength(1)),
  /** For display: relative to the workspace folder. */
  relativePath: z.optional(z.string()),
  tool: z.string(),
  at: Time,
  /** Hash of the text before the change; null when the file did not exist. */
  before: z.nullable(TextHash),
  /** Hash of the text the change left; null when it removed the file. */
  after: z.nullable(TextHash),
});

export const StoredCommandEntry = z.strictObject({
  kind: z.literal('command'),
  command: z.string(),
  cwd: z.string(),
  at: Time,
  exitCode: z.optional(z.nullable(z.int())),
  git: z.optional(CommandGitEffect),
  /** It ran staged: the text files it changed were recorded as file entries when they landed. */
  staged: z.optional(z.boolean()),
  /**
   * It ran unstaged, and these files git saw it touch (relative to the repository) were recorded as file entries from
   * their text in HEAD (or their absence) before it and on disk after it: they are undone like edits.
   */
  recovered: z.optional(z.array(z.string())),
});
export type StoredCommandEntry = z.infer<typeof StoredCommandEntry>;

/** Files a staged command wrote that landed without review (ignored by the folder's repository, git's data), grouped. */
export const StoredUnreviewedEntry = z.strictObject({
  kind: z.literal('unreviewed'),
  command: z.string(),
  at: Time,
  groups: z.array(z.strictObject({ path: z.string().check(z.minLength(1)), files: z.int().check(z.positive()) })).check(z.maxLength(maxGroups)),
  /** Files past the groups kept. */
  more: z.optional(z.int().check(z.nonnegative())),
});
export type StoredUnreviewedEntry = z.infer<typeof StoredUnreviewedEntry>;

export const StoredTurn = z.strictObject({
  turn: z.int().check(z.nonnegative()),
  startedAt: Time,
  undoneAt: z.optional(Time),
  entries: z.array(z.discriminatedUnion('kind', [StoredFileEntry, StoredCommandEntry, StoredUnreviewedEntry])),
});
export type StoredTurn = z.infer<typeof StoredTurn>;

export const StoredTask = z.strictObject({
  version: z.literal(CHECKPOINT_VERSION),
  chatId: Id,
  taskId: Id,
  title: z.optional(z.string().check(z.maxLength(500))),
  startedAt: Time,
  /** Turns, oldest first. */
  turns: z.array(StoredTurn),
  /** Turns of this task dropped to stay within the budget (their changes can no longer be undone). */
  droppedTurns: z.array(z.int().check(z.nonnegative())),
  texts: TextTable,
});
export type StoredTask = z.infer<typeof StoredTask>;

export const DropNote = z.strictObject({
  kind: z.enum(['task-dropped', 'turns-dropped', 'turn-not-recorded', 'unreadable']),
  chatId: z.string(),
  taskId: z.string(),
  turns: z.optional(z.array(z.int().check(z.nonnegative()))),
  /** Size of what was dropped. */
  bytes: z.optional(z.int().check(z.nonnegative())),
  at: Time,
  message: z.string(),
});
export type DropNote = z.infer<typeof DropNote>;

export const IndexEntry = z.strictObject({
  chatId: Id,
  taskId: Id,
  title: z.optional(z.string().check(z.maxLength(500))),
  /** Creation order; also names the task's key. */
  seq: z.int().check(z.nonnegative()),
  startedAt: Time,
  updatedAt: Time,
  /** Size of the task's stored value (UTF-8 bytes of its JSON). */
  bytes: z.int().check(z.nonnegative()),
  turns: z.array(z.strictObject({ turn: z.int().check(z.nonnegative()), undone: z.boolean() })),
  droppedTurns: z.array(z.int().check(z.nonnegative())),
});
export type IndexEntry = z.infer<typeof IndexEntry>;

export const CheckpointIndex = z.strictObject({
  version: z.literal(CHECKPOINT_VERSION),
  /** Incremented on every change. */
  revision: z.int().check(z.nonnegative()),
  nextSeq: z.int().check(z.nonnegative()),
  /** Oldest first. */
  tasks: z.array(IndexEntry),
  /** Newest last, at most MAX_NOTES. */
  notes: z.array(DropNote),
});
export type CheckpointIndex = z.infer<typeof CheckpointIndex>;

// ---------------------------------------------------------------------------------------------------------------------
// Records as the store hands them out (texts resolved)

/** A file's content at one moment: its text, or null when it does not exist. */
export type FileContent = string | null;

export interface FileChangeRecord {
  kind: 'file';
  path: string;
  relativePath?: string;
  tool: string;
  at: string;
  before: FileContent;
  after: FileContent;
  /** SHA-256 of the texts; null when the file did not exist. */
  beforeHash: string | null;
  afterHash: string | null;
}

export interface CommandRecord {
  kind: 'command';
  command: string;
  cwd: string;
  at: string;
  exitCode?: number | null;
  git?: CommandGitEffect;
  /** It ran staged: the text files it changed are file records of their own, undone like edits. */
  staged?: boolean;
  /** Files it touched that are file records of their own (see StoredCommandEntry.recovered). */
  recovered?: string[];
}

/** What of a staged command landed without review: never undone (nothing holds its before), always counted. */
export interface UnreviewedRecord {
  kind: 'unreviewed';
  command: string;
  at: string;
  groups: LandedGroup[];
  more?: number;
}

export interface TurnRecord {
  turn: number;
  startedAt: string;
  undoneAt?: string;
  /** In the order they happened. */
  changes: (FileChangeRecord | CommandRecord | UnreviewedRecord)[];
}

export interface TaskRecord {
  chatId: string;
  taskId: string;
  title?: string;
  startedAt: string;
  /** Oldest first. */
  turns: TurnRecord[];
  droppedTurns: number[];
}
