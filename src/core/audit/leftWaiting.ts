/**
 * Calls the audit log shows still waiting from an earlier window (reloaded, closed or crashed before their end was
 * written) are written as not run. Only what the file held before this window wrote to it is read: its size is taken
 * when this is called, before anything is appended.
 */
import { statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { LogPort } from '../logPort';
import type { AuditLog } from './auditLog';
import { recoveredEntries, recoveryTailBytes, unclosedAsks } from './recovery';

/** Resolves once the calls left waiting are recorded as not run (at once when there is no log yet). */
export async function closeLeftWaiting(auditFile: string, audit: Pick<AuditLog, 'record'>, log: LogPort, now?: Date): Promise<void> {
  let size: number;
  try {
    size = statSync(auditFile).size;
  } catch {
    return; // no log yet
  }
  const start = Math.max(0, size - recoveryTailBytes);
  try {
    const handle = await open(auditFile, 'r');
    try {
      const buffer = Buffer.alloc(size - start);
      await handle.read(buffer, 0, buffer.length, start);
      const lines = buffer.toString('utf8').split('\n');
      // A tail that starts mid-line drops that line.
      const asks = unclosedAsks(start > 0 ? lines.slice(1) : lines);
      for (const entry of recoveredEntries(asks, now ?? new Date())) {
        audit.record(entry);
      }
      if (asks.length > 0) {
        log.info(`closed ${asks.length} call(s) an earlier window left waiting in the audit log: not run`);
      }
    } finally {
      await handle.close();
    }
  } catch (error) {
    log.warn(`could not check the audit log for calls left waiting: ${String(error)}`);
  }
}
