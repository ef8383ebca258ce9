import * as assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PathResolver } from '../../src/core/approval/paths';
import { judge, type PolicyContext } from '../../src/core/approval/policy';
import { commandAnalysisLines, pendingViews } from '../../src/core/views/pendingCall';
import { createMemoryGate } from '../fixtures/memoryGate';
import { defaultGatedTools, defaultProtectedPaths } from '../../src/core/settings';
import { initShellParser } from '../../src/core/shell/analysis';
import { gateCall } from '../../src/core/tools/gateCall';

describe('a command card says its reason once', () => {
  let root: string;
  let resolver: PathResolver;
  before(async () => {
    await initShellParser();
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-views-')));
    resolver = new PathResolver([root]);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  const context = (terminalRules: Record<string, boolean>): PolicyContext => ({
    gatedTools: defaultGatedTools,
    editRules: {},
    terminalRules,
    protectedPaths: defaultProtectedPaths,
    trusted: true,
    grants: [],
    forbiddenRoots: [],
    sandbox: { available: true },
    locate: (absolute) => resolver.locate(absolute),
  });

  const rows: { name: string; command: string; rules: Record<string, boolean>; lines: string[] }[] = [
    { name: 'one command: the card reason alone, no analysis line repeats it', command: 'npm test', rules: {}, lines: [] },
    {
      name: 'two commands: the one the reason is about points to it, the other says what allows it',
      command: 'ls && wget x',
      rules: { ls: true },
      lines: ['ls: allowed by `ls`', 'wget x: asks (the reason above)'],
    },
    {
      name: 'a false rule and a command no rule allows: each once',
      command: 'npm test && rm -rf build',
      rules: { rm: false },
      lines: ['npm test: no rule allows `npm` yet', 'rm -rf build: asks (the reason above)'],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const call = gateCall('run_in_terminal', { command: row.command }, resolver, { home: '/home/someone' });
      const judgement = judge(call, context(row.rules));
      const lines = commandAnalysisLines(call, judgement).map((line) => line.text);
      assert.deepEqual(lines, row.lines);
      assert.ok(!lines.includes(judgement.plain) && !lines.includes(judgement.reason), 'the line verdict is not repeated');
    });
  }

  it("an edited command is analysed as the proposal was, in the card's edit, and follows each new text", () => {
    const { gate } = createMemoryGate({ terminalRules: { 'git status': true, rm: false }, locate: (absolute) => resolver.locate(absolute) });
    // A proposal that asks (a false rule), so that it waits for the person, who edits it.
    const command = 'rm x';
    const input = {
      call: gateCall('run_in_terminal', { command }, resolver, { home: '/home/someone' }),
      preview: { kind: 'command' as const, command, cwd: root, analysis: [] },
      source: 'agent',
      editable: { kind: 'command' as const, text: command },
      editedCall: (text: string) => gateCall('run_in_terminal', { command: text }, resolver, { home: '/home/someone' }),
    };
    void gate.request([input], { chatId: 'c' });
    const [waiting] = pendingViews(gate, 'c');
    assert.ok(waiting);
    assert.equal(waiting.edit?.analysis, undefined, 'nothing to analyse before an edit');
    assert.deepEqual(gate.setEdit(waiting, 'git status > s.txt; rm -rf build', 'chat'), { ok: true });
    const edited = pendingViews(gate, 'c')[0]?.edit?.analysis;
    assert.equal(edited?.plain, 'Runs `rm`, which `rm` in toolgate.autoApprove.terminal sets to always ask.');
    assert.deepEqual(edited.lines.map((line) => line.text), ['git status: allowed by `git status`', 'rm -rf build: asks (the reason above)', `redirect > s.txt -> ${path.join(root, 's.txt')}`]);
    gate.setEdit(waiting, 'git status', 'chat');
    assert.equal(pendingViews(gate, 'c')[0]?.edit?.analysis?.plain, 'Allowed by `git status` in toolgate.autoApprove.terminal.');
    gate.cancel('test over');
  });

  it('a redirect is still listed, with where it writes', () => {
    const call = gateCall('run_in_terminal', { command: 'echo hi > out.txt' }, resolver, { home: '/home/someone' });
    const lines = commandAnalysisLines(call, judge(call, context({}))).map((line) => line.text);
    assert.deepEqual(lines, [`redirect > out.txt -> ${path.join(root, 'out.txt')}`]);
  });
});
