import * as assert from 'node:assert/strict';
import type { GateInput, GateResult } from '../../src/core/approval/gate';
import { describeGrant, GrantStore, readWorkspaceGrants, workspaceGrantsKey } from '../../src/core/approval/grants';
import { apiSource, callerLabel, grantCaller, lmToolCaller, mcpClientSource } from '../../src/core/callers';
import { PathResolver } from '../../src/core/approval/paths';
import type { GateCall } from '../../src/core/approval/policy';
import { gateCall } from '../../src/core/tools/gateCall';
import { createMemoryGate, MemoryStore } from '../fixtures/memoryGate';
import { pendingView, pendingViews } from '../../src/core/views/pendingCall';

const resolver = new PathResolver(['/ws']);

function writeCall(relative: string, content: string): GateCall {
  return gateCall('write_file', { path: relative, content }, resolver);
}

function input(call: GateCall): GateInput {
  return { call, preview: { kind: 'none' }, source: 'test', editable: { kind: 'content', text: 'x' } };
}

const setup = createMemoryGate;

async function only(promises: Promise<GateResult>[]): Promise<GateResult> {
  assert.equal(promises.length, 1);
  const [first] = promises;
  assert.ok(first);
  return first;
}

describe('the gate', () => {
  it('when the window goes, every waiting call is denied and logged as not run (shutdown); the next start finds none open', async () => {
    const { gate, entries, audit } = setup();
    const waits = gate.request([input(writeCall('a.txt', 'x')), input(writeCall('b.txt', 'y')), input(writeCall('c.txt', 'z'))], { chatId: 'c' });
    gate.dispose();
    const results = await Promise.all(waits);
    assert.deepEqual(
      results.map((result) => [result.verdict, result.decidedBy]),
      [['deny', 'cancel'], ['deny', 'cancel'], ['deny', 'cancel']],
    );
    await audit.flush();
    const closed = entries.filter((entry) => entry.verdict === 'deny');
    assert.deepEqual(closed.map((entry) => entry.notRun), ['shutdown', 'shutdown', 'shutdown']);
    assert.match(closed[0]?.reason ?? '', /the window was closed or reloaded while it waited/);
    const { unclosedAsks } = await import('../../src/core/audit/recovery');
    assert.deepEqual(unclosedAsks(entries.map((entry) => JSON.stringify(entry))), []);
  });

  it('allows at once what the policy allows, and logs who decided', async () => {
    const { gate, entries, audit } = setup({ gatedTools: { write_file: false } });
    const result = await only(gate.request([input(writeCall('a.txt', 'x'))], { chatId: 'c' }));
    assert.equal(result.verdict, 'allow');
    await audit.flush();
    assert.equal(entries.length, 1);
    assert.equal(entries[0]?.decidedBy, 'setting');
  });

  it('decide: a call decided without asking is its result itself, logged at once; one that asks is a promise', async () => {
    const { gate, entries, audit } = setup({ gatedTools: { write_file: false, edit_file: true } });
    const edit = gateCall('edit_file', { path: 'b.txt', old: 'x', new: 'y' }, resolver);
    const [allowed, asking] = gate.decide([input(writeCall('a.txt', 'x')), input(edit)], { chatId: 'c' });
    assert.ok(allowed !== undefined && !(allowed instanceof Promise));
    assert.deepEqual([allowed.verdict, allowed.decidedBy], ['allow', 'setting']);
    assert.ok(asking instanceof Promise);
    assert.equal(gate.waitingCount, 1);
    await audit.flush();
    assert.deepEqual(entries.map((entry) => [entry.tool, entry.verdict]), [['write_file', 'allow'], ['edit_file', 'ask']]);
    gate.cancel('done');
    assert.equal((await asking).verdict, 'deny');
  });

  it('denied by the person: the reason reaches the caller and the log', async () => {
    const { gate, entries, audit } = setup();
    const wait = only(gate.request([input(writeCall('a.txt', 'x'))], { chatId: 'c' }));
    const [pending] = pendingViews(gate);
    assert.ok(pending);
    assert.deepEqual(
      gate.settle(pending, { action: 'deny', reason: 'use b.txt' }),
      { ok: true },
    );
    const result = await wait;
    assert.deepEqual(result.verdict === 'deny' ? [result.personReason, result.decidedBy] : [], ['use b.txt', 'person']);
    await audit.flush();
    assert.deepEqual(entries.map((e) => `${e.verdict}/${e.decidedBy}`), ['ask/policy', 'deny/person']);
  });

  it("lists one chat's waiting calls for that chat's inline cards, and every call for the panel", async () => {
    const { gate } = setup();
    const waits = [
      ...gate.request([input(writeCall('a.txt', 'x'))], { chatId: 'c1' }),
      ...gate.request([input(writeCall('b.txt', 'x'))], { chatId: 'c2' }),
      ...gate.request([input(writeCall('c.txt', 'x'))], { chatId: 'c1' }),
    ];
    const paths = (chatId?: string): string[] => pendingViews(gate, chatId).map((view) => (JSON.parse(view.argsJson) as { path: string }).path);
    assert.deepEqual(paths('c1'), ['a.txt', 'c.txt']);
    assert.deepEqual(paths('c2'), ['b.txt']);
    assert.deepEqual(paths('other'), []);
    assert.deepEqual(paths(), ['a.txt', 'b.txt', 'c.txt']);
    gate.cancel('done');
    await Promise.all(waits);
  });

  it('allow once does not let the next identical call through', async () => {
    const { gate } = setup();
    const first = only(gate.request([input(writeCall('a.txt', 'x'))], { chatId: 'c' }));
    const [pending] = pendingViews(gate);
    assert.ok(pending);
    gate.settle(pending, { action: 'allow-once' });
    assert.equal((await first).verdict, 'allow');
    void gate.request([input(writeCall('a.txt', 'x'))], { chatId: 'c' });
    assert.equal(gate.waitingCount, 1, 'the identical call asks again');
    gate.cancel('end');
  });

  it('allow for the session creates a grant for this chat only, with the chosen scope', async () => {
    const { gate, grants } = setup();
    const wait = only(gate.request([input(writeCall('src/a.ts', 'x'))], { chatId: 'chat-1' }));
    const [pending] = pendingViews(gate);
    assert.ok(pending);
    assert.deepEqual(pending.grantOptions.map((o) => o.id), ['exact', 'path', 'folder', 'tool']);
    gate.settle(pending, { action: 'allow-session', grantOption: 'folder' });
    const result = await wait;
    assert.equal(result.verdict, 'allow');
    assert.match(result.reason, /session grant for write_file: files matching src\/\*\*/);
    assert.equal(grants.sessionGrants('chat-1').length, 1);
    assert.equal((await only(gate.request([input(writeCall('src/b.ts', 'y'))], { chatId: 'chat-1' }))).verdict, 'allow');
    void gate.request([input(writeCall('src/b.ts', 'y'))], { chatId: 'chat-2' });
    assert.equal(gate.waitingCount, 1, 'a new chat starts with no session grants');
    gate.cancel('end');
  });

  it("a session grant for this file after a write covers the edit of the same file that follows (and only that file)", async () => {
    const { gate } = setup();
    const wait = only(gate.request([input(writeCall('src/a.ts', 'x'))], { chatId: 'chat-1' }));
    const [pending] = pendingViews(gate);
    assert.ok(pending);
    gate.settle(pending, { action: 'allow-session', grantOption: 'path' });
    assert.equal((await wait).verdict, 'allow');
    const edit = (relative: string): GateCall => gateCall('edit_file', { path: relative, edits: [{ old: 'x', new: 'y' }] }, resolver);
    assert.equal((await only(gate.request([input(edit('src/a.ts'))], { chatId: 'chat-1' }))).verdict, 'allow');
    void gate.request([input(edit('src/b.ts'))], { chatId: 'chat-1' });
    assert.equal(gate.waitingCount, 1, 'another file still asks');
    void gate.request([input(gateCall('run_in_terminal', { command: 'cat src/a.ts' }, resolver))], { chatId: 'chat-1' });
    assert.equal(gate.waitingCount, 2, 'the file grant covers writes and edits only');
    gate.cancel('end');
  });

  it('always allow in this workspace persists a versioned grant that a new store reads back', async () => {
    const store = new MemoryStore();
    const { gate } = setup({}, store);
    const wait = only(gate.request([input(writeCall('a.txt', 'x'))], { chatId: 'c' }));
    const [pending] = pendingViews(gate);
    assert.ok(pending);
    gate.settle(pending, { action: 'allow-workspace', grantOption: 'tool' });
    await wait;
    const stored = store.get(workspaceGrantsKey) as { version: number; grants: unknown[] };
    assert.equal(stored.version, 1);
    assert.equal(stored.grants.length, 1);
    const reopened = setup({}, store);
    assert.equal((await only(reopened.gate.request([input(writeCall('z.txt', 'q'))], { chatId: 'other' }))).verdict, 'allow');
  });

  it('refuses a session grant for a call no grant can cover (protected path)', () => {
    const { gate } = setup();
    const call = writeCall('.vscode/settings.json', '{}');
    void gate.request([input(call)], { chatId: 'c' });
    const [pending] = pendingViews(gate);
    assert.ok(pending);
    assert.equal(pending.grantable, false);
    const result = gate.settle(pending, { action: 'allow-workspace' });
    assert.equal(result.ok, false);
    assert.equal(gate.waitingCount, 1);
    gate.cancel('end');
  });

  it('refuses a grant option that was not offered', () => {
    const { gate } = setup();
    void gate.request([input(writeCall('a.txt', 'x'))], { chatId: 'c' });
    const [pending] = pendingViews(gate);
    assert.ok(pending);
    const result = gate.settle(pending, { action: 'allow-session', grantOption: 'glob-everything' });
    assert.equal(result.ok, false);
    gate.cancel('end');
  });

  it('edit then allow returns the edited text and logs it as edited', async () => {
    const { gate, entries, audit } = setup();
    const wait = only(gate.request([input(writeCall('a.txt', 'x'))], { chatId: 'c' }));
    const [pending] = pendingViews(gate);
    assert.ok(pending);
    gate.settle(pending, { action: 'allow-edited', edited: 'edited!' });
    const result = await wait;
    assert.equal(result.verdict === 'allow' ? result.edited : undefined, 'edited!');
    await audit.flush();
    assert.equal(entries.at(-1)?.edited, true);
  });

  it('shows the calls of one turn as one batch, and allow-all decides only the calls listed', async () => {
    const { gate } = setup();
    const waits = gate.request([input(writeCall('a.txt', '1')), input(writeCall('b.txt', '2')), input(writeCall('c.txt', '3'))], { chatId: 'c' });
    const views = pendingViews(gate);
    assert.equal(new Set(views.map((v) => v.batchId)).size, 1);
    const [a, b] = views;
    assert.ok(a && b);
    const outcome = gate.settleAll([a, b].map(({ callId, argsHash }) => ({ callId, argsHash })), { allow: true });
    assert.equal(outcome.decided, 2);
    assert.equal((await waits[0])?.verdict, 'allow');
    assert.equal((await waits[1])?.verdict, 'allow');
    assert.equal(gate.waitingCount, 1);
    gate.cancel('stop');
    assert.equal((await waits[2])?.decidedBy, 'cancel');
  });

  it('a grant made for one waiting call releases the others it covers', async () => {
    const { gate } = setup();
    const waits = gate.request([input(writeCall('src/a.ts', '1')), input(writeCall('src/b.ts', '2'))], { chatId: 'c' });
    const [first] = pendingViews(gate);
    assert.ok(first);
    gate.settle(first, { action: 'allow-session', grantOption: 'folder' });
    const results = await Promise.all(waits);
    assert.deepEqual(results.map((r) => `${r.verdict}/${r.decidedBy}`), ['allow/person', 'allow/grant']);
  });

  it('cancelling the task denies every waiting call', async () => {
    const { gate } = setup();
    const controller = new AbortController();
    const waits = gate.request([input(writeCall('a.txt', '1')), input(writeCall('b.txt', '2'))], { chatId: 'c', signal: controller.signal });
    controller.abort();
    for (const result of await Promise.all(waits)) {
      assert.equal(result.verdict, 'deny');
      assert.equal(result.decidedBy, 'cancel');
    }
  });

  it('evaluate() gives the verdict without asking or logging anything', async () => {
    const { gate, entries, audit } = setup();
    assert.equal(gate.evaluate(writeCall('a.txt', 'x'), { chatId: 'api', source: 'test' }).verdict, 'ask');
    await audit.flush();
    assert.equal(gate.waitingCount, 0);
    assert.equal(entries.length, 0);
  });
});

describe('grants are limited to the caller they were given to', () => {
  const claude = mcpClientSource('claude-code', '1.0.3');
  const fromCaller = (source: string, call: GateCall): GateInput => ({ call, preview: { kind: 'none' }, source });

  async function grantOn(source: string, chatId: string, store = new MemoryStore()): Promise<ReturnType<typeof setup>> {
    const made = setup({}, store);
    const wait = only(made.gate.request([fromCaller(source, writeCall('a.txt', 'x'))], { chatId }));
    const [pending] = pendingViews(made.gate);
    assert.ok(pending);
    made.gate.settle(pending, { action: 'allow-workspace', grantOption: 'tool' });
    assert.equal((await wait).verdict, 'allow');
    return made;
  }

  // What the card says of who asks and which grants it offers comes with the view: the webview decides none of it.
  const cards: { source: string; task: boolean; label: string; offered: string[]; cover?: string }[] = [
    { source: 'agent', task: true, label: "Toolgate's agent", offered: ['allow-session', 'allow-task', 'allow-minutes', 'allow-workspace'] },
    { source: claude, task: false, label: 'the MCP client claude-code 1.0.3', offered: ['allow-session', 'allow-minutes', 'allow-workspace'], cover: 'the MCP client claude-code' },
    { source: lmToolCaller, task: false, label: 'a VS Code tool call (another agent)', offered: ['allow-session', 'allow-minutes', 'allow-workspace'], cover: 'a VS Code tool call (another agent)' },
    { source: 'other.extension', task: false, label: 'other.extension', offered: ['allow-session', 'allow-minutes', 'allow-workspace'], cover: 'other.extension' },
  ];
  for (const card of cards) {
    it(`the card of a call from ${card.source} names it, offers ${card.offered.length} grants${card.cover !== undefined ? ' and says whom they cover' : ''}`, () => {
      const { gate } = setup();
      void gate.request([fromCaller(card.source, writeCall('a.txt', 'x'))], { chatId: 'c', ...(card.task ? { turn: { taskId: 't1' } } : {}) });
      const [view] = pendingViews(gate);
      assert.deepEqual([view?.callerLabel, view?.grantsOffered, view?.grantsCover], [card.label, card.offered, card.cover]);
      gate.cancel('done');
    });
  }

  const table: { given: string; asks: string; covered: boolean }[] = [
    { given: claude, asks: mcpClientSource('claude-code', '1.1.0'), covered: true },
    { given: claude, asks: mcpClientSource('codex', '0.9'), covered: false },
    { given: claude, asks: 'agent', covered: false },
    { given: claude, asks: lmToolCaller, covered: false },
    { given: claude, asks: apiSource(claude), covered: false },
    { given: 'agent', asks: 'agent', covered: true },
    { given: 'agent', asks: lmToolCaller, covered: false },
    { given: 'agent', asks: claude, covered: false },
    { given: 'agent', asks: apiSource('agent'), covered: false },
    { given: lmToolCaller, asks: lmToolCaller, covered: true },
    { given: lmToolCaller, asks: apiSource(lmToolCaller), covered: false },
    { given: 'other.extension', asks: 'other.extension', covered: true },
    { given: 'other.extension', asks: 'third.extension', covered: false },
  ];
  for (const row of table) {
    it(`a workspace grant given on a call from ${row.given} ${row.covered ? 'covers' : 'does not cover'} one from ${row.asks}`, async () => {
      const { gate, grants } = await grantOn(row.given, 'c');
      const [grant] = grants.workspaceGrants();
      assert.equal(grant?.caller, grantCaller(row.given));
      assert.equal(gate.evaluate(writeCall('b.txt', 'y'), { chatId: 'c', source: row.asks }).verdict, row.covered ? 'allow' : 'ask');
    });
  }

  it('a session grant of one caller is not read by another in the same chat, and its reason never names it', async () => {
    const { gate } = await grantOn(claude, 'shared');
    const judged = gate.evaluate(writeCall('b.txt', 'y'), { chatId: 'shared', source: mcpClientSource('codex', '1') });
    assert.equal(judged.verdict, 'ask');
    assert.doesNotMatch(judged.reason, /claude/);
  });

  it('a grant stored before callers were recorded covers the agent and the API, never an outside agent', () => {
    const store = new MemoryStore();
    void store.update(workspaceGrantsKey, {
      version: 1,
      grants: [{ id: 'g-old', tool: 'write_file', matcher: { kind: 'tool' }, scope: 'workspace', createdAt: '2026-01-01T00:00:00.000Z' }],
    });
    const { gate } = setup({}, store);
    const verdicts = ['agent', 'other.extension', lmToolCaller, claude].map((source) => gate.evaluate(writeCall('b.txt', 'y'), { chatId: 'c', source }).verdict);
    assert.deepEqual(verdicts, ['allow', 'allow', 'ask', 'ask']);
  });

  it('the grant list says whom a grant is for', async () => {
    const { grants } = await grantOn(claude, 'c');
    const [grant] = grants.workspaceGrants();
    assert.ok(grant);
    assert.equal(describeGrant(grant), 'workspace grant for write_file: every call (for the MCP client claude-code only)');
  });
});

describe('callers', () => {
  const sources: [string, string | undefined, string][] = [
    ['no name', undefined, 'api'],
    ['its own name', 'my.extension', 'my.extension'],
    ["the agent's", 'agent', 'api'],
    ["the language-model tools'", lmToolCaller, 'api'],
    ["an MCP client's", 'mcp-client:claude-code@1', 'api'],
    ['one with a line break and an @', 'a\nb@c', 'a_b_c'],
  ];
  for (const [what, given, expected] of sources) {
    it(`an API call naming ${what} is recorded as ${expected}`, () => {
      assert.equal(apiSource(given), expected);
    });
  }

  it('an MCP client is named by what it said in initialize, tidied, and its grants outlive its version', () => {
    const source = mcpClientSource('evil@client\n', '2.0');
    assert.equal(source, 'mcp-client:evil_client_@2.0');
    assert.equal(grantCaller(source), 'mcp-client:evil_client_');
    assert.equal(callerLabel(source), 'the MCP client evil_client_ 2.0');
  });
});

describe('workspace grant storage', () => {
  const foreign: [string, unknown][] = [
    ['a string', 'allow everything'],
    ['an old version', { version: 0, grants: [] }],
    ['a future version', { version: 2, grants: [{ tool: 'write_file' }] }],
    ['a grant with an unknown matcher', { version: 1, grants: [{ id: 'g', tool: 'write_file', matcher: { kind: 'everything' }, scope: 'workspace', createdAt: 'x' }] }],
    ['an array', [{ id: 'g', tool: 'write_file', matcher: { kind: 'tool' }, scope: 'workspace', createdAt: 'x' }]],
    ['extra fields', { version: 1, grants: [], trustAll: true }],
  ];
  for (const [label, raw] of foreign) {
    it(`ignores ${label}, with a warning, and grants nothing`, () => {
      const result = readWorkspaceGrants(raw);
      assert.deepEqual(result.grants, []);
      assert.match(result.warning ?? '', /ignored the stored workspace grants/);
    });
  }

  it('never treats a stored session grant as a workspace grant', () => {
    const result = readWorkspaceGrants({
      version: 1,
      grants: [{ id: 'g', tool: 'write_file', matcher: { kind: 'tool' }, scope: 'session', createdAt: 'x' }],
    });
    assert.deepEqual(result.grants, []);
  });

  it('revokes and resets', async () => {
    const store = new MemoryStore();
    const grants = new GrantStore(store, () => undefined);
    await grants.add({ id: 'g1', tool: 'write_file', matcher: { kind: 'tool' }, scope: 'workspace', createdAt: 'x' }, 'c');
    await grants.add({ id: 'g2', tool: 'edit_file', matcher: { kind: 'tool' }, scope: 'workspace', createdAt: 'x' }, 'c');
    assert.equal(await grants.revoke('g1'), true);
    assert.deepEqual(grants.workspaceGrants().map((g) => g.id), ['g2']);
    assert.equal(await grants.resetWorkspace(), 1);
    assert.deepEqual(store.get(workspaceGrantsKey), { version: 1, revision: 4, grants: [] });
    assert.equal(await grants.revoke('g2'), false);
  });
});

describe("the gate's groups: a staged command's files decided on one card", () => {
  const group = { id: 'group-1', command: 'npm run format', changed: 3 };
  /** A member with `hunks` hunks (a diff preview; no editable content: a group member is reviewable without it). */
  function member(relative: string, hunks: number): GateInput {
    return {
      call: writeCall(relative, relative),
      preview: { kind: 'diff', path: relative, isNewFile: false, added: hunks, removed: 0, hunks: Array.from({ length: hunks }, (_, index) => ({ header: `@@ ${index} @@`, rows: [] })) },
      source: 'agent',
      group,
    };
  }
  type Row = {
    name: string;
    /** Per member (a.txt: 2 hunks, b.bin: 1, c.txt: 1): the hunks rejected before the decision, with a reason. */
    reject: Record<string, number[]>;
    /** Which member the decision is made on, and what. */
    on: string;
    choice: { action: 'allow-once' | 'deny'; reason?: string };
    settled: { ok: boolean; error?: RegExp };
    /** Each member's result: allow with its hunk decisions (rejected indices), or deny with the reason. */
    results?: Record<string, ['allow', number[]] | ['deny', string]>;
  };
  const rows: Row[] = [
    {
      name: 'Allow once on any member allows every member with its own hunk choices',
      reject: { 'a.txt': [1] },
      on: 'c.txt',
      choice: { action: 'allow-once' },
      settled: { ok: true },
      results: { 'a.txt': ['allow', [1]], 'b.bin': ['allow', []], 'c.txt': ['allow', []] },
    },
    {
      name: 'a member with every hunk rejected is denied, with the reasons given, while the rest is allowed',
      reject: { 'a.txt': [0, 1], 'b.bin': [0] },
      on: 'a.txt',
      choice: { action: 'allow-once' },
      settled: { ok: true },
      results: { 'a.txt': ['deny', 'no'], 'b.bin': ['deny', 'no'], 'c.txt': ['allow', []] },
    },
    {
      name: 'Deny on any member denies them all with the reason',
      reject: {},
      on: 'b.bin',
      choice: { action: 'deny', reason: 'not now' },
      settled: { ok: true },
      results: { 'a.txt': ['deny', 'not now'], 'b.bin': ['deny', 'not now'], 'c.txt': ['deny', 'not now'] },
    },
    {
      name: 'Allow once with every change rejected is refused (Deny is the way): all keep waiting',
      reject: { 'a.txt': [0, 1], 'b.bin': [0], 'c.txt': [0] },
      on: 'a.txt',
      choice: { action: 'allow-once' },
      settled: { ok: false, error: /every change of the group is rejected: use Deny/ },
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const { gate } = setup();
      const inputs = [member('a.txt', 2), member('b.bin', 1), member('c.txt', 1)];
      const waits = gate.request(inputs, { chatId: 'c', uncapped: true });
      const views = new Map(pendingViews(gate).map((view) => [view.preview.kind === 'diff' ? view.preview.path : '', view]));
      // The views add the reason the files share, said once on the card.
      const shared = { ...group, reason: 'Writes a file; writes always ask (toolgate.gatedTools).' };
      assert.deepEqual([...views.values()].map((view) => view.group), [shared, shared, shared]);
      for (const [path, indices] of Object.entries(row.reject)) {
        for (const index of indices) {
          const view = views.get(path);
          assert.ok(view);
          assert.deepEqual(gate.chooseHunk(view, index, false, 'no'), { ok: true });
        }
      }
      const target = views.get(row.on);
      assert.ok(target);
      const outcome = gate.settle(target, row.choice);
      assert.equal(outcome.ok, row.settled.ok);
      if (!outcome.ok) {
        assert.match(outcome.error, row.settled.error ?? /./);
        assert.equal(gate.waitingCount, 3);
        gate.cancel('end');
        await Promise.all(waits);
        return;
      }
      assert.equal(gate.waitingCount, 0);
      const results = await Promise.all(waits);
      const got = Object.fromEntries(
        ['a.txt', 'b.bin', 'c.txt'].map((path, index) => {
          const result = results[index];
          assert.ok(result);
          return [path, result.verdict === 'allow' ? ['allow', (result.hunks ?? []).filter((hunk) => !hunk.accepted).map((hunk) => hunk.index)] : ['deny', result.personReason ?? '']];
        }),
      );
      assert.deepEqual(got, row.results);
    });
  }

  it('Allow all with a group among the calls settles the group once, by its choices, and the others', async () => {
    const { gate } = setup();
    const waits = gate.request([member('a.txt', 2), member('b.bin', 1), input(writeCall('other.txt', 'x'))], { chatId: 'c', uncapped: true });
    const views = pendingViews(gate);
    const [a] = views;
    assert.ok(a);
    assert.deepEqual(gate.chooseHunk(a, 0, false), { ok: true });
    assert.deepEqual(gate.settleAll(views, { allow: true }), { decided: 2, errors: [] });
    const results = await Promise.all(waits);
    assert.deepEqual(results.map((result) => result.verdict), ['allow', 'allow', 'allow']);
    assert.deepEqual(results[0]?.verdict === 'allow' ? results[0].hunks?.map((hunk) => hunk.accepted) : undefined, [false, true]);
  });

  it("one call's view by id is the very view of the list, a group's member with its group's reason, and none once settled", async () => {
    const { gate } = setup();
    const waits = gate.request([member('a.txt', 2), member('b.bin', 1), input(writeCall('other.txt', 'x'))], { chatId: 'c', uncapped: true });
    const views = pendingViews(gate);
    assert.equal(views.length, 3);
    for (const view of views) {
      assert.equal(pendingView(gate, view.callId), view, view.callId);
    }
    const [a] = views;
    assert.ok(a);
    assert.deepEqual(gate.chooseHunk(a, 0, false), { ok: true });
    assert.equal(pendingView(gate, a.callId), pendingViews(gate)[0], 'after a hunk choice, the same live view');
    assert.equal(pendingView(gate, 'no-such-call'), undefined);
    gate.cancel('done');
    await Promise.all(waits);
    assert.equal(pendingView(gate, a.callId), undefined, 'settled');
  });

  it('counts a group as one decision waiting (the badge and the views), however many files it has', () => {
    const { gate } = setup();
    const other = { ...group, id: 'group-2' };
    const rows: { name: string; inputs: GateInput[]; calls: number; decisions: number }[] = [
      { name: 'nothing', inputs: [], calls: 0, decisions: 0 },
      { name: 'a lone write', inputs: [input(writeCall('x.txt', 'x'))], calls: 1, decisions: 1 },
      { name: 'a group of three', inputs: [member('a.txt', 1), member('b.txt', 1), member('c.txt', 1)], calls: 4, decisions: 2 },
      { name: 'a second group and another lone write', inputs: [{ ...member('d.txt', 1), group: other }, { ...member('e.txt', 1), group: other }, input(writeCall('y.txt', 'y'))], calls: 7, decisions: 4 },
    ];
    for (const row of rows) {
      void gate.request(row.inputs, { chatId: 'c', uncapped: true });
      assert.deepEqual([gate.waitingCount, gate.waitingDecisions], [row.calls, row.decisions], row.name);
    }
    gate.cancel('done');
  });
});

describe('the gate holds the edit of a waiting call for every surface', () => {
  it('an edit made on one surface is in every view; an Allow that showed it writes it; one that did not is refused', async () => {
    const { gate } = setup();
    const wait = only(gate.request([{ ...input(writeCall('a.txt', 'proposed')), editable: { kind: 'content', text: 'proposed' } }], { chatId: 'c' }));
    const [view] = pendingViews(gate);
    assert.ok(view);
    assert.equal(view.edit, undefined, 'never edited: nothing to show');
    assert.deepEqual(gate.setEdit(view, 'mine', 'diff-editor'), { ok: true });
    const [edited] = pendingViews(gate);
    assert.deepEqual(edited?.edit, { text: 'mine', where: 'diff-editor', revision: 1 });
    // The chat card still showed the proposal: its Allow is refused, and so is a key's or a grant's.
    assert.match(JSON.stringify(gate.settle(view, { action: 'allow-once', editRevision: 0 })), /edited in the diff editor after this view showed it/);
    assert.match(JSON.stringify(gate.settle(view, { action: 'allow-once' })), /decide it on a card that shows the edit/);
    assert.match(JSON.stringify(gate.settle(view, { action: 'allow-session', editRevision: 1 })), /a grant would allow the original/);
    assert.equal(gate.waitingCount, 1);
    // Shown, then allowed: the edit is what is written, and the model is told it was edited.
    assert.deepEqual(gate.settle(view, { action: 'allow-once', editRevision: 1 }), { ok: true });
    const result = await wait;
    assert.deepEqual(result.verdict === 'allow' ? [result.edited, result.reason] : [], ['mine', 'allowed once by the person, after editing']);
  });

  it('an edit undone is the proposal again; an edit of a call that is not waiting is refused', async () => {
    const { gate } = setup();
    const wait = only(gate.request([{ ...input(writeCall('a.txt', 'proposed')), editable: { kind: 'content', text: 'proposed' } }], { chatId: 'c' }));
    const [view] = pendingViews(gate);
    assert.ok(view);
    gate.setEdit(view, 'mine', 'panel');
    gate.setEdit(view, undefined, 'panel');
    assert.deepEqual(pendingViews(gate)[0]?.edit, { where: 'panel', revision: 2 });
    assert.deepEqual(gate.settle(view, { action: 'allow-once', editRevision: 2 }), { ok: true });
    const result = await wait;
    assert.equal(result.verdict === 'allow' ? result.edited : 'denied', undefined);
    assert.deepEqual(gate.setEdit(view, 'late', 'chat'), { ok: false, error: `call ${view.callId} is not waiting` });
  });
});
