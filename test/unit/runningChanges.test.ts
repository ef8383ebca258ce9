import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createStage, type Stage } from '../../src/core/sandbox/stage';
import type { RunningStage } from '../../src/core/terminal/confinedRun';
import { showRunningChanges, type RunningChangesPrompts } from '../../src/core/tools/runningChanges';

describe('the changes so far of a running command', () => {
  let base: string;
  let ws: string;
  let stage: Stage;
  beforeEach(async () => {
    base = mkdtempSync(path.join(os.tmpdir(), 'toolgate-running-'));
    ws = path.join(base, 'ws');
    mkdirSync(ws);
    writeFileSync(path.join(ws, 'a.txt'), 'a\n');
    // The stage as a command has left it so far: a.txt changed, new.txt and image.bin made.
    stage = await createStage(path.join(base, 'stages'), [ws]);
    const upper = path.join(stage.folders[0]?.dir ?? '', 'upper');
    writeFileSync(path.join(upper, 'a.txt'), 'A\n');
    writeFileSync(path.join(upper, 'new.txt'), 'n\n');
    writeFileSync(path.join(upper, 'image.bin'), Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0x0d, 0xff]));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const rows: { name: string; running: number; pickCommand?: number; pickFile?: string; said: string[] }[] = [
    { name: 'none running', running: 0, said: ['info Toolgate: no staged command is running now. A command that ended has landed its changes, or asks about them in the Approvals panel.'] },
    {
      name: 'one running: its files listed, a picked text file opened as a diff',
      running: 1,
      pickFile: 'a.txt',
      said: [
        'pick file Toolgate: `npm run watch` has changed 3 files so far (staged, not in your workspace until it ends and they are judged): a.txt modified, image.bin created, new.txt created',
        'diff a.txt modified: A\n (a.txt (staged so far by `npm run watch`))',
      ],
    },
    {
      name: 'a picked file that is not text is said, not opened',
      running: 1,
      pickFile: 'image.bin',
      said: [
        'pick file Toolgate: `npm run watch` has changed 3 files so far (staged, not in your workspace until it ends and they are judged): a.txt modified, image.bin created, new.txt created',
        'info Toolgate: image.bin is not text; `npm run watch` created it so far.',
      ],
    },
    { name: 'several running: asked which, and nothing more when none is picked', running: 2, said: ['pick command npm run watch, npm run watch'] },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const said: string[] = [];
      const running: RunningStage[] = Array.from({ length: row.running }, () => ({ chatId: 'c', command: 'npm run watch', stage }));
      const prompts: RunningChangesPrompts = {
        info: (text) => void said.push(`info ${text}`),
        warn: (text) => void said.push(`warn ${text}`),
        pickCommand: (candidates) => (said.push(`pick command ${candidates.map((candidate) => candidate.command).join(', ')}`), Promise.resolve(candidates[row.pickCommand ?? -1])),
        pickChange: (items, title) => {
          said.push(`pick file ${title}: ${items.map((item) => `${item.label} ${item.description}`).join(', ')}`);
          return Promise.resolve(items.find((item) => item.label === row.pickFile)?.change);
        },
        openDiff: (change, staged, title) => (said.push(`diff ${change.path} ${change.kind}: ${staged} (${title})`), Promise.resolve()),
      };
      await showRunningChanges(running, () => [ws], prompts);
      assert.deepEqual(said, row.said);
    });
  }

  it('a stage that cannot be read is said: the command may just have ended', async () => {
    const said: string[] = [];
    const gone: Stage = { root: path.join(base, 'gone'), folders: [{ folder: ws, dir: path.join(base, 'gone', '0') }], startedMs: 0 };
    await showRunningChanges([{ chatId: 'c', command: 'make', stage: gone }], () => [ws], {
      info: (text) => void said.push(`info ${text}`),
      warn: (text) => void said.push(`warn ${text}`),
      pickCommand: () => Promise.resolve(undefined),
      pickChange: () => Promise.resolve(undefined),
      openDiff: () => Promise.resolve(),
    });
    assert.equal(said.length, 1);
    assert.match(said[0] ?? '', /^warn Toolgate: the changes of `make` could not be read \(.*\); it may just have ended\.$/);
  });
});
