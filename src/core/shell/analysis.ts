/**
 * Shell command analysis with a real bash parser (tree-sitter-bash). From a command line it lists every simple
 * command that would run (through lists, pipelines, subshells, groups, functions, loops, conditionals, command and
 * process substitutions, and wrappers such as `env`, `timeout`, `xargs`, `find -exec`, `bash -c`, `eval`), every
 * redirect with its target resolved, and every construct it cannot vouch for as a concern. It never decides: see
 * rules.ts. Anything the parser rejects or this file does not know becomes a concern, so it asks; nothing is allowed
 * because a line is long or has many parts.
 *
 * Call `initShellParser()` once (async: it loads WASM); `analyseCommand()` is synchronous afterwards. Before that it
 * returns a parse error, which asks.
 */
import * as path from 'node:path';
import braces from 'braces';
import { type Form, readCommand } from './commandTable';
import { type ShellNode, withShellTree } from './parser';

export { initShellParser, defaultWasmDir } from './parser';
export type { Form } from './commandTable';

export interface SimpleCommand {
  /** Words after quote removal (`ec"h"o` -> `echo`); a dynamic word keeps its source text. */
  words: string[];
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

interface Word {
  value: string;
  /** Same length as value: the character where it is unquoted (shell-special), `\0` where quoted or escaped. */
  mask: string;
  dynamic: boolean;
}

interface Context {
  /** The folders commands may run in (the first is where the line starts). */
  cwds: readonly string[];
  home: string | undefined;
  out: CommandAnalysis;
  depth: number;
  /** `cd` targets seen, static, as written: each runs at most once (a `cd` in a loop asks). */
  folderChanges: string[];
  /** Inside a loop body, where a `cd` may run any number of times. */
  inLoop: boolean;
}

/** Nested `bash -c`/`eval` deeper than this asks (a concern); it never allows. */
const maxDepth = 16;

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
  const context: Context = { cwds, home, out, depth: 0, folderChanges: [], inLoop: false };
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

function analyseSource(source: string, context: Context): void {
  if (context.depth > maxDepth) {
    concern(context, 'nesting', `commands nested more than ${maxDepth} levels deep are not analysed`);
    return;
  }
  withShellTree(source, (root) => {
    if (root.hasError) {
      const bad = findError(root);
      const near = bad ? clip(bad.text || source.slice(bad.startIndex, bad.startIndex + 10)) : '';
      const where = bad ? (near === '' ? ` at character ${bad.startIndex + 1}` : ` near \`${near}\``) : '';
      const kind = bad?.isMissing === true ? `missing \`${bad.type}\`` : 'syntax error';
      throw new Error(`${kind}${where}`);
    }
    visitStatement(root, context);
  });
}

function findError(node: ShellNode): ShellNode | undefined {
  if (node.isError || node.isMissing) {
    return node;
  }
  for (const child of node.children) {
    if (child?.hasError === true || child?.isMissing === true) {
      return findError(child);
    }
  }
  return undefined;
}

const clip = (text: string): string => (text.length > 40 ? `${text.slice(0, 40)}…` : text).replace(/\n/g, '\\n');

function concern(context: Context, kind: ConcernKind, detail: string): void {
  if (!context.out.concerns.some((existing) => existing.kind === kind && existing.detail === detail)) {
    context.out.concerns.push({ kind, detail });
  }
}

/** Node types that only group or sequence statements: every named child is visited. */
const containers = new Set([
  'program', 'list', 'pipeline', 'subshell', 'compound_statement', 'do_group', 'negated_command', 'if_statement',
  'elif_clause', 'else_clause', 'while_statement', 'for_statement', 'case_statement', 'case_item',
  'redirected_statement', 'function_definition',
]);

const wordTypes = new Set([
  'word', 'string', 'raw_string', 'ansi_c_string', 'translated_string', 'concatenation', 'number',
  'simple_expansion', 'expansion', 'command_substitution', 'process_substitution', 'arithmetic_expansion',
  'brace_expression',
]);

function visitStatement(node: ShellNode, context: Context): void {
  const type = node.type;
  if (type === 'command') {
    visitCommand(node, context);
    return;
  }
  if (type === 'comment' || type === 'variable_name' || type === 'heredoc_body') {
    if (type === 'heredoc_body') {
      visitHeredocBody(node, context);
    }
    return;
  }
  if (type === 'file_redirect' || type === 'heredoc_redirect' || type === 'herestring_redirect') {
    visitRedirect(node, context);
    return;
  }
  if (type === 'variable_assignment' || type === 'variable_assignments') {
    concern(context, 'assignment', `\`${clip(node.text)}\` sets a shell variable, which can change later commands`);
    scanNested(node, context);
    return;
  }
  if (type === 'declaration_command' || type === 'unset_command') {
    concern(context, 'assignment', `\`${clip(node.text)}\` changes shell variables or the environment`);
    scanNested(node, context);
    return;
  }
  if (type === 'test_command') {
    concern(context, 'test', `\`${clip(node.text)}\` is a \`[[ … ]]\` test, which can evaluate arithmetic and run code`);
    scanNested(node, context);
    return;
  }
  if (type === 'c_style_for_statement') {
    concern(context, 'arithmetic', `\`${clip(node.text)}\` evaluates arithmetic, which can run code`);
    scanNested(node, context);
    return;
  }
  if (containers.has(type)) {
    if ((type === 'while_statement' || type === 'for_statement') && !context.inLoop) {
      visitStatement(node, { ...context, inLoop: true });
      return;
    }
    if (type === 'for_statement') {
      // A loop variable is set like an assignment: `for HOME in sub; do git status; done` runs git with HOME=sub.
      const variable = node.childForFieldName('variable')?.text;
      if (variable !== undefined && mayBeEnvironment(variable)) {
        concern(context, 'assignment', `\`for ${variable} in …\` sets ${variable}, which can change what the commands in the loop do`);
      }
    }
    if (type === 'function_definition') {
      const name = node.childForFieldName('name');
      concern(
        context,
        'function',
        `\`${name?.text ?? '?'}\` defines a shell function, which can shadow a command in later lines`,
      );
    }
    for (const child of node.namedChildren) {
      if (!child) {
        continue;
      }
      if (child.type === 'extglob_pattern') {
        // A case pattern (`*)`, `a|b)`): matches, runs nothing, unless it hides an expansion.
        if (/[$`]/.test(child.text)) {
          concern(context, 'expansion', `the pattern \`${clip(child.text)}\` contains an expansion`);
        }
      } else if (wordTypes.has(child.type)) {
        // for-loop values, case subjects and patterns, a function's name: expansions there still run.
        resolveWord(child, context);
      } else {
        visitStatement(child, context);
      }
    }
    return;
  }
  concern(context, 'unsupported', `\`${clip(node.text)}\` uses shell syntax the analysis does not handle (${type})`);
  scanNested(node, context);
}

/** Reports expansions and runs the commands inside substitutions anywhere below `node`. */
function scanNested(node: ShellNode, context: Context): void {
  for (const child of node.namedChildren) {
    if (!child) {
      continue;
    }
    if (wordTypes.has(child.type)) {
      resolveWord(child, context);
    } else if (child.type === 'variable_assignment') {
      scanNested(child, context);
    } else {
      scanNested(child, context);
    }
  }
}

function visitHeredocBody(node: ShellNode, context: Context): void {
  for (const child of node.namedChildren) {
    if (child && child.type !== 'heredoc_content') {
      concern(context, 'heredoc', `the here-document expands \`${clip(child.text)}\``);
      if (wordTypes.has(child.type)) {
        resolveWord(child, context);
      }
    }
  }
}

const writeOps = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&', '&>|']);
const readOps = new Set(['<', '<&']);
const harmlessTargets = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);

function visitRedirect(node: ShellNode, context: Context): void {
  const out = context.out;
  if (node.type === 'heredoc_redirect') {
    out.redirects.push({ op: '<<', raw: clip(node.text), writes: false });
    for (const child of node.namedChildren) {
      if (!child || child.type === 'heredoc_start' || child.type === 'heredoc_end') {
        continue;
      }
      if (child.type === 'heredoc_body') {
        visitHeredocBody(child, context);
      } else {
        visitStatement(child, context);
      }
    }
    return;
  }
  if (node.type === 'herestring_redirect') {
    for (const child of node.namedChildren) {
      if (child) {
        resolveWord(child, context);
      }
    }
    out.redirects.push({ op: '<<<', raw: node.text, writes: false });
    return;
  }
  let op: string | undefined;
  const destinations: ShellNode[] = [];
  for (const child of node.children) {
    if (!child) {
      continue;
    }
    if (!child.isNamed) {
      op ??= child.type;
    } else if (child.type !== 'file_descriptor') {
      destinations.push(child);
    }
  }
  const raw = node.text;
  const first = destinations[0];
  if (op === undefined || !first || destinations.length > 1 || !(writeOps.has(op) || readOps.has(op))) {
    concern(context, 'redirect', `the redirect \`${clip(raw)}\` is not understood`);
    for (const destination of destinations) {
      resolveWord(destination, context);
    }
    out.redirects.push({ op: op ?? '?', raw, writes: true });
    return;
  }
  const word = finishWord(resolveWord(first, context), context);
  if ((op === '>&' || op === '<&') && !word.dynamic && /^(\d+|-)$/.test(word.value)) {
    out.redirects.push({ op, raw, writes: false });
    return;
  }
  const writes = writeOps.has(op);
  if (word.dynamic || word.glob) {
    out.redirects.push({ op, raw, writes });
    if (!writes) {
      concern(context, 'redirect', `the redirect \`${clip(raw)}\` reads a file whose name depends on an expansion`);
    }
    return;
  }
  for (const target of targetsOf(word.value, context)) {
    if (/^\/dev\/(tcp|udp)\//.test(path.normalize(target))) {
      concern(context, 'network', `the redirect \`${clip(raw)}\` opens a network connection`);
    }
    out.redirects.push({ op, target, raw, writes: writes && !harmlessTargets.has(path.normalize(target)) });
  }
}

/** A path as the kernel gets it from each folder the command may run in: joined, `..` left for the policy to resolve. */
function targetsOf(value: string, context: Context): string[] {
  if (path.isAbsolute(value)) {
    return [value];
  }
  return context.cwds.map((cwd) => (value === '' || value === '.' ? cwd : `${cwd}${cwd.endsWith(path.sep) ? '' : path.sep}${value}`));
}

interface FinishedWord {
  value: string;
  dynamic: boolean;
  glob: boolean;
}

/** Brace expansion yields at most this many words before the word counts as unknown. */
const maxBraceWords = 256;

/**
 * Applies what bash does to a whole word before running a command: brace expansion (one word may become several),
 * tilde expansion, and marks globs. A brace expansion is resolved only in a word with no quoting at all, where the
 * `braces` library expands exactly as bash does (tested against bash); elsewhere it makes the word unknown.
 */
function expandWord(word: Word, context: Context): FinishedWord[] {
  if (!word.dynamic && braceExpansion.test(word.mask) && !word.mask.includes('\0')) {
    // bash drops the empty words an expansion yields (`{a,,b}` is `a b`).
    let words: string[] = [];
    try {
      words = braces(word.value, { expand: true, rangeLimit: maxBraceWords }).filter((value) => value !== '');
    } catch {
      // A range longer than the limit: the word stays unknown.
    }
    if (words.length > 0 && words.length <= maxBraceWords && !words.some((value) => braceExpansion.test(value))) {
      return words.map((value) => finishWord({ value, mask: value, dynamic: false }, context));
    }
  }
  return [finishWord(word, context)];
}

const braceExpansion = /\{[^{}]*(,|\.\.)[^{}]*\}/;

/** Tilde expansion and glob marking of one word, whose braces (if any) are unresolved and make it unknown. */
function finishWord(word: Word, context: Context): FinishedWord {
  let { value, dynamic } = word;
  const mask = word.mask;
  let glob = false;
  if (!dynamic) {
    if (/[*?]/.test(mask) || /\[[\s\S]*\]/.test(mask) || /[@!+]\(/.test(mask)) {
      glob = true;
    }
    if (braceExpansion.test(mask)) {
      dynamic = true;
      concern(context, 'expansion', `\`${clip(value)}\` uses brace expansion the analysis does not resolve`);
    }
    if (mask.startsWith('~')) {
      const end = mask.indexOf('/');
      const user = end === -1 ? value.slice(1) : value.slice(1, end);
      if (user === '' && context.home !== undefined) {
        value = context.home + (end === -1 ? '' : value.slice(end));
      } else {
        dynamic = true;
        concern(context, 'expansion', `\`${clip(value)}\` uses tilde expansion to a home folder`);
      }
    }
  }
  return { value, dynamic, glob };
}

const quoted = (text: string): string => '\0'.repeat(text.length);

function resolveWord(node: ShellNode, context: Context): Word {
  switch (node.type) {
    case 'word':
    case 'number':
      return unquoted(node.text, context);
    case 'raw_string': {
      const value = node.text.slice(1, -1);
      return { value, mask: quoted(value), dynamic: false };
    }
    case 'string':
    case 'translated_string': {
      const text = node.type === 'translated_string' ? node.text.slice(1) : node.text;
      let dynamic = false;
      let value = '';
      let covered = '';
      for (const child of node.children) {
        if (!child) {
          continue;
        }
        covered += child.text;
        if (!child.isNamed) {
          continue;
        }
        if (child.type === 'string_content') {
          value += child.text.replace(/\\([\\$`"\n])/g, (_all, c: string) => (c === '\n' ? '' : c));
          continue;
        }
        const known = knownExpansion(child, context);
        if (known === undefined) {
          dynamic = true;
          resolveWord(child, context);
        } else {
          value += known;
        }
      }
      if (covered !== text) {
        // Text the parser did not put in a child: do not guess what it is.
        return { value: text, mask: quoted(text), dynamic: true };
      }
      return { value: dynamic ? text.slice(1, -1) : value, mask: quoted(dynamic ? text.slice(1, -1) : value), dynamic };
    }
    case 'ansi_c_string': {
      const value = decodeAnsiC(node.text.slice(2, -1));
      if (value === undefined) {
        concern(context, 'expansion', `\`${clip(node.text)}\` uses an ANSI-C escape the analysis does not decode`);
        return { value: node.text, mask: quoted(node.text), dynamic: true };
      }
      return { value, mask: quoted(value), dynamic: false };
    }
    case 'concatenation': {
      let value = '';
      let mask = '';
      let dynamic = false;
      for (const child of node.children) {
        if (!child) {
          continue;
        }
        const part = child.isNamed ? resolveWord(child, context) : unquoted(child.text, context);
        value += part.value;
        mask += part.mask;
        dynamic ||= part.dynamic;
      }
      return { value, mask, dynamic };
    }
    case 'simple_expansion':
    case 'expansion': {
      const known = knownExpansion(node, context);
      // Unquoted, bash splits the value into words and globs it: only a value that does neither is known.
      if (known !== undefined && !/[\s*?[\]]/.test(known)) {
        return { value: known, mask: quoted(known), dynamic: false };
      }
      concern(context, 'expansion', `\`${clip(node.text)}\` expands a variable, whose value is not known`);
      scanNested(node, context);
      return dynamicWord(node);
    }
    case 'command_substitution':
    case 'process_substitution': {
      const what = node.type === 'command_substitution' ? 'command substitution' : 'process substitution';
      concern(context, 'substitution', `\`${clip(node.text)}\` is a ${what}, which runs a command`);
      for (const child of node.namedChildren) {
        if (child) {
          visitStatement(child, context);
        }
      }
      return dynamicWord(node);
    }
    case 'arithmetic_expansion':
      concern(context, 'arithmetic', `\`${clip(node.text)}\` is an arithmetic expansion, which can run code`);
      scanNested(node, context);
      return dynamicWord(node);
    case 'brace_expression':
      // `{1..3}`: a sequence, expanded (or judged unknown) with the rest of its word.
      return { value: node.text, mask: node.text, dynamic: false };
    default:
      concern(context, 'unsupported', `\`${clip(node.text)}\` is a word the analysis does not handle (${node.type})`);
      scanNested(node, context);
      return dynamicWord(node);
  }
}

const dynamicWord = (node: ShellNode): Word => ({ value: node.text, mask: quoted(node.text), dynamic: true });

/**
 * `$PWD` and `$HOME` (also `${…}`): known when the line has one working folder (the runner starts bash with PWD set
 * to it) and a home folder was given. No other variable is known: the line may not set them (assignments ask).
 */
function knownExpansion(node: ShellNode, context: Context): string | undefined {
  const name = /^\$(?:(PWD|HOME)|\{(PWD|HOME)\})$/.exec(node.text);
  const variable = name?.[1] ?? name?.[2];
  if (variable === 'PWD') {
    return context.cwds.length === 1 ? context.cwds[0] : undefined;
  }
  return variable === 'HOME' ? context.home : undefined;
}

/** An unquoted piece of a word: backslashes quote the next character; a backslash-newline disappears. */
function unquoted(text: string, context: Context): Word {
  if (text.includes('$') || text.includes('`')) {
    // The parser would have produced an expansion node; a bare `$` is literal, but be strict about anything else.
    if (!/^[^$`]*(\$)?$/.test(text)) {
      concern(context, 'expansion', `\`${clip(text)}\` contains an expansion character the analysis does not handle`);
      return { value: text, mask: quoted(text), dynamic: true };
    }
  }
  let value = '';
  let mask = '';
  for (let index = 0; index < text.length; index++) {
    const char = text.charAt(index);
    if (char === '\\') {
      const next = text.charAt(index + 1);
      index++;
      if (next === '\n') {
        continue;
      }
      if (next === '') {
        value += '\\';
        mask += '\0';
        continue;
      }
      value += next;
      mask += '\0';
      continue;
    }
    value += char;
    mask += char === '\0' ? ' ' : char;
  }
  return { value, mask, dynamic: false };
}

const simpleEscapes: Record<string, string> = {
  a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'",
  '"': '"', '?': '?',
};

/** Decodes the inside of `$'…'`; undefined for escapes it does not know (`\c`, malformed `\u`). */
function decodeAnsiC(body: string): string | undefined {
  let out = '';
  for (let index = 0; index < body.length; index++) {
    const char = body.charAt(index);
    if (char !== '\\') {
      out += char;
      continue;
    }
    const next = body.charAt(index + 1);
    const simple = simpleEscapes[next];
    if (simple !== undefined) {
      out += simple;
      index++;
      continue;
    }
    const patterns: [RegExp, number][] = [
      [/^[0-7]{1,3}/, 8],
      [/^x[0-9a-fA-F]{1,2}/, 16],
      [/^u[0-9a-fA-F]{1,4}/, 16],
      [/^U[0-9a-fA-F]{1,8}/, 16],
    ];
    const rest = body.slice(index + 1);
    const hit = patterns.find(([pattern]) => pattern.test(rest));
    if (!hit) {
      return undefined;
    }
    const digits = hit[0].exec(rest)?.[0] ?? '';
    const code = parseInt(hit[1] === 8 ? digits : digits.slice(1), hit[1]);
    if (code === 0 || code > 0x10ffff) {
      return undefined;
    }
    out += String.fromCodePoint(code);
    index += digits.length;
  }
  return out;
}

function visitCommand(node: ShellNode, context: Context): void {
  const words: FinishedWord[] = [];
  const assignments: string[] = [];
  for (const child of node.children) {
    if (!child) {
      continue;
    }
    if (!child.isNamed) {
      concern(context, 'unsupported', `\`${clip(child.text)}\` in \`${clip(node.text)}\` is not understood`);
      continue;
    }
    switch (child.type) {
      case 'variable_assignment':
        assignments.push(child.text);
        scanNested(child, context);
        break;
      case 'file_redirect':
      case 'herestring_redirect':
      case 'heredoc_redirect':
        visitRedirect(child, context);
        break;
      case 'command_name': {
        const inner = child.namedChildren[0];
        if (!inner || child.namedChildren.length !== 1) {
          concern(context, 'unsupported', `the command name \`${clip(child.text)}\` is not understood`);
          words.push({ value: child.text, dynamic: true, glob: false });
        } else {
          words.push(finishWord(resolveWord(inner, context), context));
        }
        break;
      }
      case 'comment':
        break;
      default:
        words.push(...expandWord(resolveWord(child, context), context));
    }
  }
  if (assignments.length > 0) {
    concern(
      context,
      'assignment',
      `\`${clip(assignments.join(' '))}\` sets environment variables for the command, which can change what it runs`,
    );
  }
  addCommand(words, assignments, [], context);
}

/** Lower-case variables programs read from the environment; any other name with a capital may be one too. */
const lowerCaseEnvironment = new Set(['http_proxy', 'https_proxy', 'ftp_proxy', 'no_proxy', 'all_proxy']);
const mayBeEnvironment = (name: string): boolean => /[A-Z]/.test(name) || lowerCaseEnvironment.has(name);

const shells = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh']);
/** Run another command in a way this analysis does not follow: always a concern. */
const opaqueWrappers = new Set([
  'doas', 'su', 'ionice', 'strace', 'ltrace', 'watch', 'script', 'parallel', 'chroot', 'flock', 'setsid', 'unbuffer',
  'busybox', 'source', '.', 'stdbuf', 'taskset', 'chrt', 'nsenter', 'unshare', 'firejail', 'runuser', 'pkexec',
  'trap', 'alias', 'coproc', 'fc', 'ssh', 'expect', 'tclsh', 'osascript', 'sg', 'newgrp', 'systemd-run', 'dbus-launch',
  'hash', 'enable', 'shopt', 'set', 'unalias', 'mapfile', 'readarray', 'read', 'getopts', 'let',
]);

/**
 * Records a sub-command with what the command table says of its words: its forms, the files and folders it reads or
 * works in (joined to every possible working folder), and the files it writes (as redirects, judged as file writes).
 * Words that change nothing a rule cares about (`git --no-pager`) are left out of the words rules match.
 */
function recordCommand(words: FinishedWord[], assignments: string[], via: string[], context: Context, openArgs: boolean, implicit?: string): void {
  const reading = readCommand(words);
  const kept = words.filter((_word, index) => !reading.neutral.includes(index));
  const shift = (at: number): number => at - reading.neutral.filter((index) => index < at).length;
  const paths: PathReference[] = [];
  for (const use of reading.paths) {
    const value = use.value.startsWith('~/') && context.home !== undefined ? context.home + use.value.slice(1) : use.value;
    for (const target of targetsOf(value, context)) {
      if (use.role === 'writes') {
        context.out.redirects.push({ op: use.raw.split(/[ =]/)[0] ?? use.raw, target, raw: use.raw, writes: !harmlessTargets.has(path.normalize(target)) });
      } else {
        paths.push({ role: use.role, target, raw: use.raw });
      }
    }
  }
  const values = kept.map((word) => word.value);
  context.out.commands.push({
    words: values,
    text: values.join(' '),
    dynamic: kept.some((word) => word.dynamic),
    globs: kept.map((word) => word.glob),
    assignments,
    via,
    forms: reading.forms.map((form) => ({ ...form, at: shift(form.at) })),
    paths,
    openArgs,
    anyArguments: reading.anyArguments,
    ...(implicit !== undefined ? { implicit } : {}),
  });
}

/** Looks through wrappers (`env`, `sudo`, `timeout`, `xargs`, `find -exec`, `bash -c`, `eval`, …) and records. */
function addCommand(words: FinishedWord[], assignments: string[], via: string[], context: Context, openArgs = false): void {
  if (words.length === 0) {
    return;
  }
  const record = (): void => recordCommand(words, assignments, via, context, openArgs);
  const head = words[0];
  if (!head || head.dynamic || head.glob) {
    if (head?.glob === true) {
      concern(context, 'expansion', `the command name \`${clip(head.value)}\` is a glob pattern`);
    }
    record();
    return;
  }
  const name = head.value;
  const rest = words.slice(1);
  const through = (label: string, inner: FinishedWord[], extraAssignments: string[] = [], fed = openArgs): void => {
    if (inner.length === 0) {
      record();
      return;
    }
    addCommand(inner, [...assignments, ...extraAssignments], [...via, label], context, fed);
  };
  const base = name.includes('/') ? name.slice(name.lastIndexOf('/') + 1) : name;
  if (opaqueWrappers.has(base)) {
    concern(context, 'wrapper', `\`${base}\` runs other commands or code that the analysis does not follow`);
    record();
    return;
  }
  switch (name) {
    case 'cd':
    case 'pushd':
      changeFolder(name, rest, context);
      recordCommand(words, assignments, via, context, openArgs, 'changes the working folder');
      return;
    case 'popd':
      // Back to a folder the line was already in: nothing new to judge.
      recordCommand(words, assignments, via, context, openArgs, 'changes the working folder');
      return;
    case 'set':
      if (rest.length > 0 && rest.every((word, index) => !word.dynamic && (/^[-+][euxv]+$/.test(word.value)
        || (/^[-+]o$/.test(word.value) && /^(pipefail|errexit|nounset|xtrace|verbose)$/.test(rest[index + 1]?.value ?? ''))
        || (/^(pipefail|errexit|nounset|xtrace|verbose)$/.test(word.value) && /^[-+]o$/.test(rest[index - 1]?.value ?? ''))))) {
        recordCommand(words, assignments, via, context, openArgs, 'sets shell options that stop on errors or trace');
      } else {
        concern(context, 'wrapper', `\`${clip(words.map((word) => word.value).join(' '))}\` changes how the shell reads later commands`);
        record();
      }
      return;
    case 'env':
      lookThroughEnv(rest, context, record, through);
      return;
    case 'sudo':
      concern(context, 'privilege', '`sudo` runs a command as another user');
      lookThroughOptions(name, rest, /^-[ugCDhprtTU]$/, /^-(?:[AbEHiKknPSsVvlB]+)$|^--[a-z-]+$/, record, through, context);
      return;
    case 'time':
      lookThroughOptions(name, rest, /^$/, /^-p$/, record, through, context);
      return;
    case 'nice':
      lookThroughOptions(name, rest, /^-n$/, /^-\d+$|^--adjustment=-?\d+$/, record, through, context);
      return;
    case 'nohup':
    case 'command':
    case 'builtin':
      if (name === 'command' && rest[0] !== undefined && /^-[vV]+$/.test(rest[0].value)) {
        record();
        return;
      }
      lookThroughOptions(name, rest, /^$/, name === 'command' ? /^-p$/ : /^$/, record, through, context);
      return;
    case 'exec':
      lookThroughOptions(name, rest, /^-a$/, /^-[cl]+$/, record, through, context);
      return;
    case 'timeout': {
      const options = /^-[sk]$/;
      let index = 0;
      while (index < rest.length) {
        const word = rest[index]?.value ?? '';
        if (options.test(word)) {
          index += 2;
        } else if (/^--(signal|kill-after)=|^--(preserve-status|foreground|verbose)$|^-v$|^-[sk].+/.test(word)) {
          index += 1;
        } else if (word === '--') {
          index += 1;
          break;
        } else {
          break;
        }
      }
      const duration = rest[index];
      if (!duration || !/^\d+(\.\d+)?[smhd]?$/.test(duration.value)) {
        concern(context, 'wrapper', '`timeout` is used in a way the analysis does not follow');
        record();
        return;
      }
      through('timeout', rest.slice(index + 1));
      return;
    }
    case 'xargs':
      lookThroughXargs(rest, record, through, context);
      return;
    case 'find':
      lookThroughFind(words, via, through, context);
      return;
    case 'eval': {
      if (rest.some((word) => word.dynamic || word.glob)) {
        concern(context, 'eval', '`eval` runs code built from expansions');
        record();
        return;
      }
      if (rest.length === 0) {
        return;
      }
      nested(rest.map((word) => word.value).join(' '), 'eval', via, context);
      return;
    }
    default:
      break;
  }
  if (shells.has(name)) {
    lookThroughShell(name, rest, record, via, context);
    return;
  }
  record();
}

function nested(source: string, label: string, via: string[], context: Context): void {
  const inner: Context = { ...context, depth: context.depth + 1, out: { commands: [], redirects: [], concerns: [], cwds: context.out.cwds } };
  try {
    analyseSource(source, inner);
  } catch (error) {
    concern(context, 'parse-error', `the code given to \`${label}\` could not be parsed (${error instanceof Error ? error.message : String(error)})`);
  }
  for (const command of inner.out.commands) {
    context.out.commands.push({ ...command, via: [...via, label, ...command.via] });
  }
  context.out.redirects.push(...inner.out.redirects);
  for (const item of inner.out.concerns) {
    concern(context, item.kind, item.detail);
  }
}

type Through = (label: string, inner: FinishedWord[], extraAssignments?: string[], fed?: boolean) => void;

/** `cd DIR`: every later path may be relative to DIR too (analyseCommand runs again with it); an unknown DIR asks. */
function changeFolder(name: string, rest: FinishedWord[], context: Context): void {
  const operands = rest.filter((word, index) => !(index === 0 && /^-[LPe@]+$/.test(word.value) && !word.dynamic));
  const target = operands[0];
  if (operands.length > 1) {
    concern(context, 'folder', `\`${name}\` is given more than one folder`);
    return;
  }
  if (context.inLoop) {
    concern(context, 'folder', `\`${name}\` inside a loop may run any number of times`);
    return;
  }
  if (!target) {
    if (context.home === undefined) {
      concern(context, 'folder', `\`${name}\` with no folder goes to the home folder, which is not known`);
    } else {
      context.folderChanges.push(context.home);
    }
    return;
  }
  if (target.dynamic || target.glob || target.value === '-' || /^[-+]\d*$/.test(target.value)) {
    concern(context, 'folder', `\`${name} ${clip(target.value)}\` changes to a folder the analysis cannot tell`);
    return;
  }
  context.folderChanges.push(target.value);
}

/** Skips the wrapper's options (`withArgument` takes the next word; `flag` stands alone); unknown options ask. */
function lookThroughOptions(
  name: string,
  rest: FinishedWord[],
  withArgument: RegExp,
  flag: RegExp,
  record: () => void,
  through: Through,
  context: Context,
): void {
  let index = 0;
  while (index < rest.length) {
    const word = rest[index];
    if (!word || word.dynamic || word.glob) {
      break;
    }
    if (word.value === '--') {
      index++;
      break;
    }
    if (!word.value.startsWith('-')) {
      break;
    }
    if (withArgument.test(word.value)) {
      index += 2;
    } else if (flag.test(word.value)) {
      index++;
    } else {
      concern(context, 'wrapper', `\`${name} ${word.value}\` is an option the analysis does not follow`);
      record();
      return;
    }
  }
  through(name, rest.slice(index));
}

function lookThroughEnv(rest: FinishedWord[], context: Context, record: () => void, through: Through): void {
  const extra: string[] = [];
  let index = 0;
  while (index < rest.length) {
    const word = rest[index];
    if (!word || word.dynamic) {
      break;
    }
    const value = word.value;
    if (value === '-i' || value === '-' || value === '--ignore-environment' || value === '-0' || value === '--null') {
      index++;
    } else if (value === '-u' || value === '--unset') {
      index += 2;
    } else if (/^(-u.+|--unset=.+)$/.test(value)) {
      index++;
    } else if (value === '--') {
      index++;
    } else if (value.startsWith('-')) {
      concern(context, 'wrapper', `\`env ${value}\` is an option the analysis does not follow`);
      record();
      return;
    } else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) {
      extra.push(value);
      index++;
    } else {
      break;
    }
  }
  if (extra.length > 0) {
    concern(context, 'assignment', `\`env ${clip(extra.join(' '))}\` sets environment variables, which can change what a command runs`);
  }
  if (index >= rest.length) {
    record();
    return;
  }
  through('env', rest.slice(index), extra);
}

function lookThroughXargs(rest: FinishedWord[], record: () => void, through: Through, context: Context): void {
  const withArgument = /^-[adEeIiLlnPs]$|^--(arg-file|delimiter|eof|replace|max-lines|max-args|max-procs|max-chars|process-slot-var)$/;
  const attached = /^-[adEeIiLlnPs].+|^--(arg-file|delimiter|eof|replace|max-lines|max-args|max-procs|max-chars|process-slot-var)=/;
  const flag = /^-[0rtpx]+$|^--(null|no-run-if-empty|verbose|interactive|exit|open-tty|show-limits)$/;
  let index = 0;
  let replace: string | undefined;
  while (index < rest.length) {
    const word = rest[index];
    if (!word || word.dynamic || word.glob) {
      break;
    }
    const value = word.value;
    if (value === '--') {
      index++;
      break;
    }
    if (!value.startsWith('-')) {
      break;
    }
    // -I R, -IR, -i[R], --replace[=R]: R in the command's words is replaced by input the analysis never sees.
    if (/^(-I|--replace)$/.test(value)) {
      replace = rest[index + 1]?.value;
    } else if (/^-I.|^-i|^--replace/.test(value)) {
      replace = value.replace(/^(-I|-i|--replace=?)/, '') || '{}';
    }
    if (value === '--replace' || flag.test(value) || attached.test(value) || /^-i/.test(value)) {
      index++;
    } else if (withArgument.test(value)) {
      index += 2;
    } else {
      concern(context, 'wrapper', `\`xargs ${value}\` is an option the analysis does not follow`);
      record();
      return;
    }
  }
  const inner = rest.slice(index).map((word) => (replace !== undefined && replace !== '' && word.value.includes(replace) ? { ...word, dynamic: true } : word));
  // What xargs reads from its input becomes more arguments, or (with -I) parts of them: the command is fed.
  through('xargs', inner.length > 0 ? inner : [{ value: 'echo', dynamic: false, glob: false }], [], true);
}

function lookThroughFind(words: FinishedWord[], via: string[], through: Through, context: Context): void {
  const own: FinishedWord[] = [];
  let index = 0;
  while (index < words.length) {
    const word = words[index];
    if (!word) {
      break;
    }
    const value = word.value;
    if (['-exec', '-execdir', '-ok', '-okdir'].includes(value)) {
      own.push(word);
      const end = words.findIndex((candidate, at) => at > index && !candidate.dynamic && (candidate.value === ';' || candidate.value === '+'));
      if (end === -1) {
        concern(context, 'wrapper', `\`find ${value}\` has no terminating \`;\` or \`+\``);
        index = words.length;
        break;
      }
      // find puts each file name where `{}` stands: those words are not known from the text.
      through(`find ${value}`, words.slice(index + 1, end).map((inner) => (inner.value.includes('{}') ? { ...inner, dynamic: true } : inner)));
      own.push({ value: '…', dynamic: false, glob: false }, words[end] ?? word);
      index = end + 1;
      continue;
    }
    if (/^-(delete|fprint0?|fprintf|fls)$/.test(value)) {
      concern(context, 'find', `\`find ${value}\` deletes or writes files`);
    }
    own.push(word);
    index++;
  }
  // `find` itself is a command too (`find . -name x` needs a rule), and its start folders are read.
  recordCommand(own, [], via, context, false);
}

function lookThroughShell(name: string, rest: FinishedWord[], record: () => void, via: string[], context: Context): void {
  let index = 0;
  let sawC = false;
  while (index < rest.length) {
    const word = rest[index];
    if (!word || word.dynamic || word.glob) {
      break;
    }
    const value = word.value;
    if (/^-[euxvc]+$/.test(value) && value !== '-') {
      if (value.includes('c')) {
        sawC = true;
      }
      index++;
    } else if (value === '-o' || value === '+o') {
      index += 2;
    } else if (value === '--norc' || value === '--noprofile') {
      index++;
    } else {
      break;
    }
  }
  if (!sawC) {
    // `bash script.sh`, `sh` reading stdin: a command like any other, which needs its own rule.
    record();
    return;
  }
  const script = rest[index];
  if (!script || script.dynamic || script.glob) {
    concern(context, 'shell', `\`${name} -c\` runs code that is not a fixed string`);
    record();
    return;
  }
  if (name === 'zsh' || name === 'ksh' || name === 'mksh') {
    concern(context, 'shell', `\`${name} -c\` code is parsed as bash, which may differ from how ${name} reads it`);
  }
  nested(script.value, `${name} -c`, via, context);
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
