import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './codeServer';
import { until } from './until';

export interface HostTestResult {
  passes: string[];
  failures: { title: string; error: string }[];
  pending: string[];
  durationMs: number;
}

const packaged = new Map<string, string>();

/** Packages an extension folder as a .vsix with vsce, once per run, so code-server installs it as a user would. */
export function packageFolder(folder: string): string {
  let vsix = packaged.get(folder);
  if (!vsix) {
    vsix = path.join(os.tmpdir(), `toolgate-${path.basename(folder)}-${process.pid}.vsix`);
    execFileSync(
      process.execPath,
      [path.join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies',
        '--allow-missing-repository', '--skip-license', '-o', vsix],
      { cwd: folder, stdio: 'pipe' },
    );
    packaged.set(folder, vsix);
  }
  return vsix;
}

function builtRunner(): string {
  const built = path.join(repoRoot, 'dist-test', 'hostRunner');
  if (!existsSync(path.join(built, 'hostTests.js'))) {
    throw new Error(`${built} is not built: run \`npm run build\` first`);
  }
  return built;
}

/** The helper extension's .vsix and the environment that tells it to run. */
export function hostTestRunner(): { vsix: string; env: Record<string, string>; resultFile: string } {
  const resultFile = path.join(os.tmpdir(), `toolgate-host-tests-${process.pid}-${Date.now()}.json`);
  return {
    vsix: packageFolder(builtRunner()),
    env: { TOOLGATE_HOST_TESTS_RESULT: resultFile, TOOLGATE_REPO_ROOT: repoRoot },
    resultFile,
  };
}

/**
 * The helper extension in benchmark mode, with the empty baseline extension beside it. The first extension activated
 * in a fresh host pays for what the host sets up on first activation, so callers alternate which goes first.
 */
export function hostActivationBench(toolgateFirst = false): { vsixes: string[]; env: Record<string, string>; resultFile: string } {
  const resultFile = path.join(os.tmpdir(), `toolgate-host-bench-${process.pid}-${Date.now()}.json`);
  return {
    vsixes: [packageFolder(builtRunner()), packageFolder(path.join(repoRoot, 'test', 'fixtures', 'extensions', 'empty'))],
    env: {
      TOOLGATE_HOST_BENCH_RESULT: resultFile,
      TOOLGATE_HOST_BENCH_ORDER: toolgateFirst ? 'toolgate-first' : 'empty-first',
      ...(process.env['TOOLGATE_BENCH_PROFILE'] !== undefined ? { TOOLGATE_HOST_BENCH_PROFILE: path.resolve(process.env['TOOLGATE_BENCH_PROFILE']) } : {}),
    },
    resultFile,
  };
}

export async function waitForJson<T>(resultFile: string, timeoutMs: number): Promise<T> {
  await until(() => existsSync(resultFile), `something to be written to ${resultFile}`, { timeoutMs, everyMs: 200 });
  return JSON.parse(readFileSync(resultFile, 'utf8')) as T;
}

export function waitForHostTests(resultFile: string, timeoutMs: number): Promise<HostTestResult> {
  return waitForJson<HostTestResult>(resultFile, timeoutMs);
}
