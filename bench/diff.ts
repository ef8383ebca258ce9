/**
 * Line diff benchmark: `diffText` (src/core/diff/lineDiff.ts) against `git diff --no-index` run as a whole process on
 * the same two files, on a generated 10,000-line source file and three changed copies. The `diff` package's
 * `structuredPatch` is a reference on the scattered pair only: on a rewritten file it takes tens of seconds.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { structuredPatch } from 'diff';
import { diffText } from '../src/core/diff/lineDiff';
import { median, timeSync, type Row } from './table';
import { prng } from '../test/fixtures/prng';

const LINES = 10_000;
const CHANGES = 100;
const runs = Number(process.env['TOOLGATE_BENCH_DIFF_RUNS'] ?? 15);


const WORDS = ['user', 'item', 'count', 'value', 'result', 'index', 'config', 'options', 'path', 'name', 'data', 'map'];
const MORE = ['token', 'state', 'entry', 'node', 'cache', 'error', 'line', 'text', 'range', 'limit', 'queue', 'event'];

/** TypeScript-looking source: documented functions with statements, blocks, blank lines and closing braces. */
export function generateSource(seed: number, lineCount: number): string[] {
  const random = prng(seed);
  const pick = (items: readonly string[]): string => items[Math.floor(random() * items.length)] ?? '';
  const name = (): string => pick(WORDS) + pick(MORE).replace(/^./, (c) => c.toUpperCase());
  const int = (below: number): number => Math.floor(random() * below);
  const out: string[] = [];
  while (out.length < lineCount) {
    out.push(`/** ${pick(['Returns', 'Computes', 'Updates', 'Reads'])} the ${pick(WORDS)} of the ${pick(MORE)}. */`);
    out.push(`export function ${name()}${int(1000)}(${name()}: ${pick(['string', 'number', 'Options'])}): number {`);
    for (let statements = 3 + int(12); statements > 0; statements--) {
      const kind = random();
      if (kind < 0.2) {
        out.push(`  if (${name()} > ${int(100)}) {`, `    ${name()} += ${int(10)};`, '  }');
      } else if (kind < 0.3) {
        out.push('');
      } else if (kind < 0.7) {
        out.push(`  const ${name()} = ${name()}(${name()}, ${int(100)});`);
      } else {
        out.push(`  ${name()}.${pick(MORE)} = ${name()};`);
      }
    }
    out.push(`  return ${name()};`, '}', '');
  }
  return out.slice(0, lineCount);
}

/** The same file with CHANGES distinct lines, spread over it, edited. */
export function scatterChanges(lines: string[], seed: number): string[] {
  const random = prng(seed);
  const changed = [...lines];
  const picked = new Set<number>();
  while (picked.size < CHANGES) {
    picked.add(Math.floor(random() * lines.length));
  }
  for (const index of picked) {
    changed[index] = `${changed[index] ?? ''} // edited ${index}`;
  }
  return changed;
}

/** Wall time of one `git diff --no-index` process (exit code 1 means "differences found"). */
function timeGit(oldFile: string, newFile: string, extra: string[] = []): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn('git', ['diff', '--no-index', '--no-color', ...extra, oldFile, newFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - start;
      if (code === 0 || code === 1) {
        resolve({ ms, stdout: Buffer.concat(chunks).toString('utf8') });
      } else {
        reject(new Error(`git diff --no-index exited with ${String(code)}`));
      }
    });
  });
}


const ms = (value: number): string => `${value.toFixed(1)} ms`;

export async function diffBench(): Promise<Row[]> {
  const original = generateSource(1, LINES);
  const pairs: { label: string; text: string }[] = [
    {
      label: `${CHANGES} scattered changed lines`,
      text: scatterChanges(original, 2)
        .map((line) => `${line}\n`)
        .join(''),
    },
    {
      label: 'rewritten, every line different (CRLF)',
      text: generateSource(3, LINES)
        .map((line) => `${line}\r\n`)
        .join(''),
    },
    {
      label: 'rewritten, same style (blank and brace lines shared)',
      text: generateSource(3, LINES)
        .map((line) => `${line}\n`)
        .join(''),
    },
  ];
  const oldText = original.map((line) => `${line}\n`).join('');
  const dir = await mkdtemp(path.join(tmpdir(), 'toolgate-bench-diff-'));
  const rows: Row[] = [];
  try {
    const oldFile = path.join(dir, 'old.ts');
    await writeFile(oldFile, oldText);
    for (const [index, pair] of pairs.entries()) {
      const newFile = path.join(dir, `new${index}.ts`);
      await writeFile(newFile, pair.text);
      // Warm up both, then alternate so that neither gets a quieter machine.
      for (let run = 0; run < 3; run++) {
        diffText(oldText, pair.text);
        await timeGit(oldFile, newFile);
      }
      const ours: number[] = [];
      const git: number[] = [];
      for (let run = 0; run < runs; run++) {
        ours.push(timeSync(1, () => diffText(oldText, pair.text)));
        git.push((await timeGit(oldFile, newFile)).ms);
      }
      const oursMs = median(ours);
      const gitMs = median(git);
      rows.push({
        metric: `diffText, ${LINES} lines, ${pair.label} (median of ${runs})`,
        value: ms(oursMs),
        baseline: `${ms(gitMs)} (git diff process)`,
        ratio: `${(oursMs / gitMs).toFixed(2)}x`,
      });
      const result = diffText(oldText, pair.text);
      const numstat = (await timeGit(oldFile, newFile, ['--numstat'])).stdout.split('\t');
      rows.push({
        metric: `  lines changed${result.note === undefined ? '' : ' (bounded: region replaced whole)'}`,
        value: `+${result.added} -${result.removed}`,
        baseline: `+${numstat[0] ?? '?'} -${numstat[1] ?? '?'} (git)`,
      });
      if (index === 0) {
        const newName = `new${index}.ts`;
        const reference = timeSync(5, () => structuredPatch('old.ts', newName, oldText, pair.text));
        rows.push({
          metric: `  reference: diff package structuredPatch, same pair (median of 5)`,
          value: ms(reference),
          baseline: `${ms(gitMs)} (git diff process)`,
          ratio: `${(reference / gitMs).toFixed(2)}x`,
        });
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
