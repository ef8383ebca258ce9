/**
 * The chat view mounted in a DOM (happy-dom) with a fake channel, the test playing the host: each kind of transcript
 * entry as the person sees it and what its controls send, the empty chat's welcome, and the transcript kept across
 * states (an entry redrawn only when it changed).
 */
import * as assert from 'node:assert/strict';
import { dom } from './dom';
import type { ChatEntry, ChatState, WebviewToHost } from '../../src/shared/messages';
import { mount, type ChatView } from '../../webview/chat/chatView';
import { answerPreviewChars } from '../../webview/chat/transcriptEntry';

type Sent = { type: string } & Record<string, unknown>;

function mounted(): { root: HTMLElement; view: ChatView; sent: Sent[]; commands: string[] } {
  const root = dom.document.createElement('main');
  dom.attach(root);
  const sent: Sent[] = [];
  const commands: string[] = [];
  const view = mount(root, {
    send: (message: Omit<WebviewToHost, 'requestId'>) => (sent.push(message), `r${sent.length}`),
    command: (command) => void commands.push(command),
  });
  return { root, view, sent, commands };
}

function state(entries: ChatEntry[], overrides: Partial<ChatState> = {}): ChatState {
  return {
    view: 'chat', model: { baseUrl: 'http://127.0.0.1:1/v1', name: 'fixture-model', provider: 'openai-compatible' }, waitingCalls: 0, trusted: true,
    chatId: 'chat1', running: false, entries, pending: [], chats: [{ id: 'chat1', title: 'First chat', updatedAt: '2026-11-28T00:00:00.000Z' }], setup: {}, turns: [],
    ...overrides,
  };
}

/** The host's clock when it posts each state here: the live times are counted in it. */
const hostTime = Date.UTC(2026, 10, 28);
const q = (root: HTMLElement, selector: string): HTMLElement => {
  const found = root.querySelector<HTMLElement>(selector);
  assert.ok(found, `no ${selector}`);
  return found;
};
const promptOf = (root: HTMLElement): HTMLTextAreaElement => {
  const found = q(root, '[data-field="prompt"]');
  assert.ok(found instanceof HTMLTextAreaElement);
  return found;
};

interface EntryCase {
  entry: ChatEntry;
  /** What the entry reads as, whole or in part. */
  text: RegExp;
  /** Clicked in the entry, and what the host then gets (a message, or a host command). */
  click?: { selector: string; sends: Sent | { command: string } };
  running?: boolean;
}

const cases: Record<string, EntryCase> = {
  'the person\'s task': { entry: { kind: 'user', id: 'u1', v: 1, text: 'Add a README section' }, text: /^Add a README section$/ },
  'an answer, as markdown': { entry: { kind: 'assistant', id: 'a1', v: 1, text: 'Done: see **README.md**.', streaming: false }, text: /Done: see README\.md\./ },
  'a long answer, its start and the rest on request': {
    entry: { kind: 'assistant', id: 'a2', v: 1, text: 'x'.repeat(answerPreviewChars + 5), streaming: false },
    text: /Show the whole answer \(5 more characters\)/,
  },
  'an answer not begun, with the time waited': { entry: { kind: 'assistant', id: 'a3', v: 1, text: '', streaming: true, since: hostTime - 3_000 }, text: /Working… waiting for the model, 3 s/, running: true },
  'an error notice with its commands and Retry': {
    entry: { kind: 'notice', id: 'n1', v: 1, level: 'error', text: 'The model refused the key.', actions: [{ command: 'setApiKey', label: 'Set API key' }], retry: true },
    text: /The model refused the key\.Set API keyRetry/,
    click: { selector: '[data-action="retry"]', sends: { type: 'retry' } },
  },
  'a notice counting down to the next attempt': { entry: { kind: 'notice', id: 'n2', v: 1, level: 'info', text: 'Rate limited.', retryAt: hostTime + 30_000 }, text: /Rate limited\.Trying again in (29|30) s\./ },
  'an interrupted task, with Resume': {
    entry: { kind: 'notice', id: 'n3', v: 1, level: 'info', text: 'The window reloaded.', resume: true },
    text: /The window reloaded\.Resume/,
    click: { selector: '[data-action="resume"]', sends: { type: 'resume' } },
  },
  'a call waiting, with Decide below': { entry: { kind: 'tool', id: 't1', v: 1, name: 'write_file', summary: 'README.md', status: 'waiting' }, text: /write_file README\.md waiting for approval · Decide below/ },
  'a command running, with what it staged so far': {
    entry: { kind: 'tool', id: 't2', v: 1, name: 'run_in_terminal', summary: 'npm run watch', status: 'running' },
    text: /run_in_terminal npm run watch running · Changes so far/,
    click: { selector: '[data-action="staged-so-far"]', sends: { command: 'showStagedChanges' } },
  },
  'a write that ran: its file opens its change': {
    entry: { kind: 'tool', id: 't3', v: 1, name: 'write_file', summary: 'README.md', status: 'done', output: 'wrote 3 lines', change: { taskId: 'task1', turn: 0, file: 'README.md' } },
    text: /write_file README\.md doneResultwrote 3 lines/,
    click: { selector: '[data-action="open-call-change"]', sends: { type: 'openCallChange', entryId: 't3' } },
  },
  'a long result, opened whole on request': {
    entry: { kind: 'tool', id: 't4', v: 1, name: 'read_file', summary: 'big.log', status: 'done', output: 'head … tail', fullResult: { ref: 'r'.repeat(16), chars: 120_000 } },
    text: /Open the whole result \(120,000 characters\)/,
    click: { selector: '[data-action="open-result"]', sends: { type: 'openResult', entryId: 't4' } },
  },
  'a question with its options': {
    entry: { kind: 'question', id: 'q1', v: 1, question: 'Which test runner?', options: ['mocha', 'vitest'], allowFreeText: true },
    text: /Which test runner\?mochavitestAnswer/,
    click: { selector: '[data-action="answer"][data-option="vitest"]', sends: { type: 'answer', questionId: 'q1', answer: 'vitest' } },
  },
  'a question answered': { entry: { kind: 'question', id: 'q2', v: 1, question: 'Which test runner?', options: ['mocha'], allowFreeText: false, answer: 'mocha' }, text: /Which test runner\?Answered: mocha/ },
  'what a task changed': {
    entry: { kind: 'changes', id: 'c1', v: 1, taskId: 'task1', files: [{ file: 'README.md', change: 'modified', added: 3, removed: 1 }], commands: 0 },
    text: /README\.md/,
    click: { selector: '[data-action="open-task-change"]', sends: { type: 'openTaskChange', entryId: 'c1', file: 'README.md' } },
  },
};

describe('the chat view, mounted with a fake host', () => {
  let current: ReturnType<typeof mounted> | undefined;
  afterEach(() => {
    current?.view.dispose();
    current = undefined;
    dom.clear();
  });
  const open = (): ReturnType<typeof mounted> => (current = mounted());

  for (const [name, { entry, text, click, running }] of Object.entries(cases)) {
    it(`${name}: shown as its kind${click ? ', and its control reaches the host' : ''}`, () => {
      const { root, view, sent, commands } = open();
      view.onState(state([entry], { running: running === true }), 'init', hostTime, Date.now());
      const element = q(root, `[data-entry-id="${entry.id}"]`);
      assert.equal(element.dataset['entry'], entry.kind);
      assert.match(element.textContent.replace(/\s+/g, ' ').trim(), text);
      if (click) {
        q(element, click.selector).click();
        if ('command' in click.sends) {
          assert.deepEqual(commands, [click.sends.command]);
        } else {
          const expected = click.sends;
          assert.deepEqual(sent.filter((message) => message.type === expected.type).map((message) => ({ ...message })), [expected]);
        }
      }
    });
  }

  it('an empty chat welcomes the person with tasks to try; the first entry replaces it', () => {
    const { root, view, commands } = open();
    view.onState(state([]), 'init', hostTime, Date.now());
    assert.equal(root.dataset['state'], 'connected');
    q(root, '[data-action="example"]').click();
    assert.equal(promptOf(root).value, 'Explain how this project is laid out and where to start reading');
    q(root, '[data-action="host-command"][data-command="openEditRules"]').click();
    assert.deepEqual(commands, ['openEditRules']);
    assert.match(q(root, '[data-field="welcome-model"]').textContent, /Model: fixture-model at http:\/\/127\.0\.0\.1:1\/v1\./);
    view.onState(state([cases['the person\'s task']?.entry as ChatEntry]), 'state', hostTime, Date.now());
    assert.equal(root.querySelector('[data-field="welcome"]'), null);
  });

  it('keeps an entry that did not change, redraws one that did, drops one that is gone, in the host\'s order', () => {
    const { root, view } = open();
    const user: ChatEntry = { kind: 'user', id: 'u1', v: 1, text: 'task' };
    const answer: ChatEntry = { kind: 'assistant', id: 'a1', v: 1, text: 'Part', streaming: true };
    const tool: ChatEntry = { kind: 'tool', id: 't1', v: 1, name: 'read_file', summary: 'a.ts', status: 'running' };
    view.onState(state([user, answer, tool], { running: true }), 'init', hostTime, Date.now());
    const kept = q(root, '[data-entry-id="u1"]');
    const before = q(root, '[data-entry-id="a1"]');
    view.onState(state([user, { ...answer, v: 2, text: 'Part two', streaming: false }]), 'state', hostTime, Date.now());
    assert.equal(q(root, '[data-entry-id="u1"]'), kept);
    assert.notEqual(q(root, '[data-entry-id="a1"]'), before);
    assert.equal(q(root, '[data-entry-id="a1"]').textContent, 'Part two');
    assert.equal(root.querySelector('[data-entry-id="t1"]'), null);
    assert.deepEqual([...root.querySelectorAll<HTMLElement>('[data-entry-id]')].map((element) => element.dataset['entryId']), ['u1', 'a1']);
  });

  it('sends a task with Enter, says a refusal, and tells how many calls wait', () => {
    const { root, view, sent } = open();
    view.onState(state([], { waitingCalls: 2 }), 'init', hostTime, Date.now());
    const prompt = promptOf(root);
    prompt.value = '  Fix the failing test  ';
    prompt.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    assert.deepEqual(sent.filter((message) => message.type === 'submit'), [{ type: 'submit', prompt: 'Fix the failing test' }]);
    assert.equal(prompt.value, '');
    view.onResult('r1', false, 'A task is already running');
    assert.equal(q(root, '.notice.error').textContent, 'A task is already running');
    assert.match(q(root, '[data-field="waiting"]').textContent, /^2 calls waiting for approval/);
  });
});
