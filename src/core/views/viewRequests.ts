/**
 * What the chat view and the approvals panel ask of the host (validated already by the webview channel), translated
 * into calls on the core: the gate, the grants, the agent's session, and the editors the host opens (ports).
 */
import { chatShowsCall } from '../callers';
import { pendingViews, type GateState } from './pendingCall';
import type { BatchMessage, DecideMessage, DiffMode, DiffRow, HunkChoiceMessage } from '../../shared/approvals';
import type { InboundFor, UndoPreviewView, ViewKind } from '../../shared/messages';
import type { ModelSetupMessage } from '../../shared/modelSetup';
import type { FocusedCalls } from './focusedCall';
import type { Gate } from '../approval/gate';
import type { GrantStore } from '../approval/grants';
import { undoWouldChange, type UndoPreview, type UndoRequest, type UndoResult } from '../checkpoints/undoRunner';

/** What a request got: done (with the data it asked for, if any), or refused with why. */
export type Outcome = { ok: true; diffRows?: DiffRow[][]; undoPreview?: UndoPreviewView } | { ok: false; error: string };
/** A view's request for the host, other than the channel's own (`ready`, `dropped`) and the contract's host commands. */
export type ViewRequest<V extends ViewKind> = Exclude<InboundFor<V>, { type: 'ready' | 'dropped' | 'command' }>;
export type ChatRequest = ViewRequest<'chat'>;
export type PanelRequest = ViewRequest<'approvals'>;

/** The gate as the views' requests reach it. */
type RequestGate = GateState & Pick<Gate, 'settle' | 'settleAll' | 'chooseHunk' | 'setEdit'>;

/** The chat's agent session, as its requests reach it (src/core/agent/session.ts). */
export interface ChatAgent {
  readonly chatId: string;
  readonly isRunning: boolean;
  turnOf(entryId: string): { chatId: string; taskId: string; turn: number } | undefined;
  keptResult(entryId: string): string | undefined;
  taskChange(entryId: string, file: string): { chatId: string; taskId: string } | undefined;
  callChange(entryId: string): { chatId: string; taskId: string; turn: number; file: string } | undefined;
  submit(prompt: string): void;
  cancel(): boolean;
  newChat(): Outcome;
  openChat(id: string): Outcome;
  answer(questionId: string, answer: string): Outcome;
  retry(): Outcome;
  resume(): Outcome;
}

/** The editor opening a kept tool result (src/vscode/documents/keptResults.ts). */
export interface KeptResultOpener {
  open(ref: string): Promise<Outcome>;
}

/** The editor opening a task's changed file, or one finished call's change (src/vscode/documents/taskChangeDocuments.ts). */
export interface TaskChangeOpener {
  open(chatId: string, taskId: string, file: string): Promise<Outcome>;
  openCall(call: { chatId: string; taskId: string; turn: number; file: string }): Promise<Outcome>;
}

/** The chat's model setup (src/core/llm/modelSetupFlow.ts). */
export interface ModelSetupHandler {
  handle(message: ModelSetupMessage): Outcome | Promise<Outcome>;
}

/** What a card opens in an editor: the diff of a write, the whole arguments of any call. */
export interface CallEditors {
  /** The native diff of a waiting write (src/vscode/diffEditor/proposedContent.ts). */
  proposed: { openDiff(callId: string): Promise<void> };
  /** The whole arguments of a waiting call as a document (src/vscode/documents/argsDocuments.ts). */
  args: { open(callId: string): Promise<Outcome> };
}

/** A decision from either view: the gate checks that the call waits and that the hash is the one shown. */
function decide(gate: RequestGate, message: DecideMessage): Outcome {
  return gate.settle(message, {
    action: message.action,
    ...(message.reason !== undefined ? { reason: message.reason } : {}),
    ...(message.grantOption !== undefined ? { grantOption: message.grantOption } : {}),
    ...(message.minutes !== undefined ? { minutes: message.minutes } : {}),
    ...(message.remedy !== undefined ? { remedy: message.remedy } : {}),
    ...(message.edited !== undefined ? { edited: message.edited } : {}),
    ...(message.hunks !== undefined ? { hunks: message.hunks.map(({ index, accepted, reason }) => ({ index, accepted, ...(reason !== undefined ? { reason } : {}) })) } : {}),
    // A view's decision always names the edit it showed (0: none), so it never applies an edit it did not show.
    editRevision: message.editRevision ?? 0,
  });
}

/** Allow all / Deny all of the calls a view showed: each settles if it still waits with the hash shown. */
function decideAll(gate: RequestGate, message: BatchMessage): Outcome {
  const outcome = gate.settleAll(message.calls, { allow: message.action === 'allow-all', ...(message.reason !== undefined ? { reason: message.reason } : {}) });
  return outcome.errors.length === 0 ? { ok: true } : { ok: false, error: outcome.errors.join('; ') };
}

/** A hunk choice from either view: the gate checks that the call waits, the hash and the index. */
function chooseHunk(gate: RequestGate, message: HunkChoiceMessage): Outcome {
  return gate.chooseHunk(message, message.index, message.choice === 'accept', message.reason);
}

async function openDiff(proposed: CallEditors['proposed'], callId: string): Promise<Outcome> {
  await proposed.openDiff(callId);
  return { ok: true };
}

async function revoke(grants: Pick<GrantStore, 'revoke'>, grantId: string): Promise<Outcome> {
  return (await grants.revoke(grantId)) ? { ok: true } : { ok: false, error: `no grant ${grantId}` };
}

/** The messages a waiting call's card sends, the same from the panel and from the chat's inline cards. */
const cardTypes = ['focusCall', 'decide', 'chooseHunk', 'setEdit', 'openDiff', 'openArgs', 'loadDiffRows', 'revokeGrant'] as const;
type CardRequest = Extract<ChatRequest | PanelRequest, { type: (typeof cardTypes)[number] }>;
const isCardRequest = (message: ChatRequest | PanelRequest): message is CardRequest => (cardTypes as readonly string[]).includes(message.type);

/** The rows of a waiting call's diff, every hunk's, for a card that got the first ones (the call and hash it showed). */
function diffRows(gate: RequestGate, callId: string, argsHash: string): Outcome {
  const call = pendingViews(gate).find((view) => view.callId === callId && view.argsHash === argsHash);
  return call?.preview.kind === 'diff'
    ? { ok: true, diffRows: call.preview.hunks.map((hunk) => hunk.rows) }
    : { ok: false, error: `call ${callId} is not waiting with a diff of those arguments` };
}

function cardRequests(view: 'chat' | 'approvals', gate: RequestGate, grants: Pick<GrantStore, 'revoke'>, editors: CallEditors, focus: Pick<FocusedCalls, 'report'>): (message: CardRequest) => Outcome | Promise<Outcome> {
  return (message) => {
    switch (message.type) {
      case 'focusCall':
        focus.report(view, message.callId ?? undefined);
        return { ok: true };
      case 'decide':
        return decide(gate, message);
      case 'chooseHunk':
        return chooseHunk(gate, message);
      case 'setEdit':
        return gate.setEdit(message, message.text ?? undefined, view === 'chat' ? 'chat' : 'panel');
      case 'openDiff':
        return openDiff(editors.proposed, message.callId);
      case 'openArgs':
        return editors.args.open(message.callId);
      case 'loadDiffRows':
        return diffRows(gate, message.callId, message.argsHash);
      case 'revokeGrant':
        return revoke(grants, message.grantId);
    }
  };
}

/** The undo a chat's turn asks for: its preview, and the undo itself (toolgate.undoTurn, with its questions). */
export interface TurnUndo {
  preview(request: UndoRequest): Promise<UndoPreview | Extract<UndoResult, { kind: 'not-undone' }>>;
  undoTurn(ref: { chatId: string; taskId: string; turn: number }): Promise<UndoResult>;
}

/** A turn's Undo from the transcript: the turn read from the host's own entry, refused while the chat's task runs. */
async function undoTurn(agent: ChatAgent, undo: TurnUndo, action: 'previewUndo' | 'undoTurn', entryId: string): Promise<Outcome> {
  const ref = agent.turnOf(entryId);
  if (ref === undefined) {
    return { ok: false, error: `entry ${entryId} is not a call of one of this chat's tasks` };
  }
  if (agent.isRunning) {
    return { ok: false, error: 'The task is still running: stop it or wait for it to end, then undo its turn.' };
  }
  if (action === 'undoTurn') {
    const result = await undo.undoTurn(ref);
    return result.kind === 'undone' ? { ok: true } : { ok: false, error: `Nothing was undone: ${result.message}.` };
  }
  const preview = await undo.preview({ scope: 'turn', ...ref });
  if (preview.kind === 'not-undone') {
    return { ok: false, error: `Nothing to undo: ${preview.message}.` };
  }
  return { ok: true, undoPreview: { turn: ref.turn, lines: preview.lines.map(({ group, text }) => ({ group, text })), notes: preview.notes, undoable: undoWouldChange(preview.lines) } };
}

export function chatRequests(
  agent: ChatAgent,
  gate: RequestGate,
  grants: Pick<GrantStore, 'revoke'>,
  editors: CallEditors,
  focus: Pick<FocusedCalls, 'report'>,
  results: KeptResultOpener,
  changes: TaskChangeOpener,
  setup: ModelSetupHandler,
  undo: TurnUndo,
): (message: ChatRequest) => Outcome | Promise<Outcome> {
  const card = cardRequests('chat', gate, grants, editors, focus);
  return (message) => {
    if (isCardRequest(message)) {
      return card(message);
    }
    switch (message.type) {
      case 'decideAll': {
        // The chat shows its own agent's calls only: a batch naming any other is refused whole.
        const shown = new Set(pendingViews(gate, agent.chatId).filter(chatShowsCall).map((call) => call.callId));
        const foreign = message.calls.find((call) => !shown.has(call.callId));
        return foreign === undefined ? decideAll(gate, message) : { ok: false, error: `call ${foreign.callId} is not one this chat shows` };
      }
      case 'submit':
        agent.submit(message.prompt);
        return { ok: true };
      case 'stop':
        return agent.cancel() ? { ok: true } : { ok: false, error: 'no task is running' };
      case 'newChat':
        return agent.newChat();
      case 'openChat':
        return agent.openChat(message.chatId);
      case 'answer':
        return agent.answer(message.questionId, message.answer);
      case 'retry':
        return agent.retry();
      case 'resume':
        return agent.resume();
      case 'openResult': {
        // Only a result this chat shows: the reference comes from the host's own entry, never from the message.
        const ref = agent.keptResult(message.entryId);
        return ref === undefined ? { ok: false, error: `no kept result for entry ${message.entryId}` } : results.open(ref);
      }
      case 'openTaskChange': {
        // Only a file the chat's own entry lists: the task comes from the host's entry, the texts from its checkpoints.
        const task = agent.taskChange(message.entryId, message.file);
        return task === undefined ? { ok: false, error: `entry ${message.entryId} lists no ${message.file}` } : changes.open(task.chatId, task.taskId, message.file);
      }
      case 'openCallChange': {
        const change = agent.callChange(message.entryId);
        return change === undefined ? { ok: false, error: `entry ${message.entryId} is not a write or edit that ran` } : changes.openCall(change);
      }
      case 'modelSetup':
        return setup.handle(message);
      case 'previewUndo':
      case 'undoTurn':
        return undoTurn(agent, undo, message.type, message.entryId);
    }
  };
}

export function panelRequests(
  gate: RequestGate,
  grants: Pick<GrantStore, 'revoke'>,
  editors: CallEditors,
  focus: Pick<FocusedCalls, 'report'>,
  setDiffMode: (mode: DiffMode) => PromiseLike<void>,
): (message: PanelRequest) => Promise<Outcome> {
  const card = cardRequests('approvals', gate, grants, editors, focus);
  return async (message) => {
    if (isCardRequest(message)) {
      return await card(message);
    }
    switch (message.type) {
      case 'decideAll':
        return decideAll(gate, message);
      case 'setDiffMode':
        await setDiffMode(message.mode);
        return { ok: true };
    }
  };
}
