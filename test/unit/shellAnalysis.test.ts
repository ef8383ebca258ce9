import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { analyseCommand, initShellParser, type CommandAnalysis } from '../../src/core/shell/analysis';
import { brokenTerminalRules, deadTerminalRules, defaultTerminalRules, evaluateCommand } from '../../src/core/shell/rules';
import { shellCases, shellHome, shellRuleContext, shellWorkspace } from '../fixtures/shellCases';

const analyse = (command: string): CommandAnalysis => analyseCommand(command, shellWorkspace, shellHome);
const verdictOf = (command: string, rules?: Readonly<Record<string, boolean>>): string =>
  evaluateCommand(analyse(command), shellRuleContext(rules)).verdict;

describe('shell analysis', () => {
  before(async () => {
    await initShellParser();
  });

  describe('verdicts under a fixed rule set', () => {
    it('has at least 80 cases, every published bypass among them', () => {
      assert.ok(shellCases.length >= 80);
      assert.ok(shellCases.filter((entry) => entry.bypass === true).length >= 40);
    });
    for (const entry of shellCases) {
      const label = entry.command.length > 70 ? `${entry.command.slice(0, 70)}…` : entry.command;
      it(`${entry.expect}s: ${JSON.stringify(label)}`, () => {
        const verdict = evaluateCommand(analyse(entry.command), shellRuleContext());
        assert.equal(verdict.verdict, entry.expect, verdict.reason);
        assert.match(verdict.reason, entry.expect === 'allow' ? /^allowed: / : /^asks: /);
      });
    }
  });

  describe('analysis output', () => {
    it('resolves quotes and escapes into words', () => {
      const result = analyse(`ec"h"o 'a b' r\\m "x\\"y" $'\\x41'`);
      assert.deepEqual(result.commands[0]?.words, ['echo', 'a b', 'rm', 'x"y', 'A']);
      assert.equal(result.commands[0].dynamic, false);
      assert.deepEqual(result.concerns, []);
    });

    it('lists every simple command through operators and compound commands', () => {
      const result = analyse('a && b || c; d | e & (f) ; { g; } ; if h; then i; fi; for x in 1; do j; done; k(){ l; }');
      assert.deepEqual(
        result.commands.map((command) => command.words[0]),
        ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'l'],
      );
    });

    it('flags dynamic words and reports substitutions with their inner commands', () => {
      const result = analyse('echo $(rm -rf /) $FOO');
      assert.equal(result.commands.find((command) => command.words[0] === 'echo')?.dynamic, true);
      assert.ok(result.commands.some((command) => command.text === 'rm -rf /'));
      assert.deepEqual(
        result.concerns.map((item) => item.kind),
        ['substitution', 'expansion'],
      );
    });

    it('resolves redirect targets against the working folder and the home folder', () => {
      const result = analyse('echo a > out.txt 2>&1 >> ../up.txt < in.txt > ~/h.txt > /dev/null');
      assert.deepEqual(
        result.redirects.map((redirect) => [redirect.op, redirect.target, redirect.writes]),
        [
          ['>', path.join(shellWorkspace, 'out.txt'), true],
          ['>&', undefined, false],
          ['>>', `${shellWorkspace}${path.sep}../up.txt`, true],
          ['<', path.join(shellWorkspace, 'in.txt'), false],
          ['>', path.join(shellHome, 'h.txt'), true],
          ['>', '/dev/null', false],
        ],
      );
    });

    it('leaves a dynamic redirect target undefined', () => {
      const result = analyse('echo a > "$OUT"');
      assert.equal(result.redirects[0]?.target, undefined);
      assert.equal(result.redirects[0]?.writes, true);
    });

    it('lists the wrappers it looked through in via', () => {
      const result = analyse('timeout 5 nice -n 3 env -i nohup npm test');
      assert.deepEqual(result.commands[0]?.words, ['npm', 'test']);
      assert.deepEqual(result.commands[0].via, ['timeout', 'nice', 'env', 'nohup']);
      const shell = analyse(`bash -c "eval 'npm run lint'"`);
      assert.deepEqual(shell.commands[0]?.via, ['bash -c', 'eval']);
      const find = analyse('find . -type f -exec rm {} +');
      assert.deepEqual(find.commands.find((command) => command.words[0] === 'rm')?.via, ['find -exec']);
      assert.ok(find.commands.some((command) => command.words[0] === 'find'));
      const xargs = analyse('xargs -n 1 -I {} rm {}');
      assert.deepEqual(xargs.commands[0]?.words, ['rm', '{}']);
    });

    it('records assignments in front of a command and asks about them', () => {
      const result = analyse('FOO=1 BAR=2 npm test');
      assert.deepEqual(result.commands[0]?.assignments, ['FOO=1', 'BAR=2']);
      assert.equal(result.concerns[0]?.kind, 'assignment');
    });

    it('marks unquoted globs per word, not quoted ones', () => {
      const result = analyse(`ls *.ts '*.md' src/[ab].js`);
      assert.deepEqual(result.commands[0]?.globs, [false, true, false, true]);
    });

    it('reports parse errors as a concern', () => {
      const result = analyse('npm test &&');
      assert.ok(result.parseError !== undefined);
      assert.equal(result.concerns[0]?.kind, 'parse-error');
    });

    it('reports here-documents as redirects and their expansions as concerns', () => {
      const result = analyse('cat <<EOF\n$(id)\nEOF');
      assert.equal(result.redirects[0]?.op, '<<');
      assert.ok(result.concerns.some((item) => item.kind === 'heredoc'));
      assert.ok(result.commands.some((command) => command.words[0] === 'id'));
    });

    it('gives up on nothing because of length: a dangerous command after 2,000 harmless ones asks', () => {
      const line = `${Array.from({ length: 2000 }, () => 'echo ok').join('; ')}; rm -rf /`;
      assert.equal(verdictOf(line), 'ask');
      assert.equal(analyse(line).commands.length, 2001);
    });
  });

  describe('rules', () => {
    it('says which sub-command asks, in words', () => {
      const verdict = evaluateCommand(analyse('npm test && wget x'), shellRuleContext());
      assert.equal(verdict.reason, 'asks: `wget` is not allowed by any rule in `npm test ; wget x`');
      assert.deepEqual(
        verdict.details.map((detail) => detail.verdict),
        ['allow', 'ask'],
      );
      const allowed = evaluateCommand(analyse('npm test && ls'), shellRuleContext());
      assert.equal(allowed.reason, 'allowed: every sub-command matches a rule (`npm test`, `ls`)');
    });

    it('lets false beat true and checks wrappers against false rules', () => {
      assert.equal(verdictOf('ls', { ls: true, '/^ls/': false }), 'ask');
      assert.equal(verdictOf('timeout 5 ls', { ls: true, timeout: false }), 'ask');
    });

    it('accepts extra allow prefixes like true rules', () => {
      const context = { ...shellRuleContext({}), extraAllowPrefixes: ['make build'] };
      assert.equal(evaluateCommand(analyse('make build -j4'), context).verdict, 'allow');
      assert.equal(evaluateCommand(analyse('make buildx'), context).verdict, 'ask');
    });

    it('allows npx only through a rule that names the package', () => {
      assert.equal(verdictOf('npx eslint .', { npx: true }), 'ask');
      assert.equal(verdictOf('npx eslint .', { '/^npx/': true }), 'ask');
      assert.equal(verdictOf('npx eslint .', { 'npx eslint': true }), 'allow');
    });

    it('lists broken regex rules, which match nothing', () => {
      assert.deepEqual(brokenTerminalRules({ '/(/': true, ls: true, '/^ok$/': false }), ['/(/']);
      assert.equal(verdictOf('ls', { '/(/': true }), 'ask');
    });

    it('reports a true rule that can never allow anything, and says why', () => {
      const dead = deadTerminalRules({
        'sudo apt update': true,
        'npm test && npm run lint': true,
        'timeout 5 npm test': true,
        'FOO=1 make': true,
        'rm -rf build': true,
        rm: false,
        'python -m pytest': true,
        'npm test': true,
        '/^git log/': true,
        'curl x': false,
      });
      const why = Object.fromEntries(dead.map(({ key, why: reason }) => [key, reason]));
      assert.deepEqual(Object.keys(why).sort(), ['FOO=1 make', 'npm test && npm run lint', 'rm -rf build', 'sudo apt update', 'timeout 5 npm test']);
      assert.match(why['sudo apt update'] ?? '', /runs a command as another user/);
      assert.match(why['npm test && npm run lint'] ?? '', /one sub-command at a time/);
      assert.match(why['timeout 5 npm test'] ?? '', /`npm test` \(through timeout\)/);
      assert.match(why['rm -rf build'] ?? '', /the false rule `rm` always beats it/);
      assert.deepEqual(deadTerminalRules(defaultTerminalRules), []);
    });

    it('lets a rule for an interpreter apply, but not to code given on the command line or on standard input', () => {
      assert.equal(verdictOf('python -m pytest -q', { 'python -m pytest': true }), 'allow');
      assert.equal(verdictOf("python -c 'import os'", { python: true }), 'ask');
      assert.equal(verdictOf('echo x | python', { python: true, echo: true }), 'ask');
      assert.equal(verdictOf('node --test', { node: true }), 'allow');
      assert.equal(verdictOf("node -e 'x'", { node: true }), 'ask');
    });

    it('ships default rules that allow read-only git and refuse writing or deleting forms', () => {
      const allow = ['git status', 'git diff', 'git log --oneline', 'git show HEAD', 'git branch', 'git branch -a', 'ls', 'pwd'];
      for (const command of allow) {
        assert.equal(verdictOf(command, defaultTerminalRules), 'allow', command);
      }
      const ask = [
        'git diff --output=x', 'git log --outp=x', 'git diff --no-index /etc/passwd x', 'git branch -D main',
        'git branch new', 'git diff --ext-diff', 'git statusx', 'git -c core.pager=sh log', 'cat x', 'rm x',
        'sudo ls', 'eval ls', 'curl x', 'git diff x "\n" --output=y', 'git log --*=x',
      ];
      for (const command of ask) {
        assert.equal(verdictOf(command, defaultTerminalRules), 'ask', command);
      }
      assert.deepEqual(brokenTerminalRules(defaultTerminalRules), []);
    });
  });
});
