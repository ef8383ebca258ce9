/**
 * Pieces of a waiting call's card that the approvals panel and the chat's inline cards both show: the decision
 * buttons, the warnings, the command with its analysis. Rendering only; what a click sends is the card's business.
 */
import type { CommandPreview, PendingCallView } from '../../src/shared/approvals';
import { button, h, icon, type Bridge } from './bridge';
import { agentCaller, callerLabel, grantCaller } from '../../src/shared/callers';

/** A button of the contract: `data-action` on it, an icon before its label. */
export function actionButton(action: string, label: string, iconName: string, attrs: Record<string, string | boolean> = {}): HTMLElement {
  return button({ 'data-action': action, ...attrs }, icon(iconName), label);
}

/**
 * The card's allow: Allow once, or, for a command that would run without the sandbox, "Run without sandbox" (its own
 * action, not the primary look), which is the only allow the host accepts for such a call.
 */
export function allowButton(call: Pick<PendingCallView, 'unconfined'>, which: string): { element: HTMLElement; action: 'allow-once' | 'allow-unconfined' } {
  if (call.unconfined === true) {
    return {
      action: 'allow-unconfined',
      element: actionButton('allow-unconfined', 'Run without sandbox', 'warning', {
        secondary: true,
        'aria-label': `Run without sandbox, with all your access: ${which}`,
        title: 'Runs this command once without the sandbox: it can read, change and reach everything you can',
      }),
    };
  }
  return { action: 'allow-once', element: actionButton('allow-once', 'Allow once', 'check', { 'aria-label': `Allow once: ${which}` }) };
}

/** The narrow fixes the host's view offers (`remedies`), in its order: one button each, sending its id. */
export function remedyButtons(call: Pick<PendingCallView, 'remedies'>, which: string, choose: (remedy: string) => void): HTMLElement[] {
  return (call.remedies ?? []).map((remedy, index) => {
    const element = actionButton('allow-remedy', remedy.label, 'shield', { 'data-remedy': remedy.id, ...(index > 0 ? { secondary: true } : {}), title: remedy.title, 'aria-label': `${remedy.label}: ${which}` });
    element.addEventListener('click', () => choose(remedy.id));
    return element;
  });
}

/**
 * Tells the host when this call's card gets the keyboard focus and when it loses it (to somewhere outside the card):
 * Toolgate: Allow Once / Deny then decide the focused call instead of the oldest.
 */
export function reportFocus(card: HTMLElement, callId: string, bridge: Pick<Bridge, 'send'>): void {
  card.addEventListener('focusin', () => bridge.send({ type: 'focusCall', callId }));
  card.addEventListener('focusout', (event) => {
    if (!(event.relatedTarget instanceof Node && card.contains(event.relatedTarget))) {
      bridge.send({ type: 'focusCall', callId: null });
    }
  });
}

export function warningNotes(warnings: string[]): HTMLElement[] {
  return warnings.map((warning) => h('p', { class: 'notice warning', role: 'note', 'data-field': 'warning' },
    icon('warning'), ' ', warning));
}

const verdictIcons: Record<CommandPreview['analysis'][number]['verdict'], string> = { allow: 'pass', info: 'info', deny: 'error', ask: 'question' };

/** The command exactly as it would run, its working folder and one line per finding of the analysis. */
export function commandPreview(preview: CommandPreview): HTMLElement {
  return h('section', { class: 'command', 'data-field': 'command' },
    h('div', { class: 'label' }, 'Command'),
    h('pre', { class: 'command-text' }, preview.command),
    h('div', { class: 'label' }, 'Working folder'),
    h('pre', { class: 'cwd' }, preview.cwd),
    analysisList(preview.analysis, 'analysis'));
}

/** One line per finding of a command's analysis, each with its verdict's icon. */
export function analysisList(lines: CommandPreview['analysis'], field: string): HTMLElement {
  return h('ul', { class: 'analysis', 'data-field': field },
    ...lines.map((line) => h('li', { class: `verdict-${line.verdict}` }, icon(verdictIcons[line.verdict]), ' ', line.text)));
}

/**
 * Deny that asks why first: the first press opens the reason box (`data-field="reason"`) with the focus; a second
 * press, or Enter in the box, sends the denial; Escape closes the box and gives the focus back to Deny.
 */
export function denyWithReason(which: string, send: (reason: string | undefined) => void): { deny: HTMLElement; reasonArea: HTMLElement } {
  const reason = h('textarea', {
    'data-field': 'reason',
    rows: '2',
    placeholder: 'Why not? (optional, sent to the model). Enter denies, Escape cancels.',
    'aria-label': `Reason for denying ${which}`,
  });
  const reasonArea = h('div', { class: 'reason-area', hidden: true }, reason);
  const deny = actionButton('deny', 'Deny', 'close', { secondary: true, 'aria-label': `Deny: ${which}` });
  const sendDenial = (): void => {
    const text = reason.value.trim();
    send(text === '' ? undefined : text);
  };
  deny.addEventListener('click', () => {
    if (reasonArea.hidden) {
      reasonArea.hidden = false;
      deny.setAttribute('aria-label', `Send the denial of ${which}`);
      reason.focus();
      // The box and the Deny that sends it come into view whole, not half below the fold.
      reasonArea.scrollIntoView({ block: 'nearest' });
      deny.scrollIntoView({ block: 'nearest' });
    } else {
      sendDenial();
    }
  });
  reason.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      sendDenial();
    } else if (event.key === 'Escape') {
      event.stopPropagation();
      reasonArea.hidden = true;
      deny.setAttribute('aria-label', `Deny: ${which}`);
      deny.focus();
    }
  });
  return { deny, reasonArea };
}

export type GrantAction = 'allow-session' | 'allow-workspace' | 'allow-task' | 'allow-minutes';

/**
 * The grant buttons with the menu of what a grant covers, together, since the menu affects only them:
 * "Allow for: [commands starting with `npm test`] [Allow for session] [Always allow in workspace]". With `timeBoxed`,
 * also grants that end by themselves: for the agent's current task (`task`), and for the next N minutes.
 */
export function grantControls(
  call: Pick<PendingCallView, 'grantOptions' | 'grantable' | 'source'>,
  which: string,
  grant: (action: GrantAction, grantOption: string, minutes?: number) => void,
  timeBoxed?: { task: boolean },
): { element: HTMLElement; buttons: HTMLElement[] } {
  const scope = h('select', { 'data-field': 'grant-scope', 'aria-label': `What a grant for ${which} covers` },
    ...call.grantOptions.map((option) => h('option', { value: option.id }, option.label)));
  const session = actionButton('allow-session', 'Allow for session', 'history', { secondary: true, 'aria-label': `Allow for this session: ${which}` });
  session.addEventListener('click', () => grant('allow-session', scope.value));
  const workspace = actionButton('allow-workspace', 'Always allow in workspace', 'workspace-trusted', { secondary: true, 'aria-label': `Always allow in this workspace: ${which}` });
  workspace.addEventListener('click', () => grant('allow-workspace', scope.value));
  const timed: HTMLElement[] = [];
  if (timeBoxed) {
    if (timeBoxed.task) {
      const task = actionButton('allow-task', 'Allow for this task', 'tasklist', { secondary: true, 'aria-label': `Allow for the agent's current task: ${which}` });
      task.addEventListener('click', () => grant('allow-task', scope.value));
      timed.push(task);
    }
    const minutes = h('input', { type: 'number', min: '1', max: '1440', value: '15', 'data-field': 'grant-minutes', 'aria-label': `Minutes the timed grant for ${which} lasts`, class: 'minutes' });
    const forMinutes = actionButton('allow-minutes', 'Allow for these minutes', 'watch', { secondary: true, 'aria-label': `Allow for the minutes set beside it: ${which}` });
    forMinutes.addEventListener('click', () => {
      const value = Number.parseInt(minutes.value, 10);
      if (Number.isInteger(value) && value >= 1 && value <= 1440) {
        grant('allow-minutes', scope.value, value);
      }
    });
    timed.push(minutes, forMinutes);
  }
  const element = h('div', { class: 'grant-group', role: 'group', 'aria-label': `Grant for ${which}` },
    h('label', { class: 'scope-label' }, 'Allow for: ', scope), session, ...timed, workspace,
    // A grant covers the caller it is given to (an MCP client in any version), and no other agent: said where it is given.
    call.source === agentCaller ? '' : h('span', { class: 'muted', 'data-field': 'grant-caller' }, `Grants cover ${callerLabel(grantCaller(call.source))} only.`));
  return { element, buttons: [session, ...timed, workspace] };
}

/** A reason line: the host's plain sentence, with its `quoted` names shown as code (as text, never markup). */
export function reasonLine(text: string): HTMLElement {
  const parts = text.split('`');
  // An odd number of backticks leaves the last one as text.
  const pieces = parts.map((part, index) => (index % 2 === 1 && index < parts.length - 1 ? h('code', {}, part) : index % 2 === 1 ? `\`${part}` : part));
  return h('p', { class: 'reason-line', 'data-field': 'why' }, ...pieces);
}

/** Keys typed here are text, not review commands (a card's j/k/a/r keys act only outside text fields). */
export function isTextEntry(target: EventTarget | null): boolean {
  return target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement || target instanceof HTMLSelectElement
    || (target instanceof HTMLElement && target.isContentEditable);
}
