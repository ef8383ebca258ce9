import * as assert from 'node:assert/strict';
import { auditTable } from '../../src/core/audit/auditTable';

const line = (change: Record<string, unknown>): string =>
  JSON.stringify({ time: '2026-11-22T21:48:42.123Z', callId: 'c-1', tool: 'write_file', argsHash: 'a'.repeat(64), verdict: 'allow', decidedBy: 'person', reason: 'allowed once by the person', source: 'agent', ...change });

describe('the audit log as a table', () => {
  const rows: { name: string; lines: string[]; row: string | undefined; note?: RegExp }[] = [
    {
      name: 'a decision by the person, with its scope and target',
      lines: [line({ scope: 'once', target: 'src/a.ts' })],
      row: '| 2026-11-22 21:48:42 | write_file | src/a.ts | allow | person (once) | allowed once by the person |',
    },
    {
      name: 'a command with a pipe and a newline stays one cell',
      lines: [line({ tool: 'run_in_terminal', verdict: 'ask', decidedBy: 'policy', target: 'ls |\n wc -l', reason: 'asks: `wc` is not allowed' })],
      row: "| 2026-11-22 21:48:42 | run_in_terminal | ls \\| wc -l | ask (no answer yet) | policy | asks: 'wc' is not allowed |",
    },
    {
      name: "another extension's call, edited before allowing",
      lines: [line({ source: 'other.ext', edited: true })],
      row: '| 2026-11-22 21:48:42 | write_file (from other.ext) |   | allow (edited) | person | allowed once by the person |',
    },
    {
      name: 'an undo',
      lines: [JSON.stringify({ kind: 'undo', time: '2026-11-22T22:00:00Z', chatId: 'c', taskId: 't', scope: 'task', turns: [0], undoneTurns: [0], outcome: 'undone', reverted: [{ path: 'a.ts', how: 'reverted' }], left: [], commands: [], reason: 'reverted 1 file' })],
      row: '| 2026-11-22 22:00:00 | undo (task) | a.ts | undone | person | reverted 1 file |',
    },
    {
      name: "the policy's question and the person's answer are one row: the time it came, the answer, both reasons",
      lines: [
        line({ verdict: 'ask', decidedBy: 'policy', reason: 'asked: writes ask', target: 'src/a.ts' }),
        line({ time: '2026-11-22T21:49:10.000Z', scope: 'session', reason: 'allowed for this session by the person', target: 'src/a.ts' }),
      ],
      row: '| 2026-11-22 21:48:42 | write_file | src/a.ts | allow after asking | person (session) | asked: writes ask; then allowed for this session by the person |',
    },
    {
      name: 'a call the window closed on is "not run"',
      lines: [line({ verdict: 'ask', decidedBy: 'policy', reason: 'asked' }), line({ verdict: 'deny', decidedBy: 'cancel', reason: 'the window closed', notRun: 'shutdown' })],
      row: '| 2026-11-22 21:48:42 | write_file |   | not run | cancel | asked; then the window closed |',
    },
    { name: 'a line that is not JSON is counted, not shown', lines: ['{oops'], row: undefined, note: /1 line could not be read/ },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const table = auditTable(row.lines.join('\n'));
      const body = table.markdown.split('\n').filter((text) => text.startsWith('| 2026'));
      assert.deepEqual(body, row.row === undefined ? [] : [row.row]);
      if (row.note) {
        assert.match(table.markdown, row.note);
      }
    });
  }

  it('puts the newest first and keeps at most the limit', () => {
    const lines = [1, 2, 3].map((n) => line({ callId: `c-${n}`, time: `2026-11-22T21:00:0${n}Z`, target: `f${n}` }));
    const table = auditTable(lines.join('\n'), 2);
    assert.deepEqual(
      table.markdown.split('\n').filter((text) => text.startsWith('| 2026')).map((text) => text.split(' | ')[2]),
      ['f3', 'f2'],
    );
    assert.match(table.markdown, /3 rows, newest first: one per call \(the question and its answer together\) and one per undo \(the newest 2 shown\)\. Times are UTC\./);
  });

  it("shows times in the person's time zone, and says which", () => {
    const table = auditTable(line({ time: '2026-11-22T21:48:42.123Z' }), 10, undefined, 'America/New_York');
    assert.match(table.markdown, /\| 2026-11-22 16:48:42 \| write_file \|/);
    assert.match(table.markdown, /Times are local \(America\/New_York\)\./);
    const tokyo = auditTable(line({ time: '2026-11-22T21:48:42.123Z' }), 10, undefined, 'Asia/Tokyo');
    assert.match(tokyo.markdown, /\| 2026-11-23 06:48:42 \|/);
  });
});
