import * as assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { ChatBook, chatsKey, maxChats, maxEntries, modelFailureActions } from '../../src/core/agent/chats';
import { AgentSession, type AgentSessionDeps } from '../../src/core/agent/session';
import type { PersonChoice } from '../../src/core/approval/gate';
import { ModelError, type TurnResult } from '../../src/core/llm/client';
import { initShellParser } from '../../src/core/shell/analysis';
import type { ChatEntry } from '../../src/shared/messages';
import { createMemoryGate, locateUnder, MemoryStore } from '../fixtures/memoryGate';
import { MemoryFiles, MemoryLog, memoryToolService, waitFor } from '../fixtures/memoryFiles';
import { calls, ScriptedModel, text } from '../fixtures/scriptedModel';
import { pendingViews } from '../../src/core/views/pendingCall';

type Reply = ConstructorParameters<typeof ScriptedModel>[0][number];

function setup(replies: Reply[], store = new MemoryStore(), policy: Parameters<typeof createMemoryGate>[0] = {}, extra: Partial<AgentSessionDeps> = {}) {
  const { gate, grants } = createMemoryGate({ locate: locateUnder('/ws'), ...policy });
  const files = new MemoryFiles({ '/ws/a.txt': 'one\n' });
  const { service: tools, log } = memoryToolService(gate, files);
  const chats = new ChatBook(store, log);
  const model = new ScriptedModel(replies);
  const running: boolean[] = [];
  const endedSessions: string[] = [];
  const deps: AgentSessionDeps = {
    chats,
    tools,
    gate,
    endSessionGrants: (chatId) => {
      endedSessions.push(chatId);
      grants.endSession(chatId);
    },
    model: () => Promise.resolve(model),
    maxSteps: () => 10,
    mcp: { specs: () => [], servers: () => [], whenConfigured: () => Promise.resolve(), whenSettled: () => Promise.resolve() },
    explainModelFailure: (error, kind) =>
      Promise.resolve(kind === 'auth' ? { text: `The model failed: ${error}`, actions: [{ command: 'setApiKey', label: 'Set the API key' }] } : { text: `The model failed: ${error}` }),
    onRunning: (value) => running.push(value),
    log,
    ...extra,
  };
  const session = new AgentSession(deps);
  const entries = (): ChatEntry[] => chats.current.entries;
  return { session, chats, gate, files, model, running, endedSessions, entries, store, log };
}

/** The text of the transcript's last entry if it is a notice, else ''. */
function lastNotice(entries: ChatEntry[]): string {
  const last = entries.at(-1);
  return last?.kind === 'notice' ? last.text : '';
}

const question = (id: string, options: string[], allowFreeText = false): TurnResult => calls([id, 'ask_user', { question: 'Which?', options, allowFreeText }]);

describe('the agent session (core, over the production tool service and in-memory ports)', () => {
  before(() => initShellParser());

  it('runs a task: the transcript shows the prompt, the streamed answer and each tool call with its status', async () => {
    const { session, gate, files, entries, running, chats } = setup([calls(['w1', 'write_file', { path: 'b.txt', content: 'hi' }]), text('Wrote b.txt.')]);
    const task = session.runTask('make b.txt');
    const waiting = await waitFor(() => pendingViews(gate)[0]);
    const tool = entries().find((entry) => entry.kind === 'tool');
    assert.equal(tool?.kind === 'tool' && tool.status, 'waiting');
    gate.settle(waiting, { action: 'allow-once' });
    const result = await task;
    assert.equal(result.reason, 'finished');
    assert.equal(result.answer, 'Wrote b.txt.');
    assert.equal(files.files.get('/ws/b.txt'), 'hi');
    assert.deepEqual(
      entries().map((entry) => (entry.kind === 'tool' ? `tool ${entry.name} ${entry.summary} ${entry.status}` : `${entry.kind}${'text' in entry ? ` ${entry.text}` : ''}`)),
      ['user make b.txt', 'assistant ', 'tool write_file b.txt done', 'assistant Wrote b.txt.'],
    );
    assert.deepEqual(running, [true, false]);
    assert.equal(chats.current.title, 'make b.txt');
    assert.equal(result.transcript.at(-1)?.content, 'Wrote b.txt.');
  });

  it("lists what the task changed at its end, from its checkpoints, and opens only a file that list names", async () => {
    const asked: string[] = [];
    const { session, gate, entries, chats } = setup([calls(['w1', 'write_file', { path: 'b.txt', content: 'hi\n' }]), text('Wrote b.txt.')], undefined, {}, {
      taskChanges: (task) => {
        asked.push(task.taskId);
        return Promise.resolve({ files: [{ path: '/ws/b.txt', shown: 'b.txt', kind: 'created', added: 1, removed: 0, before: null, after: 'hi\n' }], commands: 0, unreviewed: [], unreviewedMore: 0 });
      },
    });
    const task = session.runTask('make b.txt');
    gate.settle(await waitFor(() => pendingViews(gate)[0]), { action: 'allow-once' });
    await task;
    const last = entries().at(-1);
    assert.ok(last?.kind === 'changes', `the last entry lists the changes: ${JSON.stringify(last)}`);
    assert.deepEqual(last.files, [{ file: 'b.txt', change: 'created', added: 1, removed: 0 }]);
    assert.deepEqual([last.taskId, last.commands], [asked[0], 0], 'the task that ran, asked once');
    assert.deepEqual(session.taskChange(last.id, 'b.txt'), { chatId: chats.current.id, taskId: asked[0] });
    assert.equal(session.taskChange(last.id, '../secret.txt'), undefined, 'a file the entry does not list');
    assert.equal(session.taskChange(entries()[0]?.id ?? '', 'b.txt'), undefined, 'an entry that lists no changes');
  });

  // Issue 36: a command whose files all landed unseen left the task's changed files empty.
  it('lists what its commands landed without review, even when nothing else changed', async () => {
    const unreviewed = [{ path: 'a.txt', files: 1 }, { path: 'node_modules/', files: 1204 }];
    const { session, entries } = setup([text('Done.')], undefined, {}, { taskChanges: () => Promise.resolve({ files: [], commands: 1, unreviewed, unreviewedMore: 3 }) });
    await session.runTask('install');
    const last = entries().at(-1);
    assert.ok(last?.kind === 'changes', `the last entry lists the changes: ${JSON.stringify(last)}`);
    assert.deepEqual(last.unreviewed, { groups: unreviewed, more: 3 });
  });

  // Issue 36: after an undo, the task's list still named the files it had put back.
  it('after an undo, the list says what is left: files put back go, what landed without review stays', async () => {
    const created = { path: '/ws/b.txt', shown: 'b.txt', kind: 'created' as const, added: 1, removed: 0, before: null, after: 'hi\n' };
    const unreviewed = [{ path: 'dist/', files: 3 }];
    let left = { files: [created, { ...created, path: '/ws/c.txt', shown: 'c.txt' }], commands: 1, unreviewed, unreviewedMore: 0 };
    const { session, entries } = setup([text('Done.')], undefined, {}, { taskChanges: () => Promise.resolve(left) });
    await session.runTask('build');
    const entry = entries().at(-1);
    assert.ok(entry?.kind === 'changes');
    assert.deepEqual(entry.files.map((file) => file.file), ['b.txt', 'c.txt']);
    const version = entry.v;
    left = { files: [], commands: 1, unreviewed, unreviewedMore: 0 };
    await session.refreshChanges(entry.taskId);
    assert.deepEqual([entry.files, entry.unreviewed, entry.v > version], [[], { groups: unreviewed, more: 0 }, true]);
    await session.refreshChanges('another-task');
    assert.deepEqual(entry.files, []);
  });

  it('a task that changed nothing, or whose checkpoints cannot be read, lists nothing', async () => {
    for (const taskChanges of [() => Promise.resolve({ files: [], commands: 2, unreviewed: [], unreviewedMore: 0 }), () => Promise.reject(new Error('storage gone'))]) {
      const { session, entries } = setup([text('Nothing to do.')], undefined, {}, { taskChanges });
      await session.runTask('look around');
      assert.deepEqual(entries().map((entry) => entry.kind), ['user', 'assistant']);
    }
  });

  describe('a tool entry says how the call was allowed (typed, from the gate)', () => {
    type ToolEntry = Extract<ChatEntry, { kind: 'tool' }>;
    const rows: {
      name: string;
      call: [string, Record<string, unknown>];
      policy?: Parameters<typeof createMemoryGate>[0];
      /** The person's choice when the call waits; absent: it must run without asking. */
      choice?: PersonChoice;
      note: (entry: ToolEntry) => unknown;
      expected: unknown;
    }[] = [
      { name: 'allowed once: nothing to add', call: ['write_file', { path: 'b.txt', content: 'x' }], choice: { action: 'allow-once' }, note: (entry) => [entry.allowedBy, entry.granted, entry.ran], expected: [undefined, undefined, undefined] },
      {
        name: 'a command a terminal rule allows: the setting and its key',
        call: ['run_in_terminal', { command: 'echo hi' }],
        policy: { terminalRules: { 'echo hi': true } },
        note: (entry) => entry.allowedBy,
        expected: { kind: 'rule', setting: 'toolgate.autoApprove.terminal', keys: ['echo hi'] },
      },
      {
        name: 'allowed for the session for the file: the grant just made',
        call: ['write_file', { path: 'b.txt', content: 'x' }],
        choice: { action: 'allow-session', grantOption: 'path' },
        note: (entry) => [entry.granted?.scope, entry.granted?.covers],
        expected: ['session', 'write_file: b.txt'],
      },
      {
        name: 'an edited command: what ran',
        call: ['run_in_terminal', { command: 'echo hi' }],
        choice: { action: 'allow-edited', edited: 'echo bye' },
        note: (entry) => entry.ran,
        expected: 'echo bye',
      },
    ];
    for (const row of rows) {
      it(row.name, async () => {
        const { session, gate, entries } = setup([calls(['c1', row.call[0], row.call[1]]), text('ok')], new MemoryStore(), row.policy);
        const task = session.runTask('go');
        if (row.choice) {
          const waiting = await waitFor(() => pendingViews(gate)[0]);
          assert.deepEqual(gate.settle(waiting, row.choice), { ok: true });
        }
        assert.equal((await task).reason, 'finished');
        const entry = entries().find((candidate): candidate is ToolEntry => candidate.kind === 'tool');
        assert.equal(entry?.status, 'done');
        assert.deepEqual(row.note(entry), row.expected);
      });
    }
  });

  describe('answers to ask_user', () => {
    const rows: { name: string; options: string[]; free: boolean; answer: string; accepted: boolean; told?: string }[] = [
      { name: 'one of the options', options: ['a', 'b'], free: false, answer: 'b', accepted: true, told: 'The person answered: "b"' },
      { name: 'free text where it is allowed (trimmed)', options: ['a'], free: true, answer: '  c  ', accepted: true, told: 'The person answered: "c"' },
      { name: 'free text where it is not allowed', options: ['a'], free: false, answer: 'c', accepted: false },
      { name: 'blank free text', options: ['a'], free: true, answer: '   ', accepted: false },
    ];
    for (const row of rows) {
      it(row.name, async () => {
        const { session, entries, model } = setup([question('q1', row.options, row.free), text('ok')]);
        const task = session.runTask('ask me');
        const entry = await waitFor(() => entries().find((candidate) => candidate.kind === 'question'));
        const outcome = session.answer(entry.id, row.answer);
        assert.equal(outcome.ok, row.accepted);
        if (!row.accepted) {
          session.cancel();
        }
        await task;
        if (row.told !== undefined) {
          assert.equal(model.seen[1]?.at(-1)?.content, row.told);
        }
      });
    }

    describe('typed in the prompt while a question waits', () => {
      const typedRows: { typed: string; options: string[]; free: boolean; told?: string; notice?: RegExp }[] = [
        { typed: 'b', options: ['a', 'b'], free: false, told: 'The person answered: "b"' },
        { typed: '2', options: ['Keep', 'Rename'], free: false, told: 'The person answered: "Rename"' },
        { typed: 'use tabs, please', options: ['spaces'], free: true, told: 'The person answered: "use tabs, please"' },
        { typed: 'what?', options: ['Keep', 'Rename'], free: false, notice: /^The agent asks you to choose: 1: Keep; 2: Rename\./ },
      ];
      for (const row of typedRows) {
        it(JSON.stringify(row.typed), async () => {
          const { session, entries, model } = setup([question('q1', row.options, row.free), text('ok')]);
          const task = session.runTask('ask me');
          await waitFor(() => entries().find((candidate) => candidate.kind === 'question'));
          session.submit(row.typed);
          if (row.notice) {
            assert.match(lastNotice(entries()), row.notice);
            assert.equal(session.waitingQuestions, 1, 'still waiting for an answer');
            session.cancel();
          }
          await task;
          if (row.told !== undefined) {
            assert.equal(model.seen[1]?.at(-1)?.content, row.told);
            assert.deepEqual(
              entries().flatMap((entry) => (entry.kind === 'user' ? [entry.text] : [])),
              ['ask me', row.typed],
              'the typed answer shows as the person said it',
            );
          }
        });
      }
    });

    it('refuses an answer to a question that is not waiting', () => {
      const { session } = setup([]);
      assert.deepEqual(session.answer('q-none', 'a'), { ok: false, error: 'question q-none is not waiting for an answer' });
    });

    it('removes its listener from the task signal once answered (no listener piles up per question)', async () => {
      const listeners: number[] = [];
      const count = (signal?: AbortSignal): Promise<TurnResult> => {
        listeners.push(signal ? getEventListeners(signal, 'abort').length : -1);
        return Promise.resolve(text('done'));
      };
      const plain = setup([count]);
      await plain.session.runTask('nothing asked');
      const asked = setup([question('q1', ['a']), question('q2', ['a']), count]);
      const task = asked.session.runTask('ask twice');
      for (const id of [0, 1]) {
        const entry = await waitFor(() => asked.entries().filter((candidate) => candidate.kind === 'question')[id]);
        asked.session.answer(entry.id, 'a');
      }
      await task;
      assert.equal(listeners.length, 2);
      assert.equal(listeners[1], listeners[0], 'as many abort listeners after two answered questions as with none');
    });

    it('a stopped task leaves the question unanswered and denies the waiting calls', async () => {
      const { session, entries, gate, files } = setup([calls(['q1', 'ask_user', { question: 'Sure?', options: ['yes'] }], ['w1', 'write_file', { path: 'c.txt', content: 'x' }])]);
      const task = session.runTask('both');
      await waitFor(() => pendingViews(gate)[0]);
      assert.equal(session.cancel(), true);
      const result = await task;
      assert.equal(result.reason, 'cancelled');
      const asked = entries().find((entry) => entry.kind === 'question');
      assert.equal(asked?.kind === 'question' && asked.answer, '(not answered: the task was stopped)');
      assert.equal(files.files.has('/ws/c.txt'), false);
      assert.match(lastNotice(entries()), /^Stopped\./);
    });
  });

  describe('decisions typed in the chat while calls wait', () => {
    const rows: { typed: string; file: string | undefined; notice?: RegExp }[] = [
      { typed: 'yes', file: 'x' },
      { typed: 'no, because use docs/', file: undefined },
      { typed: 'maybe later', file: undefined, notice: /^1 call waits: answer "yes" or "no, because …"/ },
      { typed: 'yes 2', file: undefined, notice: /^There is no call 2; 1 wait\.$/ },
    ];
    for (const row of rows) {
      it(JSON.stringify(row.typed), async () => {
        const { session, gate, files, entries, model } = setup([calls(['w1', 'write_file', { path: 'c.txt', content: 'x' }]), text('ok')]);
        const task = session.runTask('write c');
        await waitFor(() => pendingViews(gate)[0]);
        session.submit(row.typed);
        if (row.notice) {
          assert.match(lastNotice(entries()), row.notice);
          assert.equal(gate.waitingCount, 1);
          session.cancel();
        }
        await task;
        assert.equal(files.files.get('/ws/c.txt'), row.file);
        if (row.typed.startsWith('no')) {
          assert.match(model.seen[1]?.at(-1)?.content ?? '', /said: "use docs\/"/);
        }
      });
    }

    it('asks which call when several wait, and settles the one named', async () => {
      const { session, gate, files, entries } = setup([
        calls(['w1', 'write_file', { path: 'c.txt', content: 'x' }], ['w2', 'write_file', { path: 'd.txt', content: 'y' }]),
        text('ok'),
      ]);
      const task = session.runTask('two');
      await waitFor(() => (gate.waitingCount === 2 ? true : undefined));
      session.submit('yes');
      assert.match(lastNotice(entries()), /^Which call\? 1: write_file c\.txt; 2: write_file d\.txt\./);
      session.submit('yes 2');
      session.submit('no 1');
      await task;
      assert.deepEqual([files.files.get('/ws/c.txt'), files.files.get('/ws/d.txt')], [undefined, 'y']);
    });
  });

  it('refuses a new chat or another chat while a task runs, and ends the session grants of the chat it leaves', async () => {
    const { session, gate, endedSessions, chats } = setup([calls(['w1', 'write_file', { path: 'c.txt', content: 'x' }]), text('ok')]);
    const first = session.chatId;
    const task = session.runTask('write');
    await waitFor(() => pendingViews(gate)[0]);
    assert.deepEqual(session.newChat(), { ok: false, error: 'stop the running task before starting a new chat' });
    assert.deepEqual(session.openChat(first), { ok: false, error: 'stop the running task before switching chats' });
    session.cancel();
    await task;
    assert.deepEqual(session.newChat(), { ok: true });
    assert.notEqual(session.chatId, first);
    assert.deepEqual(session.openChat('chat-none'), { ok: false, error: 'no chat chat-none' });
    assert.deepEqual(session.openChat(first), { ok: true });
    assert.deepEqual(endedSessions, [first, chats.list()[1]?.id]);
  });

  it("says what failed when the model fails, with the wiring's explanation and actions", async () => {
    const { session, entries } = setup([new ModelError('auth', 'the endpoint refused the key')]);
    const result = await session.runTask('hello');
    assert.equal(result.reason, 'error');
    const last = entries().at(-1);
    assert.ok(last?.kind === 'notice');
    assert.deepEqual([last.level, last.text, last.actions], ['error', 'The model failed: the endpoint refused the key', [{ command: 'setApiKey', label: 'Set the API key' }]]);
  });

  describe('Retry after a model error', () => {
    const kinds = ['server', 'rate-limited', 'unreachable', 'auth'] as const;
    for (const kind of kinds) {
      it(`a model error of kind ${kind} offers Retry, which runs the failed turn again with the same history and no repeated message`, async () => {
        const { session, entries, model } = setup([
          calls(['r1', 'read_file', { path: 'a.txt' }]),
          new ModelError(kind, 'it failed'),
          text('Done after all.'),
        ]);
        const result = await session.runTask('hello');
        assert.equal(result.reason, 'error');
        const notice = entries().at(-1);
        assert.ok(notice?.kind === 'notice');
        assert.equal(notice.retry, true);
        assert.deepEqual(session.retry(), { ok: true });
        await waitFor(() => entries().find((entry) => entry.kind === 'assistant' && entry.text === 'Done after all.'));
        await waitFor(() => (session.isRunning ? undefined : true));
        assert.deepEqual(model.seen[2], model.seen[1], 'the retried turn got exactly the history of the failed one');
        assert.equal(model.seen[2]?.filter((message) => message.role === 'user').length, 1);
        assert.equal(entries().filter((entry) => entry.kind === 'user').length, 1);
        const after = entries().find((entry) => entry.id === notice.id);
        assert.equal(after?.kind === 'notice' && after.retry, false, 'the Retry button goes once used');
        assert.deepEqual(session.retry(), { ok: false, error: 'there is no failed model turn to retry in this chat' });
      });
    }

    const refusals: [name: string, prepare: (s: ReturnType<typeof setup>) => Promise<void> | void, error: string][] = [
      ['nothing failed', () => undefined, 'there is no failed model turn to retry in this chat'],
      ['another chat is open', async (s) => {
        await s.session.runTask('hello');
        s.session.newChat();
      }, 'there is no failed model turn to retry in this chat'],
      ['a new task ran since', async (s) => {
        await s.session.runTask('hello');
        await s.session.runTask('again');
      }, 'there is no failed model turn to retry in this chat'],
    ];
    it('the Retry button does not come back after a reload (the failed turn is not kept)', async () => {
      const store = new MemoryStore();
      const first = setup([new ModelError('server', 'it failed')], store);
      await first.session.runTask('hello');
      first.chats.dispose();
      const notice = new ChatBook(store, new MemoryLog()).current.entries.at(-1);
      assert.equal(notice?.kind === 'notice' && notice.retry, false);
    });

    for (const [name, prepare, error] of refusals) {
      it(`is refused when ${name}`, async () => {
        const s = setup([new ModelError('server', 'it failed'), text('fine')]);
        await prepare(s);
        assert.deepEqual(s.session.retry(), { ok: false, error });
      });
    }
  });
});

describe('the chats, kept in workspace state', () => {
  it('come back after a reload, with the current chat and its entries', async () => {
    const store = new MemoryStore();
    const first = setup([text('hi there')], store);
    await first.session.runTask('hello');
    first.chats.dispose();
    const reloaded = new ChatBook(store, new MemoryLog());
    assert.equal(reloaded.current.id, first.chats.current.id);
    assert.deepEqual(
      reloaded.current.entries.map((entry) => entry.kind),
      ['user', 'assistant'],
    );
    assert.equal(reloaded.current.messages.length, first.chats.current.messages.length);
  });

  it('whenSaved: resolves only once the store took what saveNow asked to save, so a view never shows more than a reload finds', async () => {
    // A store whose writes land only when released (VS Code's workspace state answers after its main side took them).
    class HeldStore extends MemoryStore {
      readonly held: (() => void)[] = [];
      override update(key: string, value: unknown): Promise<void> {
        return new Promise((resolve) => {
          this.held.push(() => {
            void super.update(key, value).then(resolve);
          });
        });
      }
    }
    const store = new HeldStore();
    const chats = new ChatBook(store, new MemoryLog());
    await chats.whenSaved(); // nothing asked: at once
    chats.push({ kind: 'user', id: 'u1', v: 1, text: 'hello' });
    chats.saveNow();
    let saved = false;
    const whenSaved = chats.whenSaved().then(() => {
      saved = true;
    });
    await waitFor(() => store.held.length === 1 || undefined);
    assert.equal(saved, false, 'not before the store took it');
    // A second saveNow while the first save is under way: waited for too, and what it holds is what is stored.
    chats.push({ kind: 'user', id: 'u2', v: 1, text: 'again' });
    chats.saveNow();
    let savedAgain = false;
    const whenSavedAgain = chats.whenSaved().then(() => {
      savedAgain = true;
    });
    store.held.shift()?.();
    await whenSaved;
    assert.equal(savedAgain, false, 'the second save is not in the store yet');
    await waitFor(() => store.held.length === 1 || undefined);
    store.held.shift()?.();
    await whenSavedAgain;
    const stored = store.values.get(chatsKey) as { chats: { entries: { id: string }[] }[] };
    assert.deepEqual(stored.chats[0]?.entries.map((entry) => entry.id), ['u1', 'u2']);
    await chats.whenSaved(); // nothing left: at once
    chats.dispose();
  });

  it('saveNow: the changes of one tick are saved once, holding the last of them, and a later tick saves again', async () => {
    class CountingStore extends MemoryStore {
      saves = 0;
      override update(key: string, value: unknown): Promise<void> {
        this.saves += 1;
        return super.update(key, value);
      }
    }
    const store = new CountingStore();
    const chats = new ChatBook(store, new MemoryLog());
    chats.changed(); // a change saved in 300 ms: the urgent save below takes it sooner
    for (const id of ['u1', 'u2', 'u3']) {
      chats.push({ kind: 'user', id, v: 1, text: id });
      chats.saveNow();
    }
    await chats.whenSaved();
    const entries = (): string[] => (store.values.get(chatsKey) as { chats: { entries: { id: string }[] }[] }).chats[0]?.entries.map((entry) => entry.id) ?? [];
    assert.deepEqual({ saves: store.saves, entries: entries() }, { saves: 1, entries: ['u1', 'u2', 'u3'] });
    chats.push({ kind: 'user', id: 'u4', v: 1, text: 'u4' });
    chats.saveNow();
    await chats.whenSaved();
    assert.deepEqual({ saves: store.saves, entries: entries() }, { saves: 2, entries: ['u1', 'u2', 'u3', 'u4'] });
    chats.dispose();
    assert.equal(store.saves, 2, 'nothing left to save when the window closes');
  });

  const broken: { name: string; value: unknown }[] = [
    { name: 'not an object', value: 'chats' },
    { name: 'a newer version', value: { version: 2, revision: 1, currentId: 'x', chats: [] } },
    { name: 'an entry of an unknown kind', value: { version: 1, revision: 1, currentId: 'c', chats: [{ id: 'c', title: 't', createdAt: '', updatedAt: '', messages: [], entries: [{ kind: 'alien' }] }] } },
  ];
  for (const row of broken) {
    it(`start fresh, saying so, from stored chats that are ${row.name}`, () => {
      const store = new MemoryStore();
      void store.update(chatsKey, row.value);
      const log = new MemoryLog();
      const book = new ChatBook(store, log);
      assert.deepEqual(book.current.entries, []);
      assert.deepEqual(log.lines, ['warn: ignored the stored chats: they do not fit the expected format']);
    });
  }

  it(`keep at most ${maxChats} chats and ${maxEntries} entries per chat, the oldest dropped first`, () => {
    const book = new ChatBook(new MemoryStore(), new MemoryLog());
    const firstId = book.current.id;
    for (let i = 0; i < maxEntries + 5; i++) {
      book.push({ kind: 'user', id: `u${i}`, v: 1, text: String(i) });
    }
    assert.equal(book.current.entries.length, maxEntries);
    assert.equal(book.current.entries[0]?.id, 'u5');
    for (let i = 0; i < maxChats; i++) {
      book.startNew();
    }
    assert.equal(book.list().length, maxChats);
    assert.equal(book.open(firstId), false);
    book.dispose();
  });
});

describe('what a model error offers to fix it', () => {
  const rows: [Parameters<typeof modelFailureActions>[0], string[]][] = [
    ['auth', ['setApiKey', 'setUpModel', 'openModelSettings']],
    ['unreachable', ['setUpModel', 'openModelSettings']],
    ['model-not-found', ['setUpModel', 'openModelSettings']],
    ['no-tool-support', ['setUpModel', 'openModelSettings']],
    ['rate-limited', []],
    ['server', []],
    ['bad-response', []],
    [undefined, []],
  ];
  for (const [kind, commands] of rows) {
    it(`${String(kind)}: ${commands.join(', ') || 'only Retry'}`, () => {
      assert.deepEqual(
        modelFailureActions(kind).map((action) => action.command),
        commands,
      );
    });
  }
});

describe('a task cut off by a window reload is interrupted, not stuck, and can be resumed', () => {
  before(() => initShellParser());

  /** A task left mid-way (two writes waiting after a completed read turn), the window then "reloaded". */
  async function interrupted() {
    const store = new MemoryStore();
    const first = setup(
      [
        calls(['r1', 'read_file', { path: 'a.txt' }]),
        calls(['w1', 'write_file', { path: 'b.txt', content: 'b' }], ['w2', 'write_file', { path: 'c.txt', content: 'c' }]),
      ],
      store,
    );
    void first.session.runTask('make b and c');
    await waitFor(() => (first.gate.waitingCount === 2 ? true : undefined));
    // The reload: the window's state is saved as it stands; nothing of the old session goes on.
    first.chats.dispose();
    return { store, first };
  }

  it('at load: waiting calls become "interrupted" (not run), and one notice offers Resume', async () => {
    const { store } = await interrupted();
    const reloaded = setup([], store);
    assert.deepEqual(
      reloaded.entries().flatMap((entry) => (entry.kind === 'tool' ? [[entry.name, entry.status]] : [])),
      [
        ['read_file', 'done'],
        ['write_file', 'interrupted'],
        ['write_file', 'interrupted'],
      ],
    );
    const notice = reloaded.entries().at(-1);
    assert.ok(notice?.kind === 'notice');
    assert.equal(notice.resume, true);
    assert.match(notice.text, /^This task was interrupted by a window reload: 2 calls that waited for approval were not run\./);
    assert.equal(reloaded.chats.current.task?.state, 'interrupted');
  });

  it('Resume continues from the last completed turn, with the model told what happened; nothing of the lost turn runs', async () => {
    const { store } = await interrupted();
    const reloaded = setup([text('Carrying on.')], store);
    assert.deepEqual(reloaded.session.resume(), { ok: true });
    await waitFor(() => reloaded.entries().find((entry) => entry.kind === 'assistant' && entry.text === 'Carrying on.'));
    await waitFor(() => (reloaded.session.isRunning ? undefined : true));
    const sent = reloaded.model.seen[0] ?? [];
    assert.deepEqual(
      sent.map((message) => message.role),
      ['system', 'user', 'assistant', 'tool', 'user'],
      'the prompt, the completed read turn, then the note: the interrupted turn is not in it',
    );
    assert.match(sent.at(-1)?.content ?? '', /^The VS Code window was reloaded while you were working on this task/);
    assert.equal(reloaded.files.files.has('/ws/b.txt'), false);
    assert.equal(reloaded.chats.current.task, undefined, 'the task ended');
    assert.deepEqual(reloaded.session.resume(), { ok: false, error: 'there is no interrupted task to resume in this chat' });
    const resumeButtons = reloaded.entries().filter((entry) => entry.kind === 'notice' && entry.resume === true);
    assert.equal(resumeButtons.length, 0, 'the Resume button is gone once used');
  });

  it('a finished task leaves nothing to resume after a reload', async () => {
    const store = new MemoryStore();
    const first = setup([text('done')], store);
    await first.session.runTask('hello');
    first.chats.dispose();
    const reloaded = setup([], store);
    assert.equal(reloaded.entries().some((entry) => entry.kind === 'notice' && entry.resume === true), false);
    assert.deepEqual(reloaded.session.resume(), { ok: false, error: 'there is no interrupted task to resume in this chat' });
  });
});

describe('one tool result per call, always', () => {
  before(() => initShellParser());

  const batchRows: { name: string; decide: (s: ReturnType<typeof setup>) => void }[] = [
    { name: 'allowed together with Allow all', decide: (s) => s.gate.settleAll(pendingViews(s.gate), { allow: true }) },
    { name: 'denied together with Deny all', decide: (s) => s.gate.settleAll(pendingViews(s.gate), { allow: false }) },
    {
      name: 'half allowed one by one, the rest stopped',
      decide: (s) => {
        for (const view of pendingViews(s.gate).slice(0, 25)) {
          s.gate.settle(view, { action: 'allow-once' });
        }
        s.session.cancel();
      },
    },
  ];
  for (const row of batchRows) {
    it(`a batch of 50 writes ${row.name}: the model gets exactly 50 results, one per call id, in order`, async () => {
      const ids = Array.from({ length: 50 }, (_, index) => `w${index}`);
      const s = setup([calls(...ids.map((id): [string, string, Record<string, unknown>] => [id, 'write_file', { path: `f${id}.txt`, content: id }])), text('done')]);
      const task = s.session.runTask('fifty');
      await waitFor(() => (s.gate.waitingCount === 50 ? true : undefined));
      row.decide(s);
      await task;
      const results = (s.model.seen[1] ?? s.chats.current.messages).filter((message) => message.role === 'tool');
      assert.deepEqual(
        results.map((message) => message.toolCallId),
        ids,
      );
    });
  }
});

describe('a call whose arguments are not JSON', () => {
  before(() => initShellParser());

  it('shows in the chat with its raw arguments and the error the model was given; nothing runs', async () => {
    const raw = '{"path": "x.txt", "content": oops';
    const s = setup([{ text: '', toolCalls: [{ id: 'bad1', name: 'write_file', arguments: raw }], finishReason: 'tool_calls' }, text('sorry')]);
    await s.session.runTask('write x');
    const entry = s.entries().find((candidate) => candidate.kind === 'tool');
    assert.ok(entry?.kind === 'tool', JSON.stringify(s.entries()));
    assert.equal(entry.name, 'write_file');
    assert.equal(entry.status, 'failed');
    assert.equal(entry.summary, raw);
    assert.match(entry.output ?? '', /^Error: .*Nothing was run\.$/s);
    assert.equal(s.model.seen[1]?.at(-1)?.content, entry.output);
    assert.equal(s.files.files.has('/ws/x.txt'), false);
  });
});

describe('stored chats stay bounded', () => {
  it('a 2 MB answer is stored as its head and tail (the transcript and the conversation for the model), shown whole until the reload', async () => {
    const store = new MemoryStore();
    const answer = `START ${'y'.repeat(2 * 1024 * 1024)} END`;
    const first = setup([text(answer)], store);
    await first.session.runTask('say a lot');
    const live = first.entries().find((entry) => entry.kind === 'assistant');
    assert.equal(live?.kind === 'assistant' ? live.text : '', answer, 'the window that got it keeps it whole');
    first.chats.dispose();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const stored = JSON.stringify(store.get(chatsKey));
    assert.ok(stored.length < 100_000, `the stored chats are ${stored.length} characters`);
    const reloaded = new ChatBook(store, new MemoryLog());
    const kept = reloaded.current.entries.find((entry) => entry.kind === 'assistant');
    assert.ok(kept?.kind === 'assistant');
    assert.match(kept.text, /^START y+\n\[… 2,065,162 characters not kept in the stored chat …\]\ny+ END$/);
    assert.match(reloaded.current.messages.at(-1)?.content ?? '', /characters not kept in the stored chat/);
  });
});
