/**
 * Under a tool call of the transcript: how it was allowed. A call that ran without asking names the rule (the
 * setting and its keys, with a button that opens the setting) or the grant (with Revoke); a call the person allowed
 * with a new grant says what that grant covers and where it is listed; an edited command shows what ran. All of it
 * comes typed from the gate's result, never from wording. A staged command also says what landed of what it changed.
 */
import type { AllowedByView, GrantView, RuleSetting } from '../../src/shared/approvals';
import type { ChatEntry, HostCommand, LandedView } from '../../src/shared/messages';
import type { HostChannel } from '../shared/hostChannel';
import { button, h } from '../shared/elements';

type ToolEntry = Extract<ChatEntry, { kind: 'tool' }>;

const settingCommands: Record<RuleSetting, HostCommand> = {
  'toolgate.autoApprove.terminal': 'openTerminalRules',
  'toolgate.autoApprove.edits': 'openEditRules',
  'toolgate.gatedTools': 'openGatedTools',
};

const scopeWords = (grant: GrantView): string => (grant.scope === 'workspace' ? 'workspace grant (kept across sessions)' : 'session grant (this chat only)');

function revokeButton(grant: GrantView, channel: HostChannel): HTMLElement {
  const revoke = button({ secondary: true, 'data-action': 'revoke', 'data-grant-id': grant.id, 'aria-label': `Revoke the ${grant.label}` }, 'Revoke');
  revoke.addEventListener('click', () => {
    channel.send({ type: 'revokeGrant', grantId: grant.id });
    revoke.setAttribute('disabled', '');
    revoke.textContent = 'Revoked';
  });
  return revoke;
}

function allowedByLine(allowedBy: AllowedByView, channel: HostChannel): HTMLElement {
  if (allowedBy.kind === 'grant') {
    return h('p', { class: 'decision-note', 'data-field': 'allowed-by', 'data-kind': 'grant', 'data-grant-id': allowedBy.grant.id },
      'Ran without asking: allowed by your ', scopeWords(allowedBy.grant), ', ', h('code', {}, allowedBy.grant.covers), '. ',
      revokeButton(allowedBy.grant, channel));
  }
  const open = h('a', { href: '#', 'data-action': 'open-setting', 'data-setting': allowedBy.setting }, 'Open the setting');
  open.addEventListener('click', (event) => {
    event.preventDefault();
    channel.command(settingCommands[allowedBy.setting]);
  });
  const keys = allowedBy.keys.flatMap((key, index) => [index > 0 ? ', ' : '', h('code', {}, `"${key}"`)]);
  const what = allowedBy.setting === 'toolgate.gatedTools' ? ' (not gated)' : '';
  return h('p', { class: 'decision-note', 'data-field': 'allowed-by', 'data-kind': 'rule', 'data-setting': allowedBy.setting },
    'Ran without asking: auto-approved by ', h('code', {}, allowedBy.setting), ' ', ...keys, what, ' · ', open);
}

const files = (count: number): string => `${count.toLocaleString('en-US')} file${count === 1 ? '' : 's'}`;

/**
 * What landed of a staged command's changes, said on its entry: "Landed 5 files, 1 in part; rejected 2; 1 could not
 * land; 3 landed without review (git ignores them)". Undefined when it changed nothing.
 */
export function landedText(landed: LandedView): string | undefined {
  const reviewed = landed.landed + landed.partly;
  const parts = [
    reviewed > 0 ? `landed ${files(reviewed)}${landed.partly > 0 ? ` (${landed.partly.toLocaleString('en-US')} in part)` : ''}` : landed.rejected > 0 || landed.notLanded > 0 ? 'nothing you reviewed landed' : undefined,
    landed.rejected > 0 ? `rejected ${files(landed.rejected)}` : undefined,
    landed.notLanded > 0 ? `${files(landed.notLanded)} could not land (see its result)` : undefined,
    landed.withoutReview > 0 ? `${files(landed.withoutReview)} landed without review (git ignores them)` : undefined,
  ].filter((part) => part !== undefined);
  if (parts.length === 0) {
    return undefined;
  }
  const text = parts.join('; ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** The note for a tool entry, or nothing when it was asked and allowed once (or not allowed). */
export function decisionNote(entry: ToolEntry, channel: HostChannel): HTMLElement[] {
  const notes: HTMLElement[] = [];
  if (entry.allowedBy) {
    notes.push(allowedByLine(entry.allowedBy, channel));
  }
  if (entry.granted) {
    const grant = entry.granted;
    notes.push(h('p', { class: 'decision-note', role: 'status', 'data-field': 'granted', 'data-grant-id': grant.id },
      `Allowed, and granted for ${grant.scope === 'workspace' ? 'this workspace' : 'this session'}: `, h('code', {}, grant.covers),
      '. Listed under Grants in the Approvals panel; revoke it there or here. ', revokeButton(grant, channel)));
  }
  if (entry.ran !== undefined) {
    notes.push(h('div', { class: 'decision-note', 'data-field': 'ran' }, 'You edited the command; what ran:', h('pre', { class: 'ran' }, entry.ran)));
  }
  const landed = entry.landed === undefined ? undefined : landedText(entry.landed);
  if (landed !== undefined) {
    notes.push(h('p', { class: 'decision-note', 'data-field': 'landed' }, landed));
  }
  return notes;
}
