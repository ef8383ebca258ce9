/**
 * The group card's DOM with many files (happy-dom): the files listed at the top, each diff shown for the first three and
 * collapsed past them, a name (clicked or with Enter) opening its file's diff, one reason line for the group, and the
 * decision bar with the contract's attributes.
 */
import * as assert from 'node:assert/strict';
import { dom } from './dom';
import type { PendingCallView } from '../../src/shared/approvals';
import type { WebviewToHost } from '../../src/shared/messages';
import { GroupCard, filesOpenAtFirst } from '../../webview/shared/groupCard';
import { CallCard, sandboxLine } from '../../webview/shared/callCard';
import { allRejected } from '../../webview/shared/callParts';

const gated = 'Writes a file; writes always ask (`toolgate.gatedTools`).';
const group = { id: 'g1', command: `for f in src/mod/*.ts; do sed -i -e 's/= 5;/= 500;/' "$f"; echo "// a comment long enough to be cut in the header" >> "$f"; done`, changed: 7, reason: gated };

function member(index: number, reason = gated): PendingCallView {
  const path = `src/mod/${String.fromCharCode(97 + index)}.ts`;
  return {
    callId: `c${index}`, batchId: 'b', tool: 'write_file', source: 'agent', reason, warnings: [], argsHash: index.toString(16).padStart(64, '0'), argsJson: '{}',
    preview: { kind: 'diff', path, isNewFile: false, added: 2, removed: 1, hunks: [
      { header: '@@ -5 +5 @@', rows: [['d', 5, null, 'export const x5 = 5;'], ['a', null, 5, 'export const x5 = 500;']] },
      { header: '@@ -40 +40,2 @@', rows: [['c', 40, 40, 'end'], ['a', null, 41, '// comment']] },
    ] },
    callerLabel: "Toolgate's agent", grantable: false, grantsOffered: [], grantOptions: [], waitingSince: '2026-11-27T00:00:00.000Z',
    hunkChoices: [{ accepted: true, reason: '' }, { accepted: true, reason: '' }],
    group, ...(reason === gated ? { reasonShared: true as const } : {}),
  };
}

function card(members: PendingCallView[]): { card: GroupCard; sent: Omit<WebviewToHost, 'requestId'>[] } {
  const sent: Omit<WebviewToHost, 'requestId'>[] = [];
  const made = new GroupCard(group, { channel: { send: (message) => (sent.push(message), `r${sent.length}`) }, className: 'call' });
  made.update(members);
  dom.attach(made.element);
  return { card: made, sent };
}

describe('a group card with many files', () => {
  afterEach(() => dom.clear());
  const seven = Array.from({ length: 7 }, (_, index) => member(index, index === 4 ? 'Writes `src/mod/e.ts`: a protected path, which always asks.' : gated));

  it('lists every file at the top with its counts and state; diffs show for the first three, the rest collapsed', () => {
    const { card: shown } = card(seven);
    const entries = [...shown.element.querySelectorAll<HTMLElement>('.group-index li')];
    assert.deepEqual(entries.map((entry) => entry.dataset['path']), seven.map((one) => (one.preview.kind === 'diff' ? one.preview.path : '')));
    assert.match(entries[0]?.textContent ?? '', /a\.ts.*\+2.*−1.*accepted/);
    const sections = [...shown.element.querySelectorAll<HTMLElement>('section.group-file')];
    assert.deepEqual(sections.map((section) => section.hasAttribute('data-collapsed')), seven.map((_, index) => index >= filesOpenAtFirst));
    // The contract stays: each file by its call id, each hunk with its Accept and Reject, even while collapsed.
    assert.equal(shown.element.querySelectorAll('section.group-file[data-call-id] [data-hunk-index]').length, 14);
    assert.ok(shown.element.querySelector('[data-action="allow-once"]') && shown.element.querySelector('[data-action="deny"]'));
  });

  it('says the shared reason once; only the file with another reason says its own', () => {
    const { card: shown } = card(seven);
    const lines = [...shown.element.querySelectorAll('[data-field="why"]')].map((line) => line.textContent);
    assert.equal(lines.filter((line) => line.includes('Writes a file; writes always ask')).length, 1);
    assert.deepEqual(lines.filter((line) => line.includes('protected path')), ['Writes src/mod/e.ts: a protected path, which always asks.']);
    assert.equal(shown.element.querySelector('section.group-file[data-path="src/mod/e.ts"] [data-field="why"]')?.textContent.includes('protected'), true);
  });

  it('opens a collapsed file from its name in the list, and closes and opens it from its own button', () => {
    const { card: shown } = card(seven);
    const section = shown.element.querySelector<HTMLElement>('section.group-file[data-path="src/mod/f.ts"]');
    const link = shown.element.querySelector<HTMLElement>('.group-index [data-action="show-file"][data-path="src/mod/f.ts"]');
    assert.ok(section && link);
    assert.equal(link.tagName, 'BUTTON', 'a button: reached with Tab, pressed with Enter or Space');
    link.click();
    assert.equal(section.hasAttribute('data-collapsed'), false);
    assert.equal(document.activeElement, section, 'the focus goes to the file opened');
    const toggle = section.querySelector<HTMLElement>('[data-action="toggle-file"]');
    assert.ok(toggle);
    assert.equal(toggle.getAttribute('aria-expanded'), 'true');
    toggle.click();
    assert.equal(section.hasAttribute('data-collapsed'), true);
    assert.equal(toggle.getAttribute('aria-expanded'), 'false');
  });

  it("follows each file's state in the list as hunks are rejected", () => {
    const { card: shown, sent } = card(seven);
    const section = shown.element.querySelector<HTMLElement>('section.group-file[data-path="src/mod/b.ts"]');
    section?.querySelector<HTMLElement>('[data-action="reject-file"]')?.click();
    const entry = shown.element.querySelector<HTMLElement>('.group-index li[data-path="src/mod/b.ts"]');
    assert.equal(entry?.dataset['state'], 'rejected');
    assert.ok(entry);
    assert.match(entry.textContent, /rejected/);
    assert.equal(sent.filter((message) => message.type === 'chooseHunk').length, 2);
    assert.match(shown.element.querySelector('[data-field="group-summary"]')?.textContent ?? '', /^6 of 7 files accepted \(12 of 14 hunks\)/);
  });

  it('cuts a long command in the header and shows it whole on request', () => {
    const { card: shown } = card(seven);
    const whole = shown.element.querySelector<HTMLElement>('[data-field="group-command"]');
    const button = shown.element.querySelector<HTMLElement>('[data-action="show-command"]');
    assert.ok(whole && button);
    assert.equal(whole.hidden, true);
    button.click();
    assert.equal(whole.hidden, false);
    assert.equal(whole.textContent, group.command);
    assert.equal(button.getAttribute('aria-expanded'), 'true');
  });
});

describe("a group card, built from the call card's parts", () => {
  afterEach(() => dom.clear());
  const three = [member(0), member(1), member(2)];
  const key = (target: HTMLElement, name: string): void => void target.dispatchEvent(new KeyboardEvent('keydown', { key: name, bubbles: true, cancelable: true }));

  it('reports the focus as the call card does, its first member standing for the group', () => {
    const { card: shown, sent } = card(three);
    const outside = dom.document.createElement('button');
    dom.attach(outside);
    const focusSent = (): unknown[] => (sent as unknown as { type: string; callId?: string | null }[]).filter((message) => message.type === 'focusCall').map((message) => message.callId);
    shown.element.querySelector<HTMLElement>('section.group-file[data-call-id="c2"]')?.focus();
    shown.allow.focus();
    assert.deepEqual(focusSent(), ['c0', 'c0'], 'a move inside the card is not a focus lost');
    outside.focus();
    assert.deepEqual(focusSent(), ['c0', 'c0', null]);
  });

  it('reviews a file by key as a call card does: j to its first hunk, r rejects it, a key typed in a text box is text', () => {
    const { card: shown, sent } = card(three);
    const section = shown.element.querySelector<HTMLElement>('section.group-file[data-call-id="c1"]');
    assert.ok(section);
    section.focus();
    key(section, 'j');
    const first = section.querySelector<HTMLElement>('[data-hunk-index="0"]');
    assert.equal(document.activeElement, first);
    assert.ok(first);
    key(first, 'r');
    assert.equal(first.dataset['state'], 'rejected');
    assert.deepEqual(sent.filter((message) => message.type === 'chooseHunk').map((message) => ({ ...message })), [
      { type: 'chooseHunk', callId: 'c1', argsHash: member(1).argsHash, index: 0, choice: 'reject', reason: '' },
    ]);
    // The reject put the focus in the hunk's reason box: the next r is a letter of the reason.
    const box = first.querySelector<HTMLTextAreaElement>('[data-field="hunk-reason"]');
    assert.equal(document.activeElement, box);
    assert.ok(box);
    key(box, 'a');
    assert.equal(first.dataset['state'], 'rejected');
  });

  it('Deny asks why first, then sends one decision for the group by its first member, marked as sent', () => {
    const sent: Omit<WebviewToHost, 'requestId'>[] = [];
    let decided = 0;
    const shown = new GroupCard(group, { channel: { send: (message) => (sent.push(message), `r${sent.length}`) }, className: 'inline-call', onDecided: () => void (decided += 1) });
    shown.update(three);
    dom.attach(shown.element);
    const deny = shown.element.querySelector<HTMLElement>('.group-decision [data-action="deny"]');
    const reason = shown.element.querySelector<HTMLTextAreaElement>('.group-decision [data-field="reason"]');
    assert.ok(deny && reason);
    deny.click();
    assert.equal(sent.some((message) => message.type === 'decide'), false);
    assert.equal(document.activeElement, reason);
    reason.value = 'not now';
    deny.click();
    assert.deepEqual(sent.filter((message) => message.type === 'decide'), [{ type: 'decide', callId: 'c0', argsHash: member(0).argsHash, action: 'deny', editRevision: 0, reason: 'not now' }]);
    assert.equal(shown.element.dataset['sent'], 'true');
    assert.equal(decided, 1);
  });

  it('says the "use Deny" rule with the call card\'s one wording when every change is rejected', () => {
    const off = { allow: 'Every hunk is rejected: use Deny to refuse the whole call' };
    const rejected = three.map((one) => ({ ...one, hunkChoices: [{ accepted: false, reason: '' }, { accepted: false, reason: '' }], off }));
    const { card: shown } = card(rejected);
    assert.equal(shown.allow.hasAttribute('disabled'), true);
    assert.equal(shown.allow.title, allRejected('group').sentence);
    assert.equal(shown.element.querySelector('[data-field="group-summary"]')?.textContent, `0 of 3 files accepted (0 of 6 hunks): ${allRejected('group').advice}`);
    const single = new CallCard(rejected[0] ?? member(0), { channel: { send: () => 'r', command: () => undefined }, layout: 'full' });
    assert.equal(single.element.querySelector<HTMLElement>('[data-field="hunk-hint"]')?.textContent, ` ${allRejected('call').sentence}.`);
    assert.equal(single.element.querySelector<HTMLElement>('[data-field="hunk-hint"]')?.hidden, false);
  });
});

describe("a command card's sandbox line, from the host's typed field", () => {
  const rows: [string, PendingCallView['sandbox'], RegExp | undefined][] = [
    ['reviewed', 'reviewed', /Runs in the sandbox\. The files it changes .* wait for your review/],
    ['unreviewed (its warning says why)', 'unreviewed', /^ Runs in the sandbox\.$/],
    ['not said', undefined, undefined],
  ];
  for (const [name, sandbox, expected] of rows) {
    it(name, () => {
      const line = sandboxLine(sandbox === undefined ? {} : { sandbox });
      if (expected === undefined) {
        assert.equal(line, '');
      } else {
        assert.ok(typeof line !== 'string');
        assert.match(line.textContent, expected);
      }
    });
  }
});
