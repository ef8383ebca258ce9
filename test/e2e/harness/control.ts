import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageFolder } from './hostTests';
import { repoRoot } from './codeServer';
import { until } from './until';

/**
 * The e2e side of the helper extension's control mode: Toolgate's API (invokeTool, requestApproval, evaluate) and a
 * few editor actions, called over loopback HTTP from the test.
 */
export class Control {
  /**
   * Where the control extension writes its port. Every session's is its own: the sessions of a run are made while
   * mocha loads the specs, often in the same millisecond, and a name made of the pid and the time was shared, so a
   * session read the port of the previous spec's extension host, gone by then (CI: ECONNREFUSED on a first call).
   */
  readonly file = path.join(os.tmpdir(), `toolgate-control-${process.pid}-${randomUUID()}`);

  get env(): Record<string, string> {
    return { TOOLGATE_HOST_CONTROL: this.file };
  }

  get vsix(): string {
    return packageFolder(path.join(repoRoot, 'dist-test', 'hostRunner'));
  }

  /** Forget the current port (before a window reload: the new extension host writes a new one). */
  reset(): void {
    rmSync(this.file, { force: true });
  }

  /** Resolves once the control extension listens (its port file is written). */
  async ready(): Promise<void> {
    await this.port();
  }

  private async port(timeoutMs = 60_000): Promise<number> {
    await until(() => existsSync(this.file), 'the control extension to start (its port file)', { timeoutMs });
    return Number(readFileSync(this.file, 'utf8'));
  }

  async call<T = unknown>(route: string, input: Record<string, unknown> = {}): Promise<T> {
    const response = await fetch(`http://127.0.0.1:${await this.port()}${route}`, {
      method: 'POST',
      body: JSON.stringify(input),
    });
    const payload = (await response.json()) as { ok: boolean; result?: T; error?: string };
    if (!payload.ok) {
      throw new Error(`${route} failed: ${payload.error ?? 'unknown error'}`);
    }
    return payload.result as T;
  }

  /** Runs a built-in tool through Toolgate's gate (as the agent would); resolves when it is decided and run. */
  invoke(tool: string, args: Record<string, unknown>): Promise<{ ok: boolean; output: string; decision?: { verdict: string; decidedBy: string; reason: string } }> {
    return this.call('/invoke', { tool, args });
  }
}
