/**
 * Review and undo benchmarks, on the 10,000-line generated source file of bench/diff.ts with 100 scattered changed
 * lines: the cost of a checkpoint per edited file (time and stored bytes) against hashing and copying the file (the
 * least a checkpoint must do), the cost of planning its undo against the same, and applying a subset of hunks
 * against computing the diff it comes from. node-diff3's merge is a reference on a smaller cut of the same file:
 * its LCS is quadratic in repeated lines, which is why the merge is built on diffText.
 */
import { performance } from 'node:perf_hooks';
import { diff3Merge } from 'node-diff3';
import { sha256 } from '../src/core/approval/hash';
import { diffText } from '../src/core/diff/lineDiff';
import { splitLines } from '../src/core/diff/lines';
import { merge3 } from '../src/core/diff/merge3';
import type { FileContent } from '../src/core/checkpoints/schema';
import { CheckpointStore } from '../src/core/checkpoints/store';
import { planTaskUndo } from '../src/core/checkpoints/undo';
import { applyHunksOf } from '../src/core/review/hunks';
import { MemoryStore } from '../test/fixtures/memoryGate';
import { generateSource, scatterChanges } from './diff';
import { kib, median, timeSync, type Row } from './table';

const LINES = 10_000;
const runs = Number(process.env['TOOLGATE_BENCH_REVIEW_RUNS'] ?? 15);

async function timeAsync(repeat: number, work: () => Promise<unknown>): Promise<number> {
  await work(); // warm up
  const samples: number[] = [];
  for (let run = 0; run < repeat; run++) {
    const start = performance.now();
    await work();
    samples.push(performance.now() - start);
  }
  return median(samples);
}


const ms = (value: number): string => `${value.toFixed(2)} ms`;
const ratio = (value: number, baseline: number): string => `${(value / baseline).toFixed(2)}x`;

export async function reviewBench(): Promise<Row[]> {
  const original = generateSource(1, LINES);
  const base = original.map((line) => `${line}\n`).join('');
  const edited = scatterChanges(original, 2)
    .map((line) => `${line}\n`)
    .join('');
  const second = scatterChanges(scatterChanges(original, 2), 5)
    .map((line) => `${line}\n`)
    .join('');
  const handEdited = second.replace(/\n/, ' // a hand edit at the top\n');
  const fileBytes = Buffer.byteLength(base, 'utf8');
  const rows: Row[] = [];

  // Baseline: the least any checkpoint does: hash the two texts and keep a copy of each.
  let sink = 0;
  const baseline = timeSync(runs, () => {
    sink += sha256(base).length + sha256(edited).length;
    sink += Buffer.from(base, 'utf8').length + Buffer.from(edited, 'utf8').length;
  });

  // One checkpoint of one edited file, in a fresh store each time.
  const fresh = (): CheckpointStore => new CheckpointStore(new MemoryStore(), { warn: (message) => console.warn(message) });
  const record = await timeAsync(runs, async () => {
    await fresh().record({ chatId: 'c', taskId: 't', turn: 0 }, { kind: 'file', path: '/w/big.ts', tool: 'edit_file', before: base, after: edited });
  });
  rows.push({
    metric: `checkpoint of one edited file (${LINES} lines, 100 changed), median of ${runs}`,
    value: ms(record),
    baseline: `${ms(baseline)} (hash + copy both texts)`,
    ratio: ratio(record, baseline),
  });

  const storage = new MemoryStore();
  const store = new CheckpointStore(storage, { warn: (message) => console.warn(message) });
  const first = await store.record({ chatId: 'c', taskId: 't', turn: 0 }, { kind: 'file', path: '/w/big.ts', tool: 'edit_file', before: base, after: edited });
  const firstBytes = first.kind === 'recorded' ? first.taskBytes : Number.NaN;
  rows.push({
    metric: '  stored bytes of that checkpoint (base whole, result as a patch)',
    value: kib(firstBytes),
    baseline: `${kib(fileBytes)} (one copy of the file)`,
    ratio: ratio(firstBytes, fileBytes),
  });
  const next = await store.record({ chatId: 'c', taskId: 't', turn: 1 }, { kind: 'file', path: '/w/big.ts', tool: 'edit_file', before: edited, after: second });
  const nextBytes = next.kind === 'recorded' ? next.taskBytes - firstBytes : Number.NaN;
  rows.push({
    metric: '  added by a second turn editing the same file (100 more changes)',
    value: kib(nextBytes),
    baseline: `${kib(fileBytes)} (one copy of the file)`,
    ratio: ratio(nextBytes, fileBytes),
  });

  // Planning the undo of that two-turn task: loading (texts rebuilt and checked against their hashes) and merging.
  const current = (text: string): Map<string, FileContent> => new Map([['/w/big.ts', text]]);
  const load = async (): Promise<Parameters<typeof planTaskUndo>[0]> => {
    const loaded = await new CheckpointStore(storage, { warn: (message) => console.warn(message) }).load('c', 't');
    if (loaded.kind !== 'ok') {
      throw new Error(loaded.message);
    }
    return loaded.task;
  };
  const task = await load();
  const loadMs = await timeAsync(runs, load);
  rows.push({
    metric: '  load the task after a reload (texts rebuilt, hashes checked)',
    value: ms(loadMs),
    baseline: `${ms(baseline)} (hash + copy both texts)`,
    ratio: ratio(loadMs, baseline),
  });
  const revert = timeSync(runs, () => planTaskUndo(task, current(second)));
  rows.push({
    metric: '  plan its undo, file unchanged since (revert)',
    value: ms(revert),
    baseline: `${ms(baseline)} (hash + copy both texts)`,
    ratio: ratio(revert, baseline),
  });
  const merged = timeSync(runs, () => planTaskUndo(task, current(handEdited)));
  const plan = planTaskUndo(task, current(handEdited));
  rows.push({
    metric: `  plan its undo, hand-edited since (three-way merge: ${plan.files[0]?.kind ?? '?'})`,
    value: ms(merged),
    baseline: `${ms(baseline)} (hash + copy both texts)`,
    ratio: ratio(merged, baseline),
  });

  // Per-hunk apply against the diff it comes from.
  const diffMs = timeSync(runs, () => diffText(base, edited));
  const hunks = diffText(base, edited).hunks;
  const half = new Set(Array.from(hunks.keys()).filter((index) => index % 2 === 0));
  const applyMs = timeSync(runs, () => applyHunksOf(base, edited, hunks, half));
  rows.push({
    metric: `apply ${half.size} of ${hunks.length} hunks (${LINES} lines), median of ${runs}`,
    value: ms(applyMs),
    baseline: `${ms(diffMs)} (diffText of the pair)`,
    ratio: ratio(applyMs, diffMs),
  });

  // Reference: node-diff3 against merge3 on a 2,000-line cut (node-diff3 takes over 30 s on the whole file).
  const cut = 2_000;
  const cutOf = (text: string): string => splitLines(text).slice(0, cut).join('');
  const [cutBase, cutOurs, cutTheirs] = [cutOf(edited), cutOf(handEdited), cutOf(base)];
  const ours = timeSync(3, () => merge3(cutBase, cutOurs, cutTheirs));
  const start = performance.now();
  diff3Merge(splitLines(cutOurs), splitLines(cutBase), splitLines(cutTheirs), { excludeFalseConflicts: true });
  const theirs = performance.now() - start;
  rows.push({
    metric: `reference: node-diff3 three-way merge, first ${cut} lines (one run)`,
    value: ms(theirs),
    baseline: `${ms(ours)} (merge3, same input)`,
    ratio: ratio(theirs, ours),
  });
  if (sink === 0) {
    console.warn('unexpected: nothing hashed');
  }
  return rows;
}
