/**
 * A helper extension installed beside Toolgate by the e2e bench. When TOOLGATE_HOST_TESTS_RESULT names a file, it
 * runs the integration tests (bundled as hostTests.js next to it) with mocha inside this real extension host, where
 * `vscode` is the real API, and writes the results there as JSON for the harness to read.
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type Mocha from 'mocha';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as vscode from 'vscode';

interface HostTestResult {
  passes: string[];
  failures: { title: string; error: string }[];
  pending: string[];
  durationMs: number;
}

export function activate(): void {
  const benchFile = process.env['TOOLGATE_HOST_BENCH_RESULT'];
  if (benchFile) {
    void measureActivation(benchFile);
    return;
  }
  const resultFile = process.env['TOOLGATE_HOST_TESTS_RESULT'];
  const repoRoot = process.env['TOOLGATE_REPO_ROOT'];
  if (!resultFile || !repoRoot) {
    return;
  }
  const started = Date.now();
  const result: HostTestResult = { passes: [], failures: [], pending: [], durationMs: 0 };
  const write = (): void => {
    result.durationMs = Date.now() - started;
    writeFileSync(resultFile, JSON.stringify(result, null, 2));
  };
  try {
    // mocha comes from the repository's own node_modules; the extension folder holds only the bundles.
    const requireFromRepo = createRequire(path.join(repoRoot, 'package.json'));
    const MochaCtor = requireFromRepo('mocha') as typeof Mocha;
    const mocha = new MochaCtor({ ui: 'bdd', timeout: 60_000, color: false });
    mocha.suite.emit('pre-require', globalThis, 'hostTests.js', mocha);
    createRequire(__filename)(path.join(__dirname, 'hostTests.js'));
    const runner = mocha.run(() => write());
    runner.on('pass', (test) => result.passes.push(test.fullTitle()));
    runner.on('fail', (test, error: unknown) =>
      result.failures.push({
        title: test.fullTitle(),
        error: error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error),
      }),
    );
    runner.on('pending', (test) => result.pending.push(test.fullTitle()));
  } catch (error) {
    result.failures.push({ title: '(host test runner)', error: error instanceof Error ? error.stack ?? error.message : String(error) });
    write();
  }
}

/**
 * Cold activation, measured where it happens: loading the bundle and running activate() in this extension host.
 * The empty baseline extension is measured the same way first, so the figure can be read as a ratio.
 */
async function measureActivation(resultFile: string): Promise<void> {
  const timings: Record<string, number | string> = {};
  for (const id of ['toolgate-bench.empty', 'toolgate.toolgate']) {
    const extension = vscode.extensions.getExtension(id);
    if (!extension) {
      timings[id] = 'not installed';
      continue;
    }
    if (extension.isActive) {
      timings[id] = 'already active';
      continue;
    }
    const started = performance.now();
    await extension.activate();
    timings[id] = performance.now() - started;
  }
  writeFileSync(resultFile, JSON.stringify(timings));
}

export function deactivate(): void {}
