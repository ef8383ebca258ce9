/**
 * Audit export: what the export adds to each decision on the extension host, i.e. the time the audit log's
 * `onDidRecord` handler takes (map the entry, put it in the spool; sending happens later), measured as `record()`
 * with the export against `record()` alone, each decision timed on its own, median over many. With the collector up
 * (a local OTLP receiver) and down (everything stays in the spool).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AuditLog, type AuditEntry } from '../src/core/audit/auditLog';
import { AuditExport } from '../src/core/audit/export/auditExport';
import { OtlpReceiver } from '../test/fixtures/otlpReceiver';
import { median, type Row } from './table';

const decisions = 5_000;
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

const entry = (index: number): AuditEntry => ({
  time: new Date().toISOString(),
  callId: `call-${index}`,
  tool: 'run_in_terminal',
  argsHash: 'c'.repeat(64),
  verdict: 'allow',
  decidedBy: 'grant',
  scope: 'workspace',
  reason: 'allowed: workspace grant `npm test`',
  source: 'agent',
  target: `npm test -- --grep case-${index}`,
});

/** Each `record()` timed on its own, in µs; between batches the event loop turns, so the export's work runs as it would. */
async function timeRecords(audit: AuditLog, offset: number): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < decisions; index++) {
    const started = performance.now();
    audit.record(entry(offset + index));
    times.push((performance.now() - started) * 1_000);
    if (index % 50 === 49) {
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return times;
}

const newAudit = (): AuditLog => new AuditLog({ append: () => Promise.resolve() }, () => undefined, () => undefined);

export async function exportBench(): Promise<Row[]> {
  const folder = mkdtempSync(path.join(tmpdir(), 'toolgate-bench-export-'));
  const receiver = new OtlpReceiver();
  await receiver.start();
  try {
    const rows: Row[] = [];
    // Warm both paths first (JIT, the SDK loaded), then time them in turns.
    const alone = newAudit();
    const results = { alone: [] as number[], up: [] as number[], down: [] as number[] };
    const exported = async (endpoint: string, name: string): Promise<{ audit: AuditLog; exporter: AuditExport }> => {
      const exporter = new AuditExport({ spoolFile: path.join(folder, `${name}.jsonl`), workspaceId: () => 'bench', log: quiet, serviceVersion: 'bench', maxSpooled: 100_000 });
      const audit = newAudit();
      audit.onDidRecord((recorded) => exporter.record(recorded));
      exporter.configure({ endpoint, protocol: 'http/protobuf' }, 'setting');
      await new Promise<void>((resolve) => {
        const subscription = exporter.onDidChangeStatus((status) => {
          if (status.health !== 'starting') {
            subscription.dispose();
            resolve();
          }
        });
      });
      return { audit, exporter };
    };
    const up = await exported(receiver.endpoint, 'up');
    const downReceiver = new OtlpReceiver();
    await downReceiver.start();
    await downReceiver.stop(); // a port nothing listens on
    const down = await exported(downReceiver.endpoint, 'down');
    await timeRecords(alone, 0);
    await timeRecords(up.audit, 0);
    await timeRecords(down.audit, 0);
    for (let turn = 1; turn <= 3; turn++) {
      results.alone.push(...(await timeRecords(alone, turn * decisions)));
      results.up.push(...(await timeRecords(up.audit, turn * decisions)));
      results.down.push(...(await timeRecords(down.audit, turn * decisions)));
    }
    const base = median(results.alone);
    const row = (metric: string, times: number[]): Row => {
      const value = median(times);
      return { metric, value: `${value.toFixed(1)} µs`, baseline: `${base.toFixed(1)} µs`, ratio: `+${(value - base).toFixed(1)} µs` };
    };
    rows.push(row(`audit record + export, collector up (median of ${results.up.length})`, results.up));
    rows.push(row(`audit record + export, collector down (median of ${results.down.length})`, results.down));
    // What the handler itself costs, alone: the export's part of a decision.
    const handler: number[] = [];
    for (let index = 0; index < decisions; index++) {
      const recorded = entry(index);
      const started = performance.now();
      up.exporter.record(recorded);
      handler.push((performance.now() - started) * 1_000);
      if (index % 50 === 49) {
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    rows.push({ metric: `onDidRecord handler alone (median of ${handler.length}; target < 200 µs)`, value: `${median(handler).toFixed(1)} µs` });
    const p99 = (times: number[]): number => [...times].sort((a, b) => a - b)[Math.floor(times.length * 0.99)] ?? 0;
    rows.push({ metric: 'p99, record + export (up) / record alone', value: `${p99(results.up).toFixed(1)} µs`, baseline: `${p99(results.alone).toFixed(1)} µs` });
    const sent = decisions * 2 + results.up.length;
    await receiver.waitFor(() => receiver.records.length >= sent, 'the collector to take everything', 60_000);
    rows.push({ metric: 'records the collector received (up)', value: String(receiver.records.length) });
    rows.push({ metric: 'records spooled (down)', value: String(down.exporter.status().waiting) });
    up.exporter.dispose();
    down.exporter.dispose();
    await Promise.all([up.exporter.flush(), down.exporter.flush()]);
    return rows;
  } finally {
    await receiver.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}
