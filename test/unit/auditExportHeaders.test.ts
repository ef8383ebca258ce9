import * as assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CollectorHeaders, typedHeaders } from '../../src/core/audit/export/collectorHeaders';
import { Emitter } from '../../src/core/disposable';

/** Resolves on the next read of the headers file, or fails after a bound. */
function nextRead(reads: Emitter<void>, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 5_000);
    const subscription = reads.event(() => {
      clearTimeout(timer);
      subscription.dispose();
      resolve();
    });
  });
}

describe('audit export: the collector headers', () => {
  let folder: string;
  let file: string;
  let warnings: string[];
  const log = { info: () => undefined, warn: (message: string) => warnings.push(message), error: () => undefined };
  beforeEach(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'toolgate-headers-'));
    file = path.join(folder, 'otlp-headers');
    warnings = [];
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('are read when configured and again when the file changes, also when it is replaced by a rename', async () => {
    writeFileSync(file, 'Authorization: Bearer one\n');
    const reads = new Emitter<void>();
    const headers = new CollectorHeaders(file, log, undefined, () => reads.fire());
    try {
      await headers.ready;
      assert.deepEqual(headers.current(), { Authorization: 'Bearer one' });
      const changed = nextRead(reads, 'the changed file');
      writeFileSync(file, 'Authorization: Bearer two\n');
      await changed;
      assert.deepEqual(headers.current(), { Authorization: 'Bearer two' });
      const replaced = nextRead(reads, 'the replaced file');
      writeFileSync(`${file}.new`, 'Authorization: Bearer three\nX-Team: a\n');
      renameSync(`${file}.new`, file);
      await replaced;
      assert.deepEqual(headers.current(), { Authorization: 'Bearer three', 'X-Team': 'a' });
      assert.deepEqual(warnings, []);
    } finally {
      headers.dispose();
    }
  });

  it('a bad file is a clear warning, naming lines but never their text; a missing one too', async () => {
    writeFileSync(file, 'Authorization: Bearer ok\nsk-live-secret\n');
    const headers = new CollectorHeaders(file, log, undefined);
    await headers.ready;
    headers.dispose();
    assert.deepEqual(headers.current(), { Authorization: 'Bearer ok' });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /headers file .* has lines that are not headers, left out: line 2 is not/);
    assert.ok(!warnings.join('').includes('sk-live-secret'));
    warnings = [];
    const missing = new CollectorHeaders(path.join(folder, 'none'), log, undefined);
    await missing.ready;
    missing.dispose();
    assert.deepEqual(missing.current(), {});
    assert.match(warnings[0] ?? '', /cannot read the headers file/);
  });

  it('the secret storage port adds its headers; the file wins on a name; a malformed secret adds none', async () => {
    writeFileSync(file, 'Authorization: from the file\n');
    const changed = new Emitter<void>();
    const reads = new Emitter<void>();
    let secret = JSON.stringify({ Authorization: 'from secrets', 'X-Person': 'ana' });
    const headers = new CollectorHeaders(file, log, { get: () => Promise.resolve(secret), onDidChange: changed.event }, () => reads.fire());
    try {
      await headers.ready;
      assert.deepEqual(headers.current(), { Authorization: 'from the file', 'X-Person': 'ana' });
      secret = JSON.stringify({ 'bad name': 'x' });
      const reread = nextRead(reads, 'the changed secret');
      changed.fire();
      await reread;
      assert.deepEqual(headers.current(), { Authorization: 'from the file' });
      assert.match(warnings[0] ?? '', /secret storage are not a map/);
    } finally {
      headers.dispose();
    }
  });
});

describe('audit export: the headers a person types (Toolgate: Set Audit Export Headers)', () => {
  const rows: { name: string; text: string; expected: ReturnType<typeof typedHeaders> | 'problem' }[] = [
    { name: 'a JSON object of names to values is stored as it is', text: ' {"Authorization": "Bearer t0k", "X-Team": "a"} ', expected: { store: '{"Authorization":"Bearer t0k","X-Team":"a"}' } },
    { name: 'an empty input removes them', text: '  ', expected: { store: undefined } },
    { name: 'not JSON', text: 'Authorization: Bearer x', expected: 'problem' },
    { name: 'a value that is not a string', text: '{"X-N": 1}', expected: 'problem' },
    { name: 'a name that is no header name', text: '{"bad name": "x"}', expected: 'problem' },
    { name: 'a value with a line break (a second header smuggled in)', text: '{"A": "x\\r\\nB: y"}', expected: 'problem' },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const typed = typedHeaders(row.text);
      if (row.expected === 'problem') {
        assert.ok('problem' in typed && !typed.problem.includes('Bearer x') && !typed.problem.includes('y"'), 'refused, without saying the value back');
      } else {
        assert.deepEqual(typed, row.expected);
      }
    });
  }
});
