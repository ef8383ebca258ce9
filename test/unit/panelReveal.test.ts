import * as assert from 'node:assert/strict';
import { chatShowsCall } from '../../src/core/callers';
import { NewCalls, PanelHold, panelReveal, type NewCall, type RevealDecision, type RevealInput } from '../../src/core/views/panelReveal';

const inChat: NewCall = { inVisibleChat: true, closedForTask: false };
const elsewhere: NewCall = { inVisibleChat: false, closedForTask: false };
const inChatClosed: NewCall = { inVisibleChat: true, closedForTask: true };
const elsewhereClosed: NewCall = { inVisibleChat: false, closedForTask: true };
const reveal: RevealDecision = { reveal: true, preserveFocus: true };
const stay = (why: Extract<RevealDecision, { reveal: false }>['why']): RevealDecision => ({ reveal: false, why });

describe('panelReveal: the Approvals panel opens only for a call the person would not see otherwise', () => {
  const rows: [title: string, input: RevealInput, decision: RevealDecision][] = [
    ['whenNotVisible, the call shows in the visible chat', { setting: 'whenNotVisible', newCalls: [inChat], panelVisible: false }, stay('shown in the chat')],
    ['whenNotVisible, the chat is hidden (or an API call)', { setting: 'whenNotVisible', newCalls: [elsewhere], panelVisible: false }, reveal],
    ['whenNotVisible, one of two new calls is not in the chat', { setting: 'whenNotVisible', newCalls: [inChat, elsewhere], panelVisible: false }, reveal],
    ['whenNotVisible, closed by the person in this task, chat hidden', { setting: 'whenNotVisible', newCalls: [elsewhereClosed], panelVisible: false }, stay('closed by the person in this task')],
    ['whenNotVisible, closed in this task and shown in the chat', { setting: 'whenNotVisible', newCalls: [inChatClosed], panelVisible: false }, stay('closed by the person in this task')],
    ['always, the call shows in the visible chat', { setting: 'always', newCalls: [inChat], panelVisible: false }, reveal],
    ['always, but closed by the person in this task', { setting: 'always', newCalls: [elsewhereClosed], panelVisible: false }, stay('closed by the person in this task')],
    ['never, nothing else shows the call (the attention tells the person)', { setting: 'never', newCalls: [elsewhere], panelVisible: false }, stay('the setting says never')],
    ['the panel is already on screen', { setting: 'always', newCalls: [elsewhere], panelVisible: true }, stay('already visible')],
    ['no new call (one settled, or a refresh for a setting)', { setting: 'always', newCalls: [], panelVisible: false }, stay('no new call')],
  ];
  for (const [title, input, decision] of rows) {
    it(`${title}: ${decision.reveal ? 'reveals, keeping the focus' : `stays (${decision.why})`}`, () => {
      assert.deepEqual(panelReveal(input), decision);
    });
  }
});

describe("PanelHold: a person's closing the panel holds for the rest of the task", () => {
  type Step = 'start' | 'end' | 'close';
  const rows: [title: string, steps: Step[], held: boolean][] = [
    ['nothing happened', [], false],
    ['closed while a task runs', ['start', 'close'], true],
    ['closed while no task runs', ['close'], false],
    ['closed before the task started', ['close', 'start'], false],
    ['the task ended after the closing', ['start', 'close', 'end'], false],
    ['a new task after a closing in the last one', ['start', 'close', 'end', 'start'], false],
    ['closed again in the new task', ['start', 'close', 'end', 'start', 'close'], true],
    ['a repeated running report does not lift the hold', ['start', 'close', 'start'], true],
  ];
  for (const [title, steps, held] of rows) {
    it(`${title}: ${held ? 'held' : 'not held'}`, () => {
      const hold = new PanelHold();
      for (const step of steps) {
        if (step === 'close') {
          hold.closedByPerson();
        } else {
          hold.taskRunning(step === 'start');
        }
      }
      assert.equal(hold.closedForTask, held);
    });
  }
});

describe('NewCalls: each waiting call is new once', () => {
  const rows: [title: string, looks: string[][], fresh: string[]][] = [
    ['the first look', [['a', 'b']], ['a', 'b']],
    ['the same calls again', [['a'], ['a']], []],
    ['one settles as another arrives (the count stays the same)', [['a'], ['b']], ['b']],
    ['a call that settled is not new again when others come', [['a'], [], ['c']], ['c']],
  ];
  for (const [title, looks, fresh] of rows) {
    it(title, () => {
      const calls = new NewCalls();
      const results = looks.map((waiting) => calls.since(waiting));
      assert.deepEqual(results.at(-1), fresh);
    });
  }
});

describe('chatShowsCall: the chat shows its own agent calls only', () => {
  const rows: [source: string, shown: boolean][] = [
    ['agent', true],
    ['api', false],
    ['mcp', false],
  ];
  for (const [source, shown] of rows) {
    it(`${source}: ${shown ? 'shown' : 'not shown'}`, () => {
      assert.equal(chatShowsCall({ source }), shown);
    });
  }
});
