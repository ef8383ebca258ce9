import * as assert from 'node:assert/strict';
import { actionsOff, whyOff, type ChoiceFacts } from '../../src/core/review/choiceRules';

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
