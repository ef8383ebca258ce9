import * as assert from 'node:assert/strict';
import type { GateInput, GateResult } from '../../src/core/approval/gate';
import { PathResolver } from '../../src/core/approval/paths';
import { initShellParser } from '../../src/core/shell/analysis';
import { gateCall } from '../../src/core/tools/gateCall';
import { createMemoryGate } from '../fixtures/memoryGate';
import { pendingViews } from '../../src/core/views/pendingCall';

const resolver = new PathResolver(['/ws']);
const command = (text: string): GateInput => ({ call: gateCall('run_in_terminal', { command: text }, resolver), preview: { kind: 'command', command: text, cwd: '/ws', analysis: [] }, source: 'agent' });

/** The gate's verdict for one call of a task, and its reason; a call that asks is left waiting (then denied). */
async function decide(gate: ReturnType<typeof createMemoryGate>['gate'], input: GateInput, taskId: string): Promise<{ verdict: string; reason: string; waiting: boolean }> {
  const [promise] = gate.request([input], { chatId: 'c', turn: { taskId } });
  assert.ok(promise);
  const [pending] = pendingViews(gate);
  if (pending) {
    const reason = pending.reason;
    gate.settle(pending, { action: 'deny' });
    await promise;
    return { verdict: 'ask', reason, waiting: true };
  }
  const result: GateResult = await promise;
  return { verdict: result.verdict, reason: result.reason, waiting: false };
}

describe('caps on what runs without asking', () => {
  before(() => initShellParser());

  const rows: { name: string; max: number; calls: number; asksAt: number | undefined }[] = [
    { name: 'maxConsecutive 3: the fourth auto-allowed call of the task asks', max: 3, calls: 5, asksAt: 3 },
    { name: 'maxConsecutive 0: no cap', max: 0, calls: 6, asksAt: undefined },
    { name: 'maxConsecutive 1: the second asks', max: 1, calls: 2, asksAt: 1 },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const { gate } = createMemoryGate({ terminalRules: { 'npm test': true } }, undefined, { maxConsecutive: row.max });
      const verdicts: string[] = [];
      for (let index = 0; index < row.calls; index++) {
        const outcome = await decide(gate, command('npm test'), 't1');
        verdicts.push(outcome.verdict);
        if (outcome.waiting) {
          assert.match(outcome.reason, new RegExp(`^${row.max} calls in a row ran without asking in this task, so this one asks \\(\`toolgate\\.autoApprove\\.maxConsecutive\` is ${row.max}\\)`));
          break;
        }
      }
      const expected = Array.from({ length: row.asksAt === undefined ? row.calls : row.asksAt + 1 }, (_, index) => (index === row.asksAt ? 'ask' : 'allow'));
      assert.deepEqual(verdicts, expected);
    });
  }

  it('the count is per task, and a call the person allows starts it again', async () => {
    const { gate } = createMemoryGate({ terminalRules: { 'npm test': true } }, undefined, { maxConsecutive: 2 });
    assert.equal((await decide(gate, command('npm test'), 't1')).verdict, 'allow');
    assert.equal((await decide(gate, command('npm test'), 't1')).verdict, 'allow');
    assert.equal((await decide(gate, command('npm test'), 't2')).verdict, 'allow', 'another task has its own count');
    // The third of t1 asks; the person allows it, and the count starts again.
    const [third] = gate.request([command('npm test')], { chatId: 'c', turn: { taskId: 't1' } });
    const [pending] = pendingViews(gate);
    assert.ok(third && pending);
    gate.settle(pending, { action: 'allow-once' });
    assert.equal((await third).verdict, 'allow');
    assert.equal((await decide(gate, command('npm test'), 't1')).verdict, 'allow');
    // Ungated calls (reads) do not count.
    const { gate: reads } = createMemoryGate({ terminalRules: { 'npm test': true } }, undefined, { maxConsecutive: 1 });
    const read: GateInput = { call: gateCall('read_file', { path: 'a.txt' }, resolver), preview: { kind: 'none' }, source: 'agent' };
    assert.deepEqual([await decide(reads, read, 't1'), await decide(reads, read, 't1')].map((outcome) => outcome.verdict), ['allow', 'allow']);
    assert.equal((await decide(reads, command('npm test'), 't1')).verdict, 'allow', 'the first rule-allowed call of the task');
    // Calls outside a task (the API) are not capped.
    const [api] = gate.request([command('npm test')], { chatId: 'api' });
    assert.equal((await api)?.verdict, 'allow');
  });

  it('the same call failing three times in a task asks before running again, saying why; a success or another task clears it', async () => {
    const { gate } = createMemoryGate({ terminalRules: { 'npm test': true } });
    const call = command('npm test');
    for (let failure = 0; failure < 3; failure++) {
      assert.equal((await decide(gate, call, 't1')).verdict, 'allow', `run ${failure + 1}`);
      gate.noteRun({ taskId: 't1' }, call.call.argsHash, false);
    }
    const fourth = await decide(gate, call, 't1');
    assert.equal(fourth.verdict, 'ask');
    assert.match(fourth.reason, /^This exact call already failed 3 times in this task, so it asks before running again\.$/);
    assert.equal((await decide(gate, command('npm test --silent'), 't1')).verdict, 'allow', 'other arguments are another call');
    assert.equal((await decide(gate, call, 't2')).verdict, 'allow', 'another task');
    gate.noteRun({ taskId: 't1' }, call.call.argsHash, true);
    assert.equal((await decide(gate, call, 't1')).verdict, 'allow', 'a success clears the count');
  });

  it('a call that asks anyway says it failed before too', async () => {
    const { gate } = createMemoryGate();
    const call = command('make build');
    for (let failure = 0; failure < 3; failure++) {
      gate.noteRun({ taskId: 't1' }, call.call.argsHash, false);
    }
    const outcome = await decide(gate, call, 't1');
    assert.match(outcome.reason, /^Runs `make`, which no rule allows yet\. This exact call already failed 3 times in this task/);
  });
});
