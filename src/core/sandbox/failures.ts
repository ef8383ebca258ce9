/**
 * Whether a command that failed in the sandbox failed because of it: the errors a refused write or a missing network
 * print, in the words of the C library, Node, Python, git and curl. A guess from the output (the sandbox cannot say
 * which call it refused), so it only ever offers the person a choice; it never decides anything by itself.
 */

import { refusalWords } from './domainProxy';
import { openRefusalWords, type OpenRefusalKind } from './openOnce';

/**
 * What this reads of a command's run (terminal/bashRunner's CommandResult has these fields): declared here, as a port,
 * because the terminal launches commands in the sandbox and the sandbox must not depend on the terminal in turn.
 */
export interface SandboxedRun {
  exitCode: number | undefined;
  output: string;
  sandboxed: boolean;
  notRun: string | undefined;
  cancelled: boolean;
  timedOut: boolean;
  refusedConnections?: string[];
  /** The writes the sandbox refused, worked out from its policy (./refusedWrites): as the person reads the paths. */
  refusedWrites?: { path: string; why?: OpenRefusalKind }[];
}

/** "the sandbox kept `.vscode/settings.json` read-only (protected path)", with why a file the card allowed was not opened. */
export function describeRefusedWrites(refused: readonly { path: string; why?: OpenRefusalKind }[]): string {
  const named = refused.map((entry) => `\`${entry.path}\` read-only (protected path${entry.why === undefined ? '' : `: ${openRefusalWords[entry.why]}`})`);
  return `the sandbox kept ${named.join(', ')}`;
}

interface FailureRow {
  pattern: RegExp;
  /** Completes "it failed in the sandbox because …". */
  because: string;
}

const rows: readonly FailureRow[] = [
  // bubblewrap's own messages: the sandbox did not start at all (the command did not run).
  { pattern: /^bwrap: /, because: 'the sandbox itself could not start' },
  // The protected paths, and every folder between them and the workspace folder, are mount points in the sandbox:
  // renaming or removing one is refused with EBUSY (so a folder cannot be swapped for one holding planted files).
  // Before the read-only row: removing such a folder prints both, and the busy folder is what the person must hear.
  {
    pattern: /Device or resource busy|\bEBUSY\b/,
    because: 'a protected file, or a folder that holds protected files, cannot be renamed or removed in the sandbox (it holds them read-only where they are)',
  },
  { pattern: /Read-only file system|\bEROFS\b/, because: 'a write was refused: outside the workspace and in protected paths the sandbox is read-only' },
  {
    pattern: /Network is unreachable|\bENETUNREACH\b|Could not resolve host|Temporary failure in name resolution|\bEAI_AGAIN\b|getaddrinfo|Name or service not known|Failed to establish a new connection/,
    because: 'the network is off in the sandbox',
  },
  { pattern: /Connection refused|\bECONNREFUSED\b/, because: 'a connection was refused: the sandbox has its own loopback, so services on this machine cannot be reached' },
];

/** Why the sandbox probably made this command fail, or undefined (it succeeded, or failed for its own reasons). */
export function sandboxFailure(
  result: SandboxedRun,
): string | undefined {
  if (!result.sandboxed || result.notRun !== undefined || result.cancelled || result.timedOut) {
    return undefined;
  }
  // Not a guess: the proxy said what it refused. A command that succeeded failed too when what it printed is the
  // proxy's refusal (`curl -sS http://…` exits 0 on a 403); one whose refused call went unseen (a version check) did not.
  const refused = result.refusedConnections ?? [];
  if (result.exitCode === 0 && !(refused.length > 0 && result.output.includes(refusalWords))) {
    return undefined;
  }
  if (refused.length > 0) {
    return `the sandbox refused connections to ${refused.join(', ')}`;
  }
  // Nor this: the policy says which of the paths it wrote it held read-only.
  if (result.refusedWrites !== undefined && result.refusedWrites.length > 0) {
    return describeRefusedWrites(result.refusedWrites);
  }
  const row = rows.find((candidate) => candidate.pattern.test(result.output));
  // The sandbox's own start-up error is quoted: it is what the person needs to see to decide.
  return row?.pattern.source === '^bwrap: ' ? `${row.because} (${result.output.trim().split('\n')[0] ?? ''})` : row?.because;
}
