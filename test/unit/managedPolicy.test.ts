/**
 * The managed settings file: its schema and the narrowest reading of what does not fit, the ownership rule, and every
 * way a person could loosen it (workspace and user settings, grants, Run without sandbox, a server's requireApproval)
 * against every key that narrows.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { grantsOffered, refusal, type ChoiceSubject } from '../../src/core/approval/choices';
import type { Grant } from '../../src/core/approval/grants';
import { grantLimitsUnder, grantsInForceUnder } from '../../src/core/approval/managedRules';
import { PathResolver } from '../../src/core/approval/paths';
import { judge, type GateCall, type PolicyContext } from '../../src/core/approval/policy';
import { baseUrlRefusal, domainsUnder, sandboxInputsUnder, serverRefusal, writableUnder } from '../../src/core/managed/managedCeilings';
import { managedFileVariable, ownershipProblem, readManagedFile, systemManagedFile, type ManagedFileState, type PathFacts } from '../../src/core/managed/managedFile';
import { managedOverrides } from '../../src/core/managed/managedOverrides';
import { OverrideNotices } from '../../src/core/managed/overrideNotices';
import { managedReportSection } from '../../src/core/managed/managedReport';
import { domainsUnderCeiling } from '../../src/core/sandbox/domains';
import { emptyManagedPolicy, parseManagedSettings, type ManagedPolicy } from '../../src/core/managed/managedSettings';
import { serversUnderManaged } from '../../src/core/mcp/windowServers';
import { createModel } from '../../src/core/modelChoice';
import { ModelError } from '../../src/core/llm/client';
import { defaultGatedTools, defaultProtectedPaths, settingDefaults, type SettingKey, type SettingValue } from '../../src/core/settings';
import { initShellParser } from '../../src/core/shell/analysis';
import { gateCall } from '../../src/core/tools/gateCall';
import { exampleManagedSettings } from '../fixtures/managedSettings';
import { mcpGateCall } from '../../src/core/tools/mcpCalls';

const file = '/etc/toolgate/managed-settings.json';

const example = exampleManagedSettings;

const managed = (text: unknown): ManagedPolicy => parseManagedSettings(JSON.stringify(text), file).policy;

describe('the managed settings file: what it says', () => {
  it('reads the example whole, with no problem', () => {
    const parsed = parseManagedSettings(JSON.stringify(example), file);
    assert.deepEqual(parsed.problems, []);
    assert.deepEqual(parsed.policy, {
      file,
      deny: example.deny,
      ask: { terminal: ['npm publish'], paths: [], mcpTools: [] },
      protectedPaths: ['infra/**'],
      sandbox: example.sandbox,
      grants: example.grants,
      mcp: example.mcp,
      model: example.model,
      audit: example.audit,
    });
  });

  it('an empty object narrows nothing', () => {
    assert.deepEqual(parseManagedSettings('{}', file), { policy: emptyManagedPolicy(file), problems: [] });
  });

  // What does not fit is named, and read as narrowly as it can be: never more than a valid file would leave.
  const narrow: { name: string; text: unknown; read: (policy: ManagedPolicy) => unknown; expected: unknown; problem: RegExp }[] = [
    { name: 'a required that is not a boolean is true', text: { sandbox: { required: 'yes' } }, read: (p) => p.sandbox.required, expected: true, problem: /sandbox\.required is not true or false: read as true/ },
    { name: 'a workspace flag that is not a boolean is false', text: { grants: { workspace: 1 } }, read: (p) => p.grants.workspace, expected: false, problem: /grants\.workspace/ },
    { name: 'an autoApproveRules that is not a boolean is false', text: { grants: { autoApproveRules: null } }, read: (p) => p.grants.autoApproveRules, expected: false, problem: /grants\.autoApproveRules/ },
    { name: 'a maxMinutes that is no whole number is 1', text: { grants: { maxMinutes: 2.5 } }, read: (p) => p.grants.maxMinutes, expected: 1, problem: /grants\.maxMinutes 2\.5 is not a whole number/ },
    { name: 'a ceiling that is no list allows nothing', text: { sandbox: { allowedDomains: 'packages.example.com' } }, read: (p) => p.sandbox.allowedDomains, expected: [], problem: /sandbox\.allowedDomains is not a list/ },
    { name: 'a ceiling entry that is not a domain is dropped (the ceiling only shrinks)', text: { sandbox: { allowedDomains: ['https://x.example.com', 'ok.example.com'] } }, read: (p) => p.sandbox.allowedDomains, expected: ['ok.example.com'], problem: /is a URL/ },
    { name: 'a servers list that is no list allows no server', text: { mcp: { allowedServers: {} } }, read: (p) => p.mcp.allowedServers, expected: [], problem: /mcp\.allowedServers/ },
    { name: 'a base URL that is not one is dropped', text: { model: { allowedBaseUrls: ['llm.example.com', 'https://llm.example.com/v1'] } }, read: (p) => p.model.allowedBaseUrls, expected: ['https://llm.example.com/v1'], problem: /is not an http\(s\) URL/ },
    { name: 'a broken /regex/ deny rule is dropped and said', text: { deny: { terminal: ['/(/', 'curl'] } }, read: (p) => p.deny.terminal, expected: ['curl'], problem: /deny\.terminal\[0\] "\/\(\/" is not a valid \/regex\/: dropped/ },
    { name: 'a relative writable folder is dropped', text: { sandbox: { writablePaths: ['build', '/srv/cache'] } }, read: (p) => p.sandbox.writablePaths, expected: ['/srv/cache'], problem: /is not an absolute path/ },
    { name: 'an unknown key is said and ignored', text: { deny: {}, allow: { terminal: ['rm'] } }, read: (p) => p.deny, expected: { terminal: [], paths: [], mcpTools: [] }, problem: /"allow" is not a key of the managed settings/ },
  ];
  for (const row of narrow) {
    it(row.name, () => {
      const parsed = parseManagedSettings(JSON.stringify(row.text), file);
      assert.deepEqual(row.read(parsed.policy), row.expected);
      assert.ok(parsed.problems.some((problem) => row.problem.test(problem)), parsed.problems.join('\n'));
    });
  }

  for (const text of ['{"deny": ', '[]', '"x"']) {
    it(`a file that cannot be read at all (${text}) is the narrowest policy, not none`, () => {
      const parsed = parseManagedSettings(text, file);
      assert.equal(parsed.problems.length, 1);
      assert.equal(parsed.policy.sandbox.required, true);
      assert.equal(parsed.policy.grants.workspace, false);
      assert.equal(parsed.policy.grants.autoApproveRules, false);
      assert.deepEqual(parsed.policy.mcp.allowedServers, []);
      assert.deepEqual(parsed.policy.ask.terminal, ['/.*/']);
    });
  }

  it('comments and trailing commas are allowed, as in VS Code\'s settings', () => {
    assert.deepEqual(parseManagedSettings('{ // the team\n "protectedPaths": ["infra/**",], }', file).policy.protectedPaths, ['infra/**']);
  });
});

describe('the managed settings file: where it is and whether it is honoured', () => {
  it('names the file of each platform', () => {
    assert.equal(systemManagedFile('linux', {}), '/etc/toolgate/managed-settings.json');
    assert.equal(systemManagedFile('darwin', {}), '/Library/Application Support/Toolgate/managed-settings.json');
    assert.equal(systemManagedFile('win32', { ProgramData: 'D:\\Data' }), 'D:\\Data\\Toolgate\\managed-settings.json');
    assert.equal(systemManagedFile('win32', {}), 'C:\\ProgramData\\Toolgate\\managed-settings.json');
  });

  const facts = (entries: [string, number, number, boolean][]): PathFacts[] => entries.map(([where, uid, mode, directory]) => ({ path: where, uid, mode, directory }));
  const ownership: { name: string; chain: PathFacts[]; problem: RegExp | undefined }[] = [
    { name: 'root-owned and 644, in root-owned folders', chain: facts([[file, 0, 0o100644, false], ['/etc/toolgate', 0, 0o40755, true], ['/etc', 0, 0o40755, true], ['/', 0, 0o40755, true]]), problem: undefined },
    { name: 'owned by the person', chain: facts([[file, 1000, 0o100644, false], ['/etc/toolgate', 0, 0o40755, true]]), problem: /the file .* is owned by user 1000, not root/ },
    { name: 'writable by everyone', chain: facts([[file, 0, 0o100666, false], ['/etc/toolgate', 0, 0o40755, true]]), problem: /can be written by others \(mode 666\)/ },
    { name: 'writable by its group', chain: facts([[file, 0, 0o100664, false], ['/etc/toolgate', 0, 0o40755, true]]), problem: /mode 664/ },
    { name: 'in a folder the person owns (they could replace it)', chain: facts([[file, 0, 0o100644, false], ['/etc/toolgate', 1000, 0o40755, true]]), problem: /the folder \/etc\/toolgate is owned by user 1000/ },
    { name: 'in a folder everyone may write', chain: facts([[file, 0, 0o100644, false], ['/etc/toolgate', 0, 0o40777, true]]), problem: /the folder \/etc\/toolgate can be written by others/ },
    { name: 'under a root-owned sticky folder such as /tmp', chain: facts([['/tmp/x/m.json', 0, 0o100644, false], ['/tmp/x', 0, 0o40700, true], ['/tmp', 0, 0o41777, true], ['/', 0, 0o40755, true]]), problem: undefined },
  ];
  for (const row of ownership) {
    it(`ownership: ${row.name}`, () => {
      const problem = ownershipProblem(row.chain);
      if (row.problem === undefined) {
        assert.equal(problem, undefined);
      } else {
        assert.match(problem ?? '', row.problem);
      }
    });
  }

  describe('on disk', () => {
    let folder: string;
    let other: string;
    beforeEach(() => {
      folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-managed-')));
      other = path.join(folder, 'managed-settings.json');
      writeFileSync(other, JSON.stringify({ deny: { terminal: ['curl'] } }));
      chmodSync(other, 0o644);
    });
    afterEach(() => rmSync(folder, { recursive: true, force: true }));
    // The system file of this test's platform does not exist here; the variable's file stands in for it.
    const platform: NodeJS.Platform = 'freebsd';
    const asRoot = process.getuid?.() === 0;
    /** What a test asserts of a state: why it is ignored, or what it is. */
    const why = (state: ManagedFileState): string => (state.state === 'ignored' ? `ignored: ${state.why}` : state.state);

    it(`the variable's file is honoured only if only root can change it (running as ${asRoot ? 'root' : 'an ordinary user'})`, () => {
      const state = readManagedFile(platform, { [managedFileVariable]: other });
      if (asRoot) {
        assert.deepEqual(state.state === 'honoured' ? state.policy.deny.terminal : why(state), ['curl']);
      } else {
        assert.match(why(state), /^ignored: the file .* is owned by user \d+, not root/);
      }
    });

    it('a file others can write is ignored, saying why and what to do', () => {
      chmodSync(other, 0o666);
      // As an ordinary user the file is theirs too, which is said first.
      assert.match(why(readManagedFile(platform, { [managedFileVariable]: other })), asRoot ? /^ignored: .*mode 666.*chown root and chmod 644/ : /^ignored: .*owned by user \d+.*chown root and chmod 644/);
    });

    it('a file owned by another user is ignored (as root, which can give it away)', function () {
      if (asRoot) {
        chownSync(other, 1000, 1000);
      }
      // Only root can give a file away; an ordinary user's file is their own, which is the same case.
      assert.match(why(readManagedFile(platform, { [managedFileVariable]: other })), /^ignored: the file .* is owned by user \d+, not root/);
    });

    it('no file at all: absent; a relative variable is not read', () => {
      assert.equal(readManagedFile(platform, { [managedFileVariable]: path.join(folder, 'none.json') }).state, 'absent');
      assert.equal(readManagedFile(platform, { [managedFileVariable]: 'managed-settings.json' }).state, 'absent');
    });

    it('the variable cannot set the system file aside: while that exists (even unreadable, even ignored), only it is read', () => {
      const system = path.join(folder, 'system', 'managed-settings.json');
      mkdirSync(path.dirname(system));
      writeFileSync(system, JSON.stringify({ deny: { terminal: ['wget'] } }));
      chmodSync(system, 0o644);
      const env = { [managedFileVariable]: other };
      assert.equal(readManagedFile(platform, env, system).file, system);
      chmodSync(system, 0o666);
      assert.deepEqual([readManagedFile(platform, env, system).file, readManagedFile(platform, env, system).state], [system, 'ignored']);
      rmSync(system);
      assert.equal(readManagedFile(platform, env, system).file, other, 'the variable names a file only while the system has none');
    });
  });
});

describe('the managed settings file: nothing the person does loosens it', () => {
  let base: string;
  let root: string;
  let resolver: PathResolver;
  before(async () => {
    await initShellParser();
    base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-managed-policy-')));
    root = path.join(base, 'ws');
    mkdirSync(path.join(root, 'secrets'), { recursive: true });
    resolver = new PathResolver([root]);
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  const grant = (tool: string, matcher: Grant['matcher'], scope: Grant['scope'] = 'workspace', createdAt = new Date().toISOString()): Grant => ({ id: `g-${tool}-${matcher.kind}-${scope}`, tool, matcher, scope, createdAt });

  /** The loosest a person can make their own policy: every setting allowing, every grant made. */
  const loosest = (): Omit<PolicyContext, 'locate'> => ({
    gatedTools: { read_file: false, list_files: false, search_text: false, write_file: false, edit_file: false, run_in_terminal: false },
    editRules: { '**': true },
    terminalRules: { '/.*/': true },
    protectedPaths: defaultProtectedPaths,
    trusted: true,
    grants: [
      grant('run_in_terminal', { kind: 'command', prefix: 'curl' }),
      grant('run_in_terminal', { kind: 'command', prefix: 'npm publish' }),
      grant('write_file', { kind: 'tool' }),
      grant('mcp__deploy__run', { kind: 'tool' }),
    ],
    forbiddenRoots: [],
    sandbox: { available: true },
  });

  const context = (policy: ManagedPolicy | undefined, overrides: Partial<PolicyContext> = {}): PolicyContext => ({
    ...loosest(),
    locate: (absolute) => resolver.locate(absolute),
    ...(policy !== undefined ? { managed: policy } : {}),
    ...overrides,
  });

  const mcp = (tool: string, gated: boolean): GateCall => mcpGateCall(tool, { modelName: tool, server: tool.split('__')[1] ?? 'x', gated, tool: { name: 'run', description: '', inputSchema: {}, definitionHash: 'h' } }, {});
  const builtin = (tool: string, args: Record<string, unknown>): GateCall => gateCall(tool, args, resolver, { home: '/home/someone' });

  interface Row {
    name: string;
    call: () => GateCall;
    /** Without the managed file, with the person's loosest policy. */
    alone: 'allow' | 'ask';
    /** With the example's managed file. */
    verdict: 'allow' | 'ask' | 'deny';
    reason?: RegExp;
    overrides?: Partial<PolicyContext>;
  }
  const rows: Row[] = [
    { name: 'curl, allowed by a workspace rule for everything and a grant', call: () => builtin('run_in_terminal', { command: 'curl https://example.com' }), alone: 'allow', verdict: 'deny', reason: /^denied: managed policy: `curl` is denied \(\/etc\/toolgate\/managed-settings\.json\)$/ },
    { name: 'curl by its full path', call: () => builtin('run_in_terminal', { command: '/usr/bin/curl -s x' }), alone: 'allow', verdict: 'deny', reason: /`curl` is denied/ },
    { name: 'curl through env', call: () => builtin('run_in_terminal', { command: 'env FOO=1 curl x' }), alone: 'ask', verdict: 'deny', reason: /`curl` is denied/ },
    { name: 'curl through bash -c', call: () => builtin('run_in_terminal', { command: 'bash -c "curl x"' }), alone: 'allow', verdict: 'deny', reason: /`curl` is denied/ },
    { name: 'curl after another command', call: () => builtin('run_in_terminal', { command: 'echo hi && curl x' }), alone: 'allow', verdict: 'deny', reason: /`curl` is denied/ },
    { name: 'curl spelled through an expansion', call: () => builtin('run_in_terminal', { command: '$(printf cur)l x' }), alone: 'ask', verdict: 'deny', reason: /cannot be checked against the managed deny rules/ },
    { name: 'git push, by the managed regex', call: () => builtin('run_in_terminal', { command: 'git push origin main' }), alone: 'allow', verdict: 'deny', reason: /`git` \(`\/\^git push\/`\) is denied/ },
    { name: 'git push with git\'s options before the subcommand', call: () => builtin('run_in_terminal', { command: 'git -C . push origin main' }), alone: 'allow', verdict: 'deny', reason: /`git` \(`\/\^git push\/`\) is denied/ },
    { name: 'a redirect into a denied path', call: () => builtin('run_in_terminal', { command: 'echo k > secrets/key' }), alone: 'allow', verdict: 'deny', reason: /`secrets\/key` \(`secrets\/\*\*`\) is denied/ },
    { name: 'npm publish, which the managed file makes ask, though a grant covers it', call: () => builtin('run_in_terminal', { command: 'npm publish' }), alone: 'allow', verdict: 'ask', reason: /^asks: managed policy: `npm` \(`npm publish`\) always asks/ },
    { name: 'a command the managed file says nothing of: its rules no longer auto-approve', call: () => builtin('run_in_terminal', { command: 'ls' }), alone: 'allow', verdict: 'ask' },
    { name: 'a write into a denied path, allowed by a grant, a rule and an ungated tool', call: () => builtin('write_file', { path: 'secrets/a.txt', content: 'x' }), alone: 'allow', verdict: 'deny', reason: /`secrets\/a\.txt` \(`secrets\/\*\*`\) is denied/ },
    { name: 'a read of a denied path', call: () => builtin('read_file', { path: 'secrets/a.txt' }), alone: 'allow', verdict: 'deny' },
    { name: 'a write into a managed protected path', call: () => builtin('write_file', { path: 'infra/main.tf', content: 'x' }), alone: 'allow', verdict: 'ask', reason: /protected path \(`infra\/\*\*` in the managed policy \/etc\/toolgate\/managed-settings\.json\)/ },
    { name: 'a write the tool grant covers, under no workspace grants and no auto-approve', call: () => builtin('write_file', { path: 'src/a.ts', content: 'x' }), alone: 'allow', verdict: 'ask' },
    { name: 'a denied MCP tool, granted for the workspace and not gated by its server', call: () => mcp('mcp__deploy__run', false), alone: 'allow', verdict: 'deny', reason: /`mcp__deploy__run` \(`mcp__deploy__\*`\) is denied/ },
    { name: "an MCP tool whose server says requireApproval never", call: () => mcp('mcp__fs__read', false), alone: 'allow', verdict: 'ask' },
    { name: 'Run without sandbox, after the command failed in it', call: () => ({ ...builtin('run_in_terminal', { command: 'ls' }), unconfined: { failure: 'it could not write /home' } }), alone: 'ask', verdict: 'deny', reason: /commands never run without the sandbox, and it failed in the sandbox/ },
    { name: 'a command where there is no sandbox', call: () => builtin('run_in_terminal', { command: 'ls' }), overrides: { sandbox: { available: false, reason: 'bwrap is missing' } }, alone: 'ask', verdict: 'deny', reason: /there is no sandbox here \(bwrap is missing\)/ },
    { name: 'ask_user still only asks', call: () => builtin('ask_user', { question: 'q', options: ['a'] }), alone: 'allow', verdict: 'allow' },
  ];
  const policy = managed(example);
  for (const row of rows) {
    it(row.name, () => {
      const call = row.call();
      assert.equal(judge(call, context(undefined, row.overrides)).verdict, row.alone, 'without the managed file');
      const judgement = judge(call, context(policy, { ...row.overrides, grants: grantsInForceUnder([...loosest().grants], policy, new Date()) }));
      assert.equal(judgement.verdict, row.verdict, judgement.reason);
      if (row.reason !== undefined) {
        assert.match(judgement.reason, row.reason);
      }
      if (judgement.verdict !== 'allow') {
        assert.equal(judgement.grantable && judgement.decidedBy === 'managed', false, 'no grant covers what the managed file decides');
      }
      if (row.reason !== undefined) {
        assert.equal(judgement.decidedBy, 'managed');
        assert.match(judgement.plain, /managed-settings\.json/);
      }
    });
  }

  it('the managed file itself, where a workspace folder holds it, is never written: not by a tool, not by a command', () => {
    const inside = { ...managed({ deny: { terminal: ['curl'] } }), file: path.join(root, 'etc', 'toolgate', 'managed-settings.json') };
    mkdirSync(path.dirname(inside.file), { recursive: true });
    writeFileSync(inside.file, '{}');
    for (const call of [
      builtin('write_file', { path: 'etc/toolgate/managed-settings.json', content: '{}' }),
      builtin('edit_file', { path: 'etc/toolgate/managed-settings.json', edits: [{ old: '{}', new: '[]' }] }),
      builtin('run_in_terminal', { command: 'echo {} > etc/toolgate/managed-settings.json' }),
    ]) {
      const judgement = judge(call, context(inside));
      assert.deepEqual([judgement.verdict, judgement.decidedBy], ['deny', 'managed'], call.tool);
      assert.match(judgement.reason, /\(`the managed settings file itself`\) is denied/);
    }
    assert.equal(judge(builtin('read_file', { path: 'etc/toolgate/managed-settings.json' }), context(inside)).verdict, 'allow', 'reading it is harmless');
    const inputs = sandboxInputsUnder({ workspaceFolders: [root], protectedGlobs: [], extraHidden: [], extraWritable: [], ownStorage: [], network: 'none' }, inside, '/home/p');
    assert.deepEqual(inputs.protectedGlobs, ['etc/toolgate/managed-settings.json'], 'read-only to every command in the sandbox');
  });

  it('even with grants.workspace and autoApproveRules left on, a deny rule beats the person\'s grants and rules', () => {
    const only = managed({ deny: { terminal: ['curl'] } });
    const judgement = judge(builtin('run_in_terminal', { command: 'curl x' }), context(only));
    assert.deepEqual([judgement.verdict, judgement.decidedBy], ['deny', 'managed']);
    assert.equal(judge(builtin('run_in_terminal', { command: 'ls' }), context(only)).verdict, 'allow', 'what it says nothing of is the person\'s');
  });

  it('grants: none of the workspace, none past the longest time box; the session\'s within it', () => {
    const now = new Date('2026-12-01T12:00:00.000Z');
    const grants = [
      grant('write_file', { kind: 'tool' }, 'workspace', '2026-12-01T11:59:00.000Z'),
      grant('edit_file', { kind: 'tool' }, 'session', '2026-12-01T11:30:00.000Z'),
      grant('run_in_terminal', { kind: 'command', prefix: 'ls' }, 'session', '2026-12-01T10:30:00.000Z'),
    ];
    assert.deepEqual(grantsInForceUnder(grants, managed(example), now).map((kept) => kept.tool), ['edit_file']);
    assert.deepEqual(grantsInForceUnder(grants, undefined, now).length, 3);
    assert.deepEqual(grantsInForceUnder(grants, managed({ grants: { maxMinutes: 120 } }), now).length, 3);
  });

  it('the card offers no workspace grant and the gate refuses one; a timed grant is capped', () => {
    const limits = grantLimitsUnder(managed(example));
    const subject: ChoiceSubject = { callId: 'c1', facts: { grantable: true, edited: false }, runsUnconfined: false, remedies: [], grantOptions: ['exact', 'tool'], inTask: true, ...(limits !== undefined ? { grantLimits: limits } : {}) };
    assert.deepEqual(grantsOffered(subject), ['allow-session', 'allow-task', 'allow-minutes']);
    assert.match(refusal(subject, { action: 'allow-workspace', grantOption: 'tool' }) ?? '', /allows no grants for the whole workspace/);
    assert.match(refusal(subject, { action: 'allow-minutes', grantOption: 'tool', minutes: 90 }) ?? '', /1 to 60 minutes \(the managed policy's longest\)/);
    assert.equal(refusal(subject, { action: 'allow-minutes', grantOption: 'tool', minutes: 60 }), undefined);
    assert.equal(refusal(subject, { action: 'allow-session', grantOption: 'tool' }), undefined);
    const { grantLimits: _none, ...free } = subject;
    assert.deepEqual(grantsOffered(free), ['allow-session', 'allow-task', 'allow-minutes', 'allow-workspace']);
  });
});

describe('the managed settings file: overrides told once in a window', () => {
  it('tells each note once, new ones together in one notification; nothing new, no notification', () => {
    const notices = new OverrideNotices();
    assert.deepEqual(notices.told(['a']), { fresh: ['a'], notification: "Toolgate: your organisation's managed settings override a setting of yours: a" });
    assert.deepEqual(notices.told(['a', 'b', 'c']), { fresh: ['b', 'c'], notification: "Toolgate: your organisation's managed settings override 2 settings of yours: b · c" });
    assert.deepEqual(notices.told(['c', 'a']), { fresh: [] });
    assert.deepEqual(notices.told([]), { fresh: [] });
  });
});

describe('the managed settings file: ceilings over the person\'s settings', () => {
  const domains: { person: string[]; ceiling: string[] | undefined; kept: string[] }[] = [
    { person: ['packages.example.com', 'evil.example.net'], ceiling: ['packages.example.com'], kept: ['packages.example.com'] },
    { person: ['a.example.com', '*.b.example.com', 'example.com'], ceiling: ['*.example.com'], kept: ['a.example.com', '*.b.example.com'] },
    { person: ['packages.example.com:8443'], ceiling: ['packages.example.com'], kept: [] },
    { person: ['packages.example.com:443'], ceiling: ['packages.example.com'], kept: ['packages.example.com:443'] },
    { person: ['*.example.com'], ceiling: ['packages.example.com'], kept: [] },
    { person: ['anything.org'], ceiling: [], kept: [] },
    { person: ['anything.org'], ceiling: undefined, kept: ['anything.org'] },
  ];
  for (const row of domains) {
    it(`allowed domains ${JSON.stringify(row.person)} under ${JSON.stringify(row.ceiling)}`, () => {
      const policy = row.ceiling === undefined ? undefined : managed({ sandbox: { allowedDomains: row.ceiling } });
      const under = domainsUnder(row.person, policy);
      assert.deepEqual(under.kept, row.kept);
      assert.deepEqual(under.cut, row.person.filter((entry) => !row.kept.includes(entry)));
    });
  }

  it('writable folders stay only inside the managed ones', () => {
    const policy = managed({ sandbox: { writablePaths: ['/srv/cache', '~/.npm'] } });
    assert.deepEqual(writableUnder(['/srv/cache/a', '/srv/cachex', '~/.npm/_cacache', '/tmp'], policy, '/home/p'), { kept: ['/srv/cache/a', '~/.npm/_cacache'], cut: ['/srv/cachex', '/tmp'] });
    assert.deepEqual(writableUnder(['/tmp'], managed(example), '/home/p').kept, []);
  });

  it('the sandbox gets the managed protected paths, the ceilings, and the export headers hidden', () => {
    const inputs = sandboxInputsUnder(
      { workspaceFolders: ['/ws'], protectedGlobs: ['.git/**'], extraHidden: [], extraWritable: ['/tmp/out'], ownStorage: [], network: 'none', allowedDomains: ['packages.example.com', 'evil.example.net'] },
      managed(example),
      '/home/p',
    );
    assert.deepEqual([inputs.protectedGlobs, inputs.extraWritable, inputs.allowedDomains, inputs.extraHidden], [['.git/**', 'infra/**'], [], ['packages.example.com'], ['/etc/toolgate/otlp-headers']]);
  });

  it('MCP servers: only those listed start; a user server asking to run unconfined runs in the sandbox', () => {
    assert.equal(serverRefusal('fs', managed(example)), undefined);
    assert.match(serverRefusal('deploy', managed(example)) ?? '', /lets only "fs" start/);
    assert.equal(serverRefusal('deploy', undefined), undefined);
    const servers = serversUnderManaged(
      [{ name: 'mine', origin: 'user', source: 'settings', requireApproval: 'all', type: 'stdio', command: 'node', args: [], env: {}, sandbox: false }],
      managed(example),
    );
    assert.deepEqual(servers.servers.map((server) => (server.type === 'stdio' ? server.sandbox : undefined)), [{ network: false }]);
    assert.match(servers.notes[0] ?? '', /lets nothing run unconfined/);
  });

  it('model endpoints: only those listed, spelled either way; VS Code\'s own models not at all', async () => {
    assert.equal(baseUrlRefusal('https://LLM.example.com/v1/', managed(example)), undefined);
    assert.match(baseUrlRefusal('http://127.0.0.1:11434/v1', managed(example)) ?? '', /allows only the model endpoints https:\/\/llm\.example\.com\/v1, not http:\/\/127\.0\.0\.1:11434\/v1/);
    const get = <K extends SettingKey>(key: K): SettingValue<K> => settingDefaults[key];
    const model = await createModel({
      settings: { get },
      apiKeys: { keyFor: () => Promise.resolve(undefined), heldFor: () => Promise.resolve(undefined) },
      editorModels: { model: () => { throw new Error('not used'); } },
      ignoredBaseUrls: () => Promise.resolve([]),
      remote: () => false,
      managed: () => managed(example),
    });
    await assert.rejects(model.complete([], [], {}), (error: unknown) => error instanceof ModelError && error.kind === 'refused' && /set toolgate\.model\.baseUrl to one it allows/.test(error.message));
  });

  it('says which settings of the person\'s it overrides, with the managed value', () => {
    const notes = managedOverrides(
      managed(example),
      {
        terminalRules: { ls: true, rm: false },
        editRules: {},
        gatedTools: { ...defaultGatedTools, write_file: false },
        gatedByDefault: defaultGatedTools,
        allowedDomains: ['packages.example.com', 'evil.example.net'],
        writablePaths: [],
        provider: 'openai-compatible',
        baseUrl: 'http://127.0.0.1:11434/v1',
      },
      '/home/p',
    );
    assert.deepEqual(notes, [
      'toolgate.autoApprove.terminal: `ls` do not auto-approve anything: the managed policy sets grants.autoApproveRules to false (/etc/toolgate/managed-settings.json)',
      'toolgate.gatedTools: `write_file` stay gated: the managed policy sets grants.autoApproveRules to false (/etc/toolgate/managed-settings.json)',
      'toolgate.sandbox.allowedDomains: `evil.example.net` are not reachable: the managed policy sets sandbox.allowedDomains to ["packages.example.com"] (/etc/toolgate/managed-settings.json)',
      'toolgate.model.baseUrl: http://127.0.0.1:11434/v1 is not used: the managed policy sets model.allowedBaseUrls to ["https://llm.example.com/v1"] (/etc/toolgate/managed-settings.json)',
    ]);
    assert.deepEqual(managedOverrides(undefined, { terminalRules: { ls: true }, editRules: {}, gatedTools: {}, gatedByDefault: defaultGatedTools, allowedDomains: [], writablePaths: [], provider: 'openai-compatible', baseUrl: 'x' }, '/'), []);
  });
});

describe('the managed settings file in the sandbox policy report', () => {
  it('says whether it is in force, each entry, its problems and what it overrides', () => {
    const honoured = managedReportSection({ state: 'honoured', file, policy: managed(example), problems: ['x is odd'] }, ['toolgate.sandbox.allowedDomains: `evil.example.net` are not reachable']);
    assert.match(honoured.title, /^Managed settings, in force from \/etc\/toolgate\/managed-settings\.json/);
    assert.deepEqual(honoured.lines, [
      'deny.terminal: curl, /^git push/',
      'deny.paths: secrets/**',
      'deny.mcpTools: mcp__deploy__*',
      'ask.terminal: npm publish',
      'protectedPaths: infra/**',
      'sandbox.required: true (no command or MCP server runs unconfined; no Run without sandbox)',
      'sandbox.allowedDomains (a ceiling): packages.example.com',
      'sandbox.writablePaths (a ceiling): (none)',
      'grants.workspace: false (no Always allow in this workspace; those made before are set aside)',
      'grants.autoApproveRules: false (only false rules apply; every tool gated by default stays gated)',
      'grants.maxMinutes: 60 (every grant ends by then)',
      'mcp.allowedServers: fs',
      'model.allowedBaseUrls: https://llm.example.com/v1',
      'audit.otlp: every decision is also sent to the collector it names (the person cannot turn this off)',
      'problem: x is odd',
      'overrides toolgate.sandbox.allowedDomains: `evil.example.net` are not reachable',
    ]);
    assert.deepEqual(managedReportSection({ state: 'ignored', file, why: 'the file is owned by user 1000' }, []).lines, [`${file} is IGNORED: the file is owned by user 1000`]);
    assert.match(managedReportSection({ state: 'absent', file }, []).lines[0] ?? '', /does not exist/);
  });

  it('a one-run allowance of a refused host never goes past the ceiling', () => {
    assert.deepEqual(domainsUnderCeiling(['packages.example.com', 'evil.example.net'], ['packages.example.com']), { kept: ['packages.example.com'], cut: ['evil.example.net'] });
    assert.deepEqual(domainsUnderCeiling(['evil.example.net'], undefined), { kept: ['evil.example.net'], cut: [] });
  });
});
