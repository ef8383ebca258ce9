/**
 * The decision log: one JSON line per decision (time, tool, arguments hash, verdict, who decided, scope, reason),
 * appended to a file under the extension's workspace storage and echoed to the output channel.
 */
import * as z from 'zod';
import { Emitter } from '../disposable';

export const AuditEntry = z.strictObject({
  time: z.string(),
  callId: z.string(),
  tool: z.string(),
  argsHash: z.string(),
  verdict: z.enum(['allow', 'deny', 'ask']),
  decidedBy: z.enum(['person', 'rule', 'grant', 'setting', 'policy', 'timeout', 'cancel']),
  scope: z.enum(['once', 'session', 'workspace']).optional(),
  reason: z.string(),
  source: z.string(),
  edited: z.boolean().optional(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export interface AuditSink {
  append(line: string): Promise<void>;
}

export class AuditLog {
  private queue: Promise<void> = Promise.resolve();
  private readonly onDidRecordEmitter = new Emitter<AuditEntry>();
  /** Every entry, as it is recorded. */
  readonly onDidRecord = this.onDidRecordEmitter.event;

  constructor(
    private readonly sink: AuditSink,
    private readonly echo: (line: string) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  record(entry: AuditEntry): void {
    const line = JSON.stringify(AuditEntry.parse(entry));
    this.echo(`audit ${entry.verdict} ${entry.tool} by ${entry.decidedBy}: ${entry.reason}`);
    this.onDidRecordEmitter.fire(entry);
    // Appends are serialised so lines never interleave.
    this.queue = this.queue.then(() => this.sink.append(`${line}\n`)).catch((error: unknown) => this.onError(error));
  }

  /** Resolves when everything recorded so far is written. */
  flush(): Promise<void> {
    return this.queue;
  }
}
