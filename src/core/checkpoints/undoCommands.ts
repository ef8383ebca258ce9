/**
 * Agent-only undo as commands (`toolgate.undoTurn`, `toolgate.undoTask`). A command's argument, optional: a task id,
 * or `{ taskId?, chatId?, turn? }` (turn 0-based, for undoTurn). Without one: the latest task of the active chat
 * (undoTurn: its latest turn not yet undone). It resolves with the UndoResult and shows the summary in a notification
 * (details in the log). The editor's files and questions are ports (src/vscode/undo).
 */
import type { AuditLog } from '../audit/auditLog';
import type { UndoCommandId } from '../commandIds';
import type { LogPort } from '../logPort';
import type { CheckpointStore } from './store';
import { undoRequest, UndoRunner, type UndoFiles, type UndoQuestions, type UndoRequest, type UndoResult } from './undoRunner';

/** What the person is shown of an undo: its summary, and whether it offers the details (the log). */
export interface UndoNotice {
  level: 'info' | 'warning';
  text: string;
  details: boolean;
}

/** A warning when something was left, ran and cannot be reverted, or landed without review; else information. */
export function undoNotice(result: UndoResult): UndoNotice {
  if (result.kind === 'undone') {
    const attention = result.left.length > 0 || result.commands.length > 0 || result.unreviewed.length > 0;
    return { level: attention ? 'warning' : 'info', text: result.summary, details: true };
  }
  const quiet = result.reason === 'nothing-to-undo' || result.reason === 'no-checkpoints';
  return { level: quiet ? 'info' : 'warning', text: `Toolgate: nothing was undone: ${result.message}.`, details: false };
}

export interface UndoCommandDeps {
  store: CheckpointStore;
  audit: Pick<AuditLog, 'recordUndo'>;
  /** The chat the chat view shows (the agent session's `chatId`). */
  activeChatId: () => string;
  log: LogPort;
  files: UndoFiles;
  questions: UndoQuestions;
  /** Shows the notice (see `undoNotice`). */
  notify(notice: UndoNotice): void;
  /** An undo was applied: the chat's transcript says what it reverted and what it kept. */
  onUndone?: (result: Extract<UndoResult, { kind: 'undone' }>) => void;
}

export interface UndoCommands {
  commands: Record<UndoCommandId, (arg?: unknown) => Promise<UndoResult>>;
  /** What an undo would do now, without asking or writing (the chat's "Undo this turn" preview). */
  preview(request: UndoRequest): ReturnType<UndoRunner['preview']>;
}

export function createUndoCommands(deps: UndoCommandDeps): UndoCommands {
  const runner = new UndoRunner({ store: deps.store, files: deps.files, questions: deps.questions, audit: deps.audit });
  const command =
    (scope: UndoRequest['scope']) =>
    async (arg?: unknown): Promise<UndoResult> => {
      const parsed = undoRequest(scope, arg, deps.activeChatId());
      const result = parsed.kind === 'ok' ? await runner.undo(parsed.request) : parsed.result;
      deps.log.info(`undo: ${result.kind === 'undone' ? result.text : result.message}`);
      deps.notify(undoNotice(result));
      if (result.kind === 'undone') {
        deps.onUndone?.(result);
      }
      return result;
    };
  return { commands: { 'toolgate.undoTurn': command('turn'), 'toolgate.undoTask': command('task') }, preview: (request) => runner.preview(request) };
}
