import * as assert from 'node:assert/strict';
import { dom } from './dom';
import type { DiffHunkView, PendingCallView } from '../../src/shared/approvals';
import type { WebviewToHost } from '../../src/shared/messages';
import { CallCard, type CardLayout } from '../../webview/shared/callCard';
import { CardList } from '../../webview/shared/cardList';
import { takeAnswer } from '../../webview/shared/hostChannel';

type Sent = Record<string, unknown> & { type: string };

/** The host channel's boundary, faked: what the card sends is recorded, as the host would receive it. */
function fakeChannel(): { channel: { send(message: Omit<WebviewToHost, 'requestId'>): string; command(command: string): void }; sent: Sent[]; commands: string[]; next: (type: string) => Promise<Sent> } {
  const sent: Sent[] = [];
  const commands: string[] = [];
  const waiters: { type: string; resolve(message: Sent): void }[] = [];
  return {
    sent,
    commands,
    next: (type) => new Promise((resolve) => waiters.push({ type, resolve })),
    channel: {
      send: (message) => {
        const recorded = message as unknown as Sent;
        sent.push(recorded);
        for (const waiter of waiters.filter((candidate) => candidate.type === recorded.type)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(recorded);
        }
        return `r${sent.length}`;
      },
      command: (command) => void commands.push(command),
    },
  };
}

const hash = (n: number): string => n.toString(16).padStart(64, '0');
const base = (id: string, overrides: Partial<PendingCallView>): PendingCallView => ({
  callId: id,
  batchId: 'b1',
  tool: 'write_file',
  source: 'agent',
  callerLabel: "Toolgate's agent",
  reason: 'Writes a file; writes always ask (`toolgate.gatedTools`).',
  warnings: [],
  argsHash: hash(id.length),
  argsJson: '{}',
  preview: { kind: 'none' },
  grantable: true,
  grantsOffered: ['allow-session', 'allow-task', 'allow-minutes', 'allow-workspace'],
  grantOptions: [{ id: 'tool', label: 'every write_file' }],
  waitingSince: '2026-11-26T00:00:00.000Z',
  ...overrides,
});

const diff = (path: string, hunks: number): PendingCallView['preview'] => ({
  kind: 'diff', path, isNewFile: false, added: hunks, removed: hunks,
  hunks: Array.from({ length: hunks }, (_, index) => ({
    header: `@@ -${index * 10 + 1},1 +${index * 10 + 1},1 @@`,
    rows: [['d', index * 10 + 1, null, `old ${index}`], ['a', null, index * 10 + 1, `new ${index}`]],
  })),
});

const kinds: Record<string, PendingCallView> = {
  'a new file': base('write', { preview: { ...diff('TODO.md', 1), isNewFile: true } as PendingCallView['preview'], editable: { kind: 'content', text: 'new 0\n' } }),
  'an edit with hunks': base('edit', { tool: 'edit_file', preview: diff('src/a.ts', 3), hunkChoices: [0, 1, 2].map(() => ({ accepted: true, reason: '' })), editable: { kind: 'content', text: 'x' } }),
  'a command': base('cmd', { tool: 'run_in_terminal', preview: { kind: 'command', command: 'npm test', cwd: '/w', analysis: [{ text: 'npm test: asks', verdict: 'ask' }] }, editable: { kind: 'command', text: 'npm test' } }),
  'a command without the sandbox': base('bare', { tool: 'run_in_terminal', unconfined: true, grantable: false, grantsOffered: [], grantOptions: [], off: { grant: 'No grant can cover this call: allow it once' }, preview: { kind: 'command', command: 'make', cwd: '/w', analysis: [] } }),
  'an MCP call': base('mcp', { tool: 'fixture__echo', argsJson: '{\n  "text": "hi"\n}', toolInfo: { server: 'fixture', description: 'Echoes the text back.', annotations: ['readOnlyHint'] } }),
  'a large write (long arguments cut, edited in the diff editor)': base('large', {
    argsJson: '{\n  "content": "line… (99,000 more characters)"\n}', argsCut: 100_020, preview: diff('big.ts', 2), editable: { kind: 'content', chars: 100_000 },
  }),
  'an API call that no grant covers': base('api', { tool: 'write_file', source: 'api', callerLabel: 'api', grantable: false, grantsOffered: [], grantOptions: [], off: { grant: 'No grant can cover this call: allow it once' }, preview: diff('b.txt', 1) }),
};

interface Expect {
  allow: string;
  edit: boolean;
  task: boolean;
  minutes: boolean;
  toolInfo: boolean;
  grantsOff: boolean;
}
const expected: Record<string, Expect> = {
  'a new file': { allow: 'allow-once', edit: true, task: true, minutes: true, toolInfo: false, grantsOff: false },
  'an edit with hunks': { allow: 'allow-once', edit: true, task: true, minutes: true, toolInfo: false, grantsOff: false },
  'a command': { allow: 'allow-once', edit: true, task: true, minutes: true, toolInfo: false, grantsOff: false },
  'a command without the sandbox': { allow: 'allow-unconfined', edit: false, task: false, minutes: false, toolInfo: false, grantsOff: true },
  'an MCP call': { allow: 'allow-once', edit: false, task: true, minutes: true, toolInfo: true, grantsOff: false },
  'a large write (long arguments cut, edited in the diff editor)': { allow: 'allow-once', edit: true, task: true, minutes: true, toolInfo: false, grantsOff: false },
  'an API call that no grant covers': { allow: 'allow-once', edit: false, task: false, minutes: false, toolInfo: false, grantsOff: true },
};

const q = (root: HTMLElement, selector: string): HTMLElement | null => root.querySelector<HTMLElement>(selector);

describe('the call card, one component for the panel and the chat', () => {
  afterEach(() => dom.clear());

  for (const [name, call] of Object.entries(kinds)) {
    const want = expected[name];
    for (const layout of ['full', 'dense'] as CardLayout[]) {
      it(`${name}, ${layout}: the same decisions as every other surface`, () => {
        assert.ok(want);
        const { channel } = fakeChannel();
        const card = new CallCard(call, { channel, layout });
        const element = card.element;
        assert.equal(element.dataset['callId'], call.callId);
        assert.equal(element.dataset['layout'], layout);
        assert.ok(q(element, `[data-action="${want.allow}"]`), 'its allow');
        for (const button of element.querySelectorAll<HTMLElement>('[data-action]:not(a):not(textarea):not(select)')) {
          // Native buttons: the platform's keyboard and disabled behaviour, and never a form's submit.
          assert.equal(button.tagName, 'BUTTON', `${button.dataset['action'] ?? ''} is a button`);
          assert.equal(button.getAttribute('type'), 'button');
        }
        assert.ok(q(element, '[data-action="deny"]'), 'Deny');
        assert.equal(q(element, '[data-action="edit"]') !== null, want.edit, 'Edit then allow');
        assert.equal(q(element, '[data-action="allow-task"]') !== null, want.task, 'Allow for this task');
        assert.equal(q(element, '[data-action="allow-minutes"]') !== null, want.minutes, 'Allow for these minutes');
        assert.equal(q(element, '[data-field="tool-info"]') !== null, want.toolInfo, 'the MCP tool description');
        if (want.toolInfo) {
          assert.match(q(element, '[data-field="tool-info"]')?.textContent ?? '', /Echoes the text back\.[\s\S]*readOnlyHint/);
        }
        assert.equal(q(element, '[data-field="args"]')?.textContent, call.argsJson, 'the exact arguments');
        assert.equal(q(element, '[data-action="open-args"]') !== null, call.argsCut !== undefined, 'long arguments open whole in an editor');
        for (const grant of element.querySelectorAll<HTMLElement>('[data-action^="allow-"]:not([data-action="allow-once"]):not([data-action="allow-unconfined"]):not([data-action="allow-edited"])')) {
          assert.equal(grant.hasAttribute('disabled'), want.grantsOff, `${grant.dataset['action'] ?? ''} off`);
          if (want.grantsOff) {
            assert.equal(grant.title, 'No grant can cover this call: allow it once');
          }
        }
        assert.equal(q(element, '[data-action="open-approvals"]') !== null, layout === 'dense', 'the dense card links to the panel');
      });
    }
  }

  for (const layout of ['full', 'dense'] as CardLayout[]) {
    it(`${layout}: a refused command's narrow fixes come first, each sending its own remedy, and Run without sandbox stays its own button`, () => {
      const { channel, sent } = fakeChannel();
      const remedies = [
        { id: 'allow-hosts', label: 'Allow localhost:5173 on this machine', title: 'Adds it to toolgate.sandbox.allowedDomains' },
        { id: 'allow-hosts-once', label: 'Allow once for this command', title: 'For that run only' },
      ];
      const bare = kinds['a command without the sandbox'];
      assert.ok(bare);
      const card = new CallCard({ ...bare, remedies }, { channel, layout });
      const order = [...card.element.querySelectorAll<HTMLElement>('.actions [data-action]')].map((button) => button.dataset['remedy'] ?? button.dataset['action']);
      assert.deepEqual(order.slice(0, 3), ['allow-hosts', 'allow-hosts-once', 'allow-unconfined']);
      const once = q(card.element, '[data-remedy="allow-hosts-once"]');
      assert.ok(once);
      assert.equal(once.textContent.trim(), 'Allow once for this command');
      assert.equal(once.title, 'For that run only');
      once.click();
      assert.deepEqual(sent.map(({ type, action, remedy }) => [type, action, remedy]), [['decide', 'allow-remedy', 'allow-hosts-once']]);
    });
  }

  it('turns Allow once off and on as the host says, with its reason, and sends nothing while it is off', () => {
    const { channel, sent } = fakeChannel();
    const call = kinds['an edit with hunks'];
    assert.ok(call);
    const card = new CallCard(call, { channel, layout: 'full' });
    const allow = q(card.element, '[data-action="allow-once"]');
    assert.ok(allow);
    assert.equal(allow.hasAttribute('disabled'), false);
    card.update({ ...call, hunkChoices: [0, 1, 2].map(() => ({ accepted: false, reason: '' })), off: { allow: 'Every hunk is rejected: use Deny to refuse the whole call', grant: 'g', 'allow-all': 'a' } });
    assert.equal(allow.hasAttribute('disabled'), true);
    assert.equal(allow.title, 'Every hunk is rejected: use Deny to refuse the whole call');
    assert.equal(q(card.element, '[data-field="hunk-summary"]')?.textContent, '0 of 3 hunks accepted');
    allow.click();
    q(card.element, '[data-action="allow-session"]')?.click();
    assert.deepEqual(sent.filter((message) => message.type === 'decide'), []);
    card.update(call);
    assert.equal(allow.hasAttribute('disabled'), false);
    allow.click();
    assert.deepEqual(sent.filter((message) => message.type === 'decide'), [{ type: 'decide', callId: 'edit', argsHash: call.argsHash, editRevision: 0, action: 'allow-once' }]);
  });

  it('shows an edit made in the diff editor, labels Allow for it, and names its revision when allowing', () => {
    const { channel, sent } = fakeChannel();
    const call = kinds['a new file'];
    assert.ok(call);
    const card = new CallCard(call, { channel, layout: 'dense' });
    card.update({ ...call, edit: { revision: 3, text: 'edited 0\n', where: 'diff-editor' }, off: { grant: 'You edited this call' } });
    const note = q(card.element, '[data-field="held-edit"]');
    assert.equal(note?.hidden, false);
    assert.match(note.textContent, /Edited in VS Code's diff editor: Allow writes this version/);
    const allow = q(card.element, '[data-action="allow-once"]');
    assert.match(allow?.textContent ?? '', /Allow edited/);
    assert.equal(q(card.element, '[data-action="allow-task"]')?.hasAttribute('disabled'), true, 'a grant would allow the original');
    allow?.click();
    assert.deepEqual(sent.at(-1), { type: 'decide', callId: 'write', argsHash: call.argsHash, editRevision: 3, action: 'allow-once' });
  });

  it('a large write: opens its whole arguments in an editor, is edited in the diff editor, and shows an edit made there', () => {
    const { channel, sent } = fakeChannel();
    const call = kinds['a large write (long arguments cut, edited in the diff editor)'];
    assert.ok(call);
    const card = new CallCard(call, { channel, layout: 'full' });
    assert.match(q(card.element, 'details.args summary')?.textContent ?? '', /long values cut/);
    q(card.element, '[data-action="open-args"]')?.click();
    assert.deepEqual(sent.at(-1), { type: 'openArgs', callId: 'large' });
    const edit = q(card.element, '[data-action="edit"]');
    assert.match(edit?.textContent ?? '', /Edit in diff editor/);
    edit?.click();
    assert.deepEqual(sent.at(-1), { type: 'openDiff', callId: 'large' }, "the diff editor's proposed side is the edit box");
    assert.equal(q(card.element, 'textarea[data-field="edited"]'), null, 'no box for the large content');
    card.update({ ...call, edit: { revision: 1, text: 'edited\n', where: 'diff-editor' }, off: { grant: 'You edited this call' } });
    assert.match(q(card.element, '[data-field="held-edit"]')?.textContent ?? '', /Edited in VS Code's diff editor: Allow writes this version[\s\S]*not shown as a diff here/);
    q(card.element, '[data-field="edit-in-diff-editor"] [data-action="open-diff"]')?.click();
    assert.deepEqual(sent.at(-1), { type: 'openDiff', callId: 'large' });
    assert.match(q(card.element, '[data-action="allow-once"]')?.textContent ?? '', /Allow edited/);
  });

  it('a diff sent with its first rows: the card asks for the rest once they are on screen, says they come, and shows the whole diff once they do', async () => {
    const { channel, sent } = fakeChannel();
    const whole: PendingCallView['preview'] = {
      kind: 'diff', path: 'big.ts', isNewFile: false, added: 2_000, removed: 0,
      hunks: [{ header: '@@ -0,0 +1,2000 @@', rows: Array.from({ length: 2_000 }, (_, i): ['a', null, number, string] => ['a', null, i + 1, `line ${i + 1}`]) }],
    };
    const first = { ...whole, hunks: [{ header: '@@ -0,0 +1,2000 @@', rows: whole.hunks[0]?.rows.slice(0, 300) ?? [], rowCount: 2_000 }] };
    const call = base('cut', { preview: first, hunkChoices: [{ accepted: true, reason: '' }] });
    const card = new CallCard(call, { channel, layout: 'full' });
    dom.attach(card.element);
    assert.equal(sent.find((message) => message.type === 'loadDiffRows'), undefined, 'not asked before the first rows are drawn');
    await new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    const asked = sent.find((message) => message.type === 'loadDiffRows');
    assert.deepEqual(asked, { type: 'loadDiffRows', callId: 'cut', argsHash: call.argsHash });
    assert.match(q(card.element, '[data-field="rows-loading"]')?.textContent ?? '', /Loading 1,700 more lines/);
    assert.equal(q(card.element, '.diff-body')?.dataset['rows'], '300');
    assert.equal(q(card.element, '.hunk-block')?.getAttribute('aria-label'), 'Hunk 1 of 1, @@ -0,0 +1,2000 @@', 'no line range read from the first rows alone');
    takeAnswer({ type: 'result', requestId: `r${sent.indexOf(asked) + 1}`, ok: true, diffRows: whole.hunks.map((hunk) => hunk.rows) });
    assert.equal(q(card.element, '[data-field="rows-loading"]'), null);
    assert.equal(q(card.element, '.diff-body')?.dataset['rows'], '2000');
    assert.equal(q(card.element, '.hunk-block')?.getAttribute('aria-label'), 'Hunk 1 of 1, lines 1–2000');
    assert.ok(q(card.element, '[data-action="accept-hunk"]'), 'its hunk controls, drawn again');
  });

  it('a diff of many hunks builds each hunk\'s Accept / Reject when it nears the view, gets the focus, or is rejected by key', () => {
    // The page's observer, played by the test: it says which hunks come into view.
    const observed: Element[] = [];
    let report: ((entries: { target: Element; isIntersecting: boolean }[]) => void) | undefined;
    class FakeObserver {
      constructor(callback: (entries: { target: Element; isIntersecting: boolean }[]) => void) {
        report = callback;
      }
      observe(target: Element): void {
        observed.push(target);
      }
      unobserve(): void {}
      disconnect(): void {}
    }
    Object.defineProperty(globalThis, 'IntersectionObserver', { value: FakeObserver, configurable: true, writable: true });
    try {
      const { channel, sent } = fakeChannel();
      const call = base('many', { tool: 'edit_file', preview: diff('src/a.ts', 20), hunkChoices: Array.from({ length: 20 }, () => ({ accepted: true, reason: '' })) });
      const card = new CallCard(call, { channel, layout: 'full' });
      dom.attach(card.element);
      const blocks = [...card.element.querySelectorAll<HTMLElement>('.hunk-block')];
      assert.equal(blocks.length, 20);
      assert.equal(observed.length, 20);
      assert.equal(card.element.querySelectorAll('[data-action="accept-hunk"]').length, 0, 'none built before the page says what is in view');
      report?.([0, 1, 2].map((index) => ({ target: blocks[index] as Element, isIntersecting: true })));
      assert.equal(card.element.querySelectorAll('[data-action="accept-hunk"]').length, 3);
      blocks[12]?.dispatchEvent(new Event('focusin'));
      assert.ok(blocks[12]?.querySelector('[data-action="reject-hunk"]'), 'a focused hunk has its controls');
      blocks[15]?.focus();
      blocks[15]?.dispatchEvent(new KeyboardEvent('keydown', { key: 'r', bubbles: true }));
      assert.equal(blocks[15]?.dataset['state'], 'rejected');
      assert.equal(document.activeElement, blocks[15].querySelector('textarea[data-field="hunk-reason"]'), 'r opens its reason box');
      assert.equal(sent.filter((message) => message.type === 'chooseHunk').length, 1);
    } finally {
      Reflect.deleteProperty(globalThis, 'IntersectionObserver');
    }
  });

  it('a long diff draws the rows in view with the card, before any frame, and none of the hunks far below', () => {
    const { channel } = fakeChannel();
    const rows = (index: number): DiffHunkView => ({
      header: `@@ -${index * 100 + 1},9 +${index * 100 + 1},9 @@`,
      rows: Array.from({ length: 9 }, (_, row): ['c', number, number, string] => ['c', index * 100 + row + 1, index * 100 + row + 1, `line ${row}`]),
    });
    const preview: PendingCallView['preview'] = { kind: 'diff', path: 'big.ts', isNewFile: false, added: 0, removed: 0, hunks: Array.from({ length: 100 }, (_, index) => rows(index)) };
    const card = new CallCard(base('long', { preview, hunkChoices: Array.from({ length: 100 }, () => ({ accepted: true, reason: '' })) }), { channel, layout: 'full' });
    const blocks = [...card.element.querySelectorAll<HTMLElement>('.hunk-block')];
    assert.equal(q(card.element, '.diff-body')?.dataset['virtual'], 'true', '900 rows are drawn as a window');
    const drawn = blocks.map((block) => block.querySelectorAll('.diff-row').length);
    assert.deepEqual(drawn.slice(0, 3), [9, 9, 9], 'the first hunks are drawn at once, from estimated offsets');
    assert.deepEqual(drawn.slice(20), Array.from({ length: 80 }, () => 0), 'those far below wait for the scroll');
  });

  it('holds an edit typed in its box with the host (setEdit), and Edit then allow sends that text', async () => {
    const { channel, sent, next } = fakeChannel();
    const call = kinds['a command'];
    assert.ok(call);
    const card = new CallCard(call, { channel, layout: 'dense' });
    dom.attach(card.element);
    q(card.element, '[data-action="edit"]')?.click();
    const box = q(card.element, 'textarea[data-field="edited"]') as HTMLTextAreaElement | null;
    assert.ok(box);
    assert.equal(box.value, 'npm test');
    box.value = 'npm test -- --grep x';
    const held = next('setEdit');
    box.dispatchEvent(new Event('input'));
    assert.deepEqual(await held, { type: 'setEdit', callId: 'cmd', argsHash: call.argsHash, text: 'npm test -- --grep x' });
    q(card.element, '[data-action="allow-edited"]')?.click();
    assert.deepEqual(sent.at(-1), { type: 'decide', callId: 'cmd', argsHash: call.argsHash, editRevision: 0, action: 'allow-edited', edited: 'npm test -- --grep x' });
  });
});

describe('the list of waiting cards, one for the panel and the chat', () => {
  afterEach(() => dom.clear());

  const two = [kinds['a command'], kinds['an MCP call']].filter((call) => call !== undefined);

  for (const layout of ['full', 'dense'] as CardLayout[]) {
    it(`${layout}: keeps each card across pushes, with what the person typed, and offers Allow all / Deny all for two`, () => {
      const { channel, sent } = fakeChannel();
      const list = new CardList({ channel, layout, label: 'waiting' });
      dom.attach(list.batch);
      dom.attach(list.element);
      assert.equal(list.render(two), true);
      const first = list.element.querySelector<HTMLElement>('[data-call-id="cmd"]');
      const reason = first?.querySelector<HTMLTextAreaElement>('textarea[data-field="reason"]');
      assert.ok(first && reason);
      reason.value = 'not now';
      assert.equal(list.render(two.map((call) => ({ ...call }))), false, 'nothing added');
      assert.equal(list.element.querySelector('[data-call-id="cmd"]'), first, 'the same element');
      assert.equal(reason.value, 'not now');
      assert.equal(list.batch.hidden, false);
      list.batch.querySelector<HTMLElement>('[data-action="deny-all"]')?.click();
      assert.deepEqual(sent.at(-1), { type: 'decideAll', action: 'deny-all', calls: two.map(({ callId, argsHash }) => ({ callId, argsHash })) });
    });
  }

  it("turns Allow all off with the host's reason while a card's call says so", () => {
    const { channel, sent } = fakeChannel();
    const list = new CardList({ channel, layout: 'full', label: 'waiting' });
    const blocked = two.map((call, index) => (index === 1 ? { ...call, off: { 'allow-all': 'Some hunks are rejected: allow those calls once, on their cards' } } : call));
    list.render(blocked);
    const allowAll = list.batch.querySelector<HTMLElement>('[data-action="allow-all"]');
    assert.ok(allowAll);
    assert.equal(allowAll.hasAttribute('disabled'), true);
    assert.equal(allowAll.title, 'Some hunks are rejected: allow those calls once, on their cards');
    allowAll.click();
    assert.equal(sent.length, 0);
    list.render(two);
    list.batch.querySelector<HTMLElement>('[data-action="allow-all"]')?.click();
    assert.equal(sent.at(-1)?.['action'], 'allow-all');
  });

  it('after a decision here, focuses the next card itself, not its Allow, and the prompt once none is left', () => {
    const { channel } = fakeChannel();
    let last = 0;
    const list = new CardList({ channel, layout: 'dense', label: 'waiting', focusAfterLast: () => (last += 1) });
    dom.attach(list.element);
    list.render(two);
    const allow = list.element.querySelector<HTMLElement>('[data-call-id="cmd"] [data-action="allow-once"]');
    allow?.focus();
    allow?.click();
    list.render(two.slice(1));
    assert.equal(dom.document.activeElement, list.element.querySelector('[data-call-id="mcp"]'));
    list.element.querySelector<HTMLElement>('[data-call-id="mcp"] [data-action="allow-once"]')?.click();
    list.render([]);
    assert.equal(last, 1);
  });
});
