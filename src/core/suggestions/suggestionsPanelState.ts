/**
 * What the suggestions panel (Toolgate: Show Suggested Rules) shows and does: rules and grants proposed from the
 * person's own decisions in the audit log, each with what it would and would not allow, computed again each time it
 * is shown. Accepting is the only way one takes effect: the suggestions are computed again, the one the message names
 * is applied (a key in the workspace settings, or a workspace grant) and what was done is said. The panel itself is
 * src/vscode/webviews/suggestionsPanel.ts.
 */
import { readFile } from 'node:fs/promises';
import { newGrantId, type GrantStore } from '../approval/grants';
import type { PathResolver } from '../approval/paths';
import type { PolicyContext } from '../approval/policy';
import type { AuditLog } from '../audit/auditLog';
import type { LogPort } from '../logPort';
import type { SettingKey, SettingValue } from '../settings';
import type { SuggestionsState } from '../../shared/suggestions';
import type { RuleSetting, Suggestion } from './proposals';
import { computeSuggestions, type ComputedSuggestions } from './view';

export interface SuggestionsDeps {
  log: LogPort;
  audit: Pick<AuditLog, 'flush'>;
  auditFile: string;
  settings: { get<K extends SettingKey>(key: K): SettingValue<K> };
  policy: () => Omit<PolicyContext, 'grants'>;
  resolver: () => PathResolver;
  shellParserReady: () => Promise<void>;
  grants: Pick<GrantStore, 'add'>;
  /** The current definition hash of an MCP tool the model can call (a grant is pinned to it), if it runs. */
  mcpDefinition: (tool: string) => string | undefined;
  trusted: () => boolean;
  /** Adds a key to a rule setting in the workspace's settings; resolves with where it was written. */
  addWorkspaceRule(setting: RuleSetting, key: string, value: boolean): Promise<string>;
}

export class SuggestionsPanelState {
  private current: SuggestionsState;

  constructor(
    private readonly deps: SuggestionsDeps,
    /** The state changed: the panel, if open, is sent it. */
    private readonly onDidChange: () => void,
    /** Says what an accepted suggestion did. */
    private readonly tell: (text: string) => void,
  ) {
    this.current = { view: 'suggestions', minDecisions: deps.settings.get('suggestions.minDecisions'), trusted: deps.trusted(), suggestions: [], groups: [] };
  }

  get state(): SuggestionsState {
    return this.current;
  }

  /** The suggestions now, from the whole log (`done`: what was just applied, said at the top). */
  async compute(done?: string): Promise<ComputedSuggestions> {
    await this.deps.audit.flush();
    await this.deps.shellParserReady();
    const text = await readFile(this.deps.auditFile, 'utf8').catch(() => '');
    const resolver = this.deps.resolver();
    const inputs = { policy: this.deps.policy(), resolver, minDecisions: this.deps.settings.get('suggestions.minDecisions') };
    const computed = computeSuggestions(text, inputs, resolver.roots[0] ?? process.cwd(), done);
    this.current = computed.state;
    this.onDidChange();
    return computed;
  }

  /** The person clicked Accept: apply the suggestion that is offered now under this id, and say what was done. */
  async accept(suggestionId: string): Promise<{ ok: true } | { ok: false; error: string }> {
    const offered = (await this.compute()).suggestions.find((suggestion) => suggestion.id === suggestionId);
    if (offered === undefined) {
      return { ok: false, error: 'that suggestion is no longer offered (the log or the settings changed); nothing was changed' };
    }
    const applied = await this.apply(offered);
    if (!applied.ok) {
      return applied;
    }
    this.deps.log.info(`suggestion accepted by the person: ${applied.done}`);
    this.tell(`Toolgate: ${applied.done}`);
    await this.compute(applied.done);
    return { ok: true };
  }

  private async apply(suggestion: Suggestion): Promise<{ ok: true; done: string } | { ok: false; error: string }> {
    const proposal = suggestion.proposal;
    if (proposal.kind === 'rule') {
      const where = await this.deps.addWorkspaceRule(proposal.setting, proposal.key, proposal.value);
      return { ok: true, done: `added "${proposal.key}": ${String(proposal.value)} to toolgate.${proposal.setting} in ${where}` };
    }
    const definitionHash = this.deps.mcpDefinition(proposal.tool);
    if (definitionHash === undefined) {
      return { ok: false, error: `${proposal.tool} is not offered by a running MCP server now, so no grant can be pinned to its definition` };
    }
    await this.deps.grants.add(
      { id: newGrantId(), tool: proposal.tool, matcher: { kind: 'tool' }, scope: 'workspace', createdAt: new Date().toISOString(), definitionHash },
      'suggestions',
    );
    return { ok: true, done: `granted every call of ${proposal.tool} in this workspace (until its definition changes)` };
  }
}
