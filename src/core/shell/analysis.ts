/**
 * Shell command analysis with a real bash parser (tree-sitter-bash). From a command line it lists every simple
 * command that would run (through lists, pipelines, subshells, groups, functions, loops, conditionals, command and
 * process substitutions, and wrappers such as `env`, `timeout`, `xargs`, `find -exec`, `bash -c`, `eval`), every
 * redirect with its target resolved, and every construct it cannot vouch for as a concern. It never decides: see
 * rules.ts. Anything the parser rejects or this analysis does not know becomes a concern, so it asks; nothing is allowed
 * because a line is long or has many parts.
 *
 * This file holds the line as a whole (its result, the folders a `cd` leads to, control characters); the rooms it uses:
 * syntaxWalk.ts (statements and redirects), words.ts (quoting and expansion), wrappers.ts (commands that run commands).
 *
 * Call `initShellParser()` once (async: it loads WASM); `analyseCommand()` is synchronous afterwards. Before that it
 * returns a parse error, which asks.
 */
import * as path from 'node:path';
import { type Context, concern } from './analysisContext';
import type { Form } from './commandReader';
import { analyseSource, shellWalk } from './syntaxWalk';

export { initShellParser, defaultWasmDir, whenShellParserLoaded } from './parser';
export type { Form } from './commandReader';

export interface SimpleCommand {
  /** Words after quote removal (`ec"h"o` -> `echo`); a dynamic word keeps its source text. */
  words: string[];
  /**
   * The words without the options before a subcommand that a rule would have to name (`git -C dir push` ->
   * `git push`): another form a `false` rule is checked against, so it cannot be stepped round with one. Only set
   * when there are such options.
   */
  withoutGlobals?: string[];
  /** The words joined by spaces: what a `/regex/` rule is matched against. */
  text: string;
  /** Whether any word (or the command name) depends on an expansion, so its real value is unknown. */
  dynamic: boolean;
  /** Per word: it has unquoted glob characters (`*`, `?`, `[…]`), so the shell may replace it with file names. */
  globs: boolean[];
  /** `NAME=value` assignments in front of the command (also those given to `env`). */
  assignments: string[];
  /** Wrappers looked through to reach this command, outermost first (`sudo`, `timeout`, `bash -c`, `find -exec`). */
  via: string[];
  /** Forms a rule must name word for word (commandTable.ts): `git -c`, `npm test -- …`, `make --eval`. */
  forms: Form[];
  /** Files and folders its arguments read or work in, absolute (one per possible working folder), not normalised. */
  paths: PathReference[];
  /** It gets arguments the analysis cannot see (`xargs` feeds them from standard input). */
  openArgs: boolean;
  /** Its arguments can be anything without harm (`echo`), so unseen arguments do not matter. */
  anyArguments: boolean;
  /** Runs nothing and needs no rule, and why: `cd src` (later paths are judged from every folder), `set -e`. */
  implicit?: string;
}

export interface PathReference {
  /** `reads` and `folder` must be inside the workspace; `touches` must also not be protected. */
  role: 'reads' | 'folder' | 'touches';
  /** Absolute, as the shell would pass it to the kernel (`..` not yet applied: the policy resolves symlinks first). */
  target: string;
  raw: string;
}

export interface Redirect {
  op: string;
  /** Absolute path, not normalised (the policy resolves it as the kernel does); undefined when the target is dynamic (or a file descriptor). */
  target?: string;
  raw: string;
  /** Whether it writes (or may write) a file; fd duplications (`2>&1`) and `/dev/null` do not. */
  writes: boolean;
}

export type ConcernKind =
  | 'control-character' | 'parse-error' | 'nesting' | 'assignment' | 'test' | 'arithmetic' | 'function' | 'unsupported'
  | 'heredoc' | 'redirect' | 'network' | 'expansion' | 'substitution' | 'wrapper' | 'privilege' | 'eval' | 'find'
  | 'shell' | 'folder';

export interface Concern {
  kind: ConcernKind;
  detail: string;
}

export interface CommandAnalysis {
  commands: SimpleCommand[];
  redirects: Redirect[];
  concerns: Concern[];
  /** Every folder a command of the line may run in: the starting one, and each `cd` target. */
  cwds: string[];
  parseError?: string;
}

/** A `cd` can lead to this many folders before the line asks. */
const maxFolders = 16;

/**
 * Analyses a command line as bash would run it from `cwd`. A line with `cd` is analysed again with every folder it
 * may reach (whatever the order, loop or condition), so each path is judged from each folder it may be relative to.
 */
export function analyseCommand(command: string, cwd: string, home?: string): CommandAnalysis {
  const first = analyseFrom(command, [cwd], home);
  const targets = first.folderChanges;
  if (targets.length === 0) {
    return first.analysis;
  }
  // Each `cd` runs at most once, in any order: n of them reach at most n steps from the start.
  let reached = new Set([cwd]);
  for (let step = 0; step < targets.length && reached.size <= maxFolders; step++) {
    reached = new Set([...reached, ...[...reached].flatMap((from) => targets.flatMap((target) => foldersAfterCd(from, target)))]);
  }
  const again = analyseFrom(command, [...reached], home);
  if (reached.size > maxFolders) {
    again.analysis.concerns.push({ kind: 'folder', detail: `\`cd\` leads to more than ${maxFolders} folders, too many to judge` });
  }
  return again.analysis;
}

/**
 * Where `cd TARGET` from `from` may land: bash's logical `cd` applies `..` to the text (`vsub/..` is back here), `cd -P`
 * and the fallback when that folder does not exist apply it after symlinks, as the kernel does: that second folder is
 * kept unnormalised for the policy to resolve.
 */
function foldersAfterCd(from: string, target: string): string[] {
  const logical = path.resolve(from, target);
  const hasParent = target.split(/[\\/]/).includes('..');
  return hasParent && !path.isAbsolute(target) ? [logical, `${from}${from.endsWith(path.sep) ? '' : path.sep}${target}`] : [logical];
}

function analyseFrom(command: string, cwds: string[], home: string | undefined): { analysis: CommandAnalysis; folderChanges: string[] } {
  const out: CommandAnalysis = { commands: [], redirects: [], concerns: [], cwds };
  const context: Context = { cwds, home, out, depth: 0, folderChanges: [], inLoop: false, walk: shellWalk };
  controlCharacters(command, context);
  try {
    analyseSource(command, context);
  } catch (error) {
    out.parseError = error instanceof Error ? error.message : String(error);
  }
  if (out.parseError !== undefined) {
    out.concerns.push({ kind: 'parse-error', detail: `the command could not be parsed (${out.parseError})` });
  }
  return { analysis: out, folderChanges: context.folderChanges };
}

const characterNames: Record<string, string> = {
  '\r': 'a carriage return', '\v': 'a vertical tab', '\f': 'a form feed', '\x1b': 'an escape', '\x00': 'a NUL',
  '\x7f': 'a DEL', '\x08': 'a backspace', '\u0085': 'a next-line control', '\u2028': 'a Unicode line separator',
  '\u2029': 'a Unicode paragraph separator', '\u200b': 'a zero-width space', '\u200c': 'a zero-width non-joiner',
  '\u200d': 'a zero-width joiner', '\u2060': 'a word joiner', '\ufeff': 'a zero-width no-break space',
  '\u061c': 'an Arabic letter mark (a bidirectional control)', '\u200e': 'a left-to-right mark (a bidirectional control)',
  '\u200f': 'a right-to-left mark (a bidirectional control)',
};
// Control characters but tab and newline, C1 controls, line/paragraph separators, bidi controls and invisible joiners.
// eslint-disable-next-line no-control-regex -- finding control characters is the point.
const controlCharacter = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * A terminal edits a line that holds control characters before running it, and a person cannot see invisible or
 * reordering characters in the panel: any of them makes the line ask, and the reason names each one.
 */
function controlCharacters(command: string, context: Context): void {
  const found = new Set(command.match(controlCharacter) ?? []);
  for (const char of found) {
    const code = char.codePointAt(0) ?? 0;
    const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
    const name = characterNames[char]
      ?? (code < 0x20 ? `Ctrl-${String.fromCharCode(code + 64)}` : code >= 0x202a && code <= 0x2069 ? 'a bidirectional control' : 'a control character');
    concern(context, 'control-character', `the command contains ${name} (${hex}), which a terminal or a reader may not show as it runs`);
  }
}
/**
 * The files a command line writes, as its analysis reads them: each redirect that writes a file it names, and each path
 * a command touches (`touch`, `cp`'s target, `rm`). Absolute as the shell passes them (not normalised: the policy
 * resolves them as the kernel does); a write whose target depends on an expansion is not among them.
 */
export function writesOf(analysis: CommandAnalysis | undefined): string[] {
  if (analysis === undefined) {
    return [];
  }
  const targets = [
    ...analysis.redirects.flatMap((redirect) => (redirect.writes && redirect.target !== undefined ? [redirect.target] : [])),
    ...analysis.commands.flatMap((command) => command.paths.flatMap((use) => (use.role === 'touches' ? [use.target] : []))),
  ];
  return [...new Set(targets)];
}
