import * as assert from 'node:assert/strict';
import type { AuditEntry } from '../../src/core/audit/auditLog';
import { callerKind, exportRecord, workspaceId, type CallerKind } from '../../src/core/audit/export/exportRecord';
import { lmToolCaller, mcpClientSource } from '../../src/core/callers';

const base: AuditEntry = {
  time: '2026-11-24T10:00:00.000Z',
  callId: 'call-1',
  tool: 'write_file',
  argsHash: 'a'.repeat(64),
  verdict: 'allow',
  decidedBy: 'person',
  reason: 'allowed: you allowed it once; the token is sk-secret',
  source: 'agent',
};

describe('audit export: an audit entry as the OpenTelemetry record', () => {
  const rows: { name: string; entry: Partial<AuditEntry>; attributes: Record<string, string | boolean>; severity: 'info' | 'warn'; body: string }[] = [
    {
      name: 'a person allows once',
      entry: { scope: 'once', target: 'src/a.ts' },
      attributes: { 'toolgate.scope': 'once', 'toolgate.target': 'src/a.ts' },
      severity: 'info',
      body: 'allow write_file by person (once)',
    },
    {
      name: 'the policy asks (no scope, no target)',
      entry: { verdict: 'ask', decidedBy: 'policy' },
      attributes: { 'toolgate.verdict': 'ask', 'toolgate.decided_by': 'policy' },
      severity: 'info',
      body: 'ask write_file by policy',
    },
    {
      name: 'a rule denies: a warning',
      entry: { verdict: 'deny', decidedBy: 'rule', tool: 'run_in_terminal', target: 'rm -rf /' },
      attributes: { 'toolgate.verdict': 'deny', 'toolgate.decided_by': 'rule', 'toolgate.tool': 'run_in_terminal', 'toolgate.target': 'rm -rf /' },
      severity: 'warn',
      body: 'deny run_in_terminal by rule',
    },
    {
      name: 'a grant of the workspace, edited by the person',
      entry: { decidedBy: 'grant', scope: 'workspace', edited: true },
      attributes: { 'toolgate.decided_by': 'grant', 'toolgate.scope': 'workspace', 'toolgate.edited': true },
      severity: 'info',
      body: 'allow write_file by grant (workspace)',
    },
    {
      name: 'a call the window closed on: not run',
      entry: { verdict: 'deny', decidedBy: 'cancel', notRun: 'shutdown' },
      attributes: { 'toolgate.verdict': 'deny', 'toolgate.decided_by': 'cancel', 'toolgate.not_run': 'shutdown' },
      severity: 'warn',
      body: 'deny write_file by cancel',
    },
    {
      name: 'a timeout',
      entry: { verdict: 'deny', decidedBy: 'timeout' },
      attributes: { 'toolgate.decided_by': 'timeout', 'toolgate.verdict': 'deny' },
      severity: 'warn',
      body: 'deny write_file by timeout',
    },
    {
      name: 'a decider the audit log adds later (managed) passes as it is',
      entry: { decidedBy: 'managed' },
      attributes: { 'toolgate.decided_by': 'managed' },
      severity: 'info',
      body: 'allow write_file by managed',
    },
    {
      name: 'an MCP client: its source as the caller',
      entry: { source: mcpClientSource('claude-code', '1.2.3') },
      attributes: { 'toolgate.caller': 'mcp-client:claude-code@1.2.3', 'toolgate.caller.kind': 'mcp-client' },
      severity: 'info',
      body: 'allow write_file by person',
    },
    {
      name: 'a target longer than 200 characters is cut',
      entry: { target: 'x'.repeat(500) },
      attributes: { 'toolgate.target': `${'x'.repeat(199)}…` },
      severity: 'info',
      body: 'allow write_file by person',
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const record = exportRecord({ ...base, ...row.entry }, 'ws-1', 'id-1');
      assert.equal(record.id, 'id-1');
      assert.equal(record.time, base.time);
      assert.equal(record.severity, row.severity);
      assert.equal(record.body, row.body);
      for (const [name, value] of Object.entries(row.attributes)) {
        assert.equal(record.attributes[name], value, name);
      }
      assert.equal(record.attributes['toolgate.call.id'], 'call-1');
      assert.equal(record.attributes['toolgate.args.hash'], 'a'.repeat(64));
      assert.equal(record.attributes['toolgate.workspace.id'], 'ws-1');
      assert.ok(Object.keys(record.attributes).every((name) => name.startsWith('toolgate.')));
    });
  }

  it('never the reason (free text: a person\'s words, a command\'s arguments)', () => {
    const record = exportRecord(base, 'ws-1', 'id-1');
    assert.ok(!JSON.stringify(record).includes('sk-secret'));
  });

  it('leaves out what the entry does not say', () => {
    const record = exportRecord(base, 'ws-1', 'id-1');
    for (const name of ['toolgate.scope', 'toolgate.target', 'toolgate.edited', 'toolgate.not_run']) {
      assert.equal(name in record.attributes, false, name);
    }
  });

  const callers: [string, CallerKind][] = [
    ['agent', 'agent'],
    ['api', 'api'],
    ['some.extension', 'api'],
    [lmToolCaller, 'lm-tool'],
    [mcpClientSource('cline', '3'), 'mcp-client'],
  ];
  for (const [source, kind] of callers) {
    it(`the caller ${source} is a ${kind}`, () => assert.equal(callerKind(source), kind));
  }

  it('the workspace id is a hash of the folders, in any order, never a path', () => {
    const id = workspaceId(['file:///home/ana/secret-project', 'file:///home/ana/lib']);
    assert.match(id, /^[0-9a-f]{16}$/);
    assert.equal(workspaceId(['file:///home/ana/lib', 'file:///home/ana/secret-project']), id);
    assert.notEqual(workspaceId(['file:///home/ana/lib']), id);
    assert.equal(workspaceId([]), 'none');
  });
});
