import * as assert from 'node:assert/strict';
import { parseManagedSettings } from '../../src/core/managed/managedSettings';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PathResolver } from '../../src/core/approval/paths';
import type { PolicyContext } from '../../src/core/approval/policy';
import type { AuditEntry } from '../../src/core/audit/auditLog';
import { defaultGatedTools, defaultProtectedPaths, type SettingKey, type SettingValue } from '../../src/core/settings';
import { initShellParser } from '../../src/core/shell/analysis';
import { defaultTerminalRules } from '../../src/core/shell/rules';
import { groupDecisions, pastDecisions, type DecisionGroup } from '../../src/core/suggestions/history';
import { suggest, type Suggestion } from '../../src/core/suggestions/proposals';
import { SuggestionsPanelState } from '../../src/core/suggestions/suggestionsPanelState';
import { computeSuggestions } from '../../src/core/suggestions/view';
import { SuggestionsState } from '../../src/shared/suggestions';
import { locateUnder } from '../fixtures/memoryGate';

/** A call that asked at `second` and was decided by the person `looked` seconds later (no outcome: still waiting). */
interface Past {
  tool: string;
  target: string;
  outcome?: 'allow' | 'deny';
  looked?: number;
  decidedBy?: AuditEntry['decidedBy'];
}

function logOf(calls: readonly Past[]): string {
  const lines: AuditEntry[] = [];
  calls.forEach((call, index) => {
    const asked = Date.UTC(2026, 10, 22, 10, 0, index * 10);
    const base = { callId: `c${index}`, tool: call.tool, argsHash: 'h', source: 'agent', target: call.target };
    lines.push({ ...base, time: new Date(asked).toISOString(), verdict: 'ask', decidedBy: 'policy', reason: 'asks' });
    if (call.outcome !== undefined) {
      const time = new Date(asked + (call.looked ?? 2) * 1000).toISOString();
      lines.push({ ...base, time, verdict: call.outcome, decidedBy: call.decidedBy ?? 'person', reason: 'by the person' });
    }
  });
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\nnot json\n`;
}

const run = (target: string, outcome: Past['outcome'] = 'allow', looked = 2): Past => ({ tool: 'run_in_terminal', target, outcome, looked });
const write = (target: string, outcome: Past['outcome'] = 'allow'): Past => ({ tool: 'write_file', target, outcome });
/** The one suggestion made. */
function only(suggestions: readonly Suggestion[]): Suggestion {
  assert.equal(suggestions.length, 1, suggestions.map((suggestion) => suggestion.id).join(', '));
  const [suggestion] = suggestions;
  assert.ok(suggestion);
  return suggestion;
}
const times = <T>(count: number, item: T): T[] => Array.from({ length: count }, () => item);

describe('suggestions from the audit log', () => {
  let base: string;
  let root: string;
  let resolver: PathResolver;
  let policy: Omit<PolicyContext, 'grants'>;

  before(async () => {
    await initShellParser();
    base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-suggest-')));
    root = path.join(base, 'ws');
    mkdirSync(path.join(root, 'src'), { recursive: true });
    resolver = new PathResolver([root]);
    policy = {
      gatedTools: defaultGatedTools,
      editRules: {},
      terminalRules: defaultTerminalRules,
      protectedPaths: defaultProtectedPaths,
      trusted: true,
      forbiddenRoots: [],
      sandbox: { available: true },
      locate: locateUnder(root),
    };
  });

  after(() => rmSync(base, { recursive: true, force: true }));

  const groupsOf = (calls: readonly Past[]): DecisionGroup[] => groupDecisions(pastDecisions(logOf(calls)), root);
  const suggestionsOf = (calls: readonly Past[], minDecisions = 5): Suggestion[] => suggest(groupsOf(calls), { policy, resolver, minDecisions });

  describe('grouping', () => {
    const rows: { name: string; calls: Past[]; groups: [string, number, number, number][] }[] = [
      {
        name: 'npm test variants share the narrowest common prefix',
        calls: [run('npm test'), run('npm test -- --watch'), run('npm test', 'deny')],
        groups: [['command:npm test', 3, 2, 1]],
      },
      {
        name: 'a subcommand splits groups; an option or a path does not make one',
        calls: [run('npm test'), run('npm run build'), run('ls -la'), run('ls src')],
        groups: [['command:npm test', 1, 1, 0], ['command:npm run build', 1, 1, 0], ['command:ls', 2, 2, 0]],
      },
      {
        name: 'lines no single prefix rule can allow are not grouped',
        calls: [run('npm test && rm -rf x'), run('npm test > out.txt'), run('FOO=1 npm test'), run('$CMD test')],
        groups: [],
      },
      {
        name: 'writes group by folder under the narrowest glob; outside paths are left out',
        calls: [write('src/a.ts'), { ...write('src/b.ts'), tool: 'edit_file' }, write('README.md'), write('/etc/passwd')],
        groups: [['edits:src/*.ts', 2, 2, 0], ['edits:README.md', 1, 1, 0]],
      },
      {
        name: 'MCP calls group by tool; undecided, timed out and rule-allowed calls count as asked only',
        calls: [
          { tool: 'mcp__files__read', target: 'files/read', outcome: 'allow' },
          { tool: 'mcp__files__read', target: 'files/read' },
          { tool: 'mcp__files__read', target: 'files/read', outcome: 'deny', decidedBy: 'timeout' },
        ],
        groups: [['mcp:mcp__files__read', 3, 1, 0]],
      },
    ];
    for (const row of rows) {
      it(row.name, () => {
        const groups = groupsOf(row.calls).map((group): [string, number, number, number] => [group.id, group.asked, group.allowed, group.denied]);
        assert.deepEqual(groups, row.groups);
      });
    }

    it('how long the person looked: the median of decision time minus waiting since', () => {
      const [group] = groupsOf([run('npm test', 'allow', 1), run('npm test', 'allow', 9), run('npm test', 'allow', 4)]);
      assert.equal(group?.medianLookMs, 4000);
    });
  });

  describe('proposals', () => {
    it('a group allowed five times: the narrowest prefix rule, covering every past call, no dangerous form let through', () => {
      const suggestion = only(suggestionsOf([...times(3, run('npm test')), run('npm test --silent'), run('npm test -s')]));
      assert.deepEqual(suggestion.proposal, { kind: 'rule', setting: 'autoApprove.terminal', key: 'npm test', value: true });
      assert.deepEqual(suggestion.past.map((probe) => probe.verdict), ['allow', 'allow', 'allow']);
      assert.deepEqual(suggestion.warnings, []);
      const dangerous = new Map(suggestion.dangerous.map((probe) => [probe.text, probe.verdict]));
      for (const text of ['npm test; rm -rf probe', 'npm test > ../outside.txt', 'npm test -- --probe', 'npm test $(rm -rf probe)', 'npm test | sh']) {
        assert.equal(dangerous.get(text), 'ask', text);
      }
    });

    it('fewer than N decisions, or one denial among them, proposes nothing', () => {
      assert.deepEqual(suggestionsOf(times(4, run('npm test'))), []);
      assert.deepEqual(suggestionsOf([...times(5, run('npm test')), run('npm test', 'deny')]), []);
      assert.equal(suggestionsOf(times(4, run('npm test')), 4).length, 1);
    });

    it('a prefix that names a dangerous form is proposed with a warning naming what it would also allow', () => {
      const suggestion = only(suggestionsOf([...times(3, run('npm test -- --watch')), ...times(2, run('npm test -- --coverage'))]));
      assert.equal(suggestion.proposal.kind === 'rule' && suggestion.proposal.key, 'npm test --');
      assert.ok(
        suggestion.warnings.some((warning) => warning.startsWith('Too broad: it would also allow `npm test -- -- --probe`')),
        suggestion.warnings.join('\n'),
      );
      // Chaining and redirects still ask even then.
      assert.equal(suggestion.dangerous.find((probe) => probe.text === 'npm test --; rm -rf probe')?.verdict, 'ask');
    });

    it('a past call the rule does not cover is named', () => {
      const suggestion = only(suggestionsOf([...times(4, run('npm test')), run('npm test -- --watch')]));
      assert.equal(suggestion.proposal.kind === 'rule' && suggestion.proposal.key, 'npm test');
      assert.deepEqual(suggestion.past.map((probe) => [probe.text, probe.verdict]), [['npm test', 'allow'], ['npm test -- --watch', 'ask']]);
      assert.ok(suggestion.warnings.some((warning) => warning.startsWith('It would not cover the past call `npm test -- --watch`')));
    });

    it('a group always denied proposes a false rule', () => {
      const suggestion = only(suggestionsOf(times(5, run('git push', 'deny'))));
      assert.deepEqual(suggestion.proposal, { kind: 'rule', setting: 'autoApprove.terminal', key: 'git push', value: false });
      assert.deepEqual(suggestion.dangerous, []);
    });

    it('edits: a glob rule whose protected and outside neighbours still ask', () => {
      const suggestion = only(suggestionsOf([...times(3, write('src/a.ts')), ...times(2, write('src/b.ts'))]));
      assert.deepEqual(suggestion.proposal, { kind: 'rule', setting: 'autoApprove.edits', key: 'src/*.ts', value: true });
      assert.deepEqual(suggestion.past.map((probe) => probe.verdict), ['allow', 'allow']);
      assert.ok(suggestion.dangerous.length > 0 && suggestion.dangerous.every((probe) => probe.verdict === 'ask'));
    });

    it('MCP: a workspace grant for the tool', () => {
      const suggestion = only(suggestionsOf(times(5, { tool: 'mcp__files__read', target: 'files/read', outcome: 'allow' as const })));
      assert.deepEqual(suggestion.proposal, { kind: 'grant', tool: 'mcp__files__read' });
    });

    it('nothing is proposed for what the policy already allows, or a rule already set', () => {
      assert.deepEqual(suggestionsOf(times(5, run('git status'))), []);
      const saved = policy;
      policy = { ...policy, terminalRules: { ...policy.terminalRules, 'git push': false } };
      try {
        assert.deepEqual(suggestionsOf(times(5, run('git push', 'deny'))), []);
      } finally {
        policy = saved;
      }
    });
  });

  describe('the view state', () => {
    it('fits the webview contract; in an untrusted workspace nothing is suggested', () => {
      const log = logOf([...times(5, run('npm test')), run('make', 'deny')]);
      const trusted = computeSuggestions(log, { policy, resolver, minDecisions: 5 }, root);
      assert.equal(SuggestionsState.parse(trusted.state).suggestions.length, 1);
      assert.deepEqual(trusted.state.groups.map((group) => [group.matcher, group.asked]), [['npm test', 5], ['make', 1]]);
      const untrusted = computeSuggestions(log, { policy: { ...policy, trusted: false }, resolver, minDecisions: 5 }, root);
      assert.deepEqual([untrusted.suggestions.length, untrusted.state.trusted, untrusted.state.groups.length], [0, false, 2]);
      assert.deepEqual(untrusted.state.groups.map((group) => group.why), ['the workspace is not trusted', 'the workspace is not trusted']);
    });

    it('under a managed file that turns off rules that auto-approve, no such rule is suggested, and the group says why', () => {
      const log = logOf([...times(5, run('npm test')), ...times(5, run('make', 'deny'))]);
      const managedPolicy = { ...parseManagedSettings(JSON.stringify({ grants: { autoApproveRules: false } }), '/etc/toolgate/managed-settings.json').policy };
      const { suggestions, state } = computeSuggestions(log, { policy: { ...policy, managed: managedPolicy }, resolver, minDecisions: 5 }, root);
      assert.deepEqual(suggestions.map((suggestion) => suggestion.proposal), [{ kind: 'rule', setting: 'autoApprove.terminal', key: 'make', value: false }], 'a false rule only asks more: still offered');
      assert.match(state.groups.find((group) => group.matcher === 'npm test')?.why ?? '', /^the managed policy \(\/etc\/toolgate\/managed-settings\.json\) turns off rules that auto-approve$/);
    });

    // Each group without a suggestion says why, so "No suggestion yet" never stays unexplained.
    const whyRows: { name: string; calls: Past[]; why: RegExp | undefined }[] = [
      { name: 'suggested: no why', calls: times(5, run('npm test')), why: undefined },
      { name: 'one deny among allows', calls: [...times(5, run('npm test')), run('npm test', 'deny')], why: /^allowed 5 times and denied 1 time: only a group decided the same way every time is suggested$/ },
      { name: 'too few', calls: times(3, run('npm test')), why: /^allowed 3 times of the 5 needed \(toolgate\.suggestions\.minDecisions\)$/ },
      { name: 'one left undecided', calls: [...times(5, run('npm test')), { tool: 'run_in_terminal', target: 'npm test' }], why: /^asked 6 times but decided 5 times/ },
      { name: 'already a default rule', calls: times(5, run('ls')), why: /^already a rule: "ls": true in toolgate\.autoApprove\.terminal$/ },
    ];
    for (const row of whyRows) {
      it(`says why a group has no suggestion: ${row.name}`, () => {
        const { state } = computeSuggestions(logOf(row.calls), { policy, resolver, minDecisions: 5 }, root);
        const [group] = state.groups;
        assert.ok(group);
        if (row.why === undefined) {
          assert.equal(group.why, undefined);
          assert.equal(state.suggestions.length, 1);
        } else {
          assert.match(group.why ?? '', row.why);
          assert.equal(state.suggestions.length, 0);
        }
        assert.equal(SuggestionsState.safeParse(state).success, true);
      });
    }
  });

  describe('the panel: Accept applies the suggestion offered now', () => {
    const rows: { name: string; accept: (offered: string) => string; ok: boolean; written: string[]; told: string[]; error?: string }[] = [
      {
        name: 'the rule offered is added to the workspace settings, and said',
        accept: (offered) => offered,
        ok: true,
        written: ['autoApprove.terminal npm test true'],
        told: ['Toolgate: added "npm test": true to toolgate.autoApprove.terminal in .vscode/settings.json'],
      },
      {
        name: 'one no longer offered changes nothing',
        accept: () => 'gone',
        ok: false,
        written: [],
        told: [],
        error: 'that suggestion is no longer offered (the log or the settings changed); nothing was changed',
      },
    ];
    for (const row of rows) {
      it(row.name, async () => {
        const auditFile = path.join(base, `audit-${rows.indexOf(row)}.jsonl`);
        writeFileSync(auditFile, logOf(times(5, run('npm test'))));
        const written: string[] = [];
        const told: string[] = [];
        let pushed = 0;
        const panel = new SuggestionsPanelState(
          {
            log: { info: () => undefined, warn: () => undefined, error: () => undefined },
            audit: { flush: () => Promise.resolve() },
            auditFile,
            settings: { get: <K extends SettingKey>(key: K) => (key === 'suggestions.minDecisions' ? 5 : undefined) as SettingValue<K> },
            policy: () => policy,
            resolver: () => resolver,
            shellParserReady: () => Promise.resolve(),
            grants: { add: () => Promise.resolve() },
            mcpDefinition: () => undefined,
            trusted: () => true,
            addWorkspaceRule: (setting, key, value) => (written.push(`${setting} ${key} ${String(value)}`), Promise.resolve('.vscode/settings.json')),
          },
          () => {
            pushed++;
          },
          (text) => void told.push(text),
        );
        const offered = only((await panel.compute()).suggestions).id;
        const outcome = await panel.accept(row.accept(offered));
        assert.deepEqual({ outcome, written, told }, { outcome: row.ok ? { ok: true } : { ok: false, error: row.error }, written: row.written, told: row.told });
        assert.equal(pushed, row.ok ? 3 : 2, 'the panel is sent each state computed');
      });
    }
  });
});
