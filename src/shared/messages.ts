/**
 * The host <-> webview contract. Every message crossing the boundary is parsed with these schemas from `unknown`;
 * a message that does not validate is dropped (and the host logs it). Types are inferred, never cast.
 */
import * as z from '../zod';
import { AllowedByView, BatchMessage, CallId, DecideMessage, DiffMode, DiffRows, GrantView, HunkChoiceMessage, LoadDiffRowsMessage, OpenArgsMessage, OpenDiffMessage, PendingCallView, RevokeGrantMessage, SetDiffModeMessage, SetEditMessage } from './approvals';
import { ModelSetupMessage, ModelSetupView } from './modelSetup';
import { AcceptSuggestionMessage, SuggestionsState } from './suggestions';

export const viewKinds = ['chat', 'approvals', 'suggestions'] as const;
export const ViewKind = z.enum(viewKinds);
export type ViewKind = z.infer<typeof ViewKind>;

/** Correlates a request from the webview with the host's answer. Short, printable, bounded. */
export const RequestId = z.string().check(z.minLength(1), z.maxLength(64), z.regex(/^[A-Za-z0-9_-]+$/));

/** Host commands a webview may ask for. Anything else is not in the contract and is dropped. */
export const hostCommands = [
  'openApprovals',
  'showAuditLog',
  'setApiKey',
  'focusChat',
  'resetWorkspaceApprovals',
  // VS Code's Workspace Trust editor, where the folder can be trusted.
  'manageWorkspaceTrust',
  // The Settings editor at the model settings (provider, address, model).
  'openModelSettings',
  // The Settings editor at the rules that let calls run without asking (named by an auto-approved call in the chat).
  'openTerminalRules',
  'openEditRules',
  'openGatedTools',
  // What the staged command running now has changed so far (a quick pick, each file's diff).
  'showStagedChanges',
  // The chat's model setup (provider, address, model, key, Test connection), opened in the chat.
  'setUpModel',
] as const;
export const HostCommand = z.enum(hostCommands);
export type HostCommand = z.infer<typeof HostCommand>;

export const ReadyMessage = z.strictObject({
  type: z.literal('ready'),
  requestId: RequestId,
  view: ViewKind,
});

export const CommandMessage = z.strictObject({
  type: z.literal('command'),
  requestId: RequestId,
  command: HostCommand,
});

const ChatRequestId = RequestId;
export const SubmitMessage = z.strictObject({ type: z.literal('submit'), requestId: ChatRequestId, prompt: z.string().check(z.minLength(1), z.maxLength(100_000)) });
export const StopMessage = z.strictObject({ type: z.literal('stop'), requestId: ChatRequestId });
export const NewChatMessage = z.strictObject({ type: z.literal('newChat'), requestId: ChatRequestId });
export const OpenChatMessage = z.strictObject({ type: z.literal('openChat'), requestId: ChatRequestId, chatId: z.string().check(z.minLength(1), z.maxLength(80)) });
export const AnswerMessage = z.strictObject({
  type: z.literal('answer'),
  requestId: ChatRequestId,
  questionId: z.string().check(z.minLength(1), z.maxLength(200)),
  answer: z.string().check(z.minLength(1), z.maxLength(4000)),
});

/** Run the model turn that failed again, with the same history (the chat's Retry button). */
export const RetryMessage = z.strictObject({ type: z.literal('retry'), requestId: ChatRequestId });
/** Open the whole of a tool result that was too long for the model: the chat entry that shows it, by id. */
export const OpenResultMessage = z.strictObject({ type: z.literal('openResult'), requestId: ChatRequestId, entryId: z.string().check(z.minLength(1), z.maxLength(80)) });
/**
 * Open one file of a finished task's changes as a diff (its text before the task and after it): the chat entry that
 * lists them, by id, and the file as that entry shows it. The host reads both texts from its checkpoints, never a path.
 */
export const OpenTaskChangeMessage = z.strictObject({
  type: z.literal('openTaskChange'),
  requestId: ChatRequestId,
  entryId: z.string().check(z.minLength(1), z.maxLength(80)),
  file: z.string().check(z.minLength(1), z.maxLength(4096)),
});
/** Open what a finished write or edit of the chat changed, as a diff: the tool entry, by id (the host reads the rest). */
export const OpenCallChangeMessage = z.strictObject({ type: z.literal('openCallChange'), requestId: ChatRequestId, entryId: z.string().check(z.minLength(1), z.maxLength(80)) });
/**
 * "Undo this turn" in the transcript: `previewUndo` asks what undoing the model turn of a tool entry would revert and
 * keep (nothing is written); `undoTurn` undoes it. The entry, by id: the host reads its task and turn from its own entry.
 */
export const PreviewUndoMessage = z.strictObject({ type: z.literal('previewUndo'), requestId: ChatRequestId, entryId: z.string().check(z.minLength(1), z.maxLength(80)) });
export const UndoTurnMessage = z.strictObject({ type: z.literal('undoTurn'), requestId: ChatRequestId, entryId: z.string().check(z.minLength(1), z.maxLength(80)) });
/** Continue the chat's task that a window reload interrupted, from its last completed turn. */
export const ResumeMessage = z.strictObject({ type: z.literal('resume'), requestId: ChatRequestId });

/** A waiting call's card got the keyboard focus (`callId`), or no card of the view holds it now (`null`). */
export const FocusCallMessage = z.strictObject({ type: z.literal('focusCall'), requestId: RequestId, callId: z.nullable(CallId) });

/**
 * Why a webview dropped a message posted into its frame: the browser delivers a message from any frame of the window that
 * can reach it (`window.top.frames`), and only VS Code's frame around the view speaks for the host
 * (webview/shared/foreignMessages.ts). `own-frame`: posted (or dispatched) by the view's own page; `other-frame`: by
 * another frame of the window, such as another extension's webview or a web page in the Simple Browser.
 */
export const DropReason = z.enum(['own-frame', 'other-frame']);
export type DropReason = z.infer<typeof DropReason>;

/**
 * The webview dropped messages that did not come from VS Code's frame: told to the host for its log. `count`: how many
 * since the last report (the webview reports at most once a second, a report for each reason, so a flood is a few lines).
 */
export const DroppedMessage = z.strictObject({
  type: z.literal('dropped'),
  requestId: RequestId,
  reason: DropReason,
  count: z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER)),
});

/** A drop report as a log line says it, in the host's log and the webview's console alike. */
export function describeDrop(reason: DropReason, count: number): string {
  const messages = count === 1 ? 'a message' : `${count} messages`;
  return reason === 'own-frame'
    ? `dropped ${messages} from its own frame (posted inside the view, not by VS Code): not shown`
    : `dropped ${messages} from another frame (another webview or page of the window, not VS Code): not shown`;
}

export const WebviewToHost = z.discriminatedUnion('type', [
  ReadyMessage,
  CommandMessage,
  DroppedMessage,
  SubmitMessage,
  StopMessage,
  NewChatMessage,
  OpenChatMessage,
  AnswerMessage,
  RetryMessage,
  ResumeMessage,
  OpenResultMessage,
  OpenTaskChangeMessage,
  OpenCallChangeMessage,
  PreviewUndoMessage,
  UndoTurnMessage,
  FocusCallMessage,
  DecideMessage,
  HunkChoiceMessage,
  SetEditMessage,
  BatchMessage,
  OpenDiffMessage,
  OpenArgsMessage,
  LoadDiffRowsMessage,
  RevokeGrantMessage,
  AcceptSuggestionMessage,
  SetDiffModeMessage,
  ModelSetupMessage,
]);
export type WebviewToHost = z.infer<typeof WebviewToHost>;

/** The messages each view may send; a valid message of the other view's kind is dropped too. */
export const inboundTypes = {
  // 'loadDiffRows': the rest of a long diff the card got the first rows of.
  // 'openArgs': a waiting call's whole arguments, opened in an editor (the cards show long values cut).
  // 'decide' and 'openDiff': the inline cards of the chat's own waiting calls (the host checks id and hash as for the panel).
  // 'revokeGrant': the grant an auto-approved call of the chat names (the host revokes only a grant that exists).
  // 'chooseHunk': a hunk of a waiting diff accepted or rejected; the host holds the choice for every view.
  // 'decideAll': Allow all / Deny all of the cards the chat shows (the host refuses a call that is not the chat's own).
  // 'openTaskChange': a file of a finished task's changes, opened as its diff; 'openCallChange': a finished write's.
  // 'modelSetup': the model setup form (its models, Test connection, Save, the key for its address).
  // 'previewUndo' / 'undoTurn': a model turn's Undo, previewed then done, from the transcript.
  // 'dropped': every view reports the messages it refused from frames other than VS Code's (logged, nothing else).
  chat: ['ready', 'command', 'dropped', 'submit', 'stop', 'newChat', 'openChat', 'answer', 'retry', 'resume', 'openResult', 'openTaskChange', 'openCallChange', 'previewUndo', 'undoTurn', 'decide', 'chooseHunk', 'setEdit', 'decideAll', 'openDiff', 'openArgs', 'loadDiffRows', 'focusCall', 'revokeGrant', 'modelSetup'],
  approvals: ['ready', 'command', 'dropped', 'decide', 'chooseHunk', 'setEdit', 'decideAll', 'openDiff', 'openArgs', 'loadDiffRows', 'revokeGrant', 'focusCall', 'setDiffMode'],
  suggestions: ['ready', 'command', 'dropped', 'acceptSuggestion'],
} as const satisfies Record<ViewKind, readonly WebviewToHost['type'][]>;
export type InboundFor<V extends ViewKind> = Extract<WebviewToHost, { type: (typeof inboundTypes)[V][number] }>;

/** `interrupted`: the window was reloaded while the call waited (not run) or ran (it may have run in part). */
/** A kept tool result's name: letters, digits and dashes only (it names a file in Toolgate's storage). */
export const ResultRef = z.string().check(z.regex(/^[A-Za-z0-9-]{1,80}$/));

export const ToolStatus = z.enum(['waiting', 'running', 'done', 'denied', 'failed', 'interrupted']);

/** A model turn of a task of this chat. */
export const TurnRef = z.strictObject({ taskId: z.string().check(z.minLength(1), z.maxLength(80)), turn: z.int().check(z.nonnegative()) });
export type TurnRef = z.infer<typeof TurnRef>;

/**
 * What became of the files a staged command changed, for its entry ("landed 5 files, rejected 2"): reviewed files that
 * landed whole and in part, those the person rejected, those that could not land, and files that landed without review.
 */
export const LandedView = z.strictObject({
  landed: z.int().check(z.nonnegative()),
  partly: z.int().check(z.nonnegative()),
  rejected: z.int().check(z.nonnegative()),
  notLanded: z.int().check(z.nonnegative()),
  withoutReview: z.int().check(z.nonnegative()),
});
export type LandedView = z.infer<typeof LandedView>;

/** One entry of the transcript. `v` changes whenever the entry does, so the view re-renders only what changed. */
export const ChatEntry = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('user'), id: z.string(), v: z.number(), text: z.string() }),
  z.strictObject({
    kind: z.literal('assistant'),
    id: z.string(),
    v: z.number(),
    text: z.string(),
    streaming: z.boolean(),
    /** When the request for this turn was sent (ms since epoch): the view counts "Working…" from it until text comes. */
    since: z.optional(z.number()),
  }),
  z.strictObject({
    kind: z.literal('tool'),
    id: z.string(),
    v: z.number(),
    name: z.string(),
    summary: z.string(),
    status: ToolStatus,
    output: z.optional(z.string()),
    /** Ran without asking: the rule or grant that allowed it. */
    allowedBy: z.optional(AllowedByView),
    /** The person allowed it with a new grant: what that grant covers (listed in the Approvals panel, revocable). */
    granted: z.optional(GrantView),
    /** The person edited the command before allowing it: what actually ran. */
    ran: z.optional(z.string()),
    /** A staged command: what became of the files it changed. */
    landed: z.optional(LandedView),
    /** The result was too long for the model (`output` is its head and tail): the whole of it, opened by `openResult`. */
    fullResult: z.optional(z.strictObject({ ref: ResultRef, chars: z.int().check(z.nonnegative()) })),
    /** A write or edit that ran: where its change is kept (the task, the model turn, the file as the call named it). */
    change: z.optional(z.strictObject({ taskId: z.string().check(z.minLength(1), z.maxLength(80)), turn: z.int().check(z.nonnegative()), file: z.string() })),
    /** The task and model turn (0-based) the call was made in: the turn's Undo sits under its last call. */
    step: z.optional(TurnRef),
  }),
  z.strictObject({
    kind: z.literal('question'),
    id: z.string(),
    v: z.number(),
    question: z.string(),
    options: z.array(z.string()),
    allowFreeText: z.boolean(),
    answer: z.optional(z.string()),
  }),
  z.strictObject({
    kind: z.literal('notice'),
    id: z.string(),
    v: z.number(),
    level: z.enum(['info', 'error']),
    text: z.string(),
    /** Buttons that run a host command: what the person can do about it, in one click. */
    actions: z.optional(z.array(z.strictObject({ command: HostCommand, label: z.string() }))),
    /** A model error: true while the failed turn can be run again (a Retry button); false once it was. */
    retry: z.optional(z.boolean()),
    /** A request that is tried again: when (ms since epoch); the view counts down to it. Gone once it was sent. */
    retryAt: z.optional(z.number()),
    /** A task a window reload interrupted: true while it can be resumed (a Resume button); false once it was. */
    resume: z.optional(z.boolean()),
  }),
  /** What a task changed, at its end: each file with its lines added and removed, a link to its diff. */
  z.strictObject({
    kind: z.literal('changes'),
    id: z.string(),
    v: z.number(),
    /** The task of this chat whose checkpoints hold the texts. */
    taskId: z.string().check(z.minLength(1), z.maxLength(80)),
    files: z.array(z.strictObject({
      /** As shown (relative to the workspace folder), and how the host finds it again in the task's checkpoints. */
      file: z.string(),
      change: z.enum(['created', 'modified', 'deleted']),
      added: z.int().check(z.nonnegative()),
      removed: z.int().check(z.nonnegative()),
    })),
    /** Terminal commands the task ran (their changes are listed where they were recorded as files). */
    commands: z.int().check(z.nonnegative()),
    /** Files changed past the ones listed (a long list is cut). */
    more: z.optional(z.int().check(z.positive())),
    /**
     * Files its commands wrote that landed without review (no diff to open: nothing holds their before), grouped: a file,
     * or a folder's files (`path` ending in `/`); `more`: files past the groups.
     */
    unreviewed: z.optional(z.strictObject({
      groups: z.array(z.strictObject({ path: z.string(), files: z.int().check(z.positive()) })).check(z.maxLength(200)),
      more: z.int().check(z.nonnegative()),
    })),
  }),
]);
export type ChatEntry = z.infer<typeof ChatEntry>;

/** What undoing a turn would do, said before it is done (`PreviewLine` of the undo runner, for the chat). */
export const UndoPreviewView = z.strictObject({
  turn: z.int().check(z.nonnegative()),
  lines: z.array(z.strictObject({ group: z.enum(['revert', 'ask', 'keep', 'command']), text: z.string().check(z.maxLength(5000)) })).check(z.maxLength(1000)),
  notes: z.array(z.string().check(z.maxLength(2000))).check(z.maxLength(50)),
  /** Undo is offered: undoing would change something (the host decides; missing: not offered). */
  undoable: z._default(z.boolean(), false),
});
export type UndoPreviewView = z.infer<typeof UndoPreviewView>;

/** What the chat view shows: the current chat's transcript, whether a task runs, and the workspace's other chats. */
export const ChatState = z.strictObject({
  view: z.literal('chat'),
  model: z.strictObject({ baseUrl: z.string(), name: z.string(), provider: z.string() }),
  waitingCalls: z.int().check(z.nonnegative()),
  trusted: z.boolean(),
  chatId: z.string(),
  running: z.boolean(),
  entries: z.array(ChatEntry),
  /** The calls of this chat's agent that wait for the person, oldest first: the chat shows them as inline cards. */
  pending: z.array(PendingCallView),
  chats: z.array(z.strictObject({ id: z.string(), title: z.string(), updatedAt: z.string() })),
  /** What came of the model setup form: the stored key's address, the models loaded, the last test, the last save. */
  setup: ModelSetupView,
  /** The model turns of this chat's tasks that changed files (their checkpoints kept), and whether each was undone. */
  turns: z.array(z.extend(TurnRef, { undone: z.boolean() })).check(z.maxLength(10_000)),
});
export type ChatState = z.infer<typeof ChatState>;

/** What the approvals panel shows. The panel holds no truth: the host sends this state whole, then as patches (statePatch.ts). */
export const ApprovalsState = z.strictObject({
  view: z.literal('approvals'),
  waitingCalls: z.int().check(z.nonnegative()),
  trusted: z.boolean(),
  pending: z.array(PendingCallView),
  grants: z.array(GrantView),
  /** The agent's ask_user questions waiting for an answer in the chat, oldest first: the panel says so when no call waits. */
  questions: z.optional(z.array(z.strictObject({ id: z.string(), question: z.string() }))),
  /** How diffs open: the person's last choice in this workspace (unified when never chosen). */
  diffMode: z.optional(DiffMode),
});
export type ApprovalsState = z.infer<typeof ApprovalsState>;

export const ViewState = z.discriminatedUnion('view', [ChatState, ApprovalsState, SuggestionsState]);
export type ViewState = z.infer<typeof ViewState>;

export const HostToWebview = z.discriminatedUnion('type', [
  /**
   * The answer to `ready`: the first message the host posts to a webview. `sentAt`: host clock, ms since epoch;
   * `version`: what later patches build on (see statePatch.ts).
   */
  z.strictObject({ type: z.literal('init'), requestId: RequestId, state: ViewState, sentAt: z.number(), version: z.optional(z.int()) }),
  /** A later change of state, pushed by the host whole. */
  z.strictObject({ type: z.literal('state'), state: ViewState, sentAt: z.number(), version: z.optional(z.int()) }),
  /** A later change of state as a patch of version `base`: the state without its keyed lists, and what changed in them. */
  z.strictObject({
    type: z.literal('patch'),
    sentAt: z.number(),
    /** How long the host took from `sentAt` to build, diff and check this message before posting it (ms). */
    builtMs: z.optional(z.number().check(z.nonnegative())),
    base: z.int(),
    version: z.int(),
    state: ViewState,
    pending: z.optional(z.strictObject({ order: z.array(z.string().check(z.maxLength(200))), upsert: z.array(PendingCallView) })),
    entries: z.optional(z.strictObject({ order: z.array(z.string().check(z.maxLength(200))), upsert: z.array(ChatEntry) })),
  }),
  /** Put the keyboard focus in a field of the view: the chat's prompt (Toolgate: Focus the Chat Prompt), or its model setup, opened. */
  z.strictObject({ type: z.literal('focus'), field: z.enum(['prompt', 'model-setup']) }),
  /** Bring a waiting call's card into view with the keyboard focus (a keyboard decision never acts on a card unseen). */
  z.strictObject({ type: z.literal('focusCard'), callId: CallId }),
  /** Say something to a screen reader in the view's live region (a keyboard decision, echoed). */
  z.strictObject({ type: z.literal('announce'), text: z.string().check(z.maxLength(500)) }),
  /** The outcome of a `command` request. */
  z.strictObject({
    type: z.literal('result'),
    requestId: RequestId,
    ok: z.boolean(),
    error: z.optional(z.string()),
    /** The answer to `loadDiffRows`: each hunk's rows, in order. */
    diffRows: z.optional(z.array(DiffRows)),
    /** The answer to `previewUndo`: what undoing the turn would do, a line per file or command. */
    undoPreview: z.optional(UndoPreviewView),
  }),
]);
export type HostToWebview = z.infer<typeof HostToWebview>;

/** A short, single-line description of why a value failed a schema, for log lines. */
export function describeIssues(error: z.core.$ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
}
