import { performance } from 'node:perf_hooks';
/** Prints benchmark rows as a fixed-width table. Benchmarks print; they never assert. */
export interface Row {
  metric: string;
  value: string;
  baseline?: string;
  ratio?: string;
}

export function printTable(title: string, rows: Row[]): void {
  const header: Row = { metric: 'metric', value: 'value', baseline: 'baseline', ratio: 'ratio' };
  const all = [header, ...rows];
  const width = (key: keyof Row): number => Math.max(...all.map((row) => (row[key] ?? '').length));
  const widths = { metric: width('metric'), value: width('value'), baseline: width('baseline'), ratio: width('ratio') };
  const line = (row: Row): string =>
    `| ${row.metric.padEnd(widths.metric)} | ${row.value.padStart(widths.value)} | ${(row.baseline ?? '').padStart(
      widths.baseline,
    )} | ${(row.ratio ?? '').padStart(widths.ratio)} |`;
  console.log(`\n${title}`);
  console.log(line(header));
  const rule = (w: number): string => `${'-'.repeat(w + 1)}:`;
  console.log(`|${'-'.repeat(widths.metric + 2)}|${rule(widths.value)}|${rule(widths.baseline)}|${rule(widths.ratio)}|`);
  for (const row of rows) {
    console.log(line(row));
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

/** The median of `repeat` timed runs of `work`, in ms, after one untimed warm-up run. */
export function timeSync(repeat: number, work: () => unknown): number {
  work();
  const samples: number[] = [];
  for (let run = 0; run < repeat; run++) {
    const start = performance.now();
    work();
    samples.push(performance.now() - start);
  }
  return median(samples);
}
