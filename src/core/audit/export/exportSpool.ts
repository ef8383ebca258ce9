/**
 * The records the export has not yet seen the collector accept, kept on disk (one JSON line each, in Toolgate's global
 * storage, which no sandboxed command can read) so that a collector that is down, or a window reloaded before they
 * were sent, loses nothing: the file is read at start and sent again. It is bounded: past `maxRecords` the oldest are
 * dropped, counted, and the oldest record kept says how many were dropped before it.
 *
 * Everything here is synchronous in memory; the file follows in the background (appends for new records, a rewrite
 * through a temporary file once records are sent or dropped), one write at a time.
 */
import { appendFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Emitter } from '../../disposable';
import type { LogPort } from '../../logPort';
import { ExportRecord } from './exportRecord';

export const defaultMaxSpooled = 10_000;

export class ExportSpool {
  private records: ExportRecord[] = [];
  /** Added since the file was last written, when appending them is enough. */
  private unwritten: ExportRecord[] = [];
  private rewriteNeeded = false;
  private writeScheduled = false;
  private writes: Promise<void>;
  private writeFailed = false;
  private droppedCount = 0;
  private readonly onDidDropEmitter = new Emitter<number>();
  /** Records dropped because the spool was full: how many this time. */
  readonly onDidDrop = this.onDidDropEmitter.event;
  /** Resolves once the file was read (or found missing or unreadable). */
  readonly loaded: Promise<void>;

  constructor(
    private readonly file: string,
    private readonly maxRecords: number,
    private readonly log: LogPort,
  ) {
    this.loaded = this.load();
    this.writes = this.loaded;
  }

  /** How many records wait. */
  get size(): number {
    return this.records.length;
  }

  /** How many were dropped (the spool full) since this spool was opened. */
  get dropped(): number {
    return this.droppedCount;
  }

  add(record: ExportRecord): void {
    this.records.push(record);
    this.unwritten.push(record);
    this.bound();
    this.scheduleWrite();
  }

  /** The oldest `max` records whose ids are not in `skip` (those already on their way). */
  take(max: number, skip: ReadonlySet<string>): ExportRecord[] {
    const taken: ExportRecord[] = [];
    for (const record of this.records) {
      if (taken.length >= max) {
        break;
      }
      if (!skip.has(record.id)) {
        taken.push(record);
      }
    }
    return taken;
  }

  /** The collector accepted these: they leave the spool. */
  remove(ids: ReadonlySet<string>): void {
    const before = this.records.length;
    this.records = this.records.filter((record) => !ids.has(record.id));
    if (this.records.length !== before) {
      this.rewriteNeeded = true;
      this.scheduleWrite();
    }
  }

  /** Resolves when the file holds what the spool holds now. */
  async flush(): Promise<void> {
    let writes: Promise<void>;
    do {
      writes = this.writes;
      await writes;
    } while (writes !== this.writes);
  }

  dispose(): void {
    this.onDidDropEmitter.dispose();
  }

  private bound(): void {
    const over = this.records.length - this.maxRecords;
    if (over <= 0) {
      return;
    }
    // The gap the dropped records themselves carried is the new oldest record's too.
    const gap = this.records.splice(0, over).reduce((sum, dropped) => sum + dropped.droppedBefore, over);
    const head = this.records[0];
    if (head !== undefined) {
      this.records[0] = { ...head, droppedBefore: head.droppedBefore + gap };
    }
    this.droppedCount += over;
    this.rewriteNeeded = true;
    this.onDidDropEmitter.fire(over);
  }

  private async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.log.warn(`audit export: could not read its spool ${this.file}: ${String(error)}`);
      }
      return;
    }
    const seen = new Set<string>();
    const loaded: ExportRecord[] = [];
    let unreadable = 0;
    for (const line of text.split('\n')) {
      if (line.trim() === '') {
        continue;
      }
      const parsed = parseLine(line);
      if (parsed === undefined) {
        unreadable++;
      } else if (!seen.has(parsed.id)) {
        seen.add(parsed.id);
        loaded.push(parsed);
      }
    }
    if (unreadable > 0) {
      this.log.warn(`audit export: ${unreadable} line(s) of its spool could not be read and are not sent`);
    }
    // Records added while the file was read come after those it held.
    this.records = [...loaded, ...this.records];
    this.rewriteNeeded = unreadable > 0 || this.unwritten.length > 0;
    this.bound();
  }

  private scheduleWrite(): void {
    if (this.writeScheduled) {
      return;
    }
    this.writeScheduled = true;
    this.writes = this.writes.then(async () => {
      this.writeScheduled = false;
      await this.write();
    });
  }

  private async write(): Promise<void> {
    const rewrite = this.rewriteNeeded;
    const lines = (rewrite ? this.records : this.unwritten).map((record) => `${JSON.stringify(record)}\n`).join('');
    this.rewriteNeeded = false;
    this.unwritten = [];
    try {
      await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
      if (rewrite) {
        const temporary = `${this.file}.tmp`;
        await writeFile(temporary, lines, { encoding: 'utf8', mode: 0o600 });
        await rename(temporary, this.file);
      } else if (lines !== '') {
        await appendFile(this.file, lines, { encoding: 'utf8', mode: 0o600 });
      }
      this.writeFailed = false;
    } catch (error) {
      // The next write rewrites the whole spool; said once until a write succeeds again.
      this.rewriteNeeded = true;
      if (!this.writeFailed) {
        this.writeFailed = true;
        this.log.warn(`audit export: could not write its spool ${this.file} (records wait in memory only): ${String(error)}`);
      }
    }
  }
}

function parseLine(line: string): ExportRecord | undefined {
  try {
    const parsed = ExportRecord.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
