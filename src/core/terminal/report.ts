/** What the model (or an API caller) is told about a command that was allowed: how it ended, and its output. */
import type { TerminalCommandResult } from './commandTerminal';

export interface CommandReportContext {
  /** The command that ran. */
  command: string;
  /** The person edited the command before allowing it. */
  edited: boolean;
  timeoutSeconds: number;
  /** It failed in the sandbox, probably because of it; `rerun`: the person let it run once more without it. */
  sandbox?: { failure: string; rerun: boolean };
  /**
   * The sandbox refused hosts, and the person allowed them (in toolgate.sandbox.allowedDomains when `saved`, else for
   * this command only): this is the run again in the sandbox with them.
   */
  allowedHosts?: { entries: string[]; saved: boolean };
}

export function commandReport(result: TerminalCommandResult, context: CommandReportContext): { ok: boolean; text: string } {
  const edited = context.edited ? `The person edited the command before allowing it. What ran was: ${context.command}` : undefined;
  if (result.notRun !== undefined) {
    const text = [edited, `The command was not run: ${result.notRun}`].filter((line) => line !== undefined).join('\n');
    return { ok: false, text };
  }
  const sandbox = context.sandbox;
  const confinement = sandbox
    ? sandbox.rerun
      ? `It failed in the sandbox (${sandbox.failure}); the person let it run once more without the sandbox, and this is that run.`
      : `It failed in the sandbox, probably because ${sandbox.failure}. The person chose not to run it without the sandbox; find a way that works inside it (write only in the workspace; the network only to the domains the person allowed, through the proxy in HTTPS_PROXY), or ask the person.`
    : result.sandboxed
      ? undefined
      : 'It ran without the sandbox (there is none here), with the person\'s approval.';
  const hosts = context.allowedHosts;
  const allowedHosts = hosts === undefined
    ? undefined
    : `The sandbox refused connections it needed; the person allowed ${hosts.entries.join(', ')} (${hosts.saved ? 'added to toolgate.sandbox.allowedDomains' : 'for this command only'}), and this is the run again in the sandbox with ${hosts.entries.length === 1 ? 'it' : 'them'}.`;
  const created = result.createdProtected ?? [];
  const refused = result.refusedConnections ?? [];
  const lines = [
    edited,
    allowedHosts,
    confinement,
    refused.length > 0 && sandbox === undefined ? `The sandbox refused connections to ${refused.join(', ')}.` : undefined,
    created.length > 0
      ? `It created protected paths, which the sandbox can keep read-only only once they exist: ${created.join(', ')}. They were left in place and the person was told to review them; do not create protected files with commands (write them with write_file, which asks).`
      : undefined,
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

/** Why a command whose card promised review was not run: it could not be staged at launch (never run unreviewed). */
export function unreviewedNotRun(reason: string): string {
  return `Its card said its changes would be reviewed before they land, but it cannot be staged now (${reason}), so nothing was run.`;
}
