/**
 * The decision log: one JSON line per decision (time, tool, arguments hash, verdict, who decided, scope, reason),
 * appended to a file under the extension's workspace storage and echoed to the output channel. An undo of the agent's
 * changes is a line of its own (`kind: "undo"`, see UndoAuditEntry); decision lines carry no `kind` and are unchanged.
 */
import * as z from '../../zod';
import { Emitter } from '../disposable';

export const AuditEntry = z.strictObject({
  time: z.string(),
  callId: z.string(),
  tool: z.string(),
  argsHash: z.string(),
  verdict: z.enum(['allow', 'deny', 'ask']),
  decidedBy: z.enum(['person', 'rule', 'grant', 'setting', 'policy', 'managed', 'timeout', 'cancel']),
  scope: z.optional(z.enum(['once', 'session', 'workspace', 'task', 'timed'])),
  reason: z.string(),
  source: z.string(),
  edited: z.optional(z.boolean()),
  /** What the call was about, for a person reading the log: a path, a command (cut), or an MCP server's tool. */
  target: z.optional(z.string().check(z.maxLength(600))),
  /**
   * A call that never got its decision: `shutdown`, VS Code closed or reloaded the window while it waited;
   * `recovered`, found still waiting in the log at the next start (the window went away before it could say so).
   */
  notRun: z.optional(z.enum(['shutdown', 'recovered'])),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

/** How a file was put back by an undo. */
export const RevertedHow = z.enum(['reverted', 'merged', 'restored', 'deleted', 'merged-with-conflicts']);
export type RevertedHow = z.infer<typeof RevertedHow>;

/** Why an undo left a file as it was (or not all the way back). */
export const LeftWhy = z.enum(['conflict-kept', 'created-file-kept', 'deleted-since', 'older-changes-remain', 'not-carried-out']);
export type LeftWhy = z.infer<typeof LeftWhy>;

/** Why an undo wrote nothing. */
export const NotUndoneReason = z.enum(['no-checkpoints', 'unreadable', 'nothing-to-undo', 'read-failed', 'apply-refused', 'kept-changing', 'invalid-argument']);
export type NotUndoneReason = z.infer<typeof NotUndoneReason>;

/** One undo of a turn or a task: what was written, what was left and why, and the commands it could not revert. */
export const UndoAuditEntry = z.strictObject({
  kind: z.literal('undo'),
  time: z.string(),
  chatId: z.string(),
  taskId: z.string(),
  scope: z.enum(['turn', 'task']),
  /** The turns it covered (0-based), and those now marked undone. */
  turns: z.array(z.int().check(z.nonnegative())),
  undoneTurns: z.array(z.int().check(z.nonnegative())),
  outcome: z.union([z.literal('undone'), NotUndoneReason]),
  reverted: z.array(z.strictObject({ path: z.string(), how: RevertedHow })),
  left: z.array(z.strictObject({ path: z.string(), why: LeftWhy })),
  /** Terminal commands of those turns: not reverted. */
  commands: z.array(z.string()),
  reason: z.string(),
});
export type UndoAuditEntry = z.infer<typeof UndoAuditEntry>;

/** Any line of the log. */
export const AuditLine = z.union([AuditEntry, UndoAuditEntry]);
export type AuditLine = z.infer<typeof AuditLine>;

export interface AuditSink {
  /** Appends whole lines (one or more, each ending in a line break), written in the order they come. */
  append(lines: string): Promise<void>;
}

/** What was recorded and not yet announced: a decision (fired as one) or an undo. */
type Recorded = { kind: 'decision'; entry: AuditEntry } | { kind: 'undo'; entry: UndoAuditEntry };

export class AuditLog {
  /** Recorded in this turn, announced at its end (see later()). */
  private recorded: Recorded[] = [];
  /** The lines announced and not yet handed to the sink, in order. */
  private unwritten: string[] = [];
  /** The writing under way, while there is one: it goes on until nothing is left unwritten. */
  private writing: Promise<void> | undefined;
  private readonly onDidRecordEmitter = new Emitter<AuditEntry>();
  /** Every entry, as it is recorded (at the end of the turn that recorded it). */
  readonly onDidRecord = this.onDidRecordEmitter.event;

  constructor(
    private readonly sink: AuditSink,
    private readonly echo: (line: string) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * A decision, as the gate built it: typed, so it is written without a parse (the schema checks the lines read back;
   * parsing each line written was a sixth of a granted call's time in the gate).
   */
  record(entry: AuditEntry): void {
    this.later({ kind: 'decision', entry });
  }

  /** An undo: written and echoed, not fired as a decision (`onDidRecord` is the API's `onDidDecide`). */
  recordUndo(entry: UndoAuditEntry): void {
    this.later({ kind: 'undo', entry: UndoAuditEntry.parse(entry) });
  }

  /**
   * Announced (echoed, fired, its line made) at the end of the turn that recorded it, in the order recorded, before
   * anything awaiting in that turn goes on: a call allowed at once is already on its way to its server by then, so no
   * call waits for its own line to be made.
   */
  private later(item: Recorded): void {
    this.recorded.push(item);
    if (this.recorded.length === 1) {
      queueMicrotask(() => this.announce());
    }
  }

  private announce(): void {
    const items = this.recorded;
    this.recorded = [];
    for (const { kind, entry } of items) {
      try {
        this.unwritten.push(`${JSON.stringify(entry)}\n`);
        if (kind === 'decision') {
          this.echo(`audit ${entry.verdict} ${entry.tool} by ${entry.decidedBy}: ${entry.reason}`);
          this.onDidRecordEmitter.fire(entry);
        } else {
          this.echo(`audit undo ${entry.scope} of task ${entry.taskId}: ${entry.reason}`);
        }
      } catch (error) {
        this.onError(error); // a listener's failure, told like a failed write; the next entries are still announced
      }
    }
    this.writing ??= this.write();
  }

  /**
   * Hands the sink what is unwritten, one append after another so lines never interleave: lines announced while one is
   * written go together in the next, so a burst of decisions is a few appends, not one chained promise per line.
   */
  private async write(): Promise<void> {
    while (this.unwritten.length > 0) {
      const lines = this.unwritten;
      this.unwritten = [];
      try {
        await this.sink.append(lines.join(''));
      } catch (error) {
        this.onError(error);
      }
    }
    this.writing = undefined;
  }

  /** Resolves when everything recorded so far is written. */
  flush(): Promise<void> {
    // Read once what this turn recorded is announced (its microtask was queued first), so its lines are awaited too.
    return Promise.resolve().then(() => this.writing);
  }
}
