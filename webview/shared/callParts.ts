/**
 * Pieces of a waiting call's card that the approvals panel and the chat's inline cards both show: the decision
 * buttons, the warnings, the command with its analysis. Rendering only; what a click sends is the card's business.
 */
import type { CommandPreview, DecideMessage, DiffMode, DiffPreview, GrantAction, PendingCallView } from '../../src/shared/approvals';
import { button, h, icon } from './elements';
import type { HostChannel } from './hostChannel';
import { loadWholeDiff, renderDiff, type DiffView } from './diffView';
import type { HunkReview } from './hunkReview';

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
 * Tells the host when a card gets the keyboard focus and when it loses it (to somewhere outside the card):
 * Toolgate: Allow Once / Deny then decide the focused call instead of the oldest. A group's card stands for its
 * members by its first (`callId` is asked at the time: none while it has no member).
 */
export function reportFocus(card: HTMLElement, callId: () => string | undefined, channel: Pick<HostChannel, 'send'>): void {
  card.addEventListener('focusin', () => {
    const id = callId();
    if (id !== undefined) {
      channel.send({ type: 'focusCall', callId: id });
    }
  });
  card.addEventListener('focusout', (event) => {
    if (!(event.relatedTarget instanceof Node && card.contains(event.relatedTarget))) {
      channel.send({ type: 'focusCall', callId: null });
    }
  });
}

/** Where a card's diff is shown and how its first rows grow into the whole (the card's layout and the view's memory). */
export interface CardDiffOptions {
  channel: Pick<HostChannel, 'send'>;
  review: HunkReview | undefined;
  /** Opens the diff in VS Code's diff editor; undefined: no button. */
  onOpenDiff: (() => void) | undefined;
  maxRows?: number | undefined;
  modeMemory?: { get(): DiffMode | undefined; set(mode: DiffMode): void } | undefined;
  toolbarExtras?: (HTMLElement | string)[];
}

/** A waiting call's diff in a card: drawn from the rows the host sent, then whole once the host sends the rest. */
export function cardDiff(call: PendingCallView, preview: DiffPreview, options: CardDiffOptions): DiffView {
  const view = renderDiff(preview, options.onOpenDiff, options.review, options.maxRows, options.modeMemory, options.toolbarExtras);
  loadWholeDiff(call, options.channel, (whole) => view.setPreview(whole));
  return view;
}

/** The diff's review keys (j/k, a/r) pressed anywhere in `element` but a text field. */
export function reviewKeys(element: HTMLElement, view: Pick<DiffView, 'handleKey'>): void {
  element.addEventListener('keydown', (event) => {
    if (!isTextEntry(event.target) && view.handleKey(event)) {
      event.preventDefault();
    }
  });
}

/**
 * The decision bar, held in view while its card is: the status (the hunks or files accepted), the buttons, then the
 * reason box Deny opens.
 */
export function decisionBar(status: HTMLElement | string, buttons: (HTMLElement | string)[], reasonArea: HTMLElement, extraClass?: string): HTMLElement {
  return h('div', { class: extraClass === undefined ? 'decision' : `decision ${extraClass}` },
    status,
    h('div', { class: 'actions' }, ...buttons),
    reasonArea);
}

/**
 * Sends a card's decision: the card is marked as sent (its view moves the focus on once the call is gone) and the
 * host, which checks it again, gets it.
 */
export function sendDecision(card: HTMLElement, options: { channel: Pick<HostChannel, 'send'>; onDecided?: (() => void) | undefined }, decision: Omit<DecideMessage, 'requestId' | 'type'>): void {
  card.dataset['sent'] = 'true';
  options.onDecided?.();
  options.channel.send({ type: 'decide', ...decision });
}

/**
 * What a card says once the person rejected all it holds: Allow is then off (the host says why on the button, from
 * src/core/review/choiceRules.ts) and Deny is the way to refuse. One wording for the call card and the group card.
 */
export function allRejected(scope: 'call' | 'group'): { sentence: string; advice: string } {
  const advice = scope === 'call' ? 'use Deny to refuse the whole call' : 'use Deny to refuse them all';
  return { sentence: `${scope === 'call' ? 'Every hunk' : 'Every change'} is rejected: ${advice}`, advice };
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

/**
 * The grant buttons with the menu of what a grant covers, together, since the menu affects only them:
 * "Allow for: [commands starting with `npm test`] [Allow for session] [Always allow in workspace]", and the grants that
 * end by themselves (for the agent's current task, for the next N minutes): those the view model offers.
 */
export function grantControls(
  call: Pick<PendingCallView, 'grantOptions' | 'grantsOffered' | 'grantsCover' | 'grantLimits'>,
  which: string,
  grant: (action: GrantAction, grantOption: string, minutes?: number) => void,
): { element: HTMLElement; buttons: HTMLElement[] } {
  const scope = h('select', { 'data-field': 'grant-scope', 'aria-label': `What a grant for ${which} covers` },
    ...call.grantOptions.map((option) => h('option', { value: option.id }, option.label)));
  const offered = new Set(call.grantsOffered);
  const session = actionButton('allow-session', 'Allow for session', 'history', { secondary: true, 'aria-label': `Allow for this session: ${which}` });
  session.addEventListener('click', () => grant('allow-session', scope.value));
  const workspace = actionButton('allow-workspace', 'Always allow in workspace', 'workspace-trusted', { secondary: true, 'aria-label': `Always allow in this workspace: ${which}` });
  workspace.addEventListener('click', () => grant('allow-workspace', scope.value));
  const timed: HTMLElement[] = [];
  if (offered.has('allow-task')) {
    const task = actionButton('allow-task', 'Allow for this task', 'tasklist', { secondary: true, 'aria-label': `Allow for the agent's current task: ${which}` });
    task.addEventListener('click', () => grant('allow-task', scope.value));
    timed.push(task);
  }
  if (offered.has('allow-minutes')) {
    const longest = call.grantLimits?.longestMinutes ?? 1440;
    const minutes = h('input', { type: 'number', min: '1', max: String(longest), value: String(Math.min(15, longest)), 'data-field': 'grant-minutes', 'aria-label': `Minutes the timed grant for ${which} lasts (at most ${longest})`, class: 'minutes' });
    const forMinutes = actionButton('allow-minutes', 'Allow for these minutes', 'watch', { secondary: true, 'aria-label': `Allow for the minutes set beside it: ${which}` });
    forMinutes.addEventListener('click', () => {
      const value = Number.parseInt(minutes.value, 10);
      if (Number.isInteger(value) && value >= 1 && value <= longest) {
        grant('allow-minutes', scope.value, value);
      }
    });
    timed.push(minutes, forMinutes);
  }
  // Only what the view model offers is drawn: a managed settings file may take the workspace's grants away.
  const shown = [...(offered.has('allow-session') ? [session] : []), ...timed, ...(offered.has('allow-workspace') ? [workspace] : [])];
  const element = h('div', { class: 'grant-group', role: 'group', 'aria-label': `Grant for ${which}` },
    h('label', { class: 'scope-label' }, 'Allow for: ', scope), ...shown,
    call.grantLimits === undefined ? '' : h('span', { class: 'muted', 'data-field': 'grant-limits' }, managedGrantNote(call.grantLimits)),
    // A grant covers the caller it is given to (an MCP client in any version), and no other agent: said where it is given.
    call.grantsCover === undefined ? '' : h('span', { class: 'muted', 'data-field': 'grant-caller' }, `Grants cover ${call.grantsCover} only.`));
  return { element, buttons: shown };
}

/** What the managed policy leaves of the grants, said beside them. */
export function managedGrantNote(limits: NonNullable<PendingCallView['grantLimits']>): string {
  const parts = [
    ...(limits.workspace ? [] : ['no grants for the whole workspace']),
    ...(limits.longestMinutes < 1440 ? [`grants end after ${limits.longestMinutes} minutes at most`] : []),
  ];
  return parts.length === 0 ? '' : `Managed policy (${limits.file}): ${parts.join('; ')}.`;
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
