/**
 * The core's own words for what it shares with the webview contract (src/shared/approvals.ts), checked here, at
 * compile time, to be the contract's exactly: the core names them without importing the contract, and the views
 * hand them over as they are. A check that fails names the pair that drifted apart.
 */
import type * as contract from '../../shared/approvals';
import type { ActionsOff, DecisionAction, GrantAction } from '../approval/choices';
import type { CallGroup } from '../approval/groups';
import type * as core from '../review/preview';
import type { RuleSetting } from '../settings';

/** True only when each type is assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export const sameAsContract: {
  decisionAction: Same<DecisionAction, contract.DecisionAction>;
  grantAction: Same<GrantAction, contract.GrantAction>;
  ruleSetting: Same<RuleSetting, contract.RuleSetting>;
  preview: Same<core.Preview, contract.Preview>;
  diffRow: Same<core.DiffRow, contract.DiffRow>;
  // The view adds the reason its files share, which the views find (pendingCall.ts).
  callGroup: Same<CallGroup, Omit<contract.CallGroupView, 'reason'>>;
  // The same actions; the core's reasons fit the view's (whose optional fields also admit undefined).
  actionsOff: Same<keyof ActionsOff, keyof contract.ActionsOffView>;
  actionsOffFits: [ActionsOff] extends [contract.ActionsOffView] ? true : false;
} = { decisionAction: true, grantAction: true, ruleSetting: true, preview: true, diffRow: true, callGroup: true, actionsOff: true, actionsOffFits: true };
