/**
 * A task's "changes" entry in its chat: the files it changed, listed at its end from its checkpoints (each with its
 * counts and a link to its diff), and listed again after an undo of the task.
 */
import { randomUUID } from 'node:crypto';
import { landedFiles } from '../checkpoints/landedUnreviewed';
import type { TaskRef } from '../checkpoints/recorder';
import { listsChanges, type TaskChanges } from '../checkpoints/taskChanges';
import type { LogPort } from '../tools/ports';
import type { ChatEntry } from '../../shared/messages';
import type { ChatBook, ChatRecord } from './chats';

/** The most files a task's "changes" entry lists; past it, it says how many more. */
const maxListedChanges = 200;

/** What listing a task's changes reaches: the chats, the task's checkpoints, the log. */
export interface TaskChangesPorts {
  chats: Pick<ChatBook, 'current' | 'push' | 'update'>;
  /** What a task changed, from its checkpoints (undefined: none were kept); listed in the chat when it ends. */
  taskChanges?: (task: TaskRef) => Promise<TaskChanges | undefined>;
  log: LogPort;
}

type ChangesListed = Pick<Extract<ChatEntry, { kind: 'changes' }>, 'files' | 'commands' | 'more' | 'unreviewed'>;

/** A task's changes as its chat entry lists them: at most `maxListedChanges` files and groups, the rest counted. */
function changesListed(changes: TaskChanges): ChangesListed {
  const listed = changes.files.slice(0, maxListedChanges);
  return {
    files: listed.map(({ shown, kind, added, removed }) => ({ file: shown, change: kind, added, removed })),
    commands: changes.commands,
    ...(changes.files.length > listed.length ? { more: changes.files.length - listed.length } : {}),
    ...(changes.unreviewed.length > 0 ? { unreviewed: { groups: changes.unreviewed.slice(0, maxListedChanges), more: changes.unreviewedMore + landedFiles(changes.unreviewed.slice(maxListedChanges)) } } : {}),
  };
}

/** At a task's end, the files it changed, each with its counts and a link to its diff (nothing when none). */
export async function listTaskChanges(task: TaskRef, chat: ChatRecord, ports: TaskChangesPorts): Promise<void> {
  let changes: TaskChanges | undefined;
  try {
    changes = await ports.taskChanges?.(task);
  } catch (error) {
    ports.log.warn(`the task's changes could not be read from its checkpoints: ${String(error)}`);
  }
  if (changes === undefined || !listsChanges(changes)) {
    return;
  }
  ports.chats.push({ kind: 'changes', id: `c-${randomUUID()}`, v: 1, taskId: task.taskId, ...changesListed(changes) }, chat);
}

/**
 * After an undo of a task of the chat shown: its list of changes says what is left (a file put back is no longer
 * listed; what landed without review stays, as the undo cannot revert it).
 */
export async function refreshTaskChanges(taskId: string, ports: TaskChangesPorts): Promise<void> {
  const chat = ports.chats.current;
  const entries = chat.entries.filter((entry): entry is Extract<ChatEntry, { kind: 'changes' }> => entry.kind === 'changes' && entry.taskId === taskId);
  if (entries.length === 0) {
    return;
  }
  let changes: TaskChanges | undefined;
  try {
    changes = await ports.taskChanges?.({ chatId: chat.id, taskId });
  } catch (error) {
    ports.log.warn(`the task's changes could not be read from its checkpoints after the undo: ${String(error)}`);
  }
  const listed: ChangesListed = changes === undefined ? { files: [], commands: 0 } : changesListed(changes);
  for (const entry of entries) {
    // A field the new list has not (a cut list's `more`) goes.
    delete entry.more;
    delete entry.unreviewed;
    ports.chats.update(entry, listed);
  }
}
