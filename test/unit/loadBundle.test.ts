import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { codeCacheFile, loadBundle } from '../../src/loadBundle';

/** A bundle as esbuild writes one: CommonJS, requiring a file beside it and a Node built-in. */
const bundleSource = (answer: number): string => `"use strict";
const lib = require('./lib.js');
const { basename } = require('node:path');
exports.answer = lib.base + ${answer};
exports.where = basename(__dirname) + '/' + basename(__filename);
exports.sameModule = module.exports === exports;
exports.add = (a, b) => a + b;
`;

describe('loading a bundle with V8 code cache (src/loadBundle.ts)', () => {
  let folder: string;
  let cacheDir: string;
  let copies = 0;

  /**
   * The bundle written to a folder of its own each time: V8 keeps what it compiled in this process by source and file
   * name, and would answer a second load of the same file from memory, whatever the cache file holds.
   */
  const place = (source: string): string => {
    copies += 1;
    const dist = path.join(folder, `install-${copies}`, 'dist');
    mkdirSync(dist, { recursive: true });
    writeFileSync(path.join(dist, 'lib.js'), 'exports.base = 40;');
    writeFileSync(path.join(dist, 'toolgate.js'), source);
    return path.join(dist, 'toolgate.js');
  };

  beforeEach(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'toolgate-load-bundle-'));
    cacheDir = path.join(folder, 'storage', 'code-cache');
  });

  afterEach(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  const exportsOf = (loaded: { exports: unknown }) => loaded.exports as { answer: number; where: string; sameModule: boolean; add(a: number, b: number): number };
  const cacheFiles = (): string[] => {
    try {
      return readdirSync(cacheDir).sort();
    } catch {
      return [];
    }
  };

  it('loads as require would, makes the cache only when asked, then uses it on the next load', () => {
    const first = loadBundle(place(bundleSource(2)), cacheDir);
    assert.equal(first.cache, 'made');
    assert.deepEqual({ ...exportsOf(first), add: exportsOf(first).add(1, 2) }, { answer: 42, where: 'dist/toolgate.js', sameModule: true, add: 3 });
    assert.deepEqual(cacheFiles(), [], 'nothing is written before the first work is done');
    first.keepCodeCache();
    assert.deepEqual(cacheFiles(), [path.basename(codeCacheFile(cacheDir, place(''), bundleSource(2)))]);

    const second = loadBundle(place(bundleSource(2)), cacheDir);
    assert.equal(second.cache, 'used');
    assert.equal(exportsOf(second).answer, 42);
    second.keepCodeCache();
    assert.equal(cacheFiles().length, 1);
  });

  it('a cache V8 refuses costs only the speed, and is made again', () => {
    loadBundle(place(bundleSource(2)), cacheDir).keepCodeCache();
    const [file] = cacheFiles();
    assert.ok(file !== undefined);
    writeFileSync(path.join(cacheDir, file), 'not a code cache at all');
    const refused = loadBundle(place(bundleSource(2)), cacheDir);
    assert.equal(refused.cache, 'rejected');
    assert.equal(exportsOf(refused).answer, 42);
    refused.keepCodeCache();
    assert.equal(loadBundle(place(bundleSource(2)), cacheDir).cache, 'used');
  });

  it('a changed bundle of the very same length never runs the old code, and its old cache is removed', () => {
    loadBundle(place(bundleSource(2)), cacheDir).keepCodeCache();
    const before = cacheFiles();
    // V8 checks only the source's length: 2 -> 7 keeps it, so the file name must tell the two apart.
    assert.equal(bundleSource(7).length, bundleSource(2).length);
    const changed = loadBundle(place(bundleSource(7)), cacheDir);
    assert.equal(changed.cache, 'made');
    assert.equal(exportsOf(changed).answer, 47);
    changed.keepCodeCache();
    const after = cacheFiles();
    assert.equal(after.length, 1);
    assert.notDeepEqual(after, before);
  });

  it('without a folder, or with one that cannot be written, the bundle still loads', () => {
    const bundle = place(bundleSource(2));
    const off = loadBundle(bundle, undefined);
    assert.equal(off.cache, 'off');
    off.keepCodeCache();
    assert.equal(exportsOf(off).answer, 42);

    // A file where the folder should be: nothing can be written under it.
    const blocked = path.join(folder, 'blocked');
    writeFileSync(blocked, '');
    const unwritable = loadBundle(bundle, path.join(blocked, 'code-cache'));
    assert.equal(unwritable.cache, 'made');
    assert.doesNotThrow(() => unwritable.keepCodeCache());
    assert.equal(exportsOf(unwritable).answer, 42);
    if (process.getuid?.() !== 0) {
      // Root writes through permission bits; as anyone else a read-only folder is refused and the load goes on.
      mkdirSync(cacheDir, { recursive: true });
      chmodSync(cacheDir, 0o500);
      assert.doesNotThrow(() => loadBundle(bundle, cacheDir).keepCodeCache());
      chmodSync(cacheDir, 0o700);
      assert.deepEqual(cacheFiles(), []);
    }
  });

  it("the bundle's own errors reach the caller, as require's would", () => {
    assert.throws(() => loadBundle(place('throw new Error("the bundle failed at its top level");'), cacheDir), /the bundle failed at its top level/);
    assert.throws(() => loadBundle(place('require("./missing.js");'), cacheDir), /Cannot find module '\.\/missing\.js'/);
  });
});
