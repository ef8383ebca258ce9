import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { callHash } from '../../src/core/approval/hash';
import { PathResolver } from '../../src/core/approval/paths';
import { judge, type PolicyContext } from '../../src/core/approval/policy';
import { defaultGatedTools, defaultProtectedPaths } from '../../src/core/settings';
import { analyseCommand, initShellParser } from '../../src/core/shell/analysis';
import { defaultTerminalRules } from '../../src/core/shell/rules';
import { runBash } from '../../src/core/terminal/bashRunner';
import { attackRows, commonRules, powerRules } from '../fixtures/shellAttacks';

/**
 * A throw-away world: a workspace with a git repository, a nested repository, a symlink into .vscode and one out of
 * the workspace, a home folder with secrets, and a folder outside. Built once per run.
 */
function buildWorld(): { base: string; ws: string; home: string; outside: string } {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-attacks-')));
  const ws = path.join(base, 'ws');
  const home = path.join(base, 'home');
  const outside = path.join(base, 'outside');
  for (const dir of [ws, home, outside, path.join(ws, 'src', '.git', 'hooks'), path.join(ws, '.vscode', 'sub'), path.join(ws, 'sub', '.git'), path.join(home, '.ssh'), path.join(ws, 'test')]) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(path.join(ws, 'README.md'), '# readme\n');
  writeFileSync(path.join(ws, 'src', 'a.md'), 'a\n');
  writeFileSync(path.join(ws, 'src', 'a.ts'), 'export {};\n');
  writeFileSync(path.join(ws, 'package.json'), JSON.stringify({ name: 'attack-ws', private: true, scripts: { test: 'echo tests pass', build: 'echo built', lint: 'echo linted' } }));
  writeFileSync(path.join(ws, 'Makefile'), 'all:\n\t@echo made\ntest:\n\t@echo tested\n');
  writeFileSync(path.join(ws, 'src', 'Makefile'), 'all:\n\t@echo made in src\n');
  writeFileSync(path.join(ws, '.vscode', 'settings.json'), '{}\n');
  writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'SECRET\n');
  writeFileSync(path.join(outside, 'secret.txt'), 'SECRET\n');
  symlinkSync(path.join(ws, '.vscode', 'sub'), path.join(ws, 'vsub'));
  symlinkSync(outside, path.join(ws, 'linkout'));
  const git = (...args: string[]): void => {
    spawnSync('git', args, { cwd: ws, env: gitEnv(home) });
  };
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'init');
  return { base, ws, home, outside };
}

const gitEnv = (home: string): NodeJS.ProcessEnv => ({
  PATH: process.env['PATH'] ?? '/usr/bin:/bin',
  HOME: home,
  GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
});

/** Every file under `dir` (symlinks not followed) with a hash of its content, to see what a command changed. */
function snapshot(dir: string, skip: (file: string) => boolean = () => false): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (current: string): void => {
    for (const name of readdirSync(current)) {
      const file = path.join(current, name);
      if (skip(file)) {
        continue;
      }
      const stat = statSync(file, { throwIfNoEntry: false });
      if (!stat) {
        continue;
      }
      if (stat.isDirectory() && !statSync(file).isSymbolicLink()) {
        walk(file);
      } else if (stat.isFile()) {
        files.set(file, createHash('sha256').update(readFileSync(file)).digest('hex'));
      }
    }
  };
  walk(dir);
  return files;
}

describe('terminal rules against our adversarial corpus (the whole policy, a real workspace)', () => {
  let world: ReturnType<typeof buildWorld>;
  let resolver: PathResolver;

  before(async function () {
    this.timeout(20_000);
    await initShellParser();
    world = buildWorld();
    resolver = new PathResolver([world.ws]);
  });
  after(() => rmSync(world.base, { recursive: true, force: true }));

  const verdict = (command: string, rules: Readonly<Record<string, boolean>>): { verdict: string; reason: string } => {
    const context: PolicyContext = {
      gatedTools: defaultGatedTools,
      editRules: {},
      terminalRules: rules,
      protectedPaths: defaultProtectedPaths,
      trusted: true,
      grants: [],
      forbiddenRoots: [],
      sandbox: { available: true },
      locate: (absolute) => resolver.locate(absolute),
    };
    const args = { command };
    const target = resolver.resolve('.');
    const decision = judge({ tool: 'run_in_terminal', args, argsHash: callHash('run_in_terminal', args), target, commandAnalysis: analyseCommand(command, world.ws, world.home) }, context);
    return { verdict: decision.verdict, reason: decision.reason };
  };

  for (const [label, rules] of [['the shipped defaults', defaultTerminalRules], ['the common rules', commonRules], ["a power user's rules", powerRules]] as const) {
    describe(`under ${label}`, () => {
      // Under a power user's rules, the classes of issue 19 (the others were written for the first two).
      for (const row of attackRows.filter((candidate) => candidate.class !== 'harmless' && (rules !== powerRules || candidate.class === 'options'))) {
        it(`asks (${row.class}): ${JSON.stringify(row.command)}`, () => {
          const result = verdict(row.command, rules);
          assert.equal(result.verdict, 'ask', result.reason);
        });
      }
    });
  }

  it('asks at most three of the harmless lines, each under the rule set it is harmless under', () => {
    const asked = attackRows
      .filter((row) => row.harmlessUnder !== undefined)
      .map((row) => ({ row, result: verdict(row.command, row.harmlessUnder === 'power' ? powerRules : row.harmlessUnder === 'common' ? commonRules : defaultTerminalRules) }))
      .filter(({ result }) => result.verdict !== 'allow');
    assert.deepEqual(asked.map(({ row, result }) => `${row.command} -> ${result.reason}`), []);
  });

  it('names the character when a control character makes a line ask', () => {
    assert.match(verdict('ls\rtouch x', defaultTerminalRules).reason, /carriage return \(U\+000D\)/);
    assert.match(verdict('ls \u0015touch x', defaultTerminalRules).reason, /Ctrl-U \(U\+0015\)/);
    assert.match(verdict('ls \u202ex', defaultTerminalRules).reason, /bidirectional control \(U\+202E\)/);
  });

  it('says which form made an allowed command ask', () => {
    assert.match(verdict("git -c core.pager='touch x' log", commonRules).reason, /`git -c core.pager=touch x` sets configuration/);
    assert.match(verdict('npm test --scr=./evil.sh', commonRules).reason, /`npm test --scr=\.\/evil\.sh` is an option Toolgate does not know to be harmless/);
    assert.match(verdict("make --ev='x'", commonRules).reason, /evaluates make code/);
  });

  it('allows a dangerous form when a rule names it word for word', () => {
    assert.equal(verdict('npm test -- --grep foo', { ...commonRules, 'npm test -- --grep': true }).verdict, 'allow');
    assert.equal(verdict('git config user.name x', { ...commonRules, 'git config user.name': true }).verdict, 'allow');
    assert.equal(verdict('git config user.name x', commonRules).verdict, 'ask');
  });

  it('runs every line it allows through the production bash runner without touching anything outside the workspace or any protected file', async function () {
    this.timeout(120_000);
    const allowed = [...new Set(attackRows.flatMap((row) => [defaultTerminalRules, commonRules].filter((rules) => verdict(row.command, rules).verdict === 'allow').map(() => row.command)))];
    assert.ok(allowed.length >= 30, `only ${allowed.length} lines were allowed`);
    const protectedFiles = (file: string): boolean => /[/\\](\.git|node_modules)$/.test(file);
    // npm keeps its own logs and cache under ~/.npm: that is npm working, not a line writing the home folder.
    const ownFiles = (file: string): boolean => file === path.join(world.home, '.npm');
    const outsideBefore = snapshot(world.home, ownFiles);
    const elsewhereBefore = snapshot(world.outside);
    const vscodeBefore = snapshot(path.join(world.ws, '.vscode'));
    for (const command of allowed) {
      // The runner run_in_terminal uses: bash, not interactive, no rc files, the exact line as one program text.
      await runBash(command, { cwd: world.ws, timeoutMs: 20_000, env: gitEnv(world.home) });
    }
    assert.deepEqual(snapshot(world.home, ownFiles), outsideBefore, 'a file in the home folder changed');
    assert.deepEqual(snapshot(world.outside), elsewhereBefore, 'a file outside the workspace changed');
    assert.deepEqual(snapshot(path.join(world.ws, '.vscode')), vscodeBefore, 'a protected file changed');
    const planted = [...snapshot(world.base, protectedFiles).keys(), ...readdirSync('/tmp')].filter((file) => /pwned/.test(file));
    assert.deepEqual(planted, [], 'an allowed line created a file an attack names');
  });
});
