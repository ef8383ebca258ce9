/**
 * macOS's sandbox, tested on Linux: the mapping from Toolgate's policy to the library's configuration (table-driven),
 * the Seatbelt profile the pinned library builds from it (rule by rule, and kept as a snapshot a version bump must
 * regenerate on purpose: `TOOLGATE_UPDATE_SEATBELT_SNAPSHOTS=1 npx mocha --config .mocharc.unit.json`), and the launch
 * with the platform faked as darwin. What only a Mac can show is in the README's checklist.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { judge, type GateCall, type PolicyContext } from '../../src/core/approval/policy';
import { PathResolver } from '../../src/core/approval/paths';
import { CommandSandbox } from '../../src/core/sandbox/commandSandbox';
import { gatherSandboxPolicy, protectedCandidates, type SandboxInputs } from '../../src/core/sandbox/gather';
import type { SandboxPolicy } from '../../src/core/sandbox/policy';
import { probeSandbox } from '../../src/core/sandbox/sandbox';
import { loadSeatbelt, sandboxExec, SeatbeltUnavailable, shellWords, type SeatbeltBuilder } from '../../src/core/sandbox/seatbelt';
import { seatbeltConfig, seatbeltDeviceFiles } from '../../src/core/sandbox/seatbeltConfig';
import { defaultGatedTools, defaultProtectedPaths, protectedPathsWith } from '../../src/core/settings';
import { initShellParser } from '../../src/core/shell/analysis';
import { gateCall } from '../../src/core/tools/gateCall';
import { profileRules, rulesFor, type ProfileRule } from '../fixtures/seatbeltProfile';

const snapshots = path.join(__dirname, 'snapshots');
const updating = process.env['TOOLGATE_UPDATE_SEATBELT_SNAPSHOTS'] === '1';

const base: SandboxPolicy = { writable: ['/w'], readOnly: [], pinned: [], hidden: [], network: 'none', env: {} };

describe('Seatbelt: the policy as the library configuration (seatbeltConfig)', () => {
  const rows: { name: string; policy: SandboxPolicy; proxyPort?: number; expect: (config: ReturnType<typeof seatbeltConfig>) => void }[] = [
    { name: 'a writable folder: a literal write allow, beside the devices a shell writes', policy: base, expect: (config) => assert.deepEqual(config.writeConfig.literalAllowOnly, ['/w', ...seatbeltDeviceFiles]) },
    { name: 'a writable folder is never read as a glob', policy: { ...base, writable: ['/w[1]'] }, expect: (config) => assert.deepEqual(config.writeConfig.allowOnly, []) },
    { name: 'a read-only entry: a literal write deny', policy: { ...base, readOnly: ['/w/.git/config'] }, expect: (config) => assert.deepEqual(config.writeConfig.literalDenyWithinAllow, ['/w/.git/config']) },
    { name: 'a read-only pattern: a pattern write deny', policy: { ...base, readOnlyPatterns: ['/w/**/.env*'] }, expect: (config) => assert.deepEqual(config.writeConfig.denyWithinAllow, ['/w/**/.env*']) },
    { name: 'a pinned folder: nothing of its own (the profile keeps every ancestor of a deny in place)', policy: { ...base, pinned: ['/w/.github'] }, expect: (config) => assert.ok(!JSON.stringify(config).includes('.github')) },
    { name: 'a hidden folder: a literal read deny', policy: { ...base, hidden: [{ path: '/h/.ssh', kind: 'dir' }] }, expect: (config) => assert.deepEqual(config.readConfig, { denyOnly: [], literalDenyOnly: ['/h/.ssh'] }) },
    { name: 'a hidden file: a literal read deny', policy: { ...base, hidden: [{ path: '/h/.netrc', kind: 'file' }] }, expect: (config) => assert.deepEqual(config.readConfig.literalDenyOnly, ['/h/.netrc']) },
    { name: 'no network, with the proxy: only its port', policy: base, proxyPort: 41234, expect: (config) => assert.deepEqual([config.needsNetworkRestriction, config.httpProxyPort], [true, 41234]) },
    { name: 'no network, without a proxy: none at all', policy: base, expect: (config) => assert.deepEqual([config.needsNetworkRestriction, 'httpProxyPort' in config], [true, false]) },
    { name: 'the host network (an MCP server that asks for it): no restriction, no proxy', policy: { ...base, network: 'host' }, proxyPort: 41234, expect: (config) => assert.deepEqual([config.needsNetworkRestriction, 'httpProxyPort' in config], [false, false]) },
    { name: 'the environment is the launch\'s, not the profile\'s', policy: { ...base, env: { TMPDIR: '/c/tmp' } }, expect: (config) => assert.ok(!JSON.stringify(config).includes('/c/tmp')) },
    { name: 'a file opened once is never a write allow', policy: { ...base, writableOnce: [{ path: '/w/.vscode/settings.json' }] }, expect: (config) => assert.ok(!JSON.stringify(config).includes('settings.json')) },
    {
      name: 'every switch of the library on its closed side',
      policy: base,
      expect: (config) =>
        assert.deepEqual([config.allowLocalBinding, config.allowAllUnixSockets, config.allowPty, config.allowGitConfig, config.enableWeakerNetworkIsolation, config.allowAppleEvents], [false, false, false, false, false, false]),
    },
  ];
  for (const row of rows) {
    it(row.name, () => row.expect(seatbeltConfig(row.policy, row.proxyPort)));
  }
});

describe('Seatbelt: protected globs as paths and patterns (protectedCandidates)', () => {
  const rows: { glob: string; paths: string[]; patterns: string[] }[] = [
    { glob: '.vscode/**', paths: ['/w/.vscode'], patterns: [] },
    { glob: '.github/workflows/**', paths: ['/w/.github/workflows'], patterns: [] },
    { glob: '.gitlab-ci.yml', paths: ['/w/.gitlab-ci.yml'], patterns: [] },
    { glob: '.env*', paths: [], patterns: ['/w/.env*'] },
    { glob: '**/.env*', paths: [], patterns: ['/w/**/.env*'] },
    { glob: '**/.vscode/**', paths: [], patterns: ['/w/**/.vscode'] },
    { glob: '.git/**', paths: [], patterns: [] },
    { glob: '**/.git', paths: [], patterns: [] },
    { glob: '**/.git/**', paths: [], patterns: [] },
    { glob: '**', paths: [], patterns: [] },
    { glob: 'src/{a,b}.ts', paths: [], patterns: [] },
    { glob: '../outside', paths: [], patterns: [] },
  ];
  for (const row of rows) {
    it(row.glob, () => assert.deepEqual(protectedCandidates('/w', [row.glob]), { paths: row.paths, patterns: row.patterns }));
  }
});

describe('Seatbelt: the library line read back (shellWords)', () => {
  const rows: { line: string; words?: string[] }[] = [
    { line: 'env A=1 /usr/bin/sandbox-exec -p x', words: ['env', 'A=1', '/usr/bin/sandbox-exec', '-p', 'x'] },
    { line: `'(version 1)' 'it'"'"'s'`, words: ['(version 1)', "it's"] },
    { line: "''", words: [''] },
    { line: "'unterminated" },
    { line: '"double"' },
  ];
  for (const row of rows) {
    it(JSON.stringify(row.line), () => {
      if (row.words === undefined) {
        assert.throws(() => shellWords(row.line), SeatbeltUnavailable);
      } else {
        assert.deepEqual(shellWords(row.line), row.words);
      }
    });
  }
});

function ancestors(folder: string): string[] {
  const found: string[] = [];
  for (let parent = path.dirname(folder); parent !== path.dirname(parent); parent = path.dirname(parent)) {
    found.push(parent);
  }
  return found;
}

/** A fake Mac's layout: the workspace, a home with credentials, Toolgate's storage; paths rewritten for the snapshot. */
function macLayout(root: string): { inputs: SandboxInputs; workspace: string; home: string } {
  const home = path.join(root, 'Users', 'dev');
  const workspace = path.join(home, 'project');
  for (const folder of [path.join(workspace, '.git', 'objects'), path.join(workspace, '.git', 'hooks'), path.join(home, '.ssh'), path.join(home, '.aws'), path.join(root, 'storage')]) {
    mkdirSync(folder, { recursive: true });
  }
  writeFileSync(path.join(workspace, '.git', 'config'), '[core]\n');
  return {
    workspace,
    home,
    inputs: {
      workspaceFolders: [workspace],
      protectedGlobs: protectedPathsWith([]),
      extraHidden: [],
      extraWritable: [],
      ownStorage: [path.join(root, 'storage')],
      network: 'none',
      home,
      accountHome: home,
      uid: 501,
      cacheRoot: path.join(root, 'cache'),
    },
  };
}

describe('Seatbelt: the profile the pinned library builds', function () {
  this.timeout(30_000);
  let root: string;
  let builder: SeatbeltBuilder;
  before(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-seatbelt-')));
    builder = await loadSeatbelt();
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  /** The profile with this run's folder, its cache key and the library's per-session log tag as stable names. */
  const stable = (profile: string): string =>
    profile
      // The folders above this run's own depend on the machine's temporary folder: left out.
      .split('\n')
      .filter((line) => !ancestors(root).some((folder) => line === `  (literal ${JSON.stringify(folder)})`))
      .join('\n')
      .replaceAll(root, '/ROOT')
      .replaceAll(root.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&').replaceAll('\\', '\\\\'), '/ROOT')
      .replace(/CMD64_[A-Za-z0-9+/=]*_END__[a-z0-9]+_SBX/g, '<log tag>')
      .replace(/\/cache\/[0-9a-f]{16}/g, '/cache/<workspace key>');

  function checkSnapshot(name: string, profile: string): void {
    const file = path.join(snapshots, `${name}.sb`);
    if (updating || !existsSync(file)) {
      assert.ok(updating, `${file} is missing: regenerate it with TOOLGATE_UPDATE_SEATBELT_SNAPSHOTS=1`);
      mkdirSync(snapshots, { recursive: true });
      writeFileSync(file, stable(profile));
    }
    assert.equal(stable(profile), readFileSync(file, 'utf8'), `the profile differs from ${file}: read the difference rule by rule, then regenerate it on purpose with TOOLGATE_UPDATE_SEATBELT_SNAPSHOTS=1`);
  }

  /** The rules every profile of Toolgate's must have, whatever the policy. */
  function checkRules(rules: readonly ProfileRule[], policy: SandboxPolicy, workspace: string, proxyPort: number | undefined): void {
    const writeDenies = rulesFor(rules, 'deny', 'file-write*');
    const moveDenies = rulesFor(rules, 'deny', 'file-write-unlink');
    for (const entry of policy.readOnly) {
      assert.ok(writeDenies.includes(`(subpath ${JSON.stringify(entry)})`), `${entry} denied for writes`);
      for (let folder = path.dirname(entry); folder.length >= workspace.length; folder = path.dirname(folder)) {
        assert.ok(moveDenies.includes(`(literal ${JSON.stringify(folder)})`), `${folder}, above ${entry}, denied for unlink/create`);
      }
    }
    for (const entry of policy.hidden) {
      assert.ok(rulesFor(rules, 'deny', 'file-read*').includes(`(subpath ${JSON.stringify(entry.path)})`), `${entry.path} denied for reads`);
    }
    for (const folder of policy.writable) {
      assert.ok(rulesFor(rules, 'allow', 'file-write*').includes(`(subpath ${JSON.stringify(folder)})`), `${folder} writable`);
    }
    assert.ok(rules.some((rule) => rule.action === 'deny' && rule.operations.includes('default')), 'everything else denied');
    const network = rules.filter((rule) => rule.operations.some((operation) => operation.startsWith('network')));
    assert.ok(!rules.some((rule) => rule.action === 'allow' && rule.operations.includes('network*')), 'no whole network');
    const outbound = network.filter((rule) => rule.action === 'allow' && rule.operations.includes('network-outbound')).flatMap((rule) => rule.filters);
    assert.deepEqual(outbound, proxyPort === undefined ? [] : [`(remote ip "localhost:${proxyPort}")`], 'outbound only to the proxy');
  }

  it('for the default policy: every protected path, credential, the workspace and the network, rule by rule; kept as a snapshot', async () => {
    const layout = macLayout(path.join(root, 'default'));
    const { policy } = await gatherSandboxPolicy({ ...layout.inputs, engine: 'seatbelt' });
    const profile = builder.profile(seatbeltConfig(policy, 41234), layout.workspace);
    const rules = profileRules(profile);
    checkRules(rules, policy, layout.workspace, 41234);
    for (const relative of ['.git/config', '.git/hooks', '.vscode', '.github/workflows']) {
      assert.ok(policy.readOnly.includes(path.join(layout.workspace, relative)), `${relative} in the policy, made yet or not`);
    }
    assert.ok(rulesFor(rules, 'deny', 'file-write*').some((filter) => filter.startsWith('(regex') && filter.includes('\\\\.env')), '.env by pattern');
    for (const relative of ['.ssh', '.aws']) {
      assert.ok(policy.hidden.some((entry) => entry.path === path.join(layout.home, relative)));
    }
    assert.ok(!rulesFor(rules, 'deny', 'file-write*').some((filter) => /\.git\(/.test(filter) || filter.endsWith('\\\\.git(/.*)?$")')), 'no pattern covers a whole .git folder');
    checkSnapshot('default-policy', profile);
  });

  it('for a policy with every kind of entry: each one where it belongs; kept as a snapshot', () => {
    const w = path.join(root, 'every', 'ws');
    const policy: SandboxPolicy = {
      writable: [w, path.join(root, 'every', 'cache'), path.join(root, 'every', 'extra')],
      readOnly: [path.join(w, '.git', 'config'), path.join(w, '.git', 'hooks'), path.join(w, 'sub', '.git', 'info', 'attributes'), path.join(w, '.vscode'), path.join(w, '.env')],
      readOnlyPatterns: [`${w}/**/.env*`, `${w}/**/*.code-workspace`],
      pinned: [path.join(w, '.git'), path.join(w, 'sub')],
      writableOnce: [{ path: path.join(w, '.vscode', 'settings.json'), fd: 3 }],
      hidden: [
        { path: path.join(root, 'every', 'home', '.ssh'), kind: 'dir' },
        { path: path.join(root, 'every', 'home', '.netrc'), kind: 'file' },
      ],
      network: 'none',
      env: { TMPDIR: path.join(root, 'every', 'cache', 'tmp') },
    };
    const profile = builder.profile(seatbeltConfig(policy, 50000), w);
    const rules = profileRules(profile);
    checkRules(rules, policy, w, 50000);
    assert.ok(!profile.includes('settings.json'), 'the file opened once is not opened on macOS');
    const patterns = rulesFor(rules, 'deny', 'file-write*').filter((filter) => filter.startsWith('(regex'));
    assert.ok(patterns.some((filter) => filter.includes('code-workspace')));
    checkSnapshot('every-entry', profile);
  });

  it('the host network: no network rule but the whole network', () => {
    const profile = builder.profile(seatbeltConfig({ ...base, network: 'host' }), '/w');
    assert.ok(profileRules(profile).some((rule) => rule.action === 'allow' && rule.operations.includes('network*')));
  });

  it('a version Toolgate does not know, or a library that does not load, is refused with why', async () => {
    await assert.rejects(loadSeatbelt('0.0.84'), (error: unknown) => error instanceof SeatbeltUnavailable && /version 0\.0\.84, not the 0\.0\.83/.test(error.message));
    await assert.rejects(loadSeatbelt('0.0.83', () => Promise.reject(new Error('Cannot find module'))), /could not be loaded: Cannot find module/);
    const odd = await loadSeatbelt('0.0.83', () => Promise.resolve({ wrapCommandWithSandboxMacOS: () => 'sandbox-exec -p x bash -c y' }));
    assert.throws(() => odd.profile(seatbeltConfig(base), '/w'), /a shape 0\.0\.83 does not build/);
  });
});

describe('Seatbelt: the launch with the platform faked as darwin', function () {
  this.timeout(30_000);
  let root: string;
  before(async () => {
    await initShellParser();
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-seatbelt-launch-')));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  const neverBwrap = (): string => {
    throw new Error('bubblewrap looked for on macOS');
  };

  it('goes through the library and nothing else: sandbox-exec with its profile, the proxy on the loopback, no stage', async () => {
    const layout = macLayout(path.join(root, 'mac'));
    const ran: string[][] = [];
    const probe = (): ReturnType<typeof probeSandbox> =>
      probeSandbox('darwin', neverBwrap, { exists: (file) => file === sandboxExec, run: (program, args) => (ran.push([program, ...args]), Promise.resolve('end\n')) });
    const sandbox = new CommandSandbox({
      probe,
      inputs: () => layout.inputs,
      log: () => undefined,
      staging: { parent: path.join(root, 'stages'), unshare: '/usr/bin/unshare', probe: () => Promise.reject(new Error('staging probed on macOS')), enabled: () => true },
    });
    const state = await sandbox.ready();
    assert.ok(state.available && state.engine === 'seatbelt');
    assert.deepEqual(ran.map((args) => [args[0], args[1], args[3]]), [[sandboxExec, '-p', '--']], 'the probe ran sandbox-exec once, with a profile');
    const staging = await sandbox.stagingStatus();
    assert.ok(!staging.staged && staging.why === 'no-overlay', 'no overlay on macOS');
    assert.match(staging.reason, /what git saw it change is told to the model and undone where its text before is known/);
    const prepared = await sandbox.launch(layout.workspace, undefined, { stage: false, open: [path.join(layout.workspace, '.vscode', 'settings.json')] });
    assert.ok('launch' in prepared);
    const { launch } = prepared;
    try {
      assert.equal(launch.program, sandboxExec);
      assert.equal(launch.args.length, 2);
      assert.equal(launch.args[0], '-p');
      assert.equal(launch.stage, undefined);
      const port = launch.proxy?.port;
      assert.ok(port !== undefined && port > 0, 'the proxy listens on a loopback port');
      assert.equal(launch.env['HTTPS_PROXY'], `http://127.0.0.1:${port}`);
      assert.equal(launch.env['TMPDIR'], path.join(launch.policy.writable.find((folder) => folder.includes('cache')) ?? '', 'tmp'));
      assert.ok(!Object.values(launch.env).some((value) => value.includes('claude')), 'none of the library\'s own variables');
      // The profile is the library's for this policy, exactly.
      const builder = await loadSeatbelt();
      assert.equal(launch.args[1], builder.profile(seatbeltConfig(launch.policy, port), layout.workspace));
      assert.deepEqual(launch.opened?.refused, [{ path: path.join(layout.workspace, '.vscode', 'settings.json'), kind: 'seatbelt' }]);
      assert.ok(!launch.args.join(' ').includes('bwrap'));
    } finally {
      await launch.proxy?.close();
    }
  });

  it('with the library failing to start: no sandbox, and a command a rule allows asks as unconfined, saying why', async () => {
    const sandbox = new CommandSandbox({
      probe: () => probeSandbox('darwin', neverBwrap, { exists: () => true, load: () => Promise.reject(new SeatbeltUnavailable('@anthropic-ai/sandbox-runtime is version 9.9.9, not the 0.0.83 whose Seatbelt profile Toolgate checked')) }),
      inputs: () => {
        throw new Error('no policy gathered without a sandbox');
      },
      log: () => undefined,
    });
    assert.ok('unavailable' in (await sandbox.launch('/w')));
    const status = sandbox.status();
    assert.ok(!status.available);
    assert.match(status.reason, /Seatbelt sandbox cannot start: .*9\.9\.9/);
    const resolver = new PathResolver([root]);
    const call: GateCall = gateCall('run_in_terminal', { command: 'git status' }, resolver, { home: '/Users/dev' });
    const context: PolicyContext = {
      gatedTools: defaultGatedTools,
      editRules: {},
      terminalRules: { 'git status': true },
      protectedPaths: defaultProtectedPaths,
      trusted: true,
      grants: [],
      forbiddenRoots: [],
      sandbox: status,
      locate: (absolute) => resolver.locate(absolute),
    };
    const judged = judge(call, context);
    assert.equal(judged.verdict, 'ask');
    assert.equal(judged.kind, 'unconfined');
    assert.equal(judged.runsUnconfined, true);
    assert.ok(judged.warnings.some((warning) => /^No sandbox here \(the Seatbelt sandbox cannot start: .*9\.9\.9.*\): if allowed, this command runs unconfined/.test(warning)));
  });

  it('without sandbox-exec, or with a profile sandbox-exec refuses, or one that does not hold: no sandbox', async () => {
    const rows: { name: string; probe: Parameters<typeof probeSandbox>[2]; reason: RegExp }[] = [
      { name: 'no sandbox-exec', probe: { exists: () => false }, reason: /sandbox-exec is missing/ },
      { name: 'refused', probe: { exists: () => true, run: () => Promise.reject(new Error('sandbox-exec: syntax error')) }, reason: /sandbox-exec failed to start a sandbox: sandbox-exec: syntax error/ },
      { name: 'no check', probe: { exists: () => true, run: () => Promise.resolve('') }, reason: /did not run its check/ },
      { name: 'does not hold', probe: { exists: () => true, run: () => Promise.resolve('write could write outside the workspace\nend\n') }, reason: /does not hold here: a sandboxed process could write outside the workspace/ },
    ];
    for (const row of rows) {
      const state = await probeSandbox('darwin', neverBwrap, row.probe);
      assert.ok(!state.available, row.name);
      assert.match(state.reason, row.reason, row.name);
    }
  });
});
