/**
 * Terminal rules (`toolgate.autoApprove.terminal`) applied to a command's analysis. A key is a command prefix matched
 * word by word against one sub-command's resolved words, or a `/regex/flags` matched against one sub-command's text
 * (its resolved words joined by spaces). A line is allowed only if every sub-command is allowed by a `true` rule (or
 * an extra prefix), no sub-command (nor a wrapper it runs through) matches a `false` rule, every form of a command
 * that runs code or points elsewhere (commandTable.ts) is named word for word by the prefix rule that allows it, every
 * file a command reads and every folder it runs in is inside the workspace, every file the line writes (a redirect,
 * `--output`) is judged as `write_file` would be, and the analysis has no concern. No I/O of its own: paths are
 * resolved through the context's ports.
 */
import * as path from 'node:path';
import { analyseCommand, type CommandAnalysis, type SimpleCommand } from './analysis';

export interface RuleContext {
  rules: Readonly<Record<string, boolean>>;
  /** Command-prefix grants, matched word by word like `true` rules. */
  extraAllowPrefixes?: readonly string[];
  /** Whether an absolute path (which may hold `..`) is inside a workspace folder, resolved as the kernel would. */
  isInsideWorkspace(absPath: string): boolean;
  /** How a write to this file would be judged as `write_file`: allowed without asking, or why it asks. */
  judgeWrite(absPath: string): { allowed: boolean; reason: string };
  /** The protected glob an absolute path (which may hold `..`) matches, if any. */
  isProtected(absPath: string): string | undefined;
}

/** Why a sub-command or a line was judged as it was; nothing reads a verdict back from its wording. */
export type CommandVerdictKind =
  | 'allowed' | 'no-rule' | 'false-rule' | 'dynamic' | 'form' | 'unseen-arguments' | 'path-outside' | 'folder-outside'
  | 'write' | 'redirect' | 'concern' | 'control-character' | 'parse-error' | 'empty';

export interface SubVerdict {
  text: string;
  /** The command's name as the rules matched it (`npm` of `npm test`), for plain wording. */
  name: string;
  verdict: 'allow' | 'ask';
  kind: CommandVerdictKind;
  reason: string;
  /** The rule or grant that allowed it, as written. */
  rule?: string;
  /** kind 'false-rule': the `false` rule it matched, as written. */
  falseRule?: string;
}

export interface CommandVerdict {
  verdict: 'allow' | 'ask';
  kind: CommandVerdictKind;
  /** "asks: " or "allowed: " and why, for the audit log. */
  reason: string;
  /** Why, without the verdict's prefix: a clause a sentence for a person can be built around. */
  why: string;
  /** The sub-command the line's verdict is about, when it is about one. */
  subject?: SubVerdict;
  details: SubVerdict[];
}

/**
 * The default `toolgate.autoApprove.terminal`: read-only git and listing allowed, dangerous commands never.
 * The git regex refuses `--output` (and its abbreviations: it writes a file), `--no-index` (reads any file),
 * `--ext-diff`/`--textconv` (run programs); `git branch` only lists.
 */
export const defaultTerminalRules: Readonly<Record<string, boolean>> = {
  '/^(?![\\s\\S]* --(ou|no-i|ext|textc))git (status|diff|log|show)(?: |$)/': true,
  '/^git branch( (-a|-r|-v|-vv|--all|--remotes|--verbose|--list|--show-current))*$/': true,
  ls: true,
  pwd: true,
  rm: false,
  curl: false,
  wget: false,
  eval: false,
  chmod: false,
  chown: false,
  dd: false,
  sudo: false,
};

/** A `/regex/flags` key compiled; undefined for a word prefix; null for a broken regex (matches nothing). */
export function compileTerminalRule(key: string): RegExp | null | undefined {
  const match = /^\/(.*)\/([a-z]*)$/s.exec(key);
  if (!match) {
    return undefined;
  }
  try {
    return new RegExp(match[1] ?? '', (match[2] ?? '').replace(/[gy]/g, ''));
  } catch {
    return null;
  }
}

/** The keys that look like `/regex/` but do not compile: report them once; they match nothing. */
export function brokenTerminalRules(rules: Readonly<Record<string, boolean>>): string[] {
  return Object.keys(rules).filter((key) => compileTerminalRule(key) === null);
}

const cache = new Map<string, RegExp | null | undefined>();
function compiled(key: string): RegExp | null | undefined {
  if (!cache.has(key)) {
    if (cache.size > 1000) {
      cache.clear();
    }
    cache.set(key, compileTerminalRule(key));
  }
  return cache.get(key);
}

const splitWords = (text: string): string[] => text.trim().split(/\s+/).filter((word) => word.length > 0);

/** Commands that download and run package code: only a prefix naming the package (`npx eslint`) allows them. */
const packageRunners = new Set(['npx', 'pnpx', 'bunx']);

interface Candidate {
  words: readonly string[];
  globs: readonly boolean[];
  text: string;
}

function prefixMatches(prefix: string, candidate: Candidate, allowing: boolean): boolean {
  const wanted = splitWords(prefix);
  if (wanted.length === 0 || wanted.length > candidate.words.length) {
    return false;
  }
  if (allowing && packageRunners.has(candidate.words[0] ?? '') && wanted.length < 2) {
    return false;
  }
  return wanted.every(
    (word, index) => candidate.words[index] === word && (!allowing || candidate.globs[index] !== true),
  );
}

/**
 * How many leading words a rule names when it matches (a prefix rule: its words; a regex: none, since it cannot be
 * read as naming a form), or undefined when it does not match.
 */
function ruleMatches(key: string, candidate: Candidate, allowing: boolean): number | undefined {
  const regex = compiled(key);
  if (regex === null) {
    return undefined;
  }
  if (regex === undefined) {
    return prefixMatches(key, candidate, allowing) ? splitWords(key).length : undefined;
  }
  if (allowing && (packageRunners.has(candidate.words[0] ?? '') || candidate.globs.some((glob, index) => glob && /^[-*?[]/.test(candidate.words[index] ?? '')))) {
    // npx needs a prefix that names the package; a glob that may expand to an option (`*` -> `--output=x`) is not
    // text a regex can vouch for.
    return undefined;
  }
  regex.lastIndex = 0;
  return regex.test(candidate.text) ? 0 : undefined;
}

/** The forms a `false` rule is checked against: the words, the command name without its folder, each wrapper. */
function denyCandidates(command: SimpleCommand): Candidate[] {
  const base = { words: command.words, globs: command.globs, text: command.text };
  const candidates: Candidate[] = [base];
  const first = command.words[0] ?? '';
  if (first.includes('/')) {
    const words = [first.slice(first.lastIndexOf('/') + 1), ...command.words.slice(1)];
    candidates.push({ words, globs: command.globs, text: words.join(' ') });
  }
  for (const wrapper of command.via) {
    const words = splitWords(wrapper);
    candidates.push({ words, globs: words.map(() => false), text: wrapper });
  }
  return candidates;
}

const quote = (text: string): string => `\`${text.length > 80 ? `${text.slice(0, 80)}…` : text}\``;

type Judged = SubVerdict & { denied: boolean };

function judge(command: SimpleCommand, context: RuleContext): Judged {
  const text = command.text;
  const name = command.words[0] ?? text;
  const result = (verdict: 'allow' | 'ask', kind: CommandVerdictKind, reason: string, rule?: string): Judged => ({
    text, name, verdict, kind, reason, denied: kind === 'false-rule', ...(rule !== undefined ? { rule } : {}),
  });
  const entries = Object.entries(context.rules);
  for (const candidate of denyCandidates(command)) {
    const deny = entries.find(([key, allowed]) => !allowed && ruleMatches(key, candidate, false) !== undefined);
    if (deny) {
      const matched = candidate.words[0] ?? text;
      return { ...result('ask', 'false-rule', `${quote(matched)} matches ${quote(deny[0])}, which is never auto-allowed`), name: matched, falseRule: deny[0] };
    }
  }
  if (command.dynamic) {
    return result('ask', 'dynamic', `${quote(text)} depends on an expansion, so no rule can vouch for it`);
  }
  if (command.implicit !== undefined) {
    return result('allow', 'allowed', `${quote(text)} ${command.implicit}`);
  }
  const candidate: Candidate = { words: command.words, globs: command.globs, text };
  // The rule or grant that names the most words wins: it is the one that may name a dangerous form.
  let named: number | undefined;
  let rule: string | undefined;
  let granted = false;
  for (const [key, allowed] of entries) {
    const matched = allowed ? ruleMatches(key, candidate, true) : undefined;
    if (matched !== undefined && (named === undefined || matched > named)) {
      named = matched;
      rule = key;
    }
  }
  for (const prefix of context.extraAllowPrefixes ?? []) {
    if (prefixMatches(prefix, candidate, true) && (named === undefined || splitWords(prefix).length > named)) {
      named = splitWords(prefix).length;
      rule = prefix;
      granted = true;
    }
  }
  if (named === undefined || rule === undefined) {
    const why = packageRunners.has(name)
      ? `${quote(name)} runs package code: only a rule naming the package (\`${name} <pkg>\`) allows it`
      : `${quote(name)} is not allowed by any rule`;
    return result('ask', 'no-rule', why);
  }
  const unnamed = command.forms.find((form) => form.at >= named);
  if (unnamed) {
    const fix = Number.isFinite(unnamed.at) ? ' (only a rule that names this form allows it)' : '';
    return result('ask', 'form', `${unnamed.why}${fix}`);
  }
  if (command.openArgs && !command.anyArguments) {
    return result('ask', 'unseen-arguments', `${quote(text)} is given arguments the analysis cannot see (from \`xargs\`)`);
  }
  const outside = command.paths.find((use) => !context.isInsideWorkspace(use.target));
  if (outside) {
    const what = outside.role === 'reads' ? 'reads' : outside.role === 'touches' ? 'changes' : 'works in';
    return result('ask', 'path-outside', `${quote(text)} ${what} ${outside.target}, outside the workspace`);
  }
  for (const use of command.paths.filter((candidate) => candidate.role === 'touches')) {
    const hit = context.isProtected(use.target);
    if (hit !== undefined) {
      return result('ask', 'path-outside', `${quote(text)} changes ${use.raw}, a protected path (\`${hit}\`)`);
    }
  }
  return result('allow', 'allowed', `${quote(text)} ${granted ? 'starts with the granted' : 'matches'} ${quote(rule)}`, rule);
}

const harmlessDevices = new Set(['/dev/null', '/dev/stdin', '/dev/zero', '/dev/stdout', '/dev/stderr', '/dev/tty']);

export function evaluateCommand(analysis: CommandAnalysis, context: RuleContext): CommandVerdict {
  const judged = analysis.commands.map((command) => judge(command, context));
  const details: SubVerdict[] = judged.map(({ denied: _denied, ...detail }) => detail);
  const whole = analysis.commands.map((command) => command.text).join(' ; ');
  const ask = (kind: CommandVerdictKind, why: string, subject?: SubVerdict): CommandVerdict =>
    ({ verdict: 'ask', kind, reason: `asks: ${why}`, why, ...(subject ? { subject } : {}), details });
  if (analysis.parseError !== undefined) {
    return ask('parse-error', `the command could not be parsed (${analysis.parseError})`);
  }
  const control = analysis.concerns.find((item) => item.kind === 'control-character');
  if (control) {
    return ask('control-character', control.detail);
  }
  const deniedAt = judged.findIndex((detail) => detail.denied);
  if (deniedAt >= 0) {
    return ask('false-rule', details[deniedAt]?.reason ?? '', details[deniedAt]);
  }
  for (const redirect of analysis.redirects) {
    if (!redirect.writes && redirect.target === undefined) {
      continue;
    }
    if (redirect.target === undefined) {
      return ask('redirect', `the redirect ${quote(redirect.raw)} writes to a file whose name depends on an expansion`);
    }
    if (!redirect.writes) {
      if (!harmlessDevices.has(path.normalize(redirect.target)) && !context.isInsideWorkspace(redirect.target)) {
        return ask('redirect', `the redirect ${quote(redirect.raw)} reads ${redirect.target}, outside the workspace`);
      }
      continue;
    }
    const write = context.judgeWrite(redirect.target);
    if (!write.allowed) {
      return ask('write', `${quote(redirect.raw)} writes ${redirect.target}, and ${write.reason}`);
    }
  }
  const away = analysis.cwds.find((cwd) => !context.isInsideWorkspace(cwd));
  if (away !== undefined) {
    return ask('folder-outside', `commands run in ${away}, outside the workspace`);
  }
  const first = analysis.concerns[0];
  if (first) {
    const more = analysis.concerns.length > 1 ? ` (and ${analysis.concerns.length - 1} more concern${analysis.concerns.length > 2 ? 's' : ''})` : '';
    return ask('concern', `${first.detail}${more}`);
  }
  const notAllowed = details.find((detail) => detail.verdict === 'ask');
  if (notAllowed) {
    const inLine = analysis.commands.length > 1 ? ` in ${quote(whole)}` : '';
    return ask(notAllowed.kind, `${notAllowed.reason}${inLine}`, notAllowed);
  }
  if (details.every((detail) => detail.rule === undefined)) {
    return ask('empty', 'the command runs nothing the analysis can vouch for');
  }
  const rules = [...new Set(details.flatMap((detail) => (detail.rule === undefined ? [] : [quote(detail.rule)])))];
  const why = `every sub-command matches a rule (${rules.join(', ')})`;
  return { verdict: 'allow', kind: 'allowed', reason: `allowed: ${why}`, why, details };
}

/**
 * `true` rules that can never allow anything, and why: a prefix that is not one plain command as the analysis reads
 * it (`sudo x`, `FOO=1 x`, `a && b`, `timeout 5 x`, quotes), or one a `false` rule always beats. Report them once,
 * as broken regexes are. Needs the shell parser loaded.
 */
export function deadTerminalRules(rules: Readonly<Record<string, boolean>>): { key: string; why: string }[] {
  const dead: { key: string; why: string }[] = [];
  for (const [key, allowed] of Object.entries(rules)) {
    if (!allowed || compiled(key) !== undefined) {
      continue;
    }
    const analysis = analyseCommand(key, '/', '/');
    const only = analysis.commands.length === 1 ? analysis.commands[0] : undefined;
    const concern = analysis.concerns[0];
    if (analysis.parseError !== undefined) {
      dead.push({ key, why: `it does not parse as a command (${analysis.parseError})` });
    } else if (!only) {
      dead.push({ key, why: 'rules match one sub-command at a time, and this is not one command' });
    } else if (concern) {
      dead.push({ key, why: `a command like it always asks: ${concern.detail}` });
    } else if (only.words.join(' ') !== splitWords(key).join(' ')) {
      dead.push({ key, why: `commands are matched as the analysis reads them, here \`${only.words.join(' ')}\`${only.via.length > 0 ? ` (through ${only.via.join(', ')})` : ''}` });
    } else {
      const beaten = denyCandidates(only).flatMap((candidate) => Object.entries(rules).filter(([other, value]) => !value && ruleMatches(other, candidate, false) !== undefined));
      if (beaten[0]) {
        dead.push({ key, why: `the false rule \`${beaten[0][0]}\` always beats it` });
      }
    }
  }
  return dead;
}
