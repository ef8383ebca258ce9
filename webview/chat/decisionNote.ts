/**
 * Under a tool call of the transcript: how it was allowed. A call that ran without asking names the rule (the
 * setting and its keys, with a button that opens the setting) or the grant (with Revoke); a call the person allowed
 * with a new grant says what that grant covers and where it is listed; an edited command shows what ran. All of it
 * comes typed from the gate's result, never from wording.
 */
import type { AllowedByView, GrantView, RuleSetting } from '../../src/shared/approvals';
import type { ChatEntry, HostCommand } from '../../src/shared/messages';
import type { Bridge } from '../shared/bridge';
import { button, h } from '../shared/bridge';

type ToolEntry = Extract<ChatEntry, { kind: 'tool' }>;

const settingCommands: Record<RuleSetting, HostCommand> = {
  'toolgate.autoApprove.terminal': 'openTerminalRules',
  'toolgate.autoApprove.edits': 'openEditRules',
  'toolgate.gatedTools': 'openGatedTools',
};

const scopeWords = (grant: GrantView): string => (grant.scope === 'workspace' ? 'workspace grant (kept across sessions)' : 'session grant (this chat only)');

function revokeButton(grant: GrantView, bridge: Bridge): HTMLElement {
  const revoke = button({ secondary: true, 'data-action': 'revoke', 'data-grant-id': grant.id, 'aria-label': `Revoke the ${grant.label}` }, 'Revoke');
  revoke.addEventListener('click', () => {
    bridge.send({ type: 'revokeGrant', grantId: grant.id });
    revoke.setAttribute('disabled', '');
    revoke.textContent = 'Revoked';
  });
  return revoke;
}

function allowedByLine(allowedBy: AllowedByView, bridge: Bridge): HTMLElement {
  if (allowedBy.kind === 'grant') {
    return h('p', { class: 'decision-note', 'data-field': 'allowed-by', 'data-kind': 'grant', 'data-grant-id': allowedBy.grant.id },
      'Ran without asking: allowed by your ', scopeWords(allowedBy.grant), ', ', h('code', {}, allowedBy.grant.covers), '. ',
      revokeButton(allowedBy.grant, bridge));
  }
  const open = h('a', { href: '#', 'data-action': 'open-setting', 'data-setting': allowedBy.setting }, 'Open the setting');
  open.addEventListener('click', (event) => {
    event.preventDefault();
    bridge.command(settingCommands[allowedBy.setting]);
  });
  const keys = allowedBy.keys.flatMap((key, index) => [index > 0 ? ', ' : '', h('code', {}, `"${key}"`)]);
  const what = allowedBy.setting === 'toolgate.gatedTools' ? ' (not gated)' : '';
  return h('p', { class: 'decision-note', 'data-field': 'allowed-by', 'data-kind': 'rule', 'data-setting': allowedBy.setting },
    'Ran without asking: auto-approved by ', h('code', {}, allowedBy.setting), ' ', ...keys, what, ' · ', open);
}

/** The note for a tool entry, or nothing when it was asked and allowed once (or not allowed). */
export function decisionNote(entry: ToolEntry, bridge: Bridge): HTMLElement[] {
  const notes: HTMLElement[] = [];
  if (entry.allowedBy) {
    notes.push(allowedByLine(entry.allowedBy, bridge));
  }
  if (entry.granted) {
    const grant = entry.granted;
    notes.push(h('p', { class: 'decision-note', role: 'status', 'data-field': 'granted', 'data-grant-id': grant.id },
      `Allowed, and granted for ${grant.scope === 'workspace' ? 'this workspace' : 'this session'}: `, h('code', {}, grant.covers),
      '. Listed under Grants in the Approvals panel; revoke it there or here. ', revokeButton(grant, bridge)));
  }
  if (entry.ran !== undefined) {
    notes.push(h('div', { class: 'decision-note', 'data-field': 'ran' }, 'You edited the command; what ran:', h('pre', { class: 'ran' }, entry.ran)));
  }
  return notes;
}
