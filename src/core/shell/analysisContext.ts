/**
 * What every part of one line's analysis shares: the context it is analysed in (working folders, home, depth, the
 * `cd` targets seen), the concerns it collects, and how a path is joined to each folder the command may run in.
 */
import * as path from 'node:path';
import type { CommandAnalysis, ConcernKind } from './analysis';
import type { ShellNode } from './parser';

export interface Context {
  /** The folders commands may run in (the first is where the line starts). */
  cwds: readonly string[];
  home: string | undefined;
  out: CommandAnalysis;
  depth: number;
  /** `cd` targets seen, static, as written: each runs at most once (a `cd` in a loop asks). */
  folderChanges: string[];
  /** Inside a loop body, where a `cd` may run any number of times. */
  inLoop: boolean;
  /**
   * The syntax walk (syntaxWalk.ts), handed down so that the words and the wrappers reach back into it without
   * importing it: the statements of a command substitution, the code a `bash -c` or an `eval` is given.
   */
  walk: ShellWalk;
}

export interface ShellWalk {
  statement(node: ShellNode, context: Context): void;
  source(source: string, context: Context): void;
}

export const clip = (text: string): string => (text.length > 40 ? `${text.slice(0, 40)}…` : text).replace(/\n/g, '\\n');

export function concern(context: Context, kind: ConcernKind, detail: string): void {
  if (!context.out.concerns.some((existing) => existing.kind === kind && existing.detail === detail)) {
    context.out.concerns.push({ kind, detail });
  }
}

export const harmlessTargets = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);

/** A path as the kernel gets it from each folder the command may run in: joined, `..` left for the policy to resolve. */
export function targetsOf(value: string, context: Context): string[] {
  if (path.isAbsolute(value)) {
    return [value];
  }
  return context.cwds.map((cwd) => (value === '' || value === '.' ? cwd : `${cwd}${cwd.endsWith(path.sep) ? '' : path.sep}${value}`));
}
