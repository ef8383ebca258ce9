/**
 * A command's environment is its own (issue 35, finding 2): of the extension host's environment, which holds the
 * person's tokens, only a short allow-list and the names of toolgate.sandbox.passEnvironment reach a command, in the
 * sandbox or run without it. The table is the rule; the real runs show `env` in a command prints no secret.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { CommandSandbox } from '../../src/core/sandbox/commandSandbox';
import { inheritedEnvironment } from '../../src/core/sandbox/environment';
import { probeSandbox } from '../../src/core/sandbox/sandbox';
import { parseSetting } from '../../src/core/settings';
import { bashEnvironment, runBash } from '../../src/core/terminal/bashRunner';
import { runLaunched } from '../fixtures/launchedRun';
import { scratchFolder } from '../fixtures/scratch';

/** What a VS Code extension host's environment holds on a developer's machine (values are canaries). */
const host: Record<string, string> = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/home/someone',
  USER: 'someone',
  LOGNAME: 'someone',
  SHELL: '/bin/zsh',
  TERM: 'xterm-256color',
  LANG: 'en_GB.UTF-8',
  LC_ALL: 'en_GB.UTF-8',
  LC_TIME: 'de_DE.UTF-8',
  TZ: 'Europe/London',
  TMPDIR: '/var/tmp/someone',
  OPENAI_API_KEY: 'CANARY-OPENAI',
  ANTHROPIC_API_KEY: 'CANARY-ANTHROPIC',
  AWS_SECRET_ACCESS_KEY: 'CANARY-AWS',
  AWS_ACCESS_KEY_ID: 'CANARY-AWS-ID',
  GITHUB_TOKEN: 'CANARY-GITHUB',
  NPM_TOKEN: 'CANARY-NPM',
  SSH_AUTH_SOCK: '/run/user/1000/CANARY-ssh-agent.sock',
  VSCODE_IPC_HOOK_CLI: '/run/user/1000/CANARY-vscode-ipc.sock',
  VSCODE_GIT_ASKPASS_MAIN: '/opt/CANARY-askpass.js',
  GIT_ASKPASS: '/opt/CANARY-askpass.sh',
  DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/CANARY-bus',
  ELECTRON_RUN_AS_NODE: '1',
  NODE_OPTIONS: '--require /home/someone/CANARY-hook.js',
};

describe("a command's environment is its own", () => {
  const rows: { name: string; passed: readonly string[]; platform?: NodeJS.Platform; base?: Record<string, string>; kept: string[] }[] = [
    { name: 'the allow-list alone: no token, socket, IPC handle or hook', passed: [], kept: ['HOME', 'LANG', 'LC_ALL', 'LC_TIME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'TMPDIR', 'TZ', 'USER'] },
    { name: 'a name the setting lists is passed, and only it', passed: ['NPM_TOKEN'], kept: ['HOME', 'LANG', 'LC_ALL', 'LC_TIME', 'LOGNAME', 'NPM_TOKEN', 'PATH', 'SHELL', 'TERM', 'TMPDIR', 'TZ', 'USER'] },
    { name: 'a listed name the host does not have adds nothing', passed: ['NOT_SET_ANYWHERE'], kept: ['HOME', 'LANG', 'LC_ALL', 'LC_TIME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'TMPDIR', 'TZ', 'USER'] },
    { name: 'names are exact: a prefix or another case is not a match', passed: ['GITHUB', 'github_token'], kept: ['HOME', 'LANG', 'LC_ALL', 'LC_TIME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'TMPDIR', 'TZ', 'USER'] },
    {
      name: 'Windows: names without case, and what programs need to start there',
      passed: ['npm_token'],
      platform: 'win32',
      base: { Path: 'C:\\Windows', SystemRoot: 'C:\\Windows', USERPROFILE: 'C:\\Users\\a', NPM_TOKEN: 'CANARY-NPM', GITHUB_TOKEN: 'CANARY-GITHUB' },
      kept: ['NPM_TOKEN', 'Path', 'SystemRoot', 'USERPROFILE'],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const env = inheritedEnvironment(row.base ?? host, row.passed, row.platform ?? 'linux');
      assert.deepEqual(Object.keys(env).sort(), row.kept.sort());
      for (const [name, value] of Object.entries(env)) {
        assert.equal(value, (row.base ?? host)[name], `${name} is passed as it is`);
      }
    });
  }

  it('what changes what a word means is dropped even when the setting names it; PATH and PWD are still sanitised', () => {
    const env = bashEnvironment({ ...host, BASH_ENV: '/x', IFS: 'x', 'BASH_FUNC_ls%%': '() { :; }', PATH: '/usr/bin::relative:/bin', PWD: '/elsewhere' }, '/work/folder', 'linux', ['BASH_ENV', 'IFS', 'BASH_FUNC_ls%%', 'PWD']);
    assert.deepEqual(Object.keys(env).sort(), ['HOME', 'LANG', 'LC_ALL', 'LC_TIME', 'LOGNAME', 'PATH', 'PWD', 'SHELL', 'TERM', 'TMPDIR', 'TZ', 'USER']);
    assert.equal(env['PATH'], '/usr/bin:/bin');
    assert.equal(env['PWD'], '/work/folder');
  });

  const settingRows: [string, unknown, string[], boolean][] = [
    ['unset: nothing more', undefined, [], false],
    ['names', ['NPM_TOKEN', 'GH_TOKEN', '_PRIVATE1'], ['NPM_TOKEN', 'GH_TOKEN', '_PRIVATE1'], false],
    ['a name with `=` makes the list empty, with a warning', ['NPM_TOKEN', 'A=B'], [], true],
    ['a name starting with a digit, an empty name, a glob', ['1X', '', 'AWS_*'], [], true],
    ['not a list', 'NPM_TOKEN', [], true],
  ];
  for (const [name, raw, value, problem] of settingRows) {
    it(`toolgate.sandbox.passEnvironment: ${name}`, () => {
      const parsed = parseSetting('sandbox.passEnvironment', raw);
      assert.deepEqual(parsed.value, value);
      assert.equal(parsed.problem !== undefined, problem);
    });
  }

  it('toolgate.sandbox.passEnvironment is a machine setting: VS Code takes no workspace value of it', () => {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { configuration: { properties: Record<string, { scope?: string; default?: unknown }> } } };
    const setting = manifest.contributes.configuration.properties['toolgate.sandbox.passEnvironment'];
    assert.deepEqual([setting?.scope, setting?.default], ['machine', []]);
  });
});

describe("a command's environment, in real runs: `env` prints no secret of the host", function () {
  this.timeout(30_000);
  let base: string;
  let workspace: string;
  before(() => {
    // Not under /tmp: the sandbox gives every command a private /tmp.
    base = scratchFolder('toolgate-env-');
    workspace = path.join(base, 'ws');
    mkdirSync(workspace);
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  const parent = (): Record<string, string | undefined> => ({ ...process.env, ...host, PATH: process.env['PATH'], HOME: base, TMPDIR: base });
  const secrets = Object.entries(host).filter(([, value]) => value.includes('CANARY'));

  async function sandboxed(passEnvironment: readonly string[]): Promise<string> {
    const sandbox = new CommandSandbox({
      probe: () => probeSandbox(),
      inputs: () => ({ workspaceFolders: [workspace], protectedGlobs: [], extraHidden: [], extraWritable: [], ownStorage: [], network: 'none', home: base, cacheRoot: path.join(base, 'cache') }),
      log: () => undefined,
      passEnvironment: () => passEnvironment,
    });
    const prepared = await sandbox.launch(workspace);
    assert.ok('launch' in prepared, `the sandbox starts here: ${'unavailable' in prepared ? prepared.unavailable : ''}`);
    const result = await runLaunched('env', { cwd: workspace, timeoutMs: 15_000, env: parent(), passEnvironment: sandbox.passEnvironment(), wrap: prepared.launch });
    assert.equal(result.exitCode, 0, result.output);
    return result.output;
  }

  const runs: [string, () => Promise<string>][] = [
    ['in the sandbox', () => sandboxed([])],
    ['run without the sandbox (the person chose it)', async () => (await runBash('env', { cwd: workspace, timeoutMs: 15_000, env: parent() })).output],
  ];
  for (const [where, run] of runs) {
    it(where, async () => {
      const output = await run();
      for (const [name, value] of secrets) {
        assert.ok(!output.includes(value), `${name} reached the command: ${output}`);
      }
      assert.match(output, /^LC_TIME=de_DE\.UTF-8$/m);
      assert.match(output, /^TZ=Europe\/London$/m);
    });
  }

  it('in the sandbox, a name the setting lists reaches the command, and no other', async () => {
    const output = await sandboxed(['NPM_TOKEN']);
    assert.match(output, /^NPM_TOKEN=CANARY-NPM$/m);
    assert.doesNotMatch(output, /CANARY-GITHUB|CANARY-OPENAI/);
    // The sandbox's own variables still come on top: its private /tmp, not the host's TMPDIR.
    assert.match(output, /^TMPDIR=\/tmp$/m);
  });
});
