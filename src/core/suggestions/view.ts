/** The suggestions as the view shows them, computed from the audit log's text and the policy as it is now. */
import type { DecisionGroupView, SuggestionsState, SuggestionView } from '../../shared/suggestions';
import { groupDecisions, pastDecisions } from './history';
import { considerGroups, type Suggestion, type SuggestionInputs } from './proposals';

export interface ComputedSuggestions {
  state: SuggestionsState;
  suggestions: Suggestion[];
}

/** `cwd`: the folder commands are read in (the first workspace folder). */
export function computeSuggestions(logText: string, inputs: SuggestionInputs, cwd: string, done?: string): ComputedSuggestions {
  const groups = groupDecisions(pastDecisions(logText), cwd);
  // In an untrusted workspace VS Code ignores the workspace's rule settings: a suggestion could not take effect.
  const { suggestions, why } = inputs.policy.trusted
    ? considerGroups(groups, inputs)
    : { suggestions: [], why: new Map(groups.map((group) => [group.id, 'the workspace is not trusted'])) };
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
