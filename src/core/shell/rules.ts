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
  /**
   * Whether an extra allowed prefix (a grant) decided some sub-command: when not, the rules alone give this same
   * verdict, and the policy need not evaluate the line a second time to know it.
   */
  usedExtraPrefix: boolean;
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
 * The default `toolgate.autoApprove.terminal`: read-only git and listing allowed, dangerous commands never. Plain
 * prefixes a person can read in the Settings editor: what would make a git read write or run something (`--output`
 * and its abbreviations, `--no-index`, `--ext-diff`, `--textconv`, a pager or editor) is the command table's to catch
 * (commandTable.ts), and it asks whatever a rule allows; `git branch` only lists, so its rule stays a regex.
 */
export const defaultTerminalRules: Readonly<Record<string, boolean>> = {
  'git status': true,
  'git diff': true,
  'git log': true,
  'git show': true,
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

/** A rule key or grant prefix as words; the same few keys are matched against every sub-command of every call. */
const wordsCache = new Map<string, readonly string[]>();
function wordsOf(prefix: string): readonly string[] {
  let words = wordsCache.get(prefix);
  if (words === undefined) {
    if (wordsCache.size > 1000) {
      wordsCache.clear();
    }
    words = splitWords(prefix);
    wordsCache.set(prefix, words);
  }
  return words;
}

/** Commands that download and run package code: only a prefix naming the package (`npx eslint`) allows them. */
const packageRunners = new Set(['npx', 'pnpx', 'bunx']);

interface Candidate {
  words: readonly string[];
  globs: readonly boolean[];
  text: string;
}

function prefixMatches(prefix: string, candidate: Candidate, allowing: boolean): boolean {
  const wanted = wordsOf(prefix);
  if (wanted.length === 0 || wanted.length > candidate.words.length) {
    return false;
  }
  if (allowing && wanted.length < 2 && packageRunners.has(candidate.words[0] ?? '')) {
    return false;
  }
  for (let index = 0; index < wanted.length; index++) {
    if (candidate.words[index] !== wanted[index] || (allowing && candidate.globs[index] === true)) {
      return false;
    }
  }
  return true;
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
    return prefixMatches(key, candidate, allowing) ? wordsOf(key).length : undefined;
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
  if (command.withoutGlobals !== undefined) {
    candidates.push({ words: command.withoutGlobals, globs: command.withoutGlobals.map(() => false), text: command.withoutGlobals.join(' ') });
  }
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

/**
 * The first of `keys` (terminal rule keys: word prefixes or `/regex/`) that one sub-command matches, in any form a
 * `false` rule is checked against (its words, its name without the folder, each wrapper it was reached through), and
 * the command name it matched in; undefined when none does. For the managed policy's deny and ask lists.
 */
export function firstMatchingKey(command: SimpleCommand, keys: readonly string[]): { key: string; name: string } | undefined {
  if (keys.length === 0) {
    return undefined;
  }
  for (const candidate of denyCandidates(command)) {
    const key = keys.find((rule) => ruleMatches(rule, candidate, false) !== undefined);
    if (key !== undefined) {
      return { key, name: candidate.words[0] ?? command.text };
    }
  }
  return undefined;
}

const quote = (text: string): string => `\`${text.length > 80 ? `${text.slice(0, 80)}…` : text}\``;

/** One sub-command's verdict (a plain function, not a closure: it is made for every sub-command of every call). */
function subVerdict(command: SimpleCommand, verdict: 'allow' | 'ask', kind: CommandVerdictKind, reason: string, rule?: string): SubVerdict {
  const text = command.text;
  const detail: SubVerdict = { text, name: command.words[0] ?? text, verdict, kind, reason };
  if (rule !== undefined) {
    detail.rule = rule;
  }
  return detail;
}

/** A sub-command's verdict that no grant decided. */
const byRules = (command: SimpleCommand, verdict: 'allow' | 'ask', kind: CommandVerdictKind, reason: string): { detail: SubVerdict; granted: boolean } => ({
  detail: subVerdict(command, verdict, kind, reason),
  granted: false,
});

/** A rules setting's `false` and `true` keys, in the setting's order. */
export interface SplitRules {
  deny: readonly string[];
  allow: readonly string[];
}
const splitCache = new WeakMap<object, SplitRules>();

/**
 * Splits a rules setting (terminal or edit rules) into its `false` and `true` keys, once per setting value: the
 * settings hand out the same frozen object until they change, and judge() reads the rules for every call.
 */
export function splitRules(rules: Readonly<Record<string, boolean>>): SplitRules {
  // Only a frozen setting is kept by identity: a mutable object could change after it was split.
  let split = Object.isFrozen(rules) ? splitCache.get(rules) : undefined;
  if (split === undefined) {
    const deny: string[] = [];
    const allow: string[] = [];
    for (const key of Object.keys(rules)) {
      (rules[key] ? allow : deny).push(key);
    }
    split = { deny: Object.freeze(deny), allow: Object.freeze(allow) };
    if (Object.isFrozen(rules)) {
      splitCache.set(rules, split);
    }
  }
  return split;
}

/** Judges one sub-command; `granted` says whether an extra prefix (a grant) rather than a rule allowed it. */
function judge(command: SimpleCommand, rules: SplitRules, context: RuleContext): { detail: SubVerdict; granted: boolean } {
  const text = command.text;
  const name = command.words[0] ?? text;
  for (const candidate of denyCandidates(command)) {
    const deny = rules.deny.find((key) => ruleMatches(key, candidate, false) !== undefined);
    if (deny !== undefined) {
      const matched = candidate.words[0] ?? text;
      const detail = subVerdict(command, 'ask', 'false-rule', `${quote(matched)} matches ${quote(deny)}, which is never auto-allowed`);
      return { detail: { ...detail, name: matched, falseRule: deny }, granted: false };
    }
  }
  if (command.dynamic) {
    return byRules(command, 'ask', 'dynamic', `${quote(text)} depends on an expansion, so no rule can vouch for it`);
  }
  if (command.implicit !== undefined) {
    return byRules(command, 'allow', 'allowed', `${quote(text)} ${command.implicit}`);
  }
  const candidate: Candidate = { words: command.words, globs: command.globs, text };
  // The rule or grant that names the most words wins: it is the one that may name a dangerous form.
  let named: number | undefined;
  let rule: string | undefined;
  let granted = false;
  for (const key of rules.allow) {
    const matched = ruleMatches(key, candidate, true);
    if (matched !== undefined && (named === undefined || matched > named)) {
      named = matched;
      rule = key;
    }
  }
  for (const prefix of context.extraAllowPrefixes ?? []) {
    if (prefixMatches(prefix, candidate, true) && (named === undefined || wordsOf(prefix).length > named)) {
      named = wordsOf(prefix).length;
      rule = prefix;
      granted = true;
    }
  }
  if (named === undefined || rule === undefined) {
    const why = packageRunners.has(name)
      ? `${quote(name)} runs package code: only a rule naming the package (\`${name} <pkg>\`) allows it`
      : `${quote(name)} is not allowed by any rule`;
    return byRules(command, 'ask', 'no-rule', why);
  }
  const unnamed = command.forms.find((form) => form.at >= named);
  if (unnamed) {
    const fix = Number.isFinite(unnamed.at) ? ' (only a rule that names this form allows it)' : '';
    return byRules(command, 'ask', 'form', `${unnamed.why}${fix}`);
  }
  if (command.openArgs && !command.anyArguments) {
    return byRules(command, 'ask', 'unseen-arguments', `${quote(text)} is given arguments the analysis cannot see (from \`xargs\`)`);
  }
  const outside = command.paths.find((use) => !context.isInsideWorkspace(use.target));
  if (outside) {
    const what = outside.role === 'reads' ? 'reads' : outside.role === 'touches' ? 'changes' : 'works in';
    return byRules(command, 'ask', 'path-outside', `${quote(text)} ${what} ${outside.target}, outside the workspace`);
  }
  for (const use of command.paths.filter((candidate) => candidate.role === 'touches')) {
    const hit = context.isProtected(use.target);
    if (hit !== undefined) {
      return byRules(command, 'ask', 'path-outside', `${quote(text)} changes ${use.raw}, a protected path (\`${hit}\`)`);
    }
  }
  return { detail: subVerdict(command, 'allow', 'allowed', `${quote(text)} ${granted ? 'starts with the granted' : 'matches'} ${quote(rule)}`, rule), granted };
}

const harmlessDevices = new Set(['/dev/null', '/dev/stdin', '/dev/zero', '/dev/stdout', '/dev/stderr', '/dev/tty']);

export function evaluateCommand(analysis: CommandAnalysis, context: RuleContext): CommandVerdict {
  const split = splitRules(context.rules);
  const details: SubVerdict[] = [];
  let usedExtraPrefix = false;
  for (const command of analysis.commands) {
    const { detail, granted } = judge(command, split, context);
    details.push(detail);
    usedExtraPrefix ||= granted;
  }
  const ask = (kind: CommandVerdictKind, why: string, subject?: SubVerdict): CommandVerdict =>
    ({ verdict: 'ask', usedExtraPrefix, kind, reason: `asks: ${why}`, why, ...(subject ? { subject } : {}), details });
  if (analysis.parseError !== undefined) {
    return ask('parse-error', `the command could not be parsed (${analysis.parseError})`);
  }
  const control = analysis.concerns.find((item) => item.kind === 'control-character');
  if (control) {
    return ask('control-character', control.detail);
  }
  const denied = details.find((detail) => detail.kind === 'false-rule');
  if (denied) {
    return ask('false-rule', denied.reason, denied);
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
    const inLine = analysis.commands.length > 1 ? ` in ${quote(analysis.commands.map((command) => command.text).join(' ; '))}` : '';
    return ask(notAllowed.kind, `${notAllowed.reason}${inLine}`, notAllowed);
  }
  if (details.every((detail) => detail.rule === undefined)) {
    return ask('empty', 'the command runs nothing the analysis can vouch for');
  }
  const rules = [...new Set(details.flatMap((detail) => (detail.rule === undefined ? [] : [quote(detail.rule)])))];
  const why = `every sub-command matches a rule (${rules.join(', ')})`;
  return { verdict: 'allow', usedExtraPrefix, kind: 'allowed', reason: `allowed: ${why}`, why, details };
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
