/**
 * Shell analysis: commands analysed + evaluated per second against a naive baseline (split on `&&`, `||`, `;`, `|`,
 * prefix-match each part), how many published bypasses (test/fixtures/shellCases.ts) and how many of our own attacks
 * (test/fixtures/shellAttacks.ts) each lets through, and how many harmless lines each over-blocks.
 * Prints only; never asserts.
 */
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { analyseCommand, defaultWasmDir, initShellParser } from '../src/core/shell/analysis';
import { compileTerminalRule, defaultTerminalRules, evaluateCommand } from '../src/core/shell/rules';
import { type AttackRow, attackRows, commonRules, powerRules } from '../test/fixtures/shellAttacks';
import { prng } from '../test/fixtures/prng';
import { shellCases, shellHome, shellRuleContext, shellTestRules, shellWorkspace } from '../test/fixtures/shellCases';
import { type Row, kib, median } from './table';

/** The naive baseline's prefix match: whitespace words, compared one by one. */
function startsWithWords(text: string, prefix: string): boolean {
  const words = text.trim().split(/\s+/);
  const wanted = prefix.trim().split(/\s+/);
  return wanted.length <= words.length && wanted.every((word, index) => words[index] === word);
}

function naiveVerdict(command: string, rules: Readonly<Record<string, boolean>>): 'allow' | 'ask' {
  const parts = command.split(/&&|\|\||;|\|/).map((part) => part.trim()).filter((part) => part.length > 0);
  if (parts.length === 0) {
    return 'ask';
  }
  const matches = (key: string, part: string): boolean => {
    const regex = compileTerminalRule(key);
    return regex === null ? false : regex === undefined ? startsWithWords(part, key) : regex.test(part);
  };
  const entries = Object.entries(rules);
  for (const part of parts) {
    if (entries.some(([key, allowed]) => !allowed && matches(key, part))) {
      return 'ask';
    }
    if (!entries.some(([key, allowed]) => allowed && matches(key, part))) {
      return 'ask';
    }
  }
  return 'allow';
}

/** At least 1,000 realistic agent command lines, the same on every run. */
export function shellCorpus(size = 1200): string[] {
  const random = prng(20240611);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const files = ['src/index.ts', 'src/core/shell/analysis.ts', 'README.md', 'package.json', 'test/unit/a.test.ts'];
  const simple = [
    () => 'npm test',
    () => `npm test -- --grep "${pick(['parser', 'rules', 'gate'])}"`,
    () => 'npm run lint',
    () => `git status${pick(['', ' --short', ' -sb'])}`,
    () => `git diff ${pick(['', '--stat ', 'HEAD~1 '])}${pick(files)}`,
    () => `git log --oneline -${1 + Math.floor(random() * 20)}`,
    () => `ls -la ${pick(['src', 'test', '.', 'src/core'])}`,
    () => `echo "${pick(['done', 'step 1', 'building…'])}"`,
    () => `cat ${pick(files)} | head -n ${5 + Math.floor(random() * 50)}`,
    () => `grep -rn "${pick(['TODO', 'analyseCommand', 'FIXME'])}" src`,
    () => `find . -name '*.ts' -not -path './node_modules/*'`,
    () => `npx tsc --noEmit -p ${pick(['.', 'test'])}`,
    () => `FOO=1 npm test`,
    () => `timeout 60 npm test 2>&1 | tail -n 40`,
    () => `mkdir -p build && cp ${pick(files)} build/`,
    () => `rm -rf ${pick(['dist', 'build', 'out'])}`,
    () => `curl -s https://example.test/${pick(['a', 'b'])} | jq .`,
    () => `bash -c "npm test && git status"`,
    () => `for f in ${pick(files)} ${pick(files)}; do wc -l "$f"; done`,
    () => `echo "$(date)" >> notes.txt`,
  ];
  const corpus: string[] = [];
  while (corpus.length < size) {
    const parts = 1 + Math.floor(random() * 3);
    const line = Array.from({ length: parts }, () => pick(simple)()).join(pick([' && ', '; ', ' || ']));
    corpus.push(line);
  }
  return corpus;
}

function throughput(run: () => void, count: number, repeats = 5): number {
  const rates: number[] = [];
  for (let index = 0; index < repeats; index++) {
    const start = performance.now();
    run();
    rates.push(count / ((performance.now() - start) / 1000));
  }
  return median(rates);
}

export async function shellBench(): Promise<Row[]> {
  const initStart = performance.now();
  await initShellParser();
  const initMs = performance.now() - initStart;
  const corpus = shellCorpus();
  const context = shellRuleContext();
  const ours = (command: string): 'allow' | 'ask' =>
    evaluateCommand(analyseCommand(command, shellWorkspace, shellHome), context).verdict;
  // Warm up both before measuring.
  corpus.slice(0, 200).forEach((command) => {
    ours(command);
    naiveVerdict(command, shellTestRules);
  });
  const oursRate = throughput(() => corpus.forEach((command) => ours(command)), corpus.length);
  const naiveRate = throughput(() => corpus.forEach((command) => naiveVerdict(command, shellTestRules)), corpus.length);

  const bypasses = shellCases.filter((entry) => entry.bypass === true);
  const naiveLet = bypasses.filter((entry) => naiveVerdict(entry.command, shellTestRules) === 'allow').length;
  const oursLet = bypasses.filter((entry) => ours(entry.command) === 'allow').length;
  const allowCases = shellCases.filter((entry) => entry.expect === 'allow');
  const naiveAllowed = allowCases.filter((entry) => naiveVerdict(entry.command, shellTestRules) === 'allow').length;
  const oursAllowed = allowCases.filter((entry) => ours(entry.command) === 'allow').length;
  const allowedInCorpus = corpus.filter((command) => ours(command) === 'allow').length;
  // Our adversarial corpus (issue 9's classes) under the shipped defaults and under common rules, shell analysis only
  // (the whole-policy version over a real workspace is the unit test).
  const attacks = attackRows.filter((row) => row.harmlessUnder === undefined);
  const harmlessRows = attackRows.filter((row) => row.harmlessUnder !== undefined);
  const rulesOf = (row: AttackRow): Readonly<Record<string, boolean>> =>
    row.harmlessUnder === 'power' ? powerRules : row.harmlessUnder === 'common' ? commonRules : defaultTerminalRules;
  // Issue 19's classes were written for a power user's rules too.
  const optionAttacks = attacks.filter((row) => row.class === 'options');
  const judgedBy = (rules: Readonly<Record<string, boolean>>, command: string): 'allow' | 'ask' =>
    evaluateCommand(analyseCommand(command, shellWorkspace, shellHome), shellRuleContext(rules)).verdict;
  const letThrough = (rules: Readonly<Record<string, boolean>>, judge: (rules: Readonly<Record<string, boolean>>, command: string) => string): number =>
    attacks.filter((row) => judge(rules, row.command) === 'allow').length;
  const naiveJudge = (rules: Readonly<Record<string, boolean>>, command: string): string => naiveVerdict(command, rules);
  const overBlocked = (judge: (rules: Readonly<Record<string, boolean>>, command: string) => string): number =>
    harmlessRows.filter((row) => judge(rulesOf(row), row.command) !== 'allow').length;

  const dir = defaultWasmDir();
  const size = (file: string): number => statSync(path.join(dir, file)).size;
  return [
    {
      metric: `commands analysed+evaluated per second (${corpus.length} lines)`,
      value: oursRate.toFixed(0),
      baseline: naiveRate.toFixed(0),
      ratio: `${(oursRate / naiveRate).toFixed(3)}x`,
    },
    {
      metric: `bypasses let through (of ${bypasses.length} published)`,
      value: String(oursLet),
      baseline: String(naiveLet),
    },
    {
      metric: `harmless table rows allowed (of ${allowCases.length})`,
      value: String(oursAllowed),
      baseline: String(naiveAllowed),
    },
    { metric: 'corpus lines allowed without asking', value: `${allowedInCorpus}/${corpus.length}` },
    {
      metric: `our attacks let through, shipped defaults (of ${attacks.length}; no symlinks here*)`,
      value: String(letThrough(defaultTerminalRules, judgedBy)),
      baseline: String(letThrough(defaultTerminalRules, naiveJudge)),
    },
    {
      metric: `our attacks let through, common rules (of ${attacks.length}; no symlinks here*)`,
      value: String(letThrough(commonRules, judgedBy)),
      baseline: String(letThrough(commonRules, naiveJudge)),
    },
    {
      metric: `issue 19's option attacks let through, a power user's rules (of ${optionAttacks.length})`,
      value: String(optionAttacks.filter((row) => judgedBy(powerRules, row.command) === 'allow').length),
      baseline: String(optionAttacks.filter((row) => naiveJudge(powerRules, row.command) === 'allow').length),
    },
    {
      metric: `harmless lines over-blocked (of ${harmlessRows.length})`,
      value: String(overBlocked(judgedBy)),
      baseline: String(overBlocked(naiveJudge)),
    },
    { metric: '* symlink attacks are caught by the policy (test/unit/shellAttacks.test.ts: 0 let through)', value: '' },
    { metric: 'parser init (tree-sitter runtime + bash grammar)', value: `${initMs.toFixed(1)} ms` },
    { metric: 'tree-sitter.wasm + tree-sitter-bash.wasm', value: kib(size('tree-sitter.wasm') + size('tree-sitter-bash.wasm')) },
  ];
}
