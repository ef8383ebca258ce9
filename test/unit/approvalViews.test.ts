import * as assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PathResolver } from '../../src/core/approval/paths';
import { judge, type PolicyContext } from '../../src/core/approval/policy';
import { commandAnalysisLines } from '../../src/core/views/pendingCall';
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

  it('a redirect is still listed, with where it writes', () => {
    const call = gateCall('run_in_terminal', { command: 'echo hi > out.txt' }, resolver, { home: '/home/someone' });
    const lines = commandAnalysisLines(call, judge(call, context({}))).map((line) => line.text);
    assert.deepEqual(lines, [`redirect > out.txt -> ${path.join(root, 'out.txt')}`]);
  });
});
