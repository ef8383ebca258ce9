/**
 * Landing never follows a link (issue 35, finding 5): while a staged command's changes land, a real process of its own
 * swaps a folder of the workspace for a link to a folder outside, again and again. Nothing lands outside, and each
 * change that did not land is reported. Also without a race: a mode change whose file became a link is not followed.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, lstatSync, lutimesSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createStage, discardStage, type Stage } from '../../src/core/sandbox/stage';
import type { StagedChange } from '../../src/core/sandbox/changeSet';
import { landChanges, type LandOutcome } from '../../src/core/sandbox/landing';
import { scratchFolder } from '../fixtures/scratch';

const writer = path.join(__dirname, '..', 'fixtures', 'swapWriter.mjs');

/** Every file under `root` by name (where it is does not matter: a folder may have been moved aside meanwhile). */
function filesUnder(root: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) {
      found.push(entry.name);
    }
  }
  return found;
}

/** Runs `land` while a writer swaps `folder` of `ws` for a link to `outside`; answers the outcome and the swaps made. */
async function landWhileSwapping(ws: string, folder: string, outside: string, land: () => Promise<LandOutcome>): Promise<{ outcome: LandOutcome; swaps: number }> {
  const child = spawn(process.execPath, [writer, ws, folder, outside], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  assert.equal((await lines.next()).value, 'ready');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const outcome = await land();
    child.stdin.end();
    const swaps = Number((await lines.next()).value);
    return { outcome, swaps };
  } finally {
    child.stdin.end();
    await exited;
  }
}

interface RaceCase {
  name: string;
  /** The folder the writer swaps for a link. */
  swapped: string;
  /** Makes the workspace and the stage; answers the changes to land. */
  setup(ws: string, upper: string, outside: string): StagedChange[];
  /** What must hold of the folder outside afterwards. */
  outsideAfter: (outside: string) => void;
  /** Whether each change that landed must be found (by file name) in the workspace. */
  landedFound: boolean;
}

const count = 3000;

/** A workspace folder, a folder outside it and a stage, made anew for each test (under /var/tmp: not the sandbox's /tmp). */
function scratch(): { base: string; ws: string; outside: string; stage: Stage } {
  const current = { base: '', ws: '', outside: '', stage: { root: '', folders: [], startedMs: 0 } as Stage };
  beforeEach(async () => {
    current.base = scratchFolder('toolgate-land-');
    current.ws = path.join(current.base, 'ws');
    current.outside = path.join(current.base, 'outside');
    mkdirSync(current.ws);
    mkdirSync(current.outside);
    current.stage = await createStage(path.join(current.base, 'cache'), [current.ws]);
  });
  afterEach(async () => {
    await discardStage(current.stage);
    rmSync(current.base, { recursive: true, force: true });
  });
  return current;
}

describe('landing never follows a link (a concurrent writer swaps a folder for one)', function () {
  this.timeout(120_000);
  const at = scratch();
  const upperOf = (): string => path.join(at.stage.folders[0]?.dir ?? '', 'upper');

  const cases: RaceCase[] = [
    {
      name: `${count} new files in a folder of the workspace`,
      swapped: 'a',
      setup: (root, upper) => {
        mkdirSync(path.join(root, 'a'));
        mkdirSync(path.join(upper, 'a'));
        return Array.from({ length: count }, (_, i): StagedChange => {
          const staged = path.join(upper, 'a', `f${i}`);
          writeFileSync(staged, `${i}\n`);
          return { kind: 'created', folder: root, path: `a/f${i}`, staged, mode: 0o644 };
        });
      },
      outsideAfter: (out) => assert.deepEqual(readdirSync(out), [], 'nothing is written outside the workspace'),
      landedFound: true,
    },
    {
      name: `${count / 10} new folders moved whole into a folder that becomes a link`,
      swapped: 'p',
      setup: (root, upper) => {
        mkdirSync(path.join(root, 'p'));
        return Array.from({ length: count / 10 }, (_, i): StagedChange[] => {
          const staged = path.join(upper, 'p', `n${i}`);
          mkdirSync(staged, { recursive: true });
          writeFileSync(path.join(staged, `g${i}`), `${i}\n`);
          return [
            { kind: 'folder', folder: root, path: `p/n${i}`, staged },
            { kind: 'created', folder: root, path: `p/n${i}/g${i}`, staged: path.join(staged, `g${i}`), mode: 0o644 },
          ];
        }).flat();
      },
      outsideAfter: (out) => assert.deepEqual(readdirSync(out), [], 'nothing is moved outside the workspace'),
      landedFound: true,
    },
    {
      name: 'a deleted folder whose inner folder becomes a link while it is removed',
      swapped: 'gone/d',
      setup: (root, _upper, out) => {
        for (let i = 0; i < count; i++) {
          mkdirSync(path.join(root, 'gone', 'd', `s${i % 30}`), { recursive: true });
          writeFileSync(path.join(root, 'gone', 'd', `s${i % 30}`, `h${i}`), 'x');
          mkdirSync(path.join(out, `s${i % 30}`), { recursive: true });
          writeFileSync(path.join(out, `s${i % 30}`, `h${i}`), 'keep');
        }
        return [{ kind: 'deleted', folder: root, path: 'gone' }];
      },
      outsideAfter: (out) => assert.equal(filesUnder(out).length, count, 'nothing outside is removed'),
      landedFound: false,
    },
  ];

  for (const entry of cases) {
    it(`${entry.name}: nothing outside is touched, each change that did not land is reported`, async () => {
      const { ws, outside, stage } = at;
      const changes = entry.setup(ws, upperOf(), outside);
      // The writer links to the folder outside from where the swapped folder is.
      const link = path.relative(path.dirname(path.join(ws, entry.swapped)), outside);
      const { outcome, swaps } = await landWhileSwapping(ws, entry.swapped, link, () => landChanges(stage, changes));
      assert.ok(swaps >= 10, `the writer swapped the folder while the changes landed (${swaps} times)`);
      entry.outsideAfter(outside);
      assert.equal(outcome.landed.length + outcome.conflicts.length, changes.length, 'each change landed or is reported');
      for (const conflict of outcome.conflicts) {
        assert.ok(['link', 'failed'].includes(conflict.kind), `${conflict.change.path}: ${conflict.kind} ${conflict.why}`);
      }
      if (entry.landedFound) {
        const found = new Set(filesUnder(ws));
        const name = (change: StagedChange): string => path.basename(change.path);
        const files = (list: readonly StagedChange[]): StagedChange[] => list.filter((change) => change.kind === 'created');
        const lost = files(outcome.landed).filter((change) => !found.has(name(change)));
        assert.deepEqual(lost.map(name), [], 'what is reported landed is in the workspace');
        const refusedButThere = files(outcome.conflicts.map((conflict) => conflict.change)).filter((change) => found.has(name(change)) && !outcome.landed.includes(change));
        assert.deepEqual(refusedButThere.map(name), [], 'what is reported refused is not in the workspace');
      }
    });
  }
});

describe('landing never follows a link (no race)', function () {
  this.timeout(30_000);
  const at = scratch();

  const table: { name: string; change: (root: string) => StagedChange; kind: 'link' }[] = [
    { name: 'a mode change', change: (root) => ({ kind: 'mode', folder: root, path: 'bin/tool', mode: 0o777 }), kind: 'link' },
  ];
  for (const entry of table) {
    it(`${entry.name} whose file is now a link to a file outside (made before the command: not "changed") is not followed`, async () => {
      const { ws, outside, stage } = at;
      mkdirSync(path.join(ws, 'bin'));
      writeFileSync(path.join(outside, 'secret'), 'secret');
      chmodSync(path.join(outside, 'secret'), 0o600);
      symlinkSync(path.join(outside, 'secret'), path.join(ws, 'bin', 'tool'));
      lutimesSync(path.join(ws, 'bin', 'tool'), new Date(0), new Date(0));
      const outcome = await landChanges(stage, [entry.change(ws)]);
      assert.equal(statSync(path.join(outside, 'secret')).mode & 0o777, 0o600, 'the file outside keeps its mode');
      assert.ok(lstatSync(path.join(ws, 'bin', 'tool')).isSymbolicLink());
      assert.deepEqual(outcome.conflicts.map((conflict) => conflict.kind), [entry.kind]);
    });
  }
});
