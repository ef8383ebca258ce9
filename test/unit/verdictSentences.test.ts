import * as assert from 'node:assert/strict';
import type { Grant } from '../../src/core/approval/grants';
import { cardSentence, reasonSentence, writeClause, type Because, type Verdict } from '../../src/core/approval/verdictSentences';

/** One fact, two audiences: the audit log (and the model and the API) and the person's card. */
describe('verdict sentences: rendered from the typed kind, one renderer per audience', () => {
  const grant: Grant = { id: 'g', tool: 'run_in_terminal', matcher: { kind: 'command', prefix: 'npm run' }, scope: 'session', createdAt: '2026-01-01T00:00:00.000Z' };
  const rows: { because: Because; verdict: Verdict; reason: string; plain: string }[] = [
    { because: { kind: 'unknown-tool', tool: 'format_disk' }, verdict: 'ask', reason: "asks: 'format_disk' is not a known tool", plain: '`format_disk` is not a tool Toolgate knows, so it asks.' },
    { because: { kind: 'interact', label: 'ask_user' }, verdict: 'allow', reason: 'allowed: ask_user only asks the person', plain: 'Only asks you a question.' },
    { because: { kind: 'own-storage', path: '/s/audit.log' }, verdict: 'deny', reason: "denied: /s/audit.log is inside Toolgate's own storage, which the agent may not change", plain: "Denied: `/s/audit.log` is inside Toolgate's own storage, which the agent may not change." },
    { because: { kind: 'outside', risk: 'execute', real: '/etc' }, verdict: 'ask', reason: 'asks: commands run outside the workspace always ask (/etc)', plain: 'Runs in `/etc`, outside the workspace; that always asks.' },
    { because: { kind: 'false-rule', setting: 'toolgate.autoApprove.edits', path: 'a.lock', key: '**/*.lock' }, verdict: 'ask', reason: 'asks: edits matching `**/*.lock` always ask (rule set to false)', plain: 'Writes `a.lock`, which `**/*.lock` in toolgate.autoApprove.edits sets to always ask.' },
    { because: { kind: 'command' }, verdict: 'ask', reason: 'asks: the command could not be analysed', plain: 'The command could not be analysed, so it asks.' },
    { because: { kind: 'grant', grant, alongside: { ruleKeys: ['ls'] } }, verdict: 'allow', reason: 'allowed: session grant for run_in_terminal: commands starting with `npm run` (every sub-command is covered by a rule or grant)', plain: 'Allowed by your session grant for run_in_terminal: commands starting with `npm run`, and `ls` in toolgate.autoApprove.terminal.' },
    { because: { kind: 'grant', grant }, verdict: 'allow', reason: 'allowed: session grant for run_in_terminal: commands starting with `npm run`', plain: 'Allowed by your session grant for run_in_terminal: commands starting with `npm run`.' },
    { because: { kind: 'gated', label: 'mcp__s__t', server: 's' }, verdict: 'ask', reason: 'asks: mcp__s__t is gated', plain: "Calls `mcp__s__t`, which asks before it runs (the server's requireApproval)." },
    { because: { kind: 'gated', label: 'read_file', builtin: 'read_file' }, verdict: 'ask', reason: 'asks: read_file is gated', plain: 'Reads a file; reads ask here (toolgate.gatedTools).' },
    {
      because: { kind: 'unconfined', noSandbox: 'bwrap is missing', otherwise: { kind: 'not-gated', label: 'run_in_terminal' } }, verdict: 'ask',
      reason: 'asks: no sandbox here (bwrap is missing), so no rule or grant allows a command',
      plain: '`run_in_terminal` is not gated, so it runs without asking. But there is no sandbox here, so it would run unconfined; that always asks.',
    },
  ];
  for (const row of rows) {
    it(`${row.because.kind} (${row.verdict}): ${row.plain}`, () => {
      assert.equal(reasonSentence(row.verdict, row.because), row.reason);
      assert.equal(cardSentence(row.because), row.plain);
    });
  }

  const clauses: { verdict: Verdict; because: Because; clause: string }[] = [
    { verdict: 'ask', because: { kind: 'gated', label: 'write_file', builtin: 'write_file' }, clause: 'write_file there would ask: write_file is gated' },
    { verdict: 'deny', because: { kind: 'own-storage', path: '/s/x' }, clause: "write_file there is denied: /s/x is inside Toolgate's own storage, which the agent may not change" },
  ];
  for (const row of clauses) {
    it(`a command's redirect says how write_file would be judged (${row.verdict}), from the facts and not by rewording`, () => {
      assert.equal(writeClause(row.verdict, row.because), row.clause);
    });
  }
});
