import * as assert from 'node:assert/strict';
import { AuditLog, type AuditEntry } from '../../src/core/audit/auditLog';

const entry = (callId: string): AuditEntry => ({ time: '2026-12-01T00:00:00.000Z', callId, tool: 'read_file', argsHash: 'h', verdict: 'allow', decidedBy: 'grant', reason: 'allowed: a grant', source: 'agent' });

/** A sink that holds each append until told to finish it, and keeps what it was given. */
function heldSink(): { appends: string[]; finish: (fail?: boolean) => void; sink: { append: (lines: string) => Promise<void> } } {
  const appends: string[] = [];
  const pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  return {
    appends,
    finish: (fail) => {
      const next = pending.shift();
      if (fail === true) {
        next?.reject(new Error('disk full'));
      } else {
        next?.resolve();
      }
    },
    sink: {
      append: (lines) => {
        appends.push(lines);
        return new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
      },
    },
  };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('the audit log writes what is recorded, in order (core/audit/auditLog)', () => {
  it('fires and echoes each decision before anything awaiting in its turn goes on; the lines of one turn go in one append', async () => {
    const { appends, finish, sink } = heldSink();
    const echoed: string[] = [];
    const fired: string[] = [];
    const log = new AuditLog(sink, (line) => echoed.push(line), (error) => assert.fail(String(error)));
    log.onDidRecord((recorded) => fired.push(recorded.callId));
    log.record(entry('c1'));
    log.record(entry('c2'));
    await Promise.resolve(); // what awaits the decision in the turn that made it
    assert.deepEqual(fired, ['c1', 'c2']);
    assert.deepEqual(echoed, ['audit allow read_file by grant: allowed: a grant', 'audit allow read_file by grant: allowed: a grant']);
    await turn();
    assert.equal(appends.length, 1);
    assert.deepEqual(appends[0]?.split('\n').filter((line) => line !== '').map((line) => (JSON.parse(line) as AuditEntry).callId), ['c1', 'c2']);
    assert.ok(appends[0].endsWith('\n'));
    finish();
    await log.flush();
  });

  it('lines recorded while an append is under way wait for it, and flush waits for them too', async () => {
    const { appends, finish, sink } = heldSink();
    const log = new AuditLog(sink, () => undefined, (error) => assert.fail(String(error)));
    log.record(entry('c1'));
    await turn();
    log.record(entry('c2'));
    log.record(entry('c3'));
    let flushed = false;
    const flushing = log.flush().then(() => (flushed = true));
    await turn();
    assert.equal(appends.length, 1, 'never two appends at once: lines must not interleave');
    finish();
    await turn();
    assert.equal(appends.length, 2);
    assert.equal(appends[1], `${JSON.stringify(entry('c2'))}\n${JSON.stringify(entry('c3'))}\n`);
    assert.equal(flushed, false);
    finish();
    await flushing;
    assert.equal(flushed, true);
  });

  it('a listener that throws is reported like a failed write; the entries after it are still fired and written', async () => {
    const { appends, finish, sink } = heldSink();
    const errors: string[] = [];
    const fired: string[] = [];
    const log = new AuditLog(sink, () => undefined, (error) => errors.push(String(error)));
    log.onDidRecord((recorded) => {
      fired.push(recorded.callId);
      if (recorded.callId === 'c1') {
        throw new Error('a listener broke');
      }
    });
    log.record(entry('c1'));
    log.record(entry('c2'));
    await turn();
    assert.deepEqual([fired, errors], [['c1', 'c2'], ['Error: a listener broke']]);
    assert.equal(appends[0]?.split('\n').length, 3, 'both lines, and the last line break');
    finish();
    await log.flush();
  });

  it('flush in the turn that recorded waits for that turn\'s lines', async () => {
    const written: string[] = [];
    // A sink that finishes a turn later: flush has to wait for the write itself, not only for the announcement.
    const log = new AuditLog({ append: (lines) => new Promise<void>((resolve) => setImmediate(() => resolve(void written.push(lines)))) }, () => undefined, (error) => assert.fail(String(error)));
    log.record(entry('c1'));
    await log.flush();
    assert.deepEqual(written, [`${JSON.stringify(entry('c1'))}\n`]);
  });

  it('a failed append is reported, and what is recorded after it is still written', async () => {
    const { appends, finish, sink } = heldSink();
    const errors: string[] = [];
    const log = new AuditLog(sink, () => undefined, (error) => errors.push(String(error)));
    log.record(entry('c1'));
    await turn();
    finish(true);
    await log.flush();
    assert.deepEqual(errors, ['Error: disk full']);
    log.record(entry('c2'));
    await turn();
    assert.equal(appends.at(-1), `${JSON.stringify(entry('c2'))}\n`);
    finish();
    await log.flush();
  });
});
