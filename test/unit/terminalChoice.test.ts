import * as assert from 'node:assert/strict';
import { chooseTerminal, orphanedTerminals, terminalName, type TerminalSlot } from '../../src/core/terminal/terminalChoice';

const slot = (chatId: string, state: 'idle' | 'busy' | 'closed' = 'idle'): TerminalSlot => ({ chatId, busy: state === 'busy', closed: state === 'closed' });

describe("chooseTerminal: which terminal a chat's command runs in", () => {
  const rows: [title: string, slots: TerminalSlot[], chatId: string, chosen: number | undefined][] = [
    ['no terminal yet: a new one', [], 'c1', undefined],
    ["the chat's idle terminal is reused", [slot('c1')], 'c1', 0],
    ["another chat's terminal is not used: a new one", [slot('c2')], 'c1', undefined],
    ["the chat's terminal is busy: a new one", [slot('c1', 'busy')], 'c1', undefined],
    ['the person closed it: a new one', [slot('c1', 'closed')], 'c1', undefined],
    ['busy and an idle one of the same chat: the idle one', [slot('c1', 'busy'), slot('c2'), slot('c1')], 'c1', 2],
    ['two idle ones of the chat: the oldest', [slot('c1'), slot('c1')], 'c1', 0],
  ];
  for (const [title, slots, chatId, chosen] of rows) {
    it(title, () => {
      assert.equal(chooseTerminal(slots, chatId), chosen);
    });
  }
});

describe('orphanedTerminals: terminals whose chat is gone are disposed', () => {
  it('lists only the terminals of chats not kept', () => {
    assert.deepEqual(orphanedTerminals([slot('c1'), slot('gone'), slot('c2', 'busy'), slot('gone')], new Set(['c1', 'c2'])), [1, 3]);
  });
});

describe("terminalName: a terminal is named after its chat", () => {
  const rows: [title: string | undefined, name: string][] = [
    ['Fix the build', 'Toolgate: Fix the build'],
    [undefined, 'Toolgate'],
    ['  ', 'Toolgate'],
    ['line one\nline two', 'Toolgate: line one line two'],
    ['x'.repeat(60), `Toolgate: ${'x'.repeat(39)}…`],
  ];
  for (const [title, name] of rows) {
    it(`${JSON.stringify(title)} -> ${name}`, () => {
      assert.equal(terminalName(title), name);
    });
  }
});
