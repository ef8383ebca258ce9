/** The suggestions as the view shows them, computed from the audit log's text and the policy as it is now. */
import type { DecisionGroupView, SuggestionsState, SuggestionView } from '../../shared/suggestions';
import { groupDecisions, pastDecisions } from './history';
import { considerGroups, type Suggestion, type SuggestionInputs } from './proposals';
import type { ManagedPolicy } from '../managed/managedSettings';

export interface ComputedSuggestions {
  state: SuggestionsState;
  suggestions: Suggestion[];
}

/** `cwd`: the folder commands are read in (the first workspace folder). */
/**
 * What the managed settings file leaves of the suggestions: none that would auto-approve where it turns such rules
 * off, no workspace grant where it allows none (neither would take effect), each group saying why. A `false` rule,
 * which only asks more, is still offered.
 */
function underManaged(considered: { suggestions: Suggestion[]; why: Map<string, string> }, managed: ManagedPolicy | undefined): { suggestions: Suggestion[]; why: Map<string, string> } {
  if (managed === undefined || (managed.grants.autoApproveRules && managed.grants.workspace)) {
    return considered;
  }
  const why = new Map(considered.why);
  const suggestions = considered.suggestions.filter((suggestion) => {
    const proposal = suggestion.proposal;
    const refused =
      proposal.kind === 'grant'
        ? !managed.grants.workspace && `the managed policy (${managed.file}) allows no workspace grants`
        : proposal.value && !managed.grants.autoApproveRules && `the managed policy (${managed.file}) turns off rules that auto-approve`;
    if (refused !== false) {
      why.set(suggestion.group.id, refused);
    }
    return refused === false;
  });
  return { suggestions, why };
}

export function computeSuggestions(logText: string, inputs: SuggestionInputs, cwd: string, done?: string): ComputedSuggestions {
  const groups = groupDecisions(pastDecisions(logText), cwd);
  // In an untrusted workspace VS Code ignores the workspace's rule settings: a suggestion could not take effect.
  const { suggestions, why } = underManaged(
    inputs.policy.trusted ? considerGroups(groups, inputs) : { suggestions: [], why: new Map(groups.map((group) => [group.id, 'the workspace is not trusted'])) },
    inputs.policy.managed,
  );
  const groupViews: DecisionGroupView[] = groups
    .map(({ decisions: _decisions, tool: _tool, ...group }) => {
      // Why a group has no suggestion, beside it: nothing then looks stuck at "No suggestion yet".
      const reason = why.get(group.id);
      return reason === undefined ? group : { ...group, why: reason };
    })
    .sort((a, b) => b.asked - a.asked);
  const suggestionViews: SuggestionView[] = suggestions.map((suggestion) => ({
    ...suggestion.group,
    id: suggestion.id,
    allows: suggestion.proposal.kind === 'grant' || suggestion.proposal.value,
    summary: suggestion.summary,
    past: suggestion.past,
    dangerous: suggestion.dangerous,
    warnings: suggestion.warnings,
  })).map(({ tool: _tool, ...view }) => view);
  return {
    state: { view: 'suggestions', minDecisions: inputs.minDecisions, trusted: inputs.policy.trusted, suggestions: suggestionViews, groups: groupViews, ...(done !== undefined ? { done } : {}) },
    suggestions,
  };
}
