/** What the model (or an API caller) is told about a command that was allowed: how it ended, and its output. */
import type { TerminalCommandResult } from './commandTerminal';

export interface CommandReportContext {
  /** The command that ran. */
  command: string;
  /** The person edited the command before allowing it. */
  edited: boolean;
  timeoutSeconds: number;
}

export function commandReport(result: TerminalCommandResult, context: CommandReportContext): { ok: boolean; text: string } {
  const edited = context.edited ? `The person edited the command before allowing it. What ran was: ${context.command}` : undefined;
  if (result.notRun !== undefined) {
    const text = [edited, `The command was not run: ${result.notRun}`].filter((line) => line !== undefined).join('\n');
    return { ok: false, text };
  }
  const lines = [
    edited,
    result.timedOut ? `The command was stopped after ${context.timeoutSeconds} s (toolgate.terminal.timeoutSeconds).` : undefined,
    result.cancelled ? 'The command was stopped because the task was cancelled.' : undefined,
    result.stoppedFromTerminal === 'interrupt' ? 'The person stopped the command with Ctrl+C in its terminal.' : undefined,
    result.stoppedFromTerminal === 'closed' ? 'The command was stopped because the person closed its terminal.' : undefined,
    result.leftoversStopped
      ? 'bash exited, but processes the command left running in the background still held its output open, so they were stopped.'
      : undefined,
    `Exit code: ${result.exitCode ?? (result.signal !== undefined ? `none (bash was ended by ${result.signal})` : 'unknown')}`,
    'Output:',
    result.output.trim() === '' ? '(no output)' : result.output,
  ];
  return { ok: result.exitCode === 0, text: lines.filter((line) => line !== undefined).join('\n') };
}
