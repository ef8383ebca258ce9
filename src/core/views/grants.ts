/**
 * Grants as the views show them: the ones a person can revoke in the panel, and the one (or the rule) that let a
 * call of the chat run without asking.
 */
import type { AllowedByView, GrantView } from '../../shared/approvals';
import type { Gate } from '../approval/gate';
import { describeGrant, describeMatcher, type Grant } from '../approval/grants';
import type { AllowedBy } from '../approval/policy';

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
