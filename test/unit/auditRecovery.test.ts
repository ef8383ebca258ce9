import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeLeftWaiting } from '../../src/core/audit/leftWaiting';
import type { AuditEntry } from '../../src/core/audit/auditLog';
import { recoveredEntries, unclosedAsks } from '../../src/core/audit/recovery';

const line = (callId: string, verdict: AuditEntry['verdict'], decidedBy: AuditEntry['decidedBy'] = verdict === 'ask' ? 'policy' : 'person'): string =>
  JSON.stringify({ time: '2026-11-24T10:00:00.000Z', callId, tool: 'write_file', argsHash: 'a'.repeat(64), verdict, decidedBy, reason: 'r', source: 'agent', target: `${callId}.txt` });

describe('closing the record at start: calls an earlier window left waiting', () => {
  const rows: { name: string; lines: string[]; open: string[] }[] = [
    { name: 'an empty log', lines: [], open: [] },
    { name: 'an ask and its decision', lines: [line('c1', 'ask'), line('c1', 'allow')], open: [] },
    { name: 'an ask with no decision', lines: [line('c1', 'ask')], open: ['c1'] },
    { name: 'three waiting, one decided', lines: [line('c1', 'ask'), line('c2', 'ask'), line('c3', 'ask'), line('c2', 'deny')], open: ['c1', 'c3'] },
    { name: 'closed at shutdown already', lines: [line('c1', 'ask'), line('c1', 'deny', 'cancel')], open: [] },
    { name: 'a cut or broken line is passed over', lines: ['{"time": "2026', line('c1', 'ask'), 'not json', '{"kind":"undo"}'], open: ['c1'] },
    { name: 'an allow without an ask (a rule) opens nothing', lines: [line('c1', 'allow', 'rule')], open: [] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(
        unclosedAsks(row.lines).map((entry) => entry.callId),
        row.open,
      );
    });
  }

  it('each is closed as denied, not run, found at this start, keeping what it was about; twice closes nothing more', () => {
    const lines = [line('c1', 'ask'), line('c2', 'ask')];
    const closing = recoveredEntries(unclosedAsks(lines), new Date('2026-11-24T11:00:00.000Z'));
    assert.deepEqual(
      closing.map((entry) => [entry.callId, entry.verdict, entry.decidedBy, entry.notRun, entry.target, entry.time]),
      [
        ['c1', 'deny', 'cancel', 'recovered', 'c1.txt', '2026-11-24T11:00:00.000Z'],
        ['c2', 'deny', 'cancel', 'recovered', 'c2.txt', '2026-11-24T11:00:00.000Z'],
      ],
    );
    assert.match(closing[0]?.reason ?? '', /^not run: it was still waiting when the window was reloaded, closed or crashed/);
    assert.deepEqual(unclosedAsks([...lines, ...closing.map((entry) => JSON.stringify(entry))]), [], 'a second start finds nothing left');
  });
});

describe('the log file read at start (src/core/audit/leftWaiting.ts)', () => {
  const rows: { name: string; content: string | undefined; closed: string[]; said: string[] }[] = [
    { name: 'no log yet: nothing read, nothing said', content: undefined, closed: [], said: [] },
    { name: 'everything decided: nothing closed', content: `${line('c1', 'ask')}\n${line('c1', 'allow')}\n`, closed: [], said: [] },
    { name: 'a call left waiting: closed, and said', content: `${line('c1', 'ask')}\n${line('c2', 'ask')}\n${line('c2', 'deny')}\n`, closed: ['c1'], said: ['info closed 1 call(s) an earlier window left waiting in the audit log: not run'] },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const folder = mkdtempSync(path.join(tmpdir(), 'toolgate-left-'));
      try {
        const file = path.join(folder, 'audit.jsonl');
        if (row.content !== undefined) {
          writeFileSync(file, row.content);
        }
        const closed: string[] = [];
        const said: string[] = [];
        const log = { info: (text: string) => void said.push(`info ${text}`), warn: (text: string) => void said.push(`warn ${text}`), error: (text: string) => void said.push(`error ${text}`) };
        await closeLeftWaiting(file, { record: (entry) => void closed.push(entry.callId) }, log);
        assert.deepEqual(closed, row.closed);
        assert.deepEqual(said, row.said);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    });
  }
});
