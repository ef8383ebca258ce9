/**
 * The audit export against a local OTLP receiver (test/fixtures/otlpReceiver.ts) that decodes the real wire format:
 * the collector up (protobuf and JSON), down (records spooled, delivered once it starts, also after a restart), slow
 * (a decision returns at once), and the managed configuration winning over the person's.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AuditLog, type AuditEntry } from '../../src/core/audit/auditLog';
import { AuditExport, type AuditExportOptions, type ExportStatus } from '../../src/core/audit/export/auditExport';
import { Emitter } from '../../src/core/disposable';
import { OtlpReceiver } from '../fixtures/otlpReceiver';

const entry = (callId: string, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  time: '2026-11-24T10:00:00.000Z',
  callId,
  tool: 'write_file',
  argsHash: 'b'.repeat(64),
  verdict: 'allow',
  decidedBy: 'person',
  scope: 'once',
  reason: 'allowed: once',
  source: 'agent',
  target: 'src/a.ts',
  ...overrides,
});

interface Logged {
  level: 'info' | 'warn' | 'error';
  message: string;
}

/** Resolves once the export's status satisfies `predicate`, or fails after a bound. */
function statusReaches(exporter: AuditExport, predicate: (status: ExportStatus) => boolean, what: string, timeoutMs = 8_000): Promise<ExportStatus> {
  const now = exporter.status();
  if (predicate(now)) {
    return Promise.resolve(now);
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(new Error(`timed out waiting for ${what}: ${JSON.stringify(exporter.status())}`));
    }, timeoutMs);
    const subscription = exporter.onDidChangeStatus((status) => {
      if (predicate(status)) {
        clearTimeout(timer);
        subscription.dispose();
        resolve(status);
      }
    });
  });
}

describe('audit export over OTLP/HTTP to a local receiver', function () {
  this.timeout(20_000);
  let folder: string;
  let receiver: OtlpReceiver;
  let logged: Logged[];
  const exporters: AuditExport[] = [];

  const makeExport = (options: Partial<AuditExportOptions> = {}): AuditExport => {
    const made = new AuditExport({
      spoolFile: path.join(folder, 'globalStorage', 'audit-export', 'ws.jsonl'),
      workspaceId: () => 'ws-test',
      log: {
        info: (message) => logged.push({ level: 'info', message }),
        warn: (message) => logged.push({ level: 'warn', message }),
        error: (message) => logged.push({ level: 'error', message }),
      },
      serviceVersion: '9.9.9',
      timing: { batchDelayMs: 10, retryMinMs: 50, retryMaxMs: 200, exportTimeoutMs: 1_000 },
      ...options,
    });
    exporters.push(made);
    return made;
  };

  beforeEach(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'toolgate-otlp-'));
    logged = [];
    receiver = new OtlpReceiver();
    await receiver.start();
  });
  afterEach(async () => {
    for (const made of exporters.splice(0)) {
      made.dispose();
      await made.flush();
    }
    await receiver.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('sends each decision as a log record, protobuf by default, with its attributes and the headers', async () => {
    const headersFile = path.join(folder, 'otlp-headers');
    writeFileSync(headersFile, '# the team token\nAuthorization: Bearer team-token\n');
    const secretChanged = new Emitter<void>();
    const exporter = makeExport({ secretHeaders: { get: () => Promise.resolve(JSON.stringify({ 'X-Person': 'ana', Authorization: 'overridden by the file' })), onDidChange: secretChanged.event } });
    exporter.configure({ endpoint: receiver.endpoint, protocol: 'http/protobuf', headersFile }, 'setting');
    exporter.record(entry('c1', { verdict: 'ask', decidedBy: 'policy', scope: undefined }));
    exporter.record(entry('c1'));
    exporter.record(entry('c2', { verdict: 'deny', decidedBy: 'rule', source: 'mcp-client:cline@3.1', target: 'x'.repeat(300) }));
    await receiver.waitFor(() => receiver.records.length === 3, 'three records');
    const [ask, allow, deny] = receiver.records;
    assert.ok(ask && allow && deny);
    assert.equal(ask.encoding, 'protobuf');
    assert.equal(ask.path, '/v1/logs');
    assert.equal(ask.headers.authorization, 'Bearer team-token');
    assert.equal(ask.headers['x-person'], 'ana');
    assert.equal(ask.resource['service.name'], 'toolgate');
    assert.equal(ask.resource['service.version'], '9.9.9');
    assert.equal(ask.scope, 'toolgate.audit');
    assert.equal(ask.eventName, 'toolgate.decision');
    assert.equal(ask.timeUnixNano, String(Date.parse('2026-11-24T10:00:00.000Z') * 1_000_000));
    assert.deepEqual(
      [ask, allow, deny].map((record) => [record.attributes['toolgate.call.id'], record.attributes['toolgate.verdict'], record.attributes['toolgate.decided_by'], record.attributes['toolgate.scope'], record.body, record.severityText]),
      [
        ['c1', 'ask', 'policy', undefined, 'ask write_file by policy', 'INFO'],
        ['c1', 'allow', 'person', 'once', 'allow write_file by person (once)', 'INFO'],
        ['c2', 'deny', 'rule', 'once', 'deny write_file by rule (once)', 'WARN'],
      ],
    );
    assert.equal(allow.attributes['toolgate.args.hash'], 'b'.repeat(64));
    assert.equal(allow.attributes['toolgate.caller.kind'], 'agent');
    assert.equal(allow.attributes['toolgate.workspace.id'], 'ws-test');
    assert.equal(deny.attributes['toolgate.caller'], 'mcp-client:cline@3.1');
    assert.equal(deny.attributes['toolgate.caller.kind'], 'mcp-client');
    assert.equal(String(deny.attributes['toolgate.target']).length, 200);
    assert.equal(new Set(receiver.records.map((record) => record.attributes['toolgate.record.id'])).size, 3);
    const done = await statusReaches(exporter, (status) => status.waiting === 0, 'an empty spool');
    assert.deepEqual(done, { health: 'sending', origin: 'setting', collector: new URL(receiver.endpoint).host, waiting: 0, dropped: 0 });
  });

  it('sends OTLP/JSON on request', async () => {
    const exporter = makeExport();
    exporter.configure({ endpoint: `${receiver.endpoint}/v1/logs`, protocol: 'http/json' }, 'setting');
    exporter.record(entry('c1', { edited: true, scope: 'workspace', decidedBy: 'grant' }));
    await receiver.waitFor(() => receiver.records.length === 1, 'one record');
    const [record] = receiver.records;
    assert.ok(record);
    assert.equal(record.encoding, 'json');
    assert.equal(record.path, '/v1/logs');
    assert.equal(record.attributes['toolgate.edited'], true);
    assert.equal(record.attributes['toolgate.scope'], 'workspace');
    assert.equal(record.resource['service.name'], 'toolgate');
  });

  it('with the collector down: records wait in the spool on disk and are delivered once it starts', async () => {
    await receiver.stop(); // the port stays reserved for this receiver's next start
    const exporter = makeExport();
    exporter.configure({ endpoint: receiver.endpoint, protocol: 'http/protobuf' }, 'setting');
    ['c1', 'c2', 'c3'].forEach((id) => exporter.record(entry(id)));
    const failing = await statusReaches(exporter, (status) => status.health === 'failing', 'a failing send');
    assert.equal(failing.waiting, 3);
    assert.ok(failing.lastError !== undefined);
    await exporter.flush();
    const spooled = readFileSync(path.join(folder, 'globalStorage', 'audit-export', 'ws.jsonl'), 'utf8').trim().split('\n');
    assert.equal(spooled.length, 3);
    assert.ok(logged.some((line) => line.level === 'warn' && /did not take 3 record\(s\)/.test(line.message)), JSON.stringify(logged));
    exporter.record(entry('c4'));
    await receiver.start();
    await receiver.waitFor(() => receiver.records.length === 4, 'the four records');
    assert.deepEqual(receiver.records.map((record) => record.attributes['toolgate.call.id']), ['c1', 'c2', 'c3', 'c4']);
    await statusReaches(exporter, (status) => status.health === 'sending' && status.waiting === 0, 'an empty spool');
    assert.ok(logged.some((line) => /takes records again/.test(line.message)));
    await exporter.flush();
    assert.equal(readFileSync(path.join(folder, 'globalStorage', 'audit-export', 'ws.jsonl'), 'utf8'), '');
  });

  it('nothing lost across a window reload: the next start reads the spool and sends it', async () => {
    await receiver.stop();
    const first = makeExport();
    first.configure({ endpoint: receiver.endpoint, protocol: 'http/protobuf' }, 'setting');
    ['c1', 'c2'].forEach((id) => first.record(entry(id)));
    await statusReaches(first, (status) => status.health === 'failing', 'a failing send');
    first.dispose();
    await first.flush();
    await receiver.start();
    const second = makeExport();
    second.configure({ endpoint: receiver.endpoint, protocol: 'http/protobuf' }, 'setting');
    second.record(entry('c3'));
    await receiver.waitFor(() => new Set(receiver.records.map((record) => record.attributes['toolgate.call.id'])).size === 3, 'the three calls');
    assert.deepEqual(receiver.records.map((record) => record.attributes['toolgate.call.id']), ['c1', 'c2', 'c3']);
  });

  it('past its bound the spool drops the oldest, says how many in the log and the status, and the collector learns it', async () => {
    await receiver.stop();
    const exporter = makeExport({ maxSpooled: 3 });
    exporter.configure({ endpoint: receiver.endpoint, protocol: 'http/protobuf' }, 'setting');
    ['c1', 'c2', 'c3', 'c4', 'c5'].forEach((id) => exporter.record(entry(id)));
    const status = exporter.status();
    assert.equal(status.dropped, 2);
    assert.equal(status.waiting, 3);
    assert.ok(logged.some((line) => line.level === 'warn' && /spool is full/.test(line.message)), JSON.stringify(logged));
    await receiver.start();
    await receiver.waitFor(() => receiver.records.length === 3, 'the three kept');
    assert.deepEqual(receiver.records.map((record) => [record.attributes['toolgate.call.id'], record.attributes['toolgate.export.dropped_before']]), [
      ['c3', 2],
      ['c4', undefined],
      ['c5', undefined],
    ]);
  });

  it('with a slow collector a decision still returns at once, and everything arrives once it answers', async () => {
    receiver.mode = 'slow';
    const exporter = makeExport();
    const audit = new AuditLog({ append: () => Promise.resolve() }, () => undefined, () => undefined);
    audit.onDidRecord((recorded) => exporter.record(recorded));
    exporter.configure({ endpoint: receiver.endpoint, protocol: 'http/protobuf' }, 'setting');
    audit.record(entry('c1'));
    await receiver.waitFor(() => receiver.heldRequests === 1, 'a held request');
    for (let index = 2; index <= 101; index++) {
      audit.record(entry(`c${index}`)); // returns nothing to wait for: a decision never waits on the collector
    }
    await Promise.resolve(); // the turn's entries are announced (and spooled) before anything awaiting in it goes on
    assert.equal(receiver.records.length, 0, 'nothing answered yet');
    assert.equal(exporter.status().waiting, 101, 'all spooled while the collector holds its answer');
    receiver.mode = 'up';
    receiver.release();
    await receiver.waitFor(() => receiver.records.length === 101, 'all the records');
    await statusReaches(exporter, (status) => status.waiting === 0, 'an empty spool');
  });

  it('a managed configuration wins: the setting can neither change nor turn it off', async () => {
    const other = new OtlpReceiver();
    await other.start();
    try {
      const exporter = makeExport();
      exporter.configure({ endpoint: other.endpoint, protocol: 'http/protobuf' }, 'setting');
      exporter.configure({ endpoint: receiver.endpoint, protocol: 'http/json' }, 'managed');
      exporter.record(entry('c1'));
      await receiver.waitFor(() => receiver.records.length === 1, 'the managed collector');
      assert.equal(exporter.status().origin, 'managed');
      exporter.configure(undefined, 'setting');
      exporter.record(entry('c2'));
      await receiver.waitFor(() => receiver.records.length === 2, 'the managed collector, setting removed');
      exporter.configure(undefined, 'managed');
      assert.equal(exporter.status().health, 'off');
      exporter.record(entry('c3'));
      exporter.configure({ endpoint: other.endpoint, protocol: 'http/protobuf' }, 'setting');
      exporter.record(entry('c4'));
      await other.waitFor(() => other.records.length === 1, "the person's collector");
      assert.deepEqual(other.records.map((record) => record.attributes['toolgate.call.id']), ['c4'], 'a decision made while the export was off is not exported');
      assert.deepEqual(receiver.records.map((record) => record.encoding), ['json', 'json']);
    } finally {
      await other.stop();
    }
  });

  it('not configured: nothing is spooled, nothing is loaded', () => {
    let loads = 0;
    const exporter = makeExport({ loadSdk: () => (loads++, import('../../src/core/audit/export/otlpSdk')) });
    exporter.record(entry('c1'));
    assert.equal(loads, 0);
    assert.deepEqual(exporter.status(), { health: 'off', waiting: 0, dropped: 0 });
    assert.equal(existsSync(path.join(folder, 'globalStorage')), false);
  });
});
