/**
 * What a Toolgate terminal does, free of `vscode`: the behaviour behind a VS Code Pseudoterminal. Each command gets a
 * header (the folder and the exact command, control characters shown, not obeyed), its output as it streams (line
 * breaks translated for the terminal), and a footer with the exit code or why it stopped. Ctrl+C typed in the
 * terminal interrupts the running command; other typing is ignored, and the terminal says so once. Closing the
 * terminal stops what runs in it.
 */
import { Emitter, type Disposable } from '../disposable';
import type { Stage } from '../sandbox/stage';
import { runBash, type BashRunOptions, type CommandResult } from './bashRunner';
import { visibleControls } from './output';

export interface TerminalCommandResult extends CommandResult {
  /** Stopped from its terminal: Ctrl+C typed there, or the person closed the terminal. */
  stoppedFromTerminal: 'interrupt' | 'closed' | undefined;
  /**
   * It ran staged: what it wrote in the workspace folders is in this stage, not in them. The caller lands what is
   * allowed of it and then discards it.
   */
  stage?: Stage;
}

export interface CommandRequest {
  command: string;
  cwd: string;
  timeoutMs: number;
  /** The task's cancellation. */
  signal?: AbortSignal;
  /** The OS sandbox to run it in; absent: it runs unconfined, and the header says so. */
  wrap?: BashRunOptions['wrap'];
  /** Names of the host's environment the command gets besides the allow-list (toolgate.sandbox.passEnvironment). */
  passEnvironment?: readonly string[];
}

/** Runs a command (the real one is `runBash`); a port so the terminal's behaviour can be tested on its own. */
export type CommandExecutor = (command: string, options: BashRunOptions) => Promise<CommandResult>;

const dim = (text: string): string => `\u001b[2m${text}\u001b[22m`;
const bold = (text: string): string => `\u001b[1m${text}\u001b[22m`;
const red = (text: string): string => `\u001b[31m${text}\u001b[39m`;
const reverse = (text: string): string => `\u001b[7m${text}\u001b[27m`;
/** Written output kept while the terminal is not open yet (VS Code drops what is written before `open`). */
const maxPendingChars = 1_000_000;

export const ignoredInputNote = 'Typing here is ignored: this terminal shows the commands Toolgate runs. Ctrl+C stops the running command.';

export class CommandTerminal implements Disposable {
  private readonly writes = new Emitter<string>();
  /** Text for the terminal, with escape sequences and `\r\n` line breaks. */
  readonly onDidWrite = this.writes.event;
  private opened = false;
  private pending = '';
  private closed = false;
  private atLineStart = true;
  private toldAboutInput = false;
  private current: { controller: AbortController; stoppedFromTerminal?: 'interrupt' | 'closed' } | undefined;

  constructor(private readonly execute: CommandExecutor = runBash) {}

  /** A command is running in this terminal. */
  get busy(): boolean {
    return this.current !== undefined;
  }

  /** The terminal was closed (by the person or on dispose); it runs nothing more. */
  get isClosed(): boolean {
    return this.closed;
  }

  open(): void {
    this.opened = true;
    if (this.pending !== '') {
      const text = this.pending;
      this.pending = '';
      this.writes.fire(text);
    }
  }

  close(): void {
    this.closed = true;
    this.stop('closed');
  }

  handleInput(data: string): void {
    if (data.includes('\u0003')) {
      if (this.current && this.current.stoppedFromTerminal === undefined) {
        this.write('^C');
        this.stop('interrupt');
      }
      return;
    }
    if (!this.toldAboutInput) {
      this.toldAboutInput = true;
      this.writeLine(dim(ignoredInputNote));
    }
  }

  async run(request: CommandRequest): Promise<TerminalCommandResult> {
    if (this.current) {
      throw new Error('this terminal is already running a command');
    }
    if (this.closed) {
      throw new Error('this terminal was closed');
    }
    const controller = new AbortController();
    const current: { controller: AbortController; stoppedFromTerminal?: 'interrupt' | 'closed' } = { controller };
    this.current = current;
    const onTaskAbort = (): void => controller.abort();
    request.signal?.addEventListener('abort', onTaskAbort, { once: true });
    if (request.signal?.aborted) {
      controller.abort();
    }
    const where = request.wrap ? dim('[sandbox]') : red('[unconfined]');
    this.writeLine(`${where} ${dim(visibleControls(request.cwd, reverse))} ${bold(`$ ${visibleControls(request.command, reverse).replace(/\n/g, '\r\n> ')}`)}`);
    try {
      const result = await this.execute(request.command, {
        cwd: request.cwd,
        timeoutMs: request.timeoutMs,
        signal: controller.signal,
        sink: { write: (text) => this.write(text) },
        ...(request.wrap ? { wrap: request.wrap } : {}),
        ...(request.passEnvironment ? { passEnvironment: request.passEnvironment } : {}),
      });
      const stoppedFromTerminal = current.stoppedFromTerminal;
      const outcome: TerminalCommandResult = {
        ...result,
        cancelled: result.cancelled && stoppedFromTerminal === undefined,
        stoppedFromTerminal: result.cancelled ? stoppedFromTerminal : undefined,
      };
      this.writeLine(footer(outcome, request.timeoutMs));
      this.writeLine('');
      return outcome;
    } finally {
      request.signal?.removeEventListener('abort', onTaskAbort);
      this.current = undefined;
    }
  }

  dispose(): void {
    this.close();
    this.writes.dispose();
  }

  private stop(why: 'interrupt' | 'closed'): void {
    if (this.current) {
      this.current.stoppedFromTerminal ??= why;
      this.current.controller.abort();
    }
  }

  /** Writes program output: `\n` becomes `\r\n`, as a terminal needs. */
  private write(text: string): void {
    if (text === '') {
      return;
    }
    this.atLineStart = text.endsWith('\n');
    this.emit(text.replace(/\r?\n/g, '\r\n'));
  }

  /** Writes a whole line of Toolgate's own, starting it on a fresh line. */
  private writeLine(text: string): void {
    this.emit(`${this.atLineStart ? '' : '\r\n'}${text}\r\n`);
    this.atLineStart = true;
  }

  private emit(text: string): void {
    if (this.closed) {
      return;
    }
    if (this.opened) {
      this.writes.fire(text);
    } else {
      this.pending = (this.pending + text).slice(-maxPendingChars);
    }
  }
}

function footer(result: TerminalCommandResult, timeoutMs: number): string {
  if (result.notRun !== undefined) {
    return red(`[not run: ${result.notRun}]`);
  }
  const stopped = result.timedOut
    ? `stopped after ${Math.round(timeoutMs / 1000)} s (timeout)`
    : result.stoppedFromTerminal === 'interrupt'
      ? 'stopped with Ctrl+C'
      : result.cancelled
        ? 'stopped: the task was cancelled'
        : undefined;
  const status =
    result.exitCode !== undefined ? `exit code ${result.exitCode}` : result.signal !== undefined ? `ended by ${result.signal}` : 'no exit code';
  const leftovers = result.leftoversStopped ? 'what it left running in the background was stopped' : undefined;
  const text = `[${[stopped, status, leftovers].filter((part) => part !== undefined).join(', ')}]`;
  return result.exitCode === 0 ? dim(text) : red(text);
}
