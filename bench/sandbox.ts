/**
 * The sandbox's cost per command: the same command run unconfined and in the bubblewrap sandbox, as the product runs
 * it (the policy gathered for each command, then bash inside bwrap), interleaved so that both see the same machine.
 * `true` shows the fixed cost; the demo's `npm test` a real command. Median and p95 of each; prints only.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CommandSandbox } from '../src/core/sandbox/commandSandbox';
import type { SandboxInputs } from '../src/core/sandbox/gather';
import { probeSandbox } from '../src/core/sandbox/sandbox';
import { discardStage, findUnshare, probeStaging } from '../src/core/sandbox/stage';
import { PathResolver } from '../src/core/approval/paths';
import { GitCli } from '../src/core/checkpoints/gitCli';
import { StagedLanding } from '../src/core/tools/stagedLanding';
import { DiskFiles } from '../test/fixtures/diskFiles';
import { createMemoryGate, locateUnder } from '../test/fixtures/memoryGate';
import { defaultProtectedPaths } from '../src/core/settings';
import { runBash } from '../src/core/terminal/bashRunner';
import { type Row, median } from './table';

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

const ms = (value: number): string => `${value.toFixed(1)} ms`;

export async function sandboxBench(): Promise<Row[]> {
  const state = await probeSandbox();
  if (!state.available) {
    return [{ metric: 'sandbox', value: `not available: ${state.reason}` }];
  }
  // Not under /tmp: the sandbox gives each command a private /tmp.
  const base = mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : os.homedir(), 'toolgate-bench-sandbox-'));
  const workspace = path.join(base, 'demo');
  cpSync(path.join(import.meta.dirname, '..', 'test', 'fixtures', 'workspaces', 'demo'), workspace, { recursive: true });
  execFileSync('git', ['init', '-q', workspace]);
  const inputs: SandboxInputs = {
    workspaceFolders: [workspace],
    protectedGlobs: defaultProtectedPaths,
    extraHidden: [],
    extraWritable: [],
    ownStorage: [],
    network: 'none',
    cacheRoot: path.join(base, 'cache'),
  };
  const sandbox = new CommandSandbox({ probe: () => Promise.resolve(state), inputs: () => inputs, log: () => undefined });
  // toolgate.sandbox.allowedDomains set: each command gets its filtering proxy, and the bridge starts it.
  const networked = new CommandSandbox({ probe: () => Promise.resolve(state), inputs: () => ({ ...inputs, allowedDomains: ['registry.npmjs.org'] }), log: () => undefined });
  const once = async (command: string, sandboxed: boolean, through = sandbox): Promise<number> => {
    const start = performance.now();
    const prepared = sandboxed ? await through.launch(workspace) : undefined;
    const wrap = prepared && 'launch' in prepared ? prepared.launch : undefined;
    if (sandboxed && !wrap) {
      throw new Error('the sandbox did not prepare a launch');
    }
    const result = await runBash(command, { cwd: workspace, timeoutMs: 60_000, ...(wrap ? { wrap } : {}) });
    await wrap?.proxy?.close();
    if (result.exitCode !== 0) {
      throw new Error(`${command} failed${sandboxed ? ' in the sandbox' : ''}: ${result.output}`);
    }
    return performance.now() - start;
  };
  const rows: Row[] = [];
  try {
    for (const [label, command, repeat] of [['true', 'true', 40], ["the demo's npm test", 'npm test --silent', 12]] as const) {
      const plain: number[] = [];
      const boxed: number[] = [];
      await once(command, false);
      await once(command, true);
      for (let run = 0; run < repeat; run++) {
        plain.push(await once(command, false));
        boxed.push(await once(command, true));
      }
      for (const [stat, pick] of [['median', median], ['p95', (values: number[]) => percentile(values, 0.95)]] as const) {
        const sandboxed = pick(boxed);
        const unconfined = pick(plain);
        rows.push({
          metric: `${label}: ${stat} in the sandbox (added ${ms(sandboxed - unconfined)}), n=${repeat}`,
          value: ms(sandboxed),
          baseline: `${ms(unconfined)} unconfined`,
          ratio: `${(sandboxed / unconfined).toFixed(2)}x`,
        });
      }
    }
    const alone: number[] = [];
    const withProxy: number[] = [];
    await once('true', true, networked);
    for (let run = 0; run < 40; run++) {
      alone.push(await once('true', true));
      withProxy.push(await once('true', true, networked));
    }
    for (const [stat, pick] of [['median', median], ['p95', (values: number[]) => percentile(values, 0.95)]] as const) {
      rows.push({
        metric: `true with allowed domains (a proxy and the bridge): ${stat} (added ${ms(pick(withProxy) - pick(alone))} to the sandbox alone), n=40`,
        value: ms(pick(withProxy)),
        baseline: `${ms(pick(alone))} in the sandbox without`,
        ratio: `${(pick(withProxy) / pick(alone)).toFixed(2)}x`,
      });
    }
    rows.push(...(await stagingRows(state.program, workspace, inputs)));
  } finally {
    execFileSync('chmod', ['-R', 'u+rwx', base]);
    rmSync(base, { recursive: true, force: true });
  }
  return rows;
}

/**
 * Staged commands, as the product runs them: the same command in the plain sandbox (it writes the workspace) and
 * staged (a stage made, the command run on the overlay, its change set read, judged by the gate (an edit rule allows
 * it, so nothing waits) and landed, the stage removed), for 1 file (judged and written through the files port) and for
 * 10,000 files in 100 folders (an `npm install`-like tree git ignores, moved in whole). Each run writes a folder of its
 * own, removed after it, untimed.
 */
async function stagingRows(bwrap: string, workspace: string, inputs: SandboxInputs): Promise<Row[]> {
  const parent = path.join(inputs.cacheRoot ?? workspace, 'stages');
  mkdirSync(parent, { recursive: true });
  const unshare = findUnshare();
  const staging = await probeStaging(unshare, parent);
  if (!staging.available || unshare === undefined) {
    return [{ metric: 'staged commands', value: `not available: ${staging.available ? 'no unshare' : staging.reason}` }];
  }
  writeFileSync(path.join(workspace, '.gitignore'), 'node_modules*/\n');
  const sandbox = new CommandSandbox({
    probe: () => Promise.resolve({ available: true, engine: 'bwrap', program: bwrap }),
    inputs: () => inputs,
    log: () => undefined,
    staging: { parent, unshare, probe: () => Promise.resolve({ available: true }), enabled: () => true },
  });
  const { gate } = createMemoryGate({ locate: locateUnder(workspace), editRules: { '**': true } }, undefined, { keepAudit: false });
  const git = new GitCli();
  const landing = new StagedLanding({
    gate,
    files: new DiskFiles(),
    resolver: new PathResolver([workspace]),
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    ignored: (folder, paths) => git.ignored(folder, paths),
    landIgnored: true,
    keepProposal: () => () => undefined,
  });
  const cases = [
    ['1 file', (out: string) => `mkdir out-${out} && echo one > out-${out}/one.txt`, (out: string) => `out-${out}`, 30],
    ['10,000 files', (out: string) => `mkdir node_modules-${out} && cd node_modules-${out} && for d in $(seq 100); do mkdir $d; for f in $(seq 100); do echo "module.exports = $f;" > $d/$f.js; done; done`, (out: string) => `node_modules-${out}`, 4],
  ] as const;
  const rows: Row[] = [];
  let serial = 0;
  for (const [label, command, folder, repeat] of cases) {
    const plain: number[] = [];
    const staged: number[] = [];
    for (let run = 0; run <= repeat; run++) {
      for (const mode of ['plain', 'staged'] as const) {
        const out = String(serial++);
        const start = performance.now();
        const prepared = await sandbox.launch(workspace, undefined, { stage: mode === 'staged' });
        if (!('launch' in prepared)) {
          throw new Error('the sandbox did not prepare a launch');
        }
        const { launch } = prepared;
        await runBash(command(out), { cwd: workspace, timeoutMs: 120_000, wrap: launch });
        await launch.proxy?.close();
        if (launch.stage !== undefined) {
          const { summary } = await landing.land(launch.stage, { command: command(out), source: 'agent', chatId: 'bench' });
          // As the tool service does: the stage goes after the model has its answer.
          void discardStage(launch.stage);
          if (/NOT landed/.test(summary)) {
            throw new Error(`${label}: ${summary}`);
          }
        } else if (mode === 'staged') {
          throw new Error('the command was not staged');
        }
        const elapsed = performance.now() - start;
        if (!existsSync(path.join(workspace, folder(out)))) {
          throw new Error(`${label} (${mode}) wrote nothing`);
        }
        rmSync(path.join(workspace, folder(out)), { recursive: true, force: true });
        // The first round warms caches and is not counted.
        if (run > 0) {
          (mode === 'plain' ? plain : staged).push(elapsed);
        }
      }
    }
    rows.push({
      metric: `a command writing ${label}: staged, judged and landed (median, n=${repeat})`,
      value: ms(median(staged)),
      baseline: `${ms(median(plain))} in the plain sandbox`,
      ratio: `${(median(staged) / median(plain)).toFixed(2)}x`,
    });
  }
  return rows;
}
