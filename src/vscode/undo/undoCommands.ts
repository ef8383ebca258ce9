/**
 * Checkpoints and agent-only undo, wired for VS Code: `createCheckpoints` makes the store (in the mirrored workspace
 * state, bounded by `toolgate.checkpoints.maxMegabytes`) and the recorder the tool service and agent call;
 * `createUndoCommands` makes the handlers of `toolgate.undoTurn` and `toolgate.undoTask`.
 *
 * A command's argument, optional: a task id, or `{ taskId?, chatId?, turn? }` (turn 0-based, for undoTurn). Without
 * one: the latest task of the active chat (undoTurn: its latest turn not yet undone). It resolves with the
 * UndoResult and shows the summary in a notification (details in the Toolgate output channel).
 */
import * as vscode from 'vscode';
import type { AuditLog } from '../../core/audit/auditLog';
import { GitCli } from '../../core/checkpoints/gitCli';
import { ChangeRecorder } from '../../core/checkpoints/recorder';
import { readUtf8File } from '../../core/files/diskText';
import type { DropNote } from '../../core/checkpoints/schema';
import { CheckpointStateStorage } from '../../core/checkpoints/stateStorage';
import { CheckpointStore } from '../../core/checkpoints/store';
import { undoRequest, UndoRunner, type UndoRequest, type UndoResult } from '../../core/checkpoints/undoRunner';
import type { DisposableStore } from '../../core/disposable';
import type { MirroredWorkspaceState } from '../../core/storage/mirroredState';
import type { UndoCommandId } from '../../core/commandIds';
import type { Log } from '../log';
import type { Settings } from '../settings';
import { WorkspaceUndoFiles } from './undoFiles';
import { UndoQuestionsInEditor } from './undoQuestions';

const bytesOf = (megabytes: number): number => Math.floor(megabytes * 1024 * 1024);

export interface CheckpointDeps {
  /** The mirrored workspace state (createGateHost's `state`). */
  state: MirroredWorkspaceState;
  settings: Settings;
  log: Log;
  /** The host's store: the settings listener is added to it. */
  disposables: Pick<DisposableStore, 'add'>;
  /** Something was dropped to stay within the budget, or a change could not be kept (logged already): e.g. a chat notice. */
  onNote?: (note: DropNote) => void;
}

export function createCheckpoints(deps: CheckpointDeps): { store: CheckpointStore; recorder: ChangeRecorder } {
  const warn = (message: string): void => deps.log.warn(message);
  const onNote = (note: DropNote): void => {
    deps.log.warn(`checkpoints: ${note.message}`);
    deps.onNote?.(note);
  };
  const store = new CheckpointStore(new CheckpointStateStorage(deps.state), {
    budgetBytes: bytesOf(deps.settings.get('checkpoints.maxMegabytes')),
    warn,
  });
  deps.disposables.add(
    deps.settings.onDidChange((affects) => {
      if (affects('checkpoints.maxMegabytes')) {
        void store.setBudget(bytesOf(deps.settings.get('checkpoints.maxMegabytes'))).then((notes) => notes.forEach(onNote), (error: unknown) => warn(`checkpoints: ${String(error)}`));
      }
    }),
  );
  return { store, recorder: new ChangeRecorder({ store, git: new GitCli(), readText: (absolute) => readUtf8File(absolute), onNote, warn }) };
}

export interface UndoCommandDeps {
  store: CheckpointStore;
  audit: Pick<AuditLog, 'recordUndo'>;
  /** The chat the chat view shows (AgentHost's `chatId`). */
  activeChatId: () => string;
  log: Log;
  disposables: Pick<DisposableStore, 'add'>;
  /** An undo was applied: the chat's transcript says what it reverted and what it kept. */
  onUndone?: (result: Extract<UndoResult, { kind: 'undone' }>) => void;
}

function show(result: UndoResult, log: Log): void {
  const text = result.kind === 'undone' ? result.text : result.message;
  log.info(`undo: ${text}`);
  if (result.kind === 'undone') {
    const attention = result.left.length > 0 || result.commands.length > 0 || result.unreviewed.length > 0;
    const shown = attention ? vscode.window.showWarningMessage(result.summary, 'Show Details') : vscode.window.showInformationMessage(result.summary, 'Show Details');
    void shown.then((choice) => choice !== undefined && log.show(true));
    return;
  }
  const message = `Toolgate: nothing was undone: ${result.message}.`;
  void (result.reason === 'nothing-to-undo' || result.reason === 'no-checkpoints' ? vscode.window.showInformationMessage(message) : vscode.window.showWarningMessage(message));
}

export interface UndoCommands {
  commands: Record<UndoCommandId, (arg?: unknown) => Promise<UndoResult>>;
  /** What an undo would do now, without asking or writing (the chat's "Undo this turn" preview). */
  preview(request: UndoRequest): ReturnType<UndoRunner['preview']>;
}

export function createUndoCommands(deps: UndoCommandDeps): UndoCommands {
  const questions = deps.disposables.add(new UndoQuestionsInEditor());
  const runner = new UndoRunner({
    store: deps.store,
    files: new WorkspaceUndoFiles((message) => deps.log.warn(message)),
    questions,
    audit: deps.audit,
  });
  const command =
    (scope: UndoRequest['scope']) =>
    async (arg?: unknown): Promise<UndoResult> => {
      const parsed = undoRequest(scope, arg, deps.activeChatId());
      const result = parsed.kind === 'ok' ? await runner.undo(parsed.request) : parsed.result;
      show(result, deps.log);
      if (result.kind === 'undone') {
        deps.onUndone?.(result);
      }
      return result;
    };
  return { commands: { 'toolgate.undoTurn': command('turn'), 'toolgate.undoTask': command('task') }, preview: (request) => runner.preview(request) };
}
