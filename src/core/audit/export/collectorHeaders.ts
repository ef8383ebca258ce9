/**
 * The headers sent to the collector (a token, say): from the configured headers file, read when configured and again
 * whenever it changes (its folder is watched, so a file replaced by a rename is seen too), and from a port the editor
 * fills from its secret storage. The file's names win. A bad line is a warning naming its line, never its text.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as z from '../../../zod';
import type { Disposable } from '../../disposable';
import type { LogPort } from '../../logPort';
import { headerName, parseHeadersFile } from './otlpConfig';

/** Headers kept in the editor's secret storage: the stored text, a JSON object of names to values. */
export interface SecretHeadersPort {
  get(): Promise<string | undefined>;
  onDidChange(listener: () => void): Disposable;
}

export const SecretHeaders = z.record(z.string().check(z.regex(headerName)), z.string().check(z.regex(/^[^\r\n]*$/)));

/**
 * What a person typed as the collector's headers (**Toolgate: Set Audit Export Headers**): a JSON object of header
 * names to values, the text to store; an empty input removes them. Never says the values back.
 */
export function typedHeaders(text: string): { store: string | undefined } | { problem: string } {
  if (text.trim() === '') {
    return { store: undefined };
  }
  const parsed = SecretHeaders.safeParse(parseJson(text));
  if (!parsed.success) {
    return { problem: 'Write a JSON object of header names to values, such as {"Authorization": "Bearer …"}, on one line; nothing was stored.' };
  }
  return { store: JSON.stringify(parsed.data) };
}

/** How long a burst of change events for the file waits before it is read (an editor's save is several). */
const rereadDelayMs = 50;

export class CollectorHeaders implements Disposable {
  private fromFile: Record<string, string> = {};
  private fromSecrets: Record<string, string> = {};
  private watcher: FSWatcher | undefined;
  private rereadTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly secretsSubscription: Disposable | undefined;
  /** Resolves once the file and the secrets were read for the first time. */
  readonly ready: Promise<void>;

  constructor(
    private readonly file: string | undefined,
    private readonly log: LogPort,
    private readonly secrets: SecretHeadersPort | undefined,
    /** Called after each read of the file or the secrets. */
    private readonly onDidRead: () => void = () => undefined,
  ) {
    this.secretsSubscription = secrets?.onDidChange(() => void this.readSecrets());
    this.ready = Promise.all([this.readFile(), this.readSecrets()]).then(() => undefined);
    if (file !== undefined) {
      try {
        this.watcher = watch(path.dirname(file), (_event, name) => {
          if (name === null || name === path.basename(file)) {
            this.scheduleReread();
          }
        });
        this.watcher.on('error', (error) => this.log.warn(`audit export: stopped watching the headers file ${file}: ${String(error)}`));
      } catch (error) {
        this.log.warn(`audit export: cannot watch the headers file ${file} for changes: ${String(error)}`);
      }
    }
  }

  /** The headers now (for each request: the exporter asks before every send). */
  current(): Record<string, string> {
    return { ...this.fromSecrets, ...this.fromFile };
  }

  dispose(): void {
    this.watcher?.close();
    clearTimeout(this.rereadTimer);
    this.secretsSubscription?.dispose();
  }

  private scheduleReread(): void {
    clearTimeout(this.rereadTimer);
    this.rereadTimer = setTimeout(() => void this.readFile(), rereadDelayMs);
  }

  private async readFile(): Promise<void> {
    if (this.file === undefined) {
      return;
    }
    try {
      const parsed = parseHeadersFile(await readFile(this.file, 'utf8'));
      if (parsed.problems.length > 0) {
        this.log.warn(`audit export: the headers file ${this.file} has lines that are not headers, left out: ${parsed.problems.join('; ')}`);
      }
      this.fromFile = parsed.headers;
    } catch (error) {
      this.fromFile = {};
      this.log.warn(`audit export: cannot read the headers file ${this.file}, so no headers from it are sent: ${String(error)}`);
    }
    this.onDidRead();
  }

  private async readSecrets(): Promise<void> {
    if (this.secrets === undefined) {
      return;
    }
    try {
      const text = await this.secrets.get();
      const parsed = text === undefined ? undefined : SecretHeaders.safeParse(parseJson(text));
      if (parsed?.success === false) {
        this.log.warn('audit export: the collector headers in the secret storage are not a map of header names to values; none are sent');
      }
      this.fromSecrets = parsed?.success === true ? parsed.data : {};
    } catch (error) {
      this.log.warn(`audit export: cannot read the collector headers from the secret storage: ${String(error)}`);
    }
    this.onDidRead();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
