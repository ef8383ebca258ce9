/**
 * Foundation benchmarks: cold activation of Toolgate in the real extension host (code-server), measured against an
 * empty extension activated the same way in the same host; the first answers after it, on a profile's first start and
 * on a later one (with Toolgate's code cache); and the sizes of what ships.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packagedVsix, repoRoot, startCodeServer } from '../test/e2e/harness/codeServer';
import { hostActivationBench, waitForJson } from '../test/e2e/harness/hostTests';
import { until } from '../test/e2e/harness/until';
import { Workbench } from '../test/e2e/harness/workbench';
import { kib, median, type Row } from './table';

const runs = Number(process.env['TOOLGATE_BENCH_ACTIVATION_RUNS'] ?? 8);

/** Where VS Code keeps Toolgate's global storage, under the profile (User/), and the code cache in it (src/extension.ts). */
const codeCacheFolder = path.join('globalStorage', 'toolgate.toolgate', 'code-cache');

export async function foundationBench(): Promise<Row[]> {
  const toolgate: number[] = [];
  const empty: number[] = [];
  const firstAnswers = ['first gate decision', 'first command analysis', 'next command analysis'];
  // Each answer twice: on a profile's first start (Toolgate's bundle compiled from source, its code cache made) and on
  // a later start (the code cache an earlier start kept, copied into a new profile).
  const starts = ['first start', 'later start'] as const;
  const answers = new Map<string, number[]>(starts.flatMap((start) => firstAnswers.map((name) => [`${name}, ${start}`, []])));
  const kept = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-code-cache-'));
  try {
    for (let run = 0; run < runs; run++) {
      // Odd runs start with the cache; which extension activates first alternates every two runs.
      const start = run % 2 === 0 ? starts[0] : starts[1];
      const bench = hostActivationBench(Math.floor(run / 2) % 2 === 1);
      // Installed without onStartupFinished, so that activate() is still to run when the bench calls it.
      const server = await startCodeServer({
        env: bench.env,
        extraExtensions: bench.vsixes,
        toolgateActivationEvents: [],
        ...(start === 'later start' ? { userFolders: { [codeCacheFolder]: kept } } : {}),
      });
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
          answers.get(`${name}, ${start}`)?.push(value);
        }
        if (start === 'first start') {
          // Toolgate writes its code cache a few seconds after its first work; keep it for the next (later) start.
          const made = path.join(server.userDataDir, 'User', codeCacheFolder);
          await until(() => existsSync(made) && readdirSync(made).some((name) => name.endsWith('.bin')), `Toolgate's code cache in ${made}`, { timeoutMs: 30_000, everyMs: 200 });
          rmSync(kept, { recursive: true, force: true });
          cpSync(made, kept, { recursive: true });
        }
      } finally {
        await workbench.close();
        await server.stop();
      }
    }
  } finally {
    rmSync(kept, { recursive: true, force: true });
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
    ...starts.flatMap((start) =>
      firstAnswers.map((name) => ({
        metric: `${name} through the API, right after activation, ${start === 'first start' ? "a profile's first start (Toolgate's bundle compiled from source)" : "a later start (with the code cache an earlier start kept)"} (median of ${answers.get(`${name}, ${start}`)?.length ?? 0})`,
        value: `${median(answers.get(`${name}, ${start}`) ?? []).toFixed(1)} ms`,
      })),
    ),
    { metric: 'host bundle dist/extension.js (loaded at activation)', value: kib(size('dist/extension.js')) },
    { metric: 'Toolgate bundle dist/toolgate.js (loaded on first use: a view, a command or an API call)', value: kib(size('dist/toolgate.js')) },
    ...readdirSync(path.join(repoRoot, 'dist', 'lazy'))
      .filter((name) => name.endsWith('.js'))
      .map((name) => ({ metric: `host bundle dist/lazy/${name} (loaded on first use)`, value: kib(size(path.join('dist', 'lazy', name))) })),
    ...webviewBytes.map(({ name, bytes }) => ({ metric: `webview bundle dist/webview/${name}`, value: kib(bytes) })),
    { metric: `.vsix ${path.basename(packagedVsix())}`, value: kib(statSync(packagedVsix()).size) },
  ];
}
