/**
 * run_in_terminal: in a VS Code terminal with shell integration (output and exit code captured), or in a child
 * process when the terminal's shell integration does not come up. Bounded by a timeout; output capped with a note.
 */
import { spawn } from 'node:child_process';
import * as vscode from 'vscode';

export interface CommandResult {
  exitCode: number | undefined;
  output: string;
  timedOut: boolean;
  cancelled: boolean;
  ranIn: 'terminal' | 'process';
}

const maxOutputChars = 30_000;
const shellIntegrationWaitMs = 4_000;

/** Keeps the head and the tail of long output, and says how much was left out. */
export class OutputBuffer {
  private head = '';
  private tail = '';
  private dropped = 0;

  append(chunk: string): void {
    const half = maxOutputChars / 2;
    if (this.head.length < half) {
      const take = chunk.slice(0, half - this.head.length);
      this.head += take;
      chunk = chunk.slice(take.length);
    }
    this.tail += chunk;
    if (this.tail.length > half) {
      this.dropped += this.tail.length - half;
      this.tail = this.tail.slice(this.tail.length - half);
    }
  }

  toString(): string {
    return this.dropped > 0
      ? `${this.head}\n[… ${this.dropped} characters of output left out …]\n${this.tail}`
      : this.head + this.tail;
  }
}

// eslint-disable-next-line no-control-regex -- terminal output carries escape sequences by design.
const ansi = /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-Z\\-_]/g;
export function stripAnsi(text: string): string {
  return text.replace(ansi, '').replace(/\r(?!\n)/g, '');
}

function waitForShellIntegration(terminal: vscode.Terminal): Promise<vscode.TerminalShellIntegration | undefined> {
  if (terminal.shellIntegration) {
    return Promise.resolve(terminal.shellIntegration);
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      subscription.dispose();
      resolve(undefined);
    }, shellIntegrationWaitMs);
    const subscription = vscode.window.onDidChangeTerminalShellIntegration((event) => {
      if (event.terminal === terminal) {
        clearTimeout(timer);
        subscription.dispose();
        resolve(event.shellIntegration);
      }
    });
  });
}

export class TerminalRunner implements vscode.Disposable {
  private terminals: vscode.Terminal[] = [];

  async run(command: string, cwd: string, timeoutSeconds: number, signal?: AbortSignal): Promise<CommandResult> {
    const terminal = vscode.window.createTerminal({ name: 'Toolgate', cwd, isTransient: true });
    this.terminals.push(terminal);
    this.trim();
    terminal.show(true);
    const integration = await waitForShellIntegration(terminal);
    if (!integration) {
      terminal.dispose();
      return runInProcess(command, cwd, timeoutSeconds, signal);
    }
    return runWithIntegration(terminal, integration, command, timeoutSeconds, signal);
  }

  /** Keeps the last few Toolgate terminals so their output stays visible, closes older ones. */
  private trim(): void {
    while (this.terminals.length > 3) {
      this.terminals.shift()?.dispose();
    }
  }

  dispose(): void {
    for (const terminal of this.terminals.splice(0)) {
      terminal.dispose();
    }
  }
}

async function runWithIntegration(
  terminal: vscode.Terminal,
  integration: vscode.TerminalShellIntegration,
  command: string,
  timeoutSeconds: number,
  signal?: AbortSignal,
): Promise<CommandResult> {
  const buffer = new OutputBuffer();
  let timedOut = false;
  let cancelled = false;
  return await new Promise<CommandResult>((resolve) => {
    const state = { settled: false };
    const finish = (exitCode: number | undefined): void => {
      if (state.settled) {
        return;
      }
      state.settled = true;
      clearTimeout(timer);
      end.dispose();
      signal?.removeEventListener('abort', onAbort);
      // Give the output stream a moment to drain after the end event.
      setTimeout(() => {
        resolve({ exitCode, output: stripAnsi(buffer.toString()), timedOut, cancelled, ranIn: 'terminal' });
      }, 100);
    };
    const interrupt = (): void => {
      terminal.sendText('\u0003', false);
      // A command that ignores Ctrl+C (or exits the shell) must not hang the caller.
      setTimeout(() => finish(undefined), 2_000);
    };
    const onAbort = (): void => {
      cancelled = true;
      interrupt();
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        interrupt();
      },
      Math.max(1, timeoutSeconds) * 1000,
    );
    const end = vscode.window.onDidEndTerminalShellExecution((event) => {
      if (event.execution === execution) {
        finish(event.exitCode);
      }
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    // The end listener is registered first, so even an instant command's end is seen; it fires asynchronously.
    const execution = integration.executeCommand(command);
    void (async () => {
      for await (const chunk of execution.read()) {
        buffer.append(chunk);
        if (state.settled) {
          break;
        }
      }
    })();
  });
}

export function runInProcess(
  command: string,
  cwd: string,
  timeoutSeconds: number,
  signal?: AbortSignal,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const buffer = new OutputBuffer();
    let timedOut = false;
    let cancelled = false;
    const child = spawn(process.platform === 'win32' ? 'cmd.exe' : '/bin/sh', process.platform === 'win32' ? ['/d', '/s', '/c', command] : ['-c', command], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
    });
    const kill = (): void => {
      try {
        if (child.pid !== undefined && process.platform !== 'win32') {
          process.kill(-child.pid, 'SIGKILL');
        } else {
          child.kill('SIGKILL');
        }
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        kill();
      },
      Math.max(1, timeoutSeconds) * 1000,
    );
    const onAbort = (): void => {
      cancelled = true;
      kill();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => buffer.append(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => buffer.append(chunk.toString()));
    const done = (exitCode: number | undefined, extra = ''): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve({ exitCode, output: stripAnsi(buffer.toString() + extra), timedOut, cancelled, ranIn: 'process' });
    };
    child.on('error', (error) => done(undefined, `\n${error.message}`));
    child.on('close', (code) => done(code ?? undefined));
  });
}
