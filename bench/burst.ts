/**
 * A burst of calls into the real panel: N approval requests at once through the API, the time until the panel shows
 * all N, the extension host's event-loop delay meanwhile (max and p99), and the time from Deny all until the panel
 * shows none and every caller has its answer; against one call, the same way.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Control } from '../test/e2e/harness/control';
import { startCodeServer } from '../test/e2e/harness/codeServer';
import { Workbench } from '../test/e2e/harness/workbench';
import type { Row } from './table';

interface Burst {
  showMs: number;
  settleMs: number;
  maxLagMs: number;
  p99LagMs: number;
  gcMaxMs: number;
  heapMb: number;
}

async function burst(control: Control, workbench: Workbench, count: number, round: number): Promise<Burst> {
  // TOOLGATE_BENCH_PROFILE=<folder>: a CPU profile of the extension host for each burst, to see where the time goes.
  const profileDir = process.env['TOOLGATE_BENCH_PROFILE'];
  if (profileDir !== undefined) {
    await control.call('/profile', { action: 'start' });
  }
  await control.call('/lag', { action: 'start' });
  const started = performance.now();
  const calls = Array.from({ length: count }, (_, index) => control.call('/approval', { tool: 'write_file', args: { path: `burst${round}/f${index}.txt`, content: `${index}\n` } }));
  const frame = await workbench.webviewFrame('body[data-view="approvals"] main#root[data-state="connected"]', 60_000);
  await frame.waitForFunction((n) => document.querySelectorAll('article.call[data-call-id]').length === n, count, { timeout: 300_000, polling: 'raf' });
  const shown = performance.now();
  await frame.locator('[data-action="deny-all"]').first().click({ timeout: 60_000 }).catch(async () => {
    // One call: no batch buttons; Deny (twice: the first asks why) decides it.
    const deny = frame.locator('article.call [data-action="deny"]').first();
    await deny.click();
    await deny.click();
  });
  const denied = performance.now();
  await Promise.all(calls);
  await frame.waitForFunction(() => document.querySelectorAll('article.call[data-call-id]').length === 0, undefined, { timeout: 300_000, polling: 'raf' });
  const settled = performance.now();
  const lag = await control.call<{ maxMs: number; p99Ms: number; gcMaxMs: number; heapMb: number } | null>('/lag', { action: 'stop' });
  if (profileDir !== undefined) {
    await control.call('/profile', { action: 'stop', file: path.resolve(profileDir, `burst-${count}-${round}.cpuprofile`) });
  }
  return { showMs: shown - started, settleMs: settled - denied, maxLagMs: lag?.maxMs ?? NaN, p99LagMs: lag?.p99Ms ?? NaN, gcMaxMs: lag?.gcMaxMs ?? NaN, heapMb: lag?.heapMb ?? NaN };
}

export async function burstBench(sizes: readonly number[] = [1, 200, 500]): Promise<Row[]> {
  const control = new Control();
  const server = await startCodeServer({ env: control.env, extraExtensions: [control.vsix] });
  const workbench = await Workbench.open(server);
  const rows: Row[] = [];
  try {
    // Warm-up: the first call loads Toolgate (activation), which is not what is measured here.
    await burst(control, workbench, 1, -1);
    const results: [number, Burst][] = [];
    for (const [round, size] of sizes.entries()) {
      results.push([size, await burst(control, workbench, size, round)]);
    }
    const one = results[0]?.[1];
    for (const [size, result] of results) {
      const ratio = (value: number, base: number | undefined): string => (base === undefined || base === 0 ? '' : `${(value / base).toFixed(1)}x`);
      rows.push(
        { metric: `${size} calls at once: until the panel shows them all`, value: `${result.showMs.toFixed(0)} ms`, baseline: one ? `${one.showMs.toFixed(0)} ms (1 call)` : '', ratio: ratio(result.showMs, one?.showMs) },
        { metric: `${size} calls: extension host event-loop delay, max / p99`, value: `${result.maxLagMs.toFixed(0)} / ${result.p99LagMs.toFixed(0)} ms`, baseline: one ? `${one.maxLagMs.toFixed(0)} ms (1 call)` : '' },
        { metric: `${size} calls: longest garbage collection meanwhile; heap after`, value: `${result.gcMaxMs.toFixed(0)} ms; ${result.heapMb.toFixed(0)} MB`, baseline: one ? `${one.gcMaxMs.toFixed(0)} ms; ${one.heapMb.toFixed(0)} MB (1 call)` : '' },
        { metric: `${size} calls: Deny all until the panel is empty and every caller answered`, value: `${result.settleMs.toFixed(0)} ms`, baseline: one ? `${one.settleMs.toFixed(0)} ms (1 call)` : '', ratio: ratio(result.settleMs, one?.settleMs) },
      );
    }
  } finally {
    await workbench.close();
    await server.stop();
  }
  return rows;
}

/** `tsx bench/burst.ts [sizes…]`: only this table. */
if (process.argv[1]?.endsWith('burst.ts') === true) {
  const sizes = process.argv.slice(2).map(Number).filter((size) => size > 0);
  void (async () => {
    const { printTable } = await import('./table');
    const { closeBrowser } = await import('../test/e2e/harness/workbench');
    try {
      printTable('Burst: calls arriving at once into the real panel', await burstBench(sizes.length > 0 ? sizes : undefined));
    } finally {
      await closeBrowser();
    }
  })();
}
