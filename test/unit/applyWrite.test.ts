/**
 * How an allowed write reaches the disk (issue 35): a file with another name (a hard link of a protected file) is
 * replaced, never written through, and a folder on the way swapped for a link after the write was judged refuses it.
 * Real files under /var/tmp, through the disk port the staged landing tests use.
 */
import * as assert from 'node:assert/strict';
import { linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PathResolver } from '../../src/core/approval/paths';
import { applyWrite } from '../../src/core/tools/applyWrite';
import { ToolError } from '../../src/core/tools/ports';
import { DiskFiles } from '../fixtures/diskFiles';
import { scratchFolder } from '../fixtures/scratch';

describe('applyWrite: never through a hard link, never through a link put on the way', () => {
  let base: string;
  let ws: string;
  let outside: string;

  beforeEach(() => {
    base = scratchFolder('toolgate-write-');
    ws = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    for (const folder of [path.join(ws, '.vscode'), path.join(ws, 'docs'), outside]) {
      mkdirSync(folder, { recursive: true });
    }
    writeFileSync(path.join(ws, '.vscode', 'settings.json'), '{"safe": true}\n');
  });

  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const rows: { name: string; arrange: () => void; /** Between the judgement and the write. */ meanwhile?: () => void; path: string; expect: 'written' | 'link'; after: () => void }[] = [
    {
      name: 'an allowed write to a hard link of .vscode/settings.json leaves it unchanged, and the written file has one name',
      arrange: () => linkSync(path.join(ws, '.vscode', 'settings.json'), path.join(ws, 'docs', 'settings.json')),
      path: 'docs/settings.json',
      expect: 'written',
      after: () => {
        assert.equal(readFileSync(path.join(ws, '.vscode', 'settings.json'), 'utf8'), '{"safe": true}\n');
        assert.equal(statSync(path.join(ws, '.vscode', 'settings.json')).nlink, 1);
        assert.equal(readFileSync(path.join(ws, 'docs', 'settings.json'), 'utf8'), 'written\n');
        assert.equal(statSync(path.join(ws, 'docs', 'settings.json')).nlink, 1);
        assert.deepEqual(readdirSync(path.join(ws, 'docs')), ['settings.json'], 'no temporary file is left beside it');
      },
    },
    {
      name: 'a file with one name is written as before',
      arrange: () => writeFileSync(path.join(ws, 'docs', 'a.txt'), 'old\n'),
      path: 'docs/a.txt',
      expect: 'written',
      after: () => assert.equal(readFileSync(path.join(ws, 'docs', 'a.txt'), 'utf8'), 'written\n'),
    },
    {
      name: 'a folder on the way swapped for a link to a folder outside after it was judged: refused, nothing written outside',
      arrange: () => writeFileSync(path.join(ws, 'docs', 'a.txt'), 'old\n'),
      meanwhile: () => {
        writeFileSync(path.join(outside, 'a.txt'), 'old\n');
        renameSync(path.join(ws, 'docs'), path.join(ws, 'docs-aside'));
        symlinkSync(outside, path.join(ws, 'docs'));
      },
      path: 'docs/a.txt',
      expect: 'link',
      after: () => assert.equal(readFileSync(path.join(outside, 'a.txt'), 'utf8'), 'old\n'),
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      row.arrange();
      const files = new DiskFiles();
      const target = new PathResolver([ws]).resolve(row.path);
      const snapshot = await files.snapshot(target.absolute);
      row.meanwhile?.();
      const outcome = await applyWrite(files, target, snapshot, 'written\n', row.path).catch((error: unknown) => error);
      if (row.expect === 'written') {
        assert.deepEqual(outcome, { kind: 'written', savedToDisk: true });
      } else {
        assert.ok(outcome instanceof ToolError && outcome.kind === 'link', String(outcome));
      }
      row.after();
    });
  }
});
