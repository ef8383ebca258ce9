import * as assert from 'node:assert/strict';
import { actionsOff, editAction, grantsOffered, refusal, whyOff, type ChoiceFacts, type ChoiceSubject, type DecisionAction, type GrantAction, type PersonChoice } from '../../src/core/approval/choices';

const noGrant = 'No grant can cover this call: allow it once';
const editedGrant = 'You edited this call: a grant would allow the original. Allow the edit once, or undo the edit.';
const partialGrant = 'A grant allows the whole change: with hunks rejected, allow once';
const allRejected = 'Every hunk is rejected: use Deny to refuse the whole call';
const partialBatch = 'Some hunks are rejected: allow those calls once, on their cards';
const editedBatch = 'A call has an edit pending: write or run the edited version on its card, or close its edit first';

describe("the rules of a person's choice", () => {
  const rows: { name: string; facts: ChoiceFacts; off: ReturnType<typeof actionsOff> }[] = [
    { name: 'a grantable call as proposed: everything on', facts: { grantable: true, edited: false }, off: undefined },
    { name: 'a diff with every hunk accepted: everything on', facts: { grantable: true, edited: false, hunks: { count: 3, accepted: 3 } }, off: undefined },
    { name: 'no grant can cover the call', facts: { grantable: false, edited: false }, off: { grant: noGrant } },
    { name: 'one hunk of three rejected: grants and Allow all off, Allow once on', facts: { grantable: true, edited: false, hunks: { count: 3, accepted: 2 } }, off: { grant: partialGrant, 'allow-all': partialBatch } },
    { name: 'every hunk rejected: Allow once off too', facts: { grantable: true, edited: false, hunks: { count: 2, accepted: 0 } }, off: { allow: allRejected, grant: partialGrant, 'allow-all': partialBatch } },
    { name: 'an empty diff is not "every hunk rejected"', facts: { grantable: true, edited: false, hunks: { count: 0, accepted: 0 } }, off: undefined },
    { name: 'edited: grants and Allow all off, Allow once (which allows the edit) on', facts: { grantable: true, edited: true }, off: { grant: editedGrant, 'allow-all': editedBatch } },
    { name: 'not grantable wins over edited for the grants', facts: { grantable: false, edited: true }, off: { grant: noGrant, 'allow-all': editedBatch } },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(actionsOff(row.facts), row.off);
      for (const kind of ['allow', 'grant', 'allow-all'] as const) {
        assert.equal(whyOff(row.facts, kind), row.off?.[kind]);
      }
    });
  }
});

describe('which grants a card offers', () => {
  const rows: { name: string; grantable: boolean; inTask: boolean; offered: GrantAction[] }[] = [
    { name: "an agent's call in its task: every grant, the task's too", grantable: true, inTask: true, offered: ['allow-session', 'allow-task', 'allow-minutes', 'allow-workspace'] },
    { name: 'a call of no task (the API, another agent): no task grant', grantable: true, inTask: false, offered: ['allow-session', 'allow-minutes', 'allow-workspace'] },
    { name: 'no grant can cover it: none', grantable: false, inTask: true, offered: [] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(grantsOffered({ facts: { grantable: row.grantable }, inTask: row.inTask }), row.offered);
    });
  }
});

describe('which choices the gate refuses', () => {
  const subject = (over: Partial<ChoiceSubject> = {}): ChoiceSubject => ({
    callId: 'c1',
    facts: { grantable: true, edited: false },
    runsUnconfined: false,
    remedies: [],
    grantOptions: ['exact', 'path'],
    inTask: true,
    ...over,
  });
  const rows: { name: string; subject: ChoiceSubject; choice: PersonChoice; refused?: string }[] = [
    { name: 'Allow once of a plain call', subject: subject(), choice: { action: 'allow-once' } },
    { name: 'Allow once of a call that would run unconfined', subject: subject({ runsUnconfined: true }), choice: { action: 'allow-once' }, refused: 'call c1: it would run without the sandbox; only its "Run without sandbox" button allows that' },
    { name: 'Run without sandbox of a confined call', subject: subject(), choice: { action: 'allow-unconfined' }, refused: 'call c1: it runs in the sandbox; allow it once instead' },
    { name: 'Run without sandbox of an unconfined call', subject: subject({ runsUnconfined: true }), choice: { action: 'allow-unconfined' } },
    { name: 'a remedy offered', subject: subject({ remedies: ['allow-host'] }), choice: { action: 'allow-remedy', remedy: 'allow-host' } },
    { name: 'a remedy not offered', subject: subject({ remedies: ['allow-host'] }), choice: { action: 'allow-remedy', remedy: 'other' }, refused: "call c1: 'other' is not one of the fixes its card offers" },
    { name: 'a task grant in a task', subject: subject(), choice: { action: 'allow-task', grantOption: 'path' } },
    { name: 'a task grant of no task', subject: subject({ inTask: false }), choice: { action: 'allow-task' }, refused: "call c1: it is not part of an agent's task; allow it for the session instead" },
    { name: 'a timed grant of 0 minutes', subject: subject(), choice: { action: 'allow-minutes', minutes: 0 }, refused: 'call c1: a timed grant lasts 1 to 1440 minutes, not 0' },
    { name: 'a timed grant of 1440 minutes', subject: subject(), choice: { action: 'allow-minutes', minutes: 1440 } },
    { name: 'a grant where none can cover the call', subject: subject({ facts: { grantable: false, edited: false } }), choice: { action: 'allow-session' }, refused: `call c1: ${noGrant}` },
    { name: 'a grant of an edited call', subject: subject({ facts: { grantable: true, edited: true } }), choice: { action: 'allow-workspace' }, refused: `call c1: ${editedGrant}` },
    { name: 'a grant option not offered', subject: subject(), choice: { action: 'allow-session', grantOption: 'folder' }, refused: "call c1: 'folder' is not one of the offered grant scopes" },
    { name: 'hunks of a call with no hunk review', subject: subject(), choice: { action: 'allow-once', hunks: [{ index: 0, accepted: false }] }, refused: "call c1: only a file's diff can be decided hunk by hunk, and only with allow-once" },
    { name: 'hunks with a grant', subject: subject({ reviewableHunks: 2 }), choice: { action: 'allow-session', hunks: [{ index: 0, accepted: false }] }, refused: "call c1: only a file's diff can be decided hunk by hunk, and only with allow-once" },
    { name: 'one hunk of two rejected', subject: subject({ reviewableHunks: 2 }), choice: { action: 'allow-once', hunks: [{ index: 0, accepted: false }] } },
    { name: 'a hunk the diff does not have', subject: subject({ reviewableHunks: 2 }), choice: { action: 'allow-once', hunks: [{ index: 2, accepted: false }] }, refused: 'call c1: no hunk 2: the diff has 2' },
    { name: 'every hunk rejected', subject: subject({ reviewableHunks: 2 }), choice: { action: 'allow-once', hunks: [{ index: 0, accepted: false }, { index: 1, accepted: false }] }, refused: 'call c1: every hunk was rejected; deny the call instead' },
    { name: 'an edit of a call that cannot be edited', subject: subject(), choice: { action: 'allow-edited', edited: 'x' }, refused: 'call c1: this call cannot be edited' },
    { name: 'an edit without its text', subject: subject({ editable: 'content' }), choice: { action: 'allow-edited' }, refused: 'call c1: allow-edited needs the edited text' },
    { name: 'an empty edited command', subject: subject({ editable: 'command' }), choice: { action: 'allow-edited', edited: '  ' }, refused: 'call c1: the edited command is empty' },
    { name: 'an empty edited file', subject: subject({ editable: 'content' }), choice: { action: 'allow-edited', edited: '' } },
    { name: 'Deny, always', subject: subject({ runsUnconfined: true, facts: { grantable: false, edited: true } }), choice: { action: 'deny', reason: 'no' } },
  ];
  for (const row of rows) {
    it(`${row.name}: ${row.refused === undefined ? 'taken' : 'refused'}`, () => {
      assert.equal(refusal(row.subject, row.choice), row.refused);
    });
  }

  const kinds: Record<DecisionAction, ReturnType<typeof editAction>> = {
    'allow-once': 'allow', 'allow-unconfined': 'allow', 'allow-remedy': 'allow', 'allow-edited': 'allow-edited', deny: 'deny',
    'allow-session': 'grant', 'allow-workspace': 'grant', 'allow-task': 'grant', 'allow-minutes': 'grant',
  };
  for (const [action, kind] of Object.entries(kinds) as [DecisionAction, ReturnType<typeof editAction>][]) {
    it(`${action} is, to a held edit, ${kind}`, () => {
      assert.equal(editAction(action), kind);
    });
  }
});
