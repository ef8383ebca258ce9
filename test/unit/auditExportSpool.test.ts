import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExportRecord } from '../../src/core/audit/export/exportRecord';
import { ExportSpool } from '../../src/core/audit/export/exportSpool';

const record = (id: string): ExportRecord => ({ id, time: '2026-11-24T10:00:00.000Z', severity: 'info', body: `allow ${id}`, attributes: { 'toolgate.call.id': id }, droppedBefore: 0 });
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const ids = (spool: ExportSpool): string[] => spool.take(1_000, new Set()).map((kept) => kept.id);

describe('audit export: the spool', () => {
  let folder: string;
  let file: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'toolgate-spool-'));
    file = path.join(folder, 'export', 'ws.jsonl');
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('keeps records in order and hands out those not already on their way', async () => {
    const spool = new ExportSpool(file, 10, quiet);
    await spool.loaded;
    ['a', 'b', 'c', 'd'].forEach((id) => spool.add(record(id)));
    assert.deepEqual(spool.take(2, new Set(['a'])).map((kept) => kept.id), ['b', 'c']);
    spool.remove(new Set(['a', 'c']));
    assert.deepEqual(ids(spool), ['b', 'd']);
  });

  const bounds: { name: string; max: number; added: number; kept: string[]; dropped: number; droppedBefore: number }[] = [
    { name: 'under the bound: nothing dropped', max: 5, added: 3, kept: ['r0', 'r1', 'r2'], dropped: 0, droppedBefore: 0 },
    { name: 'at the bound: nothing dropped', max: 3, added: 3, kept: ['r0', 'r1', 'r2'], dropped: 0, droppedBefore: 0 },
    { name: 'past the bound: the oldest go first', max: 3, added: 7, kept: ['r4', 'r5', 'r6'], dropped: 4, droppedBefore: 4 },
    { name: 'a bound of one keeps the newest', max: 1, added: 4, kept: ['r3'], dropped: 3, droppedBefore: 3 },
  ];
  for (const row of bounds) {
    it(`bounded: ${row.name}`, async () => {
      const spool = new ExportSpool(file, row.max, quiet);
      await spool.loaded;
      const drops: number[] = [];
      spool.onDidDrop((count) => drops.push(count));
      for (let index = 0; index < row.added; index++) {
        spool.add(record(`r${index}`));
      }
      assert.deepEqual(ids(spool), row.kept);
      assert.equal(spool.dropped, row.dropped);
      assert.equal(drops.reduce((sum, count) => sum + count, 0), row.dropped);
      // The oldest record kept says how many were dropped before it; the collector learns of the gap.
      assert.equal(spool.take(1, new Set())[0]?.droppedBefore, row.droppedBefore);
    });
  }

  it('survives a restart: what was not removed is read back, in order, with its drop count', async () => {
    const first = new ExportSpool(file, 3, quiet);
    await first.loaded;
    ['a', 'b', 'c', 'd', 'e'].forEach((id) => first.add(record(id)));
    first.remove(new Set(['d']));
    first.add(record('f'));
    await first.flush();
    const second = new ExportSpool(file, 3, quiet);
    await second.loaded;
    assert.deepEqual(ids(second), ['c', 'e', 'f']);
    assert.equal(second.take(1, new Set())[0]?.droppedBefore, 2);
    assert.equal(second.dropped, 0, 'the drops were counted by the window that made them');
  });

  it('appends new records without rewriting, and the file holds one line each', async () => {
    const spool = new ExportSpool(file, 10, quiet);
    await spool.loaded;
    spool.add(record('a'));
    await spool.flush();
    spool.add(record('b'));
    spool.add(record('c'));
    await spool.flush();
    assert.deepEqual(readFileSync(file, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as ExportRecord).id), ['a', 'b', 'c']);
  });

  it('a restart with a smaller bound keeps the newest', async () => {
    const first = new ExportSpool(file, 10, quiet);
    await first.loaded;
    ['a', 'b', 'c', 'd'].forEach((id) => first.add(record(id)));
    await first.flush();
    const second = new ExportSpool(file, 2, quiet);
    await second.loaded;
    assert.deepEqual(ids(second), ['c', 'd']);
    assert.equal(second.dropped, 2);
  });

  it('records added while the file is read come after those it held', async () => {
    const first = new ExportSpool(file, 10, quiet);
    await first.loaded;
    ['a', 'b'].forEach((id) => first.add(record(id)));
    await first.flush();
    const second = new ExportSpool(file, 10, quiet);
    second.add(record('c'));
    await second.loaded;
    await second.flush();
    assert.deepEqual(ids(second), ['a', 'b', 'c']);
    const third = new ExportSpool(file, 10, quiet);
    await third.loaded;
    assert.deepEqual(ids(third), ['a', 'b', 'c']);
  });

  it('unreadable lines are counted in a warning and passed over; duplicates read once', async () => {
    const warnings: string[] = [];
    const { mkdirSync } = await import('node:fs');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, [JSON.stringify(record('a')), '{"id": "cut', 'not json', JSON.stringify(record('a')), JSON.stringify({ id: 'x' }), JSON.stringify(record('b'))].join('\n'));
    const spool = new ExportSpool(file, 10, { ...quiet, warn: (message) => warnings.push(message) });
    await spool.loaded;
    assert.deepEqual(ids(spool), ['a', 'b']);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /3 line\(s\) of its spool could not be read/);
  });
});
