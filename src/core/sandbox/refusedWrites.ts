/**
 * Which writes the sandbox refused a command that failed, worked out from its policy rather than guessed from its
 * output alone: the protected files its card allowed that could not be opened (./openOnce, with why), the files it was
 * judged to write that its policy kept read-only, and the paths its output names beside a read-only error that the
 * policy indeed kept read-only (a path the policy does not hold read-only is never named as the sandbox's doing).
 */
import path from 'node:path';
import type { OpenRefusal, OpenRefusalKind } from './openOnce';
import { inside, type SandboxPolicy } from './policy';

export interface RefusedWrite {
  /** Absolute. */
  path: string;
  /** Set when the card allowed it but it was not opened: why. */
  why?: OpenRefusalKind;
}

export interface RefusedWritesInput {
  policy: Pick<SandboxPolicy, 'readOnly' | 'writableOnce'>;
  /** The files the command was judged to write (absolute). */
  writes: readonly string[];
  /** The allowed protected files that were not opened. */
  notOpened: readonly OpenRefusal[];
  output: string;
  /** Where the command ran: relative paths in its output are from here. */
  cwd: string;
}

/** The error lines of a refused write, and the path each names: quoted, or before the message (bash's `x: Read-only`). */
const readOnlyLine = /Read-only file system|\bEROFS\b/;
// Curly quotes as escapes: Toolgate's bundle stays ASCII, which src/loadBundle.ts reads as one-byte text.
const quoted = /['"\u2018`]([^'"\u2019`\n]+)['"\u2019`]/g;
const beforeMessage = /(?:^|:\s)([^\s:'"][^:'"\n]*):\s*Read-only file system/;

/** Paths named on the output's read-only errors, as written (relative or absolute). */
export function pathsInReadOnlyErrors(output: string): string[] {
  const found: string[] = [];
  for (const line of output.split('\n')) {
    if (!readOnlyLine.test(line)) {
      continue;
    }
    for (const match of line.matchAll(quoted)) {
      found.push(match[1] ?? '');
    }
    const before = beforeMessage.exec(line)?.[1];
    if (before !== undefined) {
      found.push(before.trim());
    }
  }
  return [...new Set(found.filter((entry) => entry !== ''))];
}

export function refusedWrites(input: RefusedWritesInput): RefusedWrite[] {
  const opened = new Set((input.policy.writableOnce ?? []).map((entry) => entry.path));
  const keptReadOnly = (absolute: string): boolean => !opened.has(absolute) && input.policy.readOnly.some((entry) => inside(absolute, entry));
  const refused: RefusedWrite[] = input.notOpened.map((entry) => ({ path: entry.path, why: entry.kind }));
  const named = [...input.writes, ...pathsInReadOnlyErrors(input.output).map((entry) => path.resolve(input.cwd, entry))];
  for (const absolute of named) {
    if (keptReadOnly(absolute) && !refused.some((entry) => entry.path === absolute)) {
      refused.push({ path: absolute });
    }
  }
  return refused;
}
