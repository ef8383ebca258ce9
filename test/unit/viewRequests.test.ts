import * as assert from 'node:assert/strict';
import type { AgentSession } from '../../src/core/agent/session';
import type { GateInput } from '../../src/core/approval/gate';
import { canonicalJson } from '../../src/core/approval/hash';
import { PathResolver } from '../../src/core/approval/paths';
import { gateCall } from '../../src/core/tools/gateCall';
import { chatRequests } from '../../src/core/views/viewRequests';
import { forViews, pendingViews } from '../../src/core/views/pendingCall';
import { PendingCallView, type DiffRow } from '../../src/shared/approvals';
import { createMemoryGate } from '../fixtures/memoryGate';

const resolver = new PathResolver(['/ws']);
const write = (relative: string, source: string): GateInput => ({ call: gateCall('write_file', { path: relative, content: 'x' }, resolver), preview: { kind: 'none' }, source });

describe("the chat's requests", () => {
  it("opens a task's changed file, or a finished write's change, only as the chat's own entry says: never from the message", async () => {
    const { gate } = createMemoryGate();
    const opened: string[] = [];
    const agent = {
      taskChange: (entryId: string, file: string) => (entryId === 'c-1' && file === 'a.txt' ? { chatId: 'c', taskId: 't-1' } : undefined),
      callChange: (entryId: string) => (entryId === 't-1' ? { chatId: 'c', taskId: 't-1', turn: 0, file: 'a.txt' } : undefined),
    };
    const changes = {
      open: (chatId: string, taskId: string, file: string) => (opened.push(`${chatId}/${taskId}/${file}`), Promise.resolve({ ok: true as const })),
      openCall: (call: { chatId: string; taskId: string; turn: number; file: string }) => (opened.push(`${call.chatId}/${call.taskId}/${call.turn}/${call.file}`), Promise.resolve({ ok: true as const })),
    };
    const handle = chatRequests((agent as unknown) as AgentSession, gate, {} as never, {} as never, {} as never, {} as never, changes, {} as never, {} as never);
    assert.deepEqual(await handle({ type: 'openTaskChange', requestId: 'r1', entryId: 'c-1', file: 'a.txt' }), { ok: true });
    assert.deepEqual(await handle({ type: 'openTaskChange', requestId: 'r2', entryId: 'c-1', file: '/etc/passwd' }), { ok: false, error: 'entry c-1 lists no /etc/passwd' });
    assert.deepEqual(await handle({ type: 'openTaskChange', requestId: 'r3', entryId: 'c-9', file: 'a.txt' }), { ok: false, error: 'entry c-9 lists no a.txt' });
    // A finished write's own change: the entry must be one the host marked, nothing else is read.
    assert.deepEqual(await handle({ type: 'openCallChange', requestId: 'r4', entryId: 't-1' }), { ok: true });
    assert.deepEqual(await handle({ type: 'openCallChange', requestId: 'r5', entryId: 'u-1' }), { ok: false, error: 'entry u-1 is not a write or edit that ran' });
    assert.deepEqual(opened, ['c/t-1/a.txt', 'c/t-1/0/a.txt']);
  });

  it("a turn's Undo reads the task and turn from the chat's own entry, and waits for the task to end", async () => {
    const { gate } = createMemoryGate();
    let running = false;
    const asked: string[] = [];
    const agent = {
      get isRunning() {
        return running;
      },
      turnOf: (entryId: string) => (entryId === 't-1' ? { chatId: 'c', taskId: 'task-1', turn: 2 } : undefined),
    };
    const undo = {
      preview: (request: { taskId?: string; turn?: number }) => {
        asked.push(`preview ${request.taskId ?? '?'}/${request.turn ?? '?'}`);
        return Promise.resolve({ kind: 'preview' as const, chatId: 'c', taskId: 'task-1', turns: [2], lines: [{ group: 'revert' as const, file: 'a.txt', text: 'a.txt: put back' }], notes: [] });
      },
      undoTurn: (ref: { taskId: string; turn: number }) => {
        asked.push(`undo ${ref.taskId}/${ref.turn}`);
        return Promise.resolve({ kind: 'not-undone' as const, reason: 'nothing-to-undo' as const, message: 'turn 3 of task "x" was already undone' });
      },
    };
    const handle = chatRequests((agent as unknown) as AgentSession, gate, {} as never, {} as never, {} as never, {} as never, {} as never, {} as never, undo);
    assert.deepEqual(await handle({ type: 'previewUndo', requestId: 'r1', entryId: 't-1' }), { ok: true, undoPreview: { turn: 2, lines: [{ group: 'revert', text: 'a.txt: put back' }], notes: [], undoable: true } });
    assert.deepEqual(await handle({ type: 'undoTurn', requestId: 'r2', entryId: 't-1' }), { ok: false, error: 'Nothing was undone: turn 3 of task "x" was already undone.' });
    assert.deepEqual(await handle({ type: 'undoTurn', requestId: 'r3', entryId: 'u-9' }), { ok: false, error: "entry u-9 is not a call of one of this chat's tasks" });
    running = true;
    assert.deepEqual(await handle({ type: 'undoTurn', requestId: 'r4', entryId: 't-1' }), { ok: false, error: 'The task is still running: stop it or wait for it to end, then undo its turn.' });
    assert.deepEqual(asked, ['preview task-1/2', 'undo task-1/2']);
  });

  it("Allow all from the chat settles only the chat's own agent calls: a batch naming another call is refused whole", async () => {
    const { gate } = createMemoryGate();
    const waits = gate.request([write('a.txt', 'agent'), write('b.txt', 'agent'), write('c.txt', 'api')], { chatId: 'c' });
    // Only what decideAll reads of the session and the views' ports: the boundary is faked, the gate is real.
    const handle = chatRequests(({ chatId: 'c' } as unknown) as AgentSession, gate, {} as never, {} as never, {} as never, {} as never, {} as never, {} as never, {} as never);
    const views = pendingViews(gate, 'c');
    const refs = views.map(({ callId, argsHash }) => ({ callId, argsHash }));
    const api = views.find((view) => view.source === 'api');
    assert.ok(api);
    const refused = await handle({ type: 'decideAll', requestId: 'r1', action: 'allow-all', calls: refs });
    assert.deepEqual(refused, { ok: false, error: `call ${api.callId} is not one this chat shows` });
    assert.equal(gate.waitingCount, 3, 'nothing was settled');
    const allowed = await handle({ type: 'decideAll', requestId: 'r2', action: 'deny-all', calls: refs.filter((ref) => ref.callId !== api.callId) });
    assert.deepEqual(allowed, { ok: true });
    assert.deepEqual(pendingViews(gate, 'c').map((view) => view.source), ['api']);
    gate.cancel('test over');
    await Promise.all(waits);
  });
});

describe('large texts stay in the host', () => {
  const big = 'line of the proposed file\n'.repeat(4000);
  const cases: { name: string; args: Record<string, unknown>; editable?: GateInput['editable']; cut: boolean; text: boolean }[] = [
    { name: 'small arguments and content: exact, and the content for the Edit box', args: { path: 'a.txt', content: 'x\n' }, editable: { kind: 'content', text: 'x\n' }, cut: false, text: true },
    { name: 'a 100 KB write: its content cut to its start, and edited in the diff editor', args: { path: 'a.txt', content: big }, editable: { kind: 'content', text: big }, cut: true, text: false },
    { name: 'a long command stays editable in its box', args: { command: `echo ${'y'.repeat(70_000)}` }, editable: { kind: 'command', text: `echo ${'y'.repeat(70_000)}` }, cut: true, text: true },
  ];
  for (const row of cases) {
    it(row.name, async () => {
      const { gate } = createMemoryGate();
      const tool = 'command' in row.args ? 'run_in_terminal' : 'write_file';
      const input: GateInput = { call: gateCall(tool, row.args, resolver), preview: { kind: 'none' }, source: 'agent', ...(row.editable ? { editable: row.editable } : {}) };
      const waits = gate.request([input], { chatId: 'c' });
      const [view] = pendingViews(gate);
      assert.ok(view);
      const whole = JSON.stringify(JSON.parse(canonicalJson(row.args)), null, 2);
      assert.equal(view.argsCut, row.cut ? whole.length : undefined);
      if (row.cut) {
        assert.ok(view.argsJson.length < 3_000, `cut to ${view.argsJson.length} characters`);
        assert.match(view.argsJson, /… \([\d,]+ more characters\)"/);
      } else {
        assert.equal(view.argsJson, whole);
      }
      assert.equal(view.editable !== undefined && 'text' in view.editable, row.text);
      if (!row.text) {
        assert.deepEqual(view.editable, { kind: 'content', chars: big.length });
      }
      // The view fits the contract the webview checks.
      assert.equal(PendingCallView.safeParse(view).success, true);
      // The whole arguments open in an editor, from either view, for a call that waits; not for one that does not.
      const opened: string[] = [];
      const editors = { proposed: { openDiff: () => Promise.resolve() }, args: { open: (callId: string) => (opened.push(callId), Promise.resolve({ ok: true as const })) } };
      const handle = chatRequests(({ chatId: 'c' } as unknown) as AgentSession, gate, {} as never, editors, {} as never, {} as never, {} as never, {} as never, {} as never);
      assert.deepEqual(await handle({ type: 'openArgs', requestId: 'r1', callId: view.callId }), { ok: true });
      assert.deepEqual(opened, [view.callId]);
      gate.cancel('test over');
      await Promise.all(waits);
    });
  }
});

describe('a long diff goes to the views with its first rows, the rest on request', () => {
  const rows = (count: number, from = 1): DiffRow[] => Array.from({ length: count }, (_, i) => ['a', null, from + i, `line ${from + i}`]);
  const diffCall = (hunkSizes: number[]): GateInput => ({
    call: gateCall('write_file', { path: 'big.ts', content: 'x' }, resolver),
    preview: { kind: 'diff', path: 'big.ts', isNewFile: false, added: 0, removed: 0, hunks: hunkSizes.map((size, index) => ({ header: `@@ hunk ${index} @@`, rows: rows(size) })) },
    source: 'agent',
  });
  const table: { name: string; hunks: number[]; sent: number[]; cut: (number | undefined)[] }[] = [
    { name: 'a short diff is sent whole (the same object)', hunks: [400, 600], sent: [400, 600], cut: [undefined, undefined] },
    { name: 'a rewritten file: its first 300 rows', hunks: [20_000], sent: [300], cut: [20_000] },
    { name: 'many hunks: the first 300 rows in file order, later hunks none yet', hunks: [200, 200, 700], sent: [200, 100, 0], cut: [undefined, 200, 700] },
  ];
  for (const row of table) {
    it(row.name, async () => {
      const { gate } = createMemoryGate();
      const waits = gate.request([diffCall(row.hunks)], { chatId: 'c' });
      const [view] = pendingViews(gate);
      assert.ok(view && view.preview.kind === 'diff');
      const shown = forViews(view);
      assert.equal(forViews(view), shown, 'the same object while the call is unchanged (the patch tells a change by it)');
      assert.equal(shown === view, row.cut.every((count) => count === undefined));
      assert.ok(shown.preview.kind === 'diff');
      assert.deepEqual(shown.preview.hunks.map((hunk) => hunk.rows.length), row.sent);
      assert.deepEqual(shown.preview.hunks.map((hunk) => hunk.rowCount), row.cut);
      assert.equal(PendingCallView.safeParse(shown).success, true);
      const handle = chatRequests(({ chatId: 'c' } as unknown) as AgentSession, gate, {} as never, {} as never, {} as never, {} as never, {} as never, {} as never, {} as never);
      const answer = await handle({ type: 'loadDiffRows', requestId: 'r1', callId: view.callId, argsHash: view.argsHash });
      assert.deepEqual(answer, { ok: true, diffRows: view.preview.hunks.map((hunk) => hunk.rows) });
      const stale = await handle({ type: 'loadDiffRows', requestId: 'r2', callId: view.callId, argsHash: 'f'.repeat(64) });
      assert.equal(stale.ok, false, 'rows of other arguments are refused');
      gate.cancel('test over');
      await Promise.all(waits);
    });
  }
});
