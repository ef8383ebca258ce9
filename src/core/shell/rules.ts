/**
 * Terminal rules (`toolgate.autoApprove.terminal`) applied to a command's analysis. A key is a command prefix matched
 * word by word against one sub-command's resolved words, or a `/regex/flags` matched against one sub-command's text
 * (its resolved words joined by spaces). A line is allowed only if every sub-command is allowed by a `true` rule (or
 * an extra prefix), no sub-command (nor a wrapper it runs through) matches a `false` rule, no redirect writes outside
 * the workspace or into a protected path, and the analysis has no concern. Pure: no I/O.
 */
import type { CommandAnalysis, SimpleCommand } from './analysis';

export interface RuleContext {
  rules: Readonly<Record<string, boolean>>;
  /** Command-prefix grants, matched word by word like `true` rules. */
  extraAllowPrefixes?: readonly string[];
  /** Whether an absolute path is inside a workspace folder. */
  isInsideWorkspace(absPath: string): boolean;
  /** The protected glob an absolute path matches, if any. */
  isProtected(absPath: string): string | undefined;
}

export interface SubVerdict {
  text: string;
  verdict: 'allow' | 'ask';
  reason: string;
}

export interface CommandVerdict {
  verdict: 'allow' | 'ask';
  reason: string;
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

function ruleMatches(key: string, candidate: Candidate, allowing: boolean): boolean {
  const regex = compiled(key);
  if (regex === null) {
    return false;
  }
  if (regex === undefined) {
    return prefixMatches(key, candidate, allowing);
  }
  if (allowing && (candidate.globs.some(Boolean) || packageRunners.has(candidate.words[0] ?? ''))) {
    // A glob may become any file name (`--output=x`), so a regex cannot vouch for it; npx needs a named prefix.
    return false;
  }
  regex.lastIndex = 0;
  return regex.test(candidate.text);
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

function judge(command: SimpleCommand, context: RuleContext): SubVerdict & { denied: boolean } {
  const text = command.text;
  const entries = Object.entries(context.rules);
  for (const candidate of denyCandidates(command)) {
    const deny = entries.find(([key, allowed]) => !allowed && ruleMatches(key, candidate, false));
    if (deny) {
      return { text, verdict: 'ask', reason: `${quote(candidate.words[0] ?? text)} matches ${quote(deny[0])}, which is never auto-allowed`, denied: true };
    }
  }
  if (command.dynamic) {
    return { text, verdict: 'ask', reason: `${quote(text)} depends on an expansion, so no rule can vouch for it`, denied: false };
  }
  const candidate: Candidate = { words: command.words, globs: command.globs, text };
  const allow = entries.find(([key, allowed]) => allowed && ruleMatches(key, candidate, true));
  if (allow) {
    return { text, verdict: 'allow', reason: `${quote(text)} matches ${quote(allow[0])}`, denied: false };
  }
  const grant = (context.extraAllowPrefixes ?? []).find((prefix) => prefixMatches(prefix, candidate, true));
  if (grant !== undefined) {
    return { text, verdict: 'allow', reason: `${quote(text)} starts with the granted ${quote(grant)}`, denied: false };
  }
  const name = command.words[0] ?? text;
  const why = packageRunners.has(name)
    ? `${quote(name)} runs package code: only a rule naming the package (\`${name} <pkg>\`) allows it`
    : `${quote(name)} is not allowed by any rule`;
  return { text, verdict: 'ask', reason: why, denied: false };
}

export function evaluateCommand(analysis: CommandAnalysis, context: RuleContext): CommandVerdict {
  const judged = analysis.commands.map((command) => judge(command, context));
  const details: SubVerdict[] = judged.map(({ text, verdict, reason }) => ({ text, verdict, reason }));
  const whole = analysis.commands.map((command) => command.text).join(' ; ');
  if (analysis.parseError !== undefined) {
    return { verdict: 'ask', reason: `asks: the command could not be parsed (${analysis.parseError})`, details };
  }
  const denied = judged.find((detail) => detail.denied);
  if (denied) {
    return { verdict: 'ask', reason: `asks: ${denied.reason}`, details };
  }
  for (const redirect of analysis.redirects) {
    if (!redirect.writes && redirect.target === undefined) {
      continue;
    }
    if (redirect.target === undefined) {
      return { verdict: 'ask', reason: `asks: the redirect ${quote(redirect.raw)} writes to a file whose name depends on an expansion`, details };
    }
    if (!context.isInsideWorkspace(redirect.target)) {
      if (!redirect.writes && /^\/dev\/(null|stdin|zero)$/.test(redirect.target)) {
        continue;
      }
      const what = redirect.writes ? 'writes' : 'reads';
      return { verdict: 'ask', reason: `asks: the redirect ${quote(redirect.raw)} ${what} ${redirect.target}, outside the workspace`, details };
    }
    const hit = redirect.writes ? context.isProtected(redirect.target) : undefined;
    if (hit !== undefined) {
      return { verdict: 'ask', reason: `asks: the redirect ${quote(redirect.raw)} writes ${redirect.target}, a protected path (${quote(hit)})`, details };
    }
  }
  const first = analysis.concerns[0];
  if (first) {
    const more = analysis.concerns.length > 1 ? ` (and ${analysis.concerns.length - 1} more concern${analysis.concerns.length > 2 ? 's' : ''})` : '';
    return { verdict: 'ask', reason: `asks: ${first.detail}${more}`, details };
  }
  const notAllowed = details.find((detail) => detail.verdict === 'ask');
  if (notAllowed) {
    const inLine = analysis.commands.length > 1 ? ` in ${quote(whole)}` : '';
    return { verdict: 'ask', reason: `asks: ${notAllowed.reason}${inLine}`, details };
  }
  if (details.length === 0) {
    return { verdict: 'ask', reason: 'asks: the command runs nothing the analysis can vouch for', details };
  }
  const rules = [...new Set(details.map((detail) => detail.reason.replace(/^.* (matches|starts with the granted) /, '')))];
  return { verdict: 'allow', reason: `allowed: every sub-command matches a rule (${rules.join(', ')})`, details };
}
