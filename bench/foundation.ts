/**
 * Foundation benchmarks: cold activation of Toolgate in the real extension host (code-server), measured against an
 * empty extension activated the same way in the same host, and the sizes of what ships.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { packagedVsix, repoRoot, startCodeServer } from '../test/e2e/harness/codeServer';
import { hostActivationBench, waitForJson } from '../test/e2e/harness/hostTests';
import { Workbench } from '../test/e2e/harness/workbench';
import { kib, median, type Row } from './table';

const runs = Number(process.env['TOOLGATE_BENCH_ACTIVATION_RUNS'] ?? 6);

export async function foundationBench(): Promise<Row[]> {
  const toolgate: number[] = [];
  const empty: number[] = [];
  const firstAnswers = ['first gate decision', 'first command analysis', 'next command analysis'];
  const answers = new Map<string, number[]>(firstAnswers.map((name) => [name, []]));
  for (let run = 0; run < runs; run++) {
    const bench = hostActivationBench(run % 2 === 1);
    // Installed without onStartupFinished, so that activate() is still to run when the bench calls it.
    const server = await startCodeServer({ env: bench.env, extraExtensions: bench.vsixes, toolgateActivationEvents: [] });
    const workbench = await Workbench.open(server);
    try {
      const timings = await waitForJson<Record<string, number | string>>(bench.resultFile, 60_000);
      const ours = timings['toolgate.toolgate'];
      const baseline = timings['toolgate-bench.empty'];
      if (typeof ours !== 'number' || typeof baseline !== 'number') {
        throw new Error(`activation was not measured: ${JSON.stringify(timings)}`);
      }
      toolgate.push(ours);
      empty.push(baseline);
      for (const name of firstAnswers) {
        const value = timings[name];
        if (typeof value !== 'number') {
          throw new Error(`${name} was not measured: ${JSON.stringify(timings)}`);
        }
        answers.get(name)?.push(value);
      }
    } finally {
      await workbench.close();
      await server.stop();
    }
  }
  const ours = median(toolgate);
  const baseline = median(empty);
  const size = (file: string): number => statSync(path.join(repoRoot, file)).size;
  const webviewBytes = readdirSync(path.join(repoRoot, 'dist', 'webview'))
    .filter((name) => name.endsWith('.js'))
    .map((name) => ({ name, bytes: size(path.join('dist', 'webview', name)) }));
  return [
    {
      metric: `activation in the real extension host (median of ${runs} cold starts, which one activates first alternating; Toolgate installed without its onStartupFinished, so the bench calls activate())`,
      value: `${ours.toFixed(1)} ms`,
      baseline: `${baseline.toFixed(1)} ms (empty ext)`,
      ratio: `${(ours / baseline).toFixed(2)}x`,
    },
    ...firstAnswers.map((name) => ({
      metric: `${name} through the API, right after activation (median of ${runs})`,
      value: `${median(answers.get(name) ?? []).toFixed(1)} ms`,
    })),
    { metric: 'host bundle dist/extension.js (loaded at activation)', value: kib(size('dist/extension.js')) },
    { metric: 'Toolgate bundle dist/toolgate.js (loaded on first use: a view, a command or an API call)', value: kib(size('dist/toolgate.js')) },
    ...readdirSync(path.join(repoRoot, 'dist', 'lazy'))
      .filter((name) => name.endsWith('.js'))
      .map((name) => ({ metric: `host bundle dist/lazy/${name} (loaded on first use)`, value: kib(size(path.join('dist', 'lazy', name))) })),
    ...webviewBytes.map(({ name, bytes }) => ({ metric: `webview bundle dist/webview/${name}`, value: kib(bytes) })),
    { metric: `.vsix ${path.basename(packagedVsix())}`, value: kib(statSync(packagedVsix()).size) },
  ];
}
