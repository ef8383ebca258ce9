/**
 * The chats of a workspace: kept in a key-value store (VS Code's workspace state) across reloads, at most 20 chats of
 * at most 400 entries each, the oldest dropped first. The current chat's transcript is what the chat view shows;
 * changes are saved, coalesced, 300 ms after they happen.
 */
import { randomUUID } from 'node:crypto';
import * as z from '../../zod';
import type { KeyValueStore } from '../storage/keyValueStore';
import { Emitter, type Disposable } from '../disposable';
import type { ChatMessage, ModelErrorKind } from '../llm/client';
import type { ChatEntry } from '../../shared/messages';
import { messageSchemas } from '../protocolSchemas';
import type { LogPort } from '../tools/ports';

const StoredMessage = z.strictObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.nullable(z.string()),
  toolCalls: z.optional(z.array(z.strictObject({ id: z.string(), name: z.string(), arguments: z.string() }))),
  toolCallId: z.optional(z.string()),
});

/**
 * The stored chats' schema, built when stored chats are first read: its entries are the webview protocol's, which the
 * host builds only when it needs them (src/core/protocolSchemas.ts).
 */
function storedChatsSchema() {
  const ChatRecord = z.strictObject({
    id: z.string(),
    title: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    /** The conversation up to the last completed turn (saved after every turn, so a reload loses at most one). */
    messages: z.array(StoredMessage),
    entries: z.array(messageSchemas().ChatEntry),
    /** The task under way (`running`), or one a window reload cut off (`interrupted`, until it is resumed or replaced). */
    task: z.optional(z.strictObject({ prompt: z.string(), state: z.enum(['running', 'interrupted']) })),
  });
  return z.strictObject({
    version: z.literal(1),
    revision: z.int().check(z.nonnegative()),
    currentId: z.string(),
    chats: z.array(ChatRecord),
  });
}
export type ChatRecord = z.infer<ReturnType<typeof storedChatsSchema>>['chats'][number];

export const chatsKey = 'toolgate.chats';
export const maxChats = 20;
export const maxEntries = 400;
const saveDelayMs = 300;

export type NoticeActions = Extract<ChatEntry, { kind: 'notice' }>['actions'];

/** A stored message as the client's type (optional fields absent rather than undefined). */
export function toChatMessage(stored: z.infer<typeof StoredMessage>): ChatMessage {
  return {
    role: stored.role,
    content: stored.content,
    ...(stored.toolCalls !== undefined ? { toolCalls: stored.toolCalls } : {}),
    ...(stored.toolCallId !== undefined ? { toolCallId: stored.toolCallId } : {}),
  };
}

export class ChatBook implements Disposable {
  private chats: ChatRecord[] = [];
  private currentChat: ChatRecord;
  private revision = 0;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  /** A save `saveNow` asked for, not started yet; then the one under way (see `whenSaved`). */
  private urgentAsked: { promise: Promise<void>; resolve: () => void } | undefined;
  private urgentSaving: Promise<void> | undefined;
  private readonly onDidChangeEmitter = new Emitter<void>();
  /** The current chat, or which chat is current, changed. */
  readonly onDidChange = this.onDidChangeEmitter.event;

  constructor(
    private readonly store: KeyValueStore,
    private readonly log: LogPort,
    private readonly now: () => Date = () => new Date(),
  ) {
    const raw = store.get(chatsKey);
    const parsed = raw === undefined ? undefined : storedChatsSchema().safeParse(raw);
    if (parsed && !parsed.success) {
      log.warn('ignored the stored chats: they do not fit the expected format');
    }
    if (parsed?.success) {
      this.chats = parsed.data.chats;
      this.revision = parsed.data.revision;
      // A failed turn can be retried only in the window it failed in: its Retry button does not come back.
      for (const entry of this.chats.flatMap((chat) => chat.entries)) {
        if (entry.kind === 'notice' && entry.retry === true) {
          entry.retry = false;
        }
      }
      // A task that was running when the window went away: nothing of it still runs or waits, and it can be resumed.
      for (const chat of this.chats.filter((candidate) => candidate.task?.state === 'running')) {
        interruptTask(chat);
      }
    }
    this.currentChat = this.chats.find((chat) => chat.id === (parsed?.success ? parsed.data.currentId : '')) ?? this.create();
  }

  get current(): ChatRecord {
    return this.currentChat;
  }

  /** The chats, most recently changed first. */
  list(): { id: string; title: string; updatedAt: string }[] {
    return [...this.chats].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)).map(({ id, title, updatedAt }) => ({ id, title, updatedAt }));
  }

  /** A chat is named after its first task; until then the list says it has none (not a third "New chat"). */
  private create(): ChatRecord {
    const now = this.now().toISOString();
    const chat: ChatRecord = { id: `chat-${randomUUID()}`, title: 'No task yet', createdAt: now, updatedAt: now, messages: [], entries: [] };
    this.chats.push(chat);
    while (this.chats.length > maxChats) {
      this.chats.shift();
    }
    return chat;
  }

  /** Starts a new, empty chat and makes it current. */
  startNew(): ChatRecord {
    this.currentChat = this.create();
    this.changed();
    return this.currentChat;
  }

  /** Makes a stored chat current; false if there is none with that id. */
  open(id: string): boolean {
    const chat = this.chats.find((candidate) => candidate.id === id);
    if (!chat) {
      return false;
    }
    this.currentChat = chat;
    this.changed();
    return true;
  }

  /** Something in the current chat changed: tell the views now, save soon. */
  changed(): void {
    this.touched();
    this.saveTimer ??= setTimeout(() => {
      this.saveTimer = undefined;
      this.saveAsked();
    }, saveDelayMs);
  }

  private touched(): void {
    this.currentChat.updatedAt = this.now().toISOString();
    this.onDidChangeEmitter.fire();
  }

  private async save(): Promise<void> {
    this.revision += 1;
    try {
      await this.store.update(chatsKey, { version: 1, revision: this.revision, currentId: this.currentChat.id, chats: this.chats.map(boundedForStorage) });
    } catch (error) {
      this.log.error(`could not save the chats: ${String(error)}`);
    }
  }

  /** Adds an entry to a chat's transcript (the current one by default), dropping the oldest past the limit. */
  push<T extends ChatEntry>(entry: T, chat: ChatRecord = this.currentChat): T {
    chat.entries.push(entry);
    if (chat.entries.length > maxEntries) {
      chat.entries.splice(0, chat.entries.length - maxEntries);
    }
    this.changed();
    return entry;
  }

  /** Changes an entry in place; its version goes up so the view re-renders it. */
  update<T extends ChatEntry>(entry: T, change: Partial<T>): void {
    Object.assign(entry, change, { v: entry.v + 1 });
    this.changed();
  }

  notice(text: string, level: 'info' | 'error' = 'info', actions?: NoticeActions): void {
    this.push({ kind: 'notice', id: `n-${randomUUID()}`, v: 1, level, text, ...(actions !== undefined ? { actions } : {}) });
  }

  /**
   * Saves right after this burst of changes, not in 300 ms: a task started, or a call began to wait or to run; a reload
   * right after must find it. Changes of one tick (a batch of calls) are saved once.
   */
  saveNow(): void {
    this.touched();
    if (this.urgentAsked !== undefined) {
      // This tick's save is already due (asked for with the timer below, and not started): it takes this change too.
      return;
    }
    if (this.saveTimer !== undefined) {
      clearTimeout(this.saveTimer);
    }
    let resolve: () => void = () => undefined;
    const promise = new Promise<void>((done) => {
      resolve = done;
    });
    this.urgentAsked = { promise, resolve };
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.saveAsked();
    }, 0);
  }

  /** Saves now; what `saveNow` asked for is in the store when this save is. */
  private saveAsked(): void {
    const asked = this.urgentAsked;
    this.urgentAsked = undefined;
    const saving = this.save().then(() => asked?.resolve());
    if (asked !== undefined) {
      this.urgentSaving = saving;
      void saving.then(() => {
        if (this.urgentSaving === saving) {
          this.urgentSaving = undefined;
        }
      });
    }
  }

  /**
   * Resolves once what `saveNow` was asked to save is in the store (at once when nothing is). The chat view shows a
   * call waiting or running only after that: a window reloaded the moment it shows must find the same in the stored
   * chat, or it would say a call that only waited "may have run in part" (chatProgress.e2e.ts, under load).
   */
  whenSaved(): Promise<void> {
    return this.urgentAsked?.promise ?? this.urgentSaving ?? Promise.resolve();
  }

  /** Saves what is pending now (the window is closing). */
  dispose(): void {
    if (this.saveTimer !== undefined) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
      this.saveAsked();
    }
    this.onDidChangeEmitter.dispose();
  }
}

/** The most of one text a stored chat keeps: an answer of megabytes is kept as its head and tail. */
export const maxStoredTextChars = 32_000;

function boundedText(text: string): string {
  if (text.length <= maxStoredTextChars) {
    return text;
  }
  const half = maxStoredTextChars / 2;
  return `${text.slice(0, half)}\n[… ${(text.length - maxStoredTextChars).toLocaleString('en-US')} characters not kept in the stored chat …]\n${text.slice(-half)}`;
}

/** A chat as it is stored: every long text (answers, results, the conversation for the model) cut to its head and tail. */
function boundedForStorage(chat: ChatRecord): ChatRecord {
  const entries = chat.entries.map((entry): ChatEntry => {
    switch (entry.kind) {
      case 'user':
      case 'assistant':
      case 'notice':
        return entry.text.length > maxStoredTextChars ? { ...entry, text: boundedText(entry.text) } : entry;
      case 'tool':
        return entry.output !== undefined && entry.output.length > maxStoredTextChars ? { ...entry, output: boundedText(entry.output) } : entry;
      case 'question':
      case 'changes':
        return entry;
    }
  });
  const messages = chat.messages.map((message) => (message.content !== null && message.content.length > maxStoredTextChars ? { ...message, content: boundedText(message.content) } : message));
  return { ...chat, entries, messages };
}

/** Marks a task cut off by a reload: what waited was not run, what ran may have run in part; a notice offers Resume. */
function interruptTask(chat: ChatRecord): void {
  let notRun = 0;
  let cutOff = 0;
  for (const entry of chat.entries) {
    if (entry.kind === 'tool' && entry.status === 'waiting') {
      notRun += 1;
      Object.assign(entry, { status: 'interrupted', output: 'Not run: the window was reloaded while this call waited for approval.', v: entry.v + 1 });
    } else if (entry.kind === 'tool' && entry.status === 'running') {
      cutOff += 1;
      Object.assign(entry, { status: 'interrupted', output: 'Interrupted: the window was reloaded while this ran; it may have run in part.', v: entry.v + 1 });
    } else if (entry.kind === 'question' && entry.answer === undefined) {
      Object.assign(entry, { answer: '(not answered: the window was reloaded)', v: entry.v + 1 });
    } else if (entry.kind === 'assistant' && entry.streaming) {
      Object.assign(entry, { streaming: false, v: entry.v + 1 });
      delete entry.since;
    } else if (entry.kind === 'notice' && entry.retryAt !== undefined) {
      delete entry.retryAt;
      entry.v += 1;
    }
  }
  const what = [notRun > 0 ? `${notRun} call${notRun === 1 ? '' : 's'} that waited for approval ${notRun === 1 ? 'was' : 'were'} not run` : '', cutOff > 0 ? `${cutOff} that ran may have run in part` : '']
    .filter((part) => part !== '')
    .join('; ');
  chat.entries.push({
    kind: 'notice',
    id: `n-${randomUUID()}`,
    v: 1,
    level: 'info',
    text: `This task was interrupted by a window reload${what === '' ? '' : `: ${what}`}. Resume continues it from its last completed step, and the model is told what happened.`,
    resume: true,
  });
  chat.task = { prompt: chat.task?.prompt ?? '', state: 'interrupted' };
}

/**
 * What the person can do about a model error, by its kind: the key for a refused one, the chat's model setup and the
 * settings for a wrong address, model or a model without tools; a passing failure (rate limit, server error, dropped
 * stream) is the notice's own Retry.
 */
export function modelFailureActions(kind: ModelErrorKind | undefined): NonNullable<NoticeActions> {
  const setup = { command: 'setUpModel' as const, label: 'Set up the model' };
  const settings = { command: 'openModelSettings' as const, label: 'Open the model settings' };
  switch (kind) {
    case 'auth':
      return [{ command: 'setApiKey', label: 'Set API Key' }, setup, settings];
    case 'unreachable':
    case 'model-not-found':
    case 'no-tool-support':
    case 'refused':
      return [setup, settings];
    case 'rate-limited':
    case 'server':
    case 'bad-response':
    case 'cancelled':
    case undefined:
      return [];
  }
}
