import '@vscode-elements/elements/dist/vscode-button/index.js';
import type { DecideMessage, DiffMode, GrantView, PendingCallView } from '../../src/shared/approvals';
import type { ApprovalsState, ViewState } from '../../src/shared/messages';
import { connect, focusCard, h, icon, markConnected, requireElement } from '../shared/bridge';
import { actionButton as button, allowButton, commandPreview, denyWithReason, grantControls, reasonLine, reportFocus, warningNotes } from '../shared/callParts';
import { editOfProposal } from './editPreview';
import { EditNote, isEdited, labelAllowForEdit, shownEditRevision } from '../shared/heldEdit';
import { renderDiff, type DiffView } from './diffView';
import { hunkReviewOf, type HunkReview } from './hunkReview';
import { GroupCard, pendingItems } from '../shared/groupCard';

const root = requireElement('root');
/** The person's unified / side-by-side choice: the host keeps it in workspace state (across calls and reloads). */
let diffMode: DiffMode | undefined;
const diffModeMemory = {
  get: (): DiffMode | undefined => diffMode ?? latest?.diffMode,
  set: (mode: DiffMode): void => {
    diffMode = mode;
    bridge.send({ type: 'setDiffMode', mode });
  },
};
let updates = 0;
/** One element per waiting call, kept across updates so typed reasons, edits and hunk choices survive. */
const cards = new Map<string, HTMLElement>();
/** The card of each group of calls decided together (a staged command's files), by `group:<id>`. */
const groups = new Map<string, GroupCard>();
/** The per-hunk review of each waiting edit whose content the host lets the person choose, by call id. */
const reviews = new Map<string, HunkReview>();
/** Each kept card's taker of the host's newer state of its call (its edit), by call id. */
const updaters = new Map<string, (call: PendingCallView) => void>();
const list = h('div', { class: 'calls', role: 'list', 'aria-label': 'Calls waiting for approval' });
const batchBar = h('div', { class: 'batch', 'data-field': 'batch' });
const trustNote = h('div');
const emptyNote = h('section', { class: 'empty', 'data-field': 'empty', role: 'status' },
  icon('pass'), h('p', {}, 'No calls are waiting for approval.'));
const grantsSection = h('section', { class: 'grants', 'data-field': 'grants', 'aria-label': 'Grants' });
const errorBar = h('p', { class: 'notice error', role: 'alert', 'data-field': 'error', hidden: true });
let latest: ApprovalsState | undefined;
/** Grants seen in the last state: one that appears later was just made, and is confirmed at the top. */
let knownGrants: Set<string> | undefined;
/** The grants the confirmation speaks of: it goes when they are revoked. */
let confirmed: string[] = [];
const grantNote = h('p', { class: 'notice info', role: 'status', 'data-field': 'grant-confirmation', hidden: true });

const bridge = connect('approvals', {
  onFocusCall(callId) {
    focusCard(callId);
  },
  onState(state: ViewState, _reason, sentAt: number, receivedAt: number) {
    if (state.view !== 'approvals') {
      return;
    }
    updates += 1;
    const renderStart = Date.now();
    const callIds = state.pending.map((call) => call.callId).join(' ');
    render(state);
    markConnected(root, updates);
    const rendered = Date.now();
    // How long from the host posting this state to the panel having painted it (same machine, same clock), and its
    // parts, for the bench: transport (host post -> handler), parse (contract check, patch), render (DOM built) and
    // layout+paint (-> the frame after). The total is written last: the bench waits for it.
    requestAnimationFrame(() => {
      setTimeout(() => {
        const painted = Date.now();
        root.dataset['transportMs'] = String(receivedAt - sentAt);
        root.dataset['parseMs'] = String(renderStart - receivedAt);
        root.dataset['renderMs'] = String(rendered - renderStart);
        root.dataset['layoutMs'] = String(painted - rendered);
        root.dataset['paintMs'] = String(painted - sentAt);
        // Which calls that paint showed: the bench reads the figures of the state that first showed its call.
        root.dataset['paintedCalls'] = callIds;
      }, 0);
    });
  },
  onResult(_requestId, ok, error) {
    if (!ok) {
      errorBar.hidden = false;
      errorBar.textContent = error ?? 'the host refused that';
    }
  },
});

root.replaceChildren(
  h('header', { class: 'panel-header' },
    icon('shield'),
    h('h1', {}, 'Approvals'),
    h('span', { class: 'spacer' }),
    (() => {
      const audit = h('vscode-button', { secondary: true, 'data-action': 'show-audit-log' }, 'Audit log');
      audit.addEventListener('click', () => bridge.command('showAuditLog'));
      return audit;
    })(),
  ),
  trustNote,
  errorBar,
  grantNote,
  batchBar,
  emptyNote,
  list,
  grantsSection,
);

function render(state: ApprovalsState): void {
  latest = state;
  trustNote.replaceChildren(
    state.trusted ? '' : h('p', { class: 'notice warning', role: 'note', 'data-field': 'trust' },
      'This workspace is not trusted: nothing is allowed without asking.'),
  );
  const items = pendingItems(state.pending);
  const keys = new Set(items.map((item) => item.key));
  let hadFocus = false;
  for (const [key, card] of cards) {
    if (!keys.has(key)) {
      hadFocus ||= card.contains(document.activeElement);
      card.remove();
      cards.delete(key);
      reviews.delete(key);
      updaters.delete(key);
      groups.delete(key);
    }
  }
  let previous: HTMLElement | undefined;
  for (const item of items) {
    let card = cards.get(item.key);
    if ('call' in item) {
      if (item.call.hunkChoices) {
        reviews.get(item.key)?.apply(item.call.hunkChoices);
      }
      updaters.get(item.key)?.(item.call);
      card ??= renderCall(item.call);
    } else {
      const group = groups.get(item.key) ?? new GroupCard(item.group, { bridge, className: 'call', modeMemory: diffModeMemory });
      groups.set(item.key, group);
      group.update(item.members);
      card = group.element;
    }
    if (!cards.has(item.key)) {
      cards.set(item.key, card);
      if (previous) {
        previous.after(card);
      } else {
        list.prepend(card);
      }
    }
    previous = card;
  }
  emptyNote.hidden = state.pending.length > 0;
  // A decided card had the focus (a click, a key, a keybinding): it goes on to the next waiting call, as in the chat.
  const next = items[0] && cards.get(items[0].key);
  if (hadFocus && next) {
    // The card, not its Allow: a second Enter must not allow a call the person has not looked at yet.
    next.focus();
    next.scrollIntoView({ block: 'nearest' });
  }
  renderBatch(state.pending);
  renderGrants(state.grants);
  confirmNewGrants(state.grants);
  if (state.pending.length === 0) {
    errorBar.hidden = true;
  }
}

function renderBatch(pending: PendingCallView[]): void {
  // A group's files are one card and one decision: the bar counts cards.
  const cardCount = pendingItems(pending).length;
  if (cardCount < 2) {
    batchBar.replaceChildren();
    batchBar.hidden = true;
    return;
  }
  batchBar.hidden = false;
  const calls = (): { callId: string; argsHash: string }[] =>
    (latest?.pending ?? []).map(({ callId, argsHash }) => ({ callId, argsHash }));
  // Allow all would write every hunk: a call with rejected hunks is settled on its own card, with Allow once.
  const partial = pending.some((call) => (reviews.get(call.callId)?.decisions() ?? []).length > 0);
  // An edit pending on a card: Allow all would allow the original, not the person's version.
  const edited = pending.some((call) => isEdited(call));
  const blocked = partial
    ? 'Some hunks are rejected: allow those calls once, on their cards'
    : edited ? 'A call has an edit pending: write or run the edited version on its card, or close its edit first' : undefined;
  const allowAll = h('vscode-button', {
    'data-action': 'allow-all',
    ...(blocked !== undefined ? { disabled: true, title: blocked } : {}),
  }, `Allow all ${cardCount}`);
  allowAll.addEventListener('click', () => blocked === undefined && bridge.send({ type: 'decideAll', action: 'allow-all', calls: calls() }));
  const denyAll = h('vscode-button', { secondary: true, 'data-action': 'deny-all' }, 'Deny all');
  denyAll.addEventListener('click', () => bridge.send({ type: 'decideAll', action: 'deny-all', calls: calls() }));
  batchBar.replaceChildren(h('span', {}, `${cardCount} waiting`), h('span', { class: 'spacer' }), allowAll, denyAll);
}

const scopeNames: Record<GrantView['scope'], string> = { workspace: 'Always', session: 'Session', task: 'This task', timed: 'Timed' };

/** A timed grant's time left, as of this render (the host drops it from the list once it has ended). */
function timeLeft(grant: GrantView): HTMLElement | string {
  if (grant.expiresAt === undefined) {
    return '';
  }
  const minutes = Math.ceil((Date.parse(grant.expiresAt) - Date.now()) / 60_000);
  return h('span', { class: 'muted', 'data-field': 'time-left' }, minutes > 0 ? ` (${minutes} min left)` : ' (ended)');
}

/** How long each kind of grant lasts, as the confirmation says it. */
const grantLasts: Record<GrantView['scope'], string> = {
  workspace: 'in this workspace, until you revoke it',
  session: 'for this session',
  task: "for the agent's current task",
  timed: 'for the minutes you set',
};

/** Says exactly what a grant made since the last state covers, and where it is listed and revoked. */
function confirmNewGrants(grants: GrantView[]): void {
  const known = knownGrants;
  const fresh = known === undefined ? [] : grants.filter((grant) => !known.has(grant.id));
  const now = new Set(grants.map((grant) => grant.id));
  knownGrants = now;
  if (fresh.length > 0) {
    confirmed = fresh.map((grant) => grant.id);
    grantNote.hidden = false;
    grantNote.replaceChildren(...fresh.flatMap((grant, index) => [index > 0 ? ' ' : '',
      `Granted ${grantLasts[grant.scope]}: `, h('code', {}, grant.covers),
      '. Calls it covers now run without asking; it is listed under Grants below, where Revoke ends it.']));
  } else if (confirmed.some((id) => !now.has(id))) {
    confirmed = [];
    grantNote.hidden = true;
  }
}

function renderGrants(grants: GrantView[]): void {
  const items = grants.map((grant) => {
    const revoke = h('vscode-button', { secondary: true, 'data-action': 'revoke', 'data-grant-id': grant.id, title: 'Revoke this grant' }, 'Revoke');
    revoke.addEventListener('click', () => bridge.send({ type: 'revokeGrant', grantId: grant.id }));
    return h('li', { 'data-grant-id': grant.id, 'data-scope': grant.scope },
      h('span', { class: `scope ${grant.scope}` }, scopeNames[grant.scope]), ' ', grant.label, timeLeft(grant), revoke);
  });
  const reset = h('vscode-button', { secondary: true, 'data-action': 'reset-workspace' }, 'Reset workspace approvals');
  reset.addEventListener('click', () => bridge.command('resetWorkspaceApprovals'));
  grantsSection.replaceChildren(
    h('h2', {}, 'Grants'),
    items.length === 0 ? h('p', { class: 'muted' }, 'No grants: every gated call asks.') : h('ul', {}, ...items),
    grants.some((grant) => grant.scope === 'workspace') ? reset : '',
  );
}

function renderCall(call: PendingCallView): HTMLElement {
  /** The host's latest state of this call (its edit, which any surface may change). */
  let latestCall = call;
  const decide = (action: DecideMessage['action'], extra: Partial<Pick<DecideMessage, 'reason' | 'grantOption' | 'edited' | 'hunks' | 'minutes'>> = {}): void => {
    // The edit this card shows, by revision: the host refuses an Allow for an edit made elsewhere since.
    bridge.send({ type: 'decide', callId: call.callId, argsHash: call.argsHash, action, editRevision: shownEditRevision(latestCall), ...extra });
  };
  const preview = call.preview;
  // Hunks can be chosen where the host holds hunk choices for the call (built-in writes and edits).
  const review = hunkReviewOf(call, bridge);
  if (review) {
    reviews.set(call.callId, review);
  }
  const which = call.tool;
  const allow = allowButton(call, which);
  const allowOnce = allow.element;
  allowOnce.addEventListener('click', () => {
    if (review?.allRejected) {
      return;
    }
    // The host settles with the hunk choices and the edit it holds (made here, in the chat or in the diff editor).
    decide(allow.action);
  });
  let grantGroup: HTMLElement;
  let grantButtons: HTMLElement[];
  if (call.grantable) {
    ({ element: grantGroup, buttons: grantButtons } = grantControls(
      call,
      which,
      (action, grantOption, minutes) => !isEdited(latestCall) && decide(action, { grantOption, ...(minutes !== undefined ? { minutes } : {}) }),
      { task: call.source === 'agent' },
    ));
  } else {
    const noGrant = { secondary: true, disabled: true, title: 'No grant can cover this call: allow it once' };
    grantButtons = [button('allow-session', 'Allow for session', 'history', noGrant), button('allow-workspace', 'Always allow in workspace', 'workspace-trusted', noGrant)];
    grantGroup = h('div', { class: 'grant-group' }, ...grantButtons);
  }
  const { deny, reasonArea } = denyWithReason(which, (reason) => decide('deny', reason === undefined ? {} : { reason }));

  const editArea = h('div', { class: 'edit-area', hidden: true });
  let editButton: HTMLElement | string = '';
  /** Takes an edit made on another surface into this card's box (unless the person is typing in it). */
  let followEdit: (next: PendingCallView) => void = () => undefined;
  if (call.editable) {
    const editable = call.editable;
    const editor = h('textarea', {
      'data-field': 'edited',
      rows: editable.kind === 'command' ? '3' : '16',
      spellcheck: 'false',
      'aria-label': editable.kind === 'command' ? 'Edit the command' : 'Edit the proposed content',
    });
    editor.value = editable.text;
    const allowEdited = button('allow-edited', editable.kind === 'command' ? 'Run edited command' : 'Write edited content', 'check');
    allowEdited.addEventListener('click', () => decide('allow-edited', { edited: editor.value }));
    const editShown = h('div', { class: 'edit-diff', 'data-field': 'edit-diff', 'aria-live': 'polite' });
    /** The box's text as the call's edit, held by the host for every surface (closing the box undoes it). */
    const sync = (): void => {
      const text = editArea.hidden ? undefined : editor.value;
      const held = latestCall.edit?.text;
      if ((text ?? editable.text) !== (held ?? editable.text)) {
        bridge.send({ type: 'setEdit', callId: call.callId, argsHash: call.argsHash, text: text === undefined || text === editable.text ? null : text });
      }
      const pending = text !== undefined && text !== editable.text;
      editShown.replaceChildren(...(pending ? [editOfProposal(call, editable, text, () => bridge.send({ type: 'openDiff', callId: call.callId }))] : []));
    };
    followEdit = (next) => {
      const held = next.edit?.text ?? editable.text;
      if (document.activeElement !== editor && editor.value !== held) {
        editor.value = held;
        if (next.edit?.text !== undefined && editArea.hidden) {
          // Edited elsewhere: the note above shows it; the box holds it for a further edit here.
          return;
        }
        editShown.replaceChildren(...(held !== editable.text ? [editOfProposal(call, editable, held, () => bridge.send({ type: 'openDiff', callId: call.callId }))] : []));
      }
    };
    let timer: number | undefined;
    editor.addEventListener('input', () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(sync, 150);
    });
    editArea.append(h('p', { class: 'muted' }, editable.kind === 'command'
      ? 'Edit the command. What runs is your version, and the model is told so.'
      : 'Edit the content to write. What is written is your version, and the model is told so.'), editor, editShown, allowEdited);
    editButton = button('edit', 'Edit then allow', 'edit', { secondary: true });
    editButton.addEventListener('click', () => {
      editArea.hidden = !editArea.hidden;
      sync();
      if (!editArea.hidden) {
        editor.focus();
      }
    });
  }

  let previewEl: HTMLElement | string = '';
  let diff: DiffView | undefined;
  if (preview.kind === 'diff') {
    diff = renderDiff(preview, () => bridge.send({ type: 'openDiff', callId: call.callId }), review, undefined, diffModeMemory);
    previewEl = diff.element;
  } else if (preview.kind === 'command') {
    previewEl = commandPreview(preview);
  }

  const hunkStatus = review ? hunkStatusLine(review, allowOnce, call.grantable ? grantButtons : []) : '';
  // An edit held for the call (made here, in the chat or in the diff editor) shows above the arguments; while the box
  // is open, the box's own diff shows it.
  const editNote = new EditNote(call.editable?.kind === 'content' ? () => bridge.send({ type: 'openDiff', callId: call.callId }) : undefined);
  const update = (next: PendingCallView): void => {
    latestCall = next;
    followEdit(next);
    editNote.update(editArea.hidden ? next : { ...next, edit: { revision: shownEditRevision(next) } });
    labelAllowForEdit(allowOnce, next, allow.action === 'allow-unconfined' ? 'Run without sandbox' : 'Allow once');
    for (const button of call.grantable ? grantButtons : []) {
      button.toggleAttribute('disabled', isEdited(next) || (review !== undefined && review.acceptedCount < review.count));
      if (isEdited(next)) {
        button.title = 'You edited this call: a grant would allow the original. Allow the edit once, or undo the edit.';
      }
    }
  };
  updaters.set(call.callId, update);
  const card = h('article', {
    class: 'call',
    role: 'listitem',
    'data-call-id': call.callId,
    'data-tool': call.tool,
    'data-args-hash': call.argsHash,
    'aria-label': `${call.tool} waiting for approval`,
    tabindex: '-1',
  },
  h('header', { class: 'call-header' },
    h('span', { class: 'tool' }, call.tool),
    h('span', { class: 'source' }, `from ${call.source}`),
    h('span', { class: 'spacer' }),
    h('time', { dateTime: call.waitingSince }, `waiting since ${new Date(call.waitingSince).toLocaleTimeString()}`),
    call.timesOutAt !== undefined ? h('span', { class: 'muted' }, ` · denied at ${new Date(call.timesOutAt).toLocaleTimeString()} if unanswered`) : ''),
  reasonLine(call.reason),
  call.toolInfo
    ? h('section', { class: 'tool-info', 'data-field': 'tool-info' },
        h('div', { class: 'label' }, `MCP server ${call.toolInfo.server} · tool description (from the server, not verified)`),
        h('pre', { class: 'description' }, call.toolInfo.description === '' ? '(no description)' : call.toolInfo.description),
        call.toolInfo.annotations.length > 0
          ? h('p', { class: 'muted' }, `Annotations (shown only, they never allow anything): ${call.toolInfo.annotations.join(', ')}`)
          : '')
    : '',
  ...warningNotes(call.warnings),
  previewEl,
  editNote.element,
  h('details', { class: 'args', open: preview.kind === 'none' },
    h('summary', {}, 'Arguments (exact)'),
    h('pre', { 'data-field': 'args' }, call.argsJson)),
  h('div', { class: 'decision' },
    hunkStatus,
    h('div', { class: 'actions' }, allowOnce, editButton, deny),
    reasonArea,
    grantGroup),
  editArea);
  update(call);
  reportFocus(card, call.callId, bridge);
  if (diff) {
    const view = diff;
    card.addEventListener('keydown', (event) => {
      if (!isTextEntry(event.target) && view.handleKey(event)) {
        event.preventDefault();
      }
    });
  }
  return card;
}

/**
 * "2 of 3 hunks accepted" on the card, kept in step with the review: with every hunk rejected Allow once is off (Deny
 * is the way to refuse it all); with any rejected the grants are off, since a grant's decision carries no hunks.
 */
function hunkStatusLine(review: HunkReview, allowOnce: HTMLElement, grantButtons: HTMLElement[]): HTMLElement {
  const summary = h('span', { 'data-field': 'hunk-summary' });
  const hint = h('span', { class: 'hunk-hint', 'data-field': 'hunk-hint' }, 'Every hunk is rejected: use Deny to refuse the whole call.');
  const setDisabled = (button: HTMLElement, disabled: boolean, title: string): void => {
    button.toggleAttribute('disabled', disabled);
    if (disabled) {
      button.title = title;
    } else {
      button.removeAttribute('title');
    }
  };
  const sync = (): void => {
    summary.textContent = review.summary();
    hint.hidden = !review.allRejected;
    setDisabled(allowOnce, review.allRejected, 'Every hunk is rejected: use Deny');
    const partial = review.acceptedCount < review.count;
    for (const button of grantButtons) {
      setDisabled(button, partial, 'A grant allows the whole change: with hunks rejected, allow once');
    }
    if (latest) {
      renderBatch(latest.pending);
    }
  };
  review.onDidChange(sync);
  sync();
  return h('p', { class: 'hunk-status', role: 'status' }, summary, hint);
}

/** Keys typed here are text, not review commands. */
function isTextEntry(target: EventTarget | null): boolean {
  return target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement || target instanceof HTMLSelectElement
    || (target instanceof HTMLElement && target.isContentEditable);
}
