/**
 * The e2e harness's control helper: each session reads the port of its own extension host. The sessions of a run are
 * made while mocha loads the specs; when two were made in one millisecond they shared a port file, and a session
 * called the previous spec's host, gone by then (CI: ECONNREFUSED on the encodings spec's first call).
 */
import * as assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { Control } from '../e2e/harness/control';

describe('the e2e control helper', () => {
  it('gives every session its own port file, though all are made in one tick', () => {
    const files = Array.from({ length: 50 }, () => new Control().file);
    assert.equal(new Set(files).size, files.length);
  });

  it('reset removes a port file left by an extension host that has gone', () => {
    const control = new Control();
    writeFileSync(control.file, '1');
    control.reset();
    assert.equal(existsSync(control.file), false);
  });
});
