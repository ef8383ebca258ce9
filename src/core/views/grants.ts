/**
 * Grants as the views show them: the ones a person can revoke in the panel, and the one (or the rule) that let a
 * call of the chat run without asking.
 */
import type { AllowedByView, GrantView } from '../../shared/approvals';
import type { Gate } from '../approval/gate';
import { describeGrant, describeMatcher, type Grant } from '../approval/grants';
import type { AllowedBy } from '../approval/policy';
import type { GateResult } from '../approval/waitingCall';

/** How an allowed call was allowed, as the chat's entry of it says: the rule or grant, or the grant the person made. */
export interface AllowedNote {
  allowedBy?: AllowedByView;
  granted?: GrantView;
}

/** The note of a call's decision, for the chat; undefined for a call denied, or allowed by nothing it names. */
export function allowedNote(decision: GateResult): AllowedNote | undefined {
  if (decision.verdict !== 'allow' || (decision.allowedBy === undefined && decision.granted === undefined)) {
    return undefined;
  }
  return {
    ...(decision.allowedBy ? { allowedBy: allowedByView(decision.allowedBy) } : {}),
    ...(decision.granted ? { granted: grantView(decision.granted) } : {}),
  };
}

/** The grants a person can revoke in these chats, as the panel lists them (which ones: Gate.revocableGrants). */
export function grantViews(gate: Pick<Gate, 'revocableGrants'>, chatIds: readonly string[]): GrantView[] {
  return gate.revocableGrants(chatIds).map(grantView);
}

/** What let a call run without asking, as the chat names it. */
export function allowedByView(allowedBy: AllowedBy): AllowedByView {
  return allowedBy.kind === 'grant' ? { kind: 'grant', grant: grantView(allowedBy.grant) } : { ...allowedBy, keys: [...allowedBy.keys] };
}

/** A grant as the panel lists it, with its revoke button. */
export function grantView(grant: Grant): GrantView {
  return {
    id: grant.id,
    scope: grant.scope,
    label: describeGrant(grant),
    covers: describeMatcher(grant.tool, grant.matcher),
    createdAt: grant.createdAt,
    ...(grant.expiresAt !== undefined ? { expiresAt: grant.expiresAt } : {}),
  };
}
