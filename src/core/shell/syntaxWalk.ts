/**
 * The syntax walk: from tree-sitter-bash's tree, every statement of the line (through lists, pipelines, subshells,
 * groups, functions, loops, conditionals, here-documents), each simple command's words and assignments, and every
 * redirect with its target. A construct it does not handle is a concern, never skipped.
 */
import * as path from 'node:path';
import { type Context, type ShellWalk, clip, concern, harmlessTargets, targetsOf } from './analysisContext';
import { type ShellNode, withShellTree } from './parser';
import { addCommand } from './wrappers';
import { type FinishedWord, expandWord, finishWord, resolveWord, scanNested, wordTypes } from './words';

/** Nested `bash -c`/`eval` deeper than this asks (a concern); it never allows. */
const maxDepth = 16;

export function analyseSource(source: string, context: Context): void {
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
/** Node types that only group or sequence statements: every named child is visited. */
const containers = new Set([
  'program', 'list', 'pipeline', 'subshell', 'compound_statement', 'do_group', 'negated_command', 'if_statement',
  'elif_clause', 'else_clause', 'while_statement', 'for_statement', 'case_statement', 'case_item',
  'redirected_statement', 'function_definition',
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

/** What the words and the wrappers reach back into (see Context.walk). */
export const shellWalk: ShellWalk = { statement: visitStatement, source: analyseSource };
