/**
 * The words of a command as bash makes them: quote removal, `$'…'` escapes, the expansions it can know (`$PWD`,
 * `$HOME`), tilde and brace expansion, and glob marking. A word whose value depends on anything else is dynamic (its
 * source text kept) and said as a concern; the commands inside a substitution are walked as statements.
 */
import braces from 'braces';
import { type Context, clip, concern } from './analysisContext';
import type { ShellNode } from './parser';

export interface Word {
  value: string;
  /** Same length as value: the character where it is unquoted (shell-special), `\0` where quoted or escaped. */
  mask: string;
  dynamic: boolean;
}

export interface FinishedWord {
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
export function expandWord(word: Word, context: Context): FinishedWord[] {
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
export function finishWord(word: Word, context: Context): FinishedWord {
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
export function resolveWord(node: ShellNode, context: Context): Word {
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
          context.walk.statement(child, context);
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


/** Node types that are words (or parts of one): resolved, never walked as statements. */
export const wordTypes = new Set([
  'word', 'string', 'raw_string', 'ansi_c_string', 'translated_string', 'concatenation', 'number',
  'simple_expansion', 'expansion', 'command_substitution', 'process_substitution', 'arithmetic_expansion',
  'brace_expression',
]);

/** Reports expansions and runs the commands inside substitutions anywhere below `node`. */
export function scanNested(node: ShellNode, context: Context): void {
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
