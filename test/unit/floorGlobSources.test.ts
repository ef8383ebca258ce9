/**
 * The floor's globs precompiled (src/core/approval/floorGlobSources.ts) are picomatch's own regexes, for exactly the
 * floor: a change of picomatch or of the defaults fails here. `TOOLGATE_UPDATE_GLOB_SOURCES=1` rewrites the table.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { floorGlobSources } from '../../src/core/approval/floorGlobSources';
import { defaultProtectedPaths } from '../../src/core/settings';

const tableFile = path.resolve(import.meta.dirname, '../../src/core/approval/floorGlobSources.ts');
const compiled = (glob: string): RegExp => picomatch.makeRe(glob, { dot: true, windows: false });

describe('the protected-path floor, precompiled', () => {
  if (process.env['TOOLGATE_UPDATE_GLOB_SOURCES'] === '1') {
    const text = readFileSync(tableFile, 'utf8');
    const rows = defaultProtectedPaths.map((glob) => `  [${JSON.stringify(glob)}, ${JSON.stringify(compiled(glob).source)}],`).join('\n');
    writeFileSync(tableFile, text.replace(/new Map\(\[\n[\s\S]*?\n\]\);/, `new Map([\n${rows}\n]);`));
  }

  it('holds the floor, glob for glob in its order', () => {
    assert.deepEqual([...floorGlobSources.keys()], [...defaultProtectedPaths], 'regenerate with TOOLGATE_UPDATE_GLOB_SOURCES=1');
  });

  for (const glob of defaultProtectedPaths) {
    it(`${glob}: picomatch's regex, without flags`, () => {
      const regex = compiled(glob);
      assert.equal(regex.flags, '');
      assert.equal(floorGlobSources.get(glob), regex.source, 'regenerate with TOOLGATE_UPDATE_GLOB_SOURCES=1');
    });
  }
});
