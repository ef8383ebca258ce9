/**
 * The audit export: every decision the audit log records is also sent, as an OpenTelemetry log record, to the
 * collector an administrator (managed settings) or the person (the machine-scoped setting `toolgate.audit.otlp`)
 * configured, over OTLP/HTTP with the OpenTelemetry SDK (loaded only once an export is configured).
 *
 * A decision never waits for it: `record()` (the audit log's `onDidRecord` handler) maps the entry and puts it in the
 * spool, in memory, and the rest happens later. Records leave the spool only when the collector has accepted them, so
 * a collector that is down or slow, or a window reloaded, loses nothing but what the spool's bound drops (oldest first,
 * counted in the log, the status and the next record sent). Delivery is at least once: a record sent just before a
 * reload may be sent again; `toolgate.record.id` tells the copies apart.
 */
import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Logger } from '@opentelemetry/api';
import type { LogRecordExporter, LoggerProvider, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import * as z from '../../../zod';
import { DisposableStore, Emitter } from '../../disposable';
import type { LogPort } from '../../logPort';
import type { AuditEntry } from '../auditLog';
import { CollectorHeaders, type SecretHeadersPort } from './collectorHeaders';
import { decisionEventName, exportAttributes, exportRecord, type ExportRecord } from './exportRecord';
import { defaultMaxSpooled, ExportSpool } from './exportSpool';
import { logsUrl, type ExportOrigin, type OtlpExportConfig } from './otlpConfig';
import type * as OtlpSdk from './otlpSdk';

export interface ExportTiming {
  /** How long the SDK's batch processor gathers records before it sends them. */
  batchDelayMs: number;
  /** After a failed send, the first wait before the next try; it doubles up to `retryMaxMs`. */
  retryMinMs: number;
  retryMaxMs: number;
  /** One send, the exporter's own retries included. */
  exportTimeoutMs: number;
}

export const defaultExportTiming: ExportTiming = { batchDelayMs: 1_000, retryMinMs: 1_000, retryMaxMs: 60_000, exportTimeoutMs: 10_000 };

/** The SDK's batch sizes: one export sends at most this many; the SDK's queue holds at most `maxInFlight`. */
const batchSize = 512;
const maxInFlight = 2_048;
/** While the spool stays full, how often the log repeats how many records were dropped. */
const dropLogIntervalMs = 60_000;

export interface AuditExportOptions {
  /** The spool file, in Toolgate's global storage (see spoolFile()). */
  spoolFile: string;
  /** The workspace as the records name it (exportRecord.ts workspaceId()). */
  workspaceId: () => string;
  log: LogPort;
  serviceVersion: string;
  secretHeaders?: SecretHeadersPort;
  maxSpooled?: number;
  timing?: Partial<ExportTiming>;
  /** The OpenTelemetry packages: `import('./otlpSdk')` unless a test gives its own. */
  loadSdk?: () => Promise<typeof OtlpSdk>;
}

/** How the export is doing: `off` (not configured), `starting` (loading), `sending` (the last send worked or none failed yet), `failing`. */
export const ExportHealth = z.enum(['off', 'starting', 'sending', 'failing']);
export type ExportHealth = z.infer<typeof ExportHealth>;

export interface ExportStatus {
  health: ExportHealth;
  origin?: ExportOrigin;
  /** The collector's host (never the URL's credentials or path). */
  collector?: string;
  /** Records not yet accepted by the collector. */
  waiting: number;
  /** Records dropped, the spool being full, since this window started. */
  dropped: number;
  /** Why the last send failed, while it fails. */
  lastError?: string;
}

/** The spool of a workspace: one file per workspace (`key` is its storage URI, or `empty` for an empty window). */
export function spoolFile(folder: string, key: string): string {
  return path.join(folder, `${createHash('sha256').update(key).digest('hex').slice(0, 16)}.jsonl`);
}

interface Pipeline {
  generation: number;
  provider: LoggerProvider;
  logger: Logger;
  sdk: typeof OtlpSdk;
}

export class AuditExport {
  private readonly inputs = new Map<ExportOrigin, OtlpExportConfig>();
  private active: { config: OtlpExportConfig; origin: ExportOrigin } | undefined;
  private spool: ExportSpool | undefined;
  private headers: CollectorHeaders | undefined;
  private pipeline: Pipeline | undefined;
  private generation = 0;
  private readonly inFlight = new Set<string>();
  private failing = false;
  private lastError: string | undefined;
  private retryDelayMs: number;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private pumpScheduled: ReturnType<typeof setImmediate> | undefined;
  private lastDropLog = 0;
  private disposed = false;
  private readonly timing: ExportTiming;
  private readonly store = new DisposableStore();
  private readonly onDidChangeStatusEmitter = this.store.add(new Emitter<ExportStatus>());
  readonly onDidChangeStatus = this.onDidChangeStatusEmitter.event;

  constructor(private readonly options: AuditExportOptions) {
    this.timing = { ...defaultExportTiming, ...options.timing };
    this.retryDelayMs = this.timing.retryMinMs;
  }

  /**
   * The configuration from one origin (`undefined`: none from there). A managed one wins over the person's setting,
   * which can then neither change nor turn off the export.
   */
  configure(config: OtlpExportConfig | undefined, origin: ExportOrigin): void {
    if (config === undefined) {
      this.inputs.delete(origin);
    } else {
      this.inputs.set(origin, config);
    }
    const managed = this.inputs.get('managed');
    const setting = this.inputs.get('setting');
    const next = managed !== undefined ? { config: managed, origin: 'managed' as const } : setting !== undefined ? { config: setting, origin: 'setting' as const } : undefined;
    if (JSON.stringify(next) === JSON.stringify(this.active) || this.disposed) {
      return;
    }
    this.stopPipeline();
    this.active = next;
    if (next === undefined) {
      this.options.log.info('audit export: off (records still in its spool wait until an export is configured again)');
      this.fireStatus();
      return;
    }
    const from = next.origin === 'managed' ? 'the managed settings' : 'the setting toolgate.audit.otlp';
    this.options.log.info(`audit export: to ${logsUrl(next.config.endpoint)} (${next.config.protocol}), from ${from}`);
    this.spool ??= this.openSpool();
    const spool = this.spool;
    const headers = new CollectorHeaders(next.config.headersFile, this.options.log, this.options.secretHeaders);
    this.headers = headers;
    const generation = this.generation;
    const loadSdk = this.options.loadSdk ?? (() => import('./otlpSdk'));
    Promise.all([loadSdk(), spool.loaded, headers.ready])
      .then(([sdk]) => {
        if (generation === this.generation && !this.disposed) {
          this.pipeline = this.startPipeline(sdk, next.config, generation, headers);
          this.schedulePump();
        }
      })
      .catch((error: unknown) => this.options.log.error(`audit export: the OpenTelemetry packages did not load, so nothing is sent (records wait in the spool): ${String(error)}`));
    this.fireStatus();
  }

  /** The audit log's `onDidRecord` handler: maps the entry and spools it, at once; sending happens later. */
  record(entry: AuditEntry): void {
    if (this.active === undefined || this.spool === undefined) {
      return;
    }
    this.spool.add(exportRecord(entry, this.options.workspaceId(), randomUUID()));
    this.schedulePump();
  }

  status(): ExportStatus {
    if (this.active === undefined) {
      return { health: 'off', waiting: this.spool?.size ?? 0, dropped: this.spool?.dropped ?? 0 };
    }
    return {
      health: this.pipeline === undefined ? 'starting' : this.failing ? 'failing' : 'sending',
      origin: this.active.origin,
      collector: new URL(this.active.config.endpoint).host,
      waiting: this.spool?.size ?? 0,
      dropped: this.spool?.dropped ?? 0,
      ...(this.failing && this.lastError !== undefined ? { lastError: this.lastError } : {}),
    };
  }

  /** Resolves when the spool's file holds every record not yet accepted (awaited before the window goes). */
  async flush(): Promise<void> {
    await this.spool?.flush();
  }

  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    this.stopPipeline();
    this.spool?.dispose();
    this.store.dispose();
  }

  private openSpool(): ExportSpool {
    const spool = new ExportSpool(this.options.spoolFile, this.options.maxSpooled ?? defaultMaxSpooled, this.options.log);
    this.store.add(
      spool.onDidDrop(() => {
        const now = Date.now();
        if (now - this.lastDropLog >= dropLogIntervalMs) {
          this.lastDropLog = now;
          this.options.log.warn(`audit export: its spool is full (the collector has not taken records for a while): ${spool.dropped} oldest record(s) dropped so far in this window`);
        }
      }),
    );
    return spool;
  }

  private startPipeline(sdk: typeof OtlpSdk, config: OtlpExportConfig, generation: number, headers: CollectorHeaders): Pipeline {
    const exporterOptions = { url: logsUrl(config.endpoint), headers: () => Promise.resolve(headers.current()), timeoutMillis: this.timing.exportTimeoutMs };
    const otlp = config.protocol === 'http/json' ? new sdk.OtlpJsonLogExporter(exporterOptions) : new sdk.OtlpProtobufLogExporter(exporterOptions);
    const provider = new sdk.LoggerProvider({
      resource: sdk.resourceFromAttributes({ 'service.name': 'toolgate', 'service.version': this.options.serviceVersion }),
      processors: [
        new sdk.BatchLogRecordProcessor({
          exporter: acknowledging(otlp, sdk, (ids, error) => this.onExported(generation, ids, error)),
          maxExportBatchSize: batchSize,
          maxQueueSize: maxInFlight,
          scheduledDelayMillis: this.timing.batchDelayMs,
          // The exporter's own timeout ends a send; this one only keeps the processor from waiting longer.
          exportTimeoutMillis: this.timing.exportTimeoutMs * 2,
        }),
      ],
    });
    return { generation, provider, logger: provider.getLogger('toolgate.audit', this.options.serviceVersion), sdk };
  }

  private stopPipeline(): void {
    this.generation++;
    const pipeline = this.pipeline;
    this.pipeline = undefined;
    this.headers?.dispose();
    this.headers = undefined;
    // Records on their way stay so until the old pipeline says what became of them (its shutdown sends what it holds):
    // sent again only if it could not deliver them.
    this.failing = false;
    this.lastError = undefined;
    this.retryDelayMs = this.timing.retryMinMs;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.pumpScheduled !== undefined) {
      clearImmediate(this.pumpScheduled);
      this.pumpScheduled = undefined;
    }
    // What it still holds is in the spool too: sent again by the next pipeline if it fails (or at the next start).
    pipeline?.provider.shutdown().catch(() => undefined);
  }

  private schedulePump(): void {
    if (this.pumpScheduled !== undefined || this.pipeline === undefined) {
      return;
    }
    this.pumpScheduled = setImmediate(() => {
      this.pumpScheduled = undefined;
      this.pump();
    });
  }

  /** Hands the SDK the oldest records not yet on their way: all it may queue, or one batch to try a failing collector. */
  private pump(): void {
    const pipeline = this.pipeline;
    const spool = this.spool;
    if (pipeline === undefined || spool === undefined || this.retryTimer !== undefined) {
      return;
    }
    const room = this.failing ? (this.inFlight.size === 0 ? batchSize : 0) : maxInFlight - this.inFlight.size;
    for (const record of room > 0 ? spool.take(room, this.inFlight) : []) {
      this.inFlight.add(record.id);
      pipeline.logger.emit(logRecordOf(record, pipeline.sdk));
    }
    this.fireStatus();
  }

  private onExported(generation: number, ids: ReadonlySet<string>, error: string | undefined): void {
    ids.forEach((id) => this.inFlight.delete(id));
    if (error === undefined) {
      this.spool?.remove(ids); // accepted, even if by an earlier configuration's collector
    }
    if (this.disposed) {
      return;
    }
    if (generation !== this.generation) {
      this.schedulePump(); // the current pipeline sends what the old one could not
      return;
    }
    if (error === undefined) {
      if (this.failing) {
        this.options.log.info(`audit export: the collector takes records again (${this.spool?.size ?? 0} waiting)`);
      }
      this.failing = false;
      this.lastError = undefined;
      this.retryDelayMs = this.timing.retryMinMs;
      this.schedulePump();
      this.fireStatus();
      return;
    }
    if (!this.failing) {
      this.options.log.warn(`audit export: the collector did not take ${ids.size} record(s) (${error}); they wait in the spool and are sent again`);
    }
    this.failing = true;
    this.lastError = error;
    if (this.retryTimer === undefined) {
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.pump();
      }, this.retryDelayMs);
      this.retryDelayMs = Math.min(this.retryDelayMs * 2, this.timing.retryMaxMs);
    }
    this.fireStatus();
  }

  private fireStatus(): void {
    this.onDidChangeStatusEmitter.fire(this.status());
  }
}

/** The record as the SDK's logger takes it. */
function logRecordOf(record: ExportRecord, sdk: typeof OtlpSdk): Parameters<Logger['emit']>[0] {
  return {
    timestamp: new Date(record.time),
    severityNumber: record.severity === 'warn' ? sdk.SeverityNumber.WARN : sdk.SeverityNumber.INFO,
    severityText: record.severity === 'warn' ? 'WARN' : 'INFO',
    eventName: decisionEventName,
    body: record.body,
    attributes: {
      ...record.attributes,
      [exportAttributes.recordId]: record.id,
      ...(record.droppedBefore > 0 ? { [exportAttributes.droppedBefore]: record.droppedBefore } : {}),
    },
  };
}

/** The exporter, telling which records the collector accepted (error `undefined`) or not. */
function acknowledging(inner: LogRecordExporter, sdk: typeof OtlpSdk, onResult: (ids: ReadonlySet<string>, error: string | undefined) => void): LogRecordExporter {
  return {
    export: (logs: ReadableLogRecord[], done) => {
      const ids = new Set(logs.map((log) => log.attributes[exportAttributes.recordId]).filter((id): id is string => typeof id === 'string'));
      try {
        inner.export(logs, (result) => {
          onResult(ids, result.code === sdk.ExportResultCode.SUCCESS ? undefined : (result.error?.message ?? 'the export failed'));
          done(result);
        });
      } catch (error) {
        onResult(ids, String(error));
        done({ code: sdk.ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
      }
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush(),
  };
}
