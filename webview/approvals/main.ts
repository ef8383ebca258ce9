import type { DiffMode, GrantView } from '../../src/shared/approvals';
import type { ApprovalsState, ViewState } from '../../src/shared/messages';
import { button, focusCard, h, icon, markConnected, requireElement } from '../shared/elements';
import { connect } from '../shared/hostChannel';
import { CardList } from '../shared/cardList';

const root = requireElement('root');
/** The person's unified / side-by-side choice: the host keeps it in workspace state (across calls and reloads). */
let diffMode: DiffMode | undefined;
const diffModeMemory = {
  get: (): DiffMode | undefined => diffMode ?? latest?.diffMode,
  set: (mode: DiffMode): void => {
    diffMode = mode;
    channel.send({ type: 'setDiffMode', mode });
  },
};
let updates = 0;
const trustNote = h('div');
const emptyText = h('p', {}, 'No calls are waiting for approval.');
const emptyNote = h('section', { class: 'empty', 'data-field': 'empty', role: 'status' }, icon('pass'), emptyText);
/** A question of the agent waits in the chat (and no call here): said in place of "nothing waits", with the way there. */
const questionNote = h('section', { class: 'notice info waiting-question', 'data-field': 'waiting-question', role: 'status', hidden: true });
const grantsSection = h('section', { class: 'grants', 'data-field': 'grants', 'aria-label': 'Grants' });
const errorBar = h('p', { class: 'notice error', role: 'alert', 'data-field': 'error', hidden: true });
let latest: ApprovalsState | undefined;
/** Grants seen in the last state: one that appears later was just made, and is confirmed at the top. */
let knownGrants: Set<string> | undefined;
/** The grants the confirmation speaks of: it goes when they are revoked. */
let confirmed: string[] = [];
const grantNote = h('p', { class: 'notice info', role: 'status', 'data-field': 'grant-confirmation', hidden: true });

const channel = connect('approvals', {
  onFocusCall(callId) {
    focusCard(callId);
  },
  onState(state: ViewState, _reason, sentAt: number, receivedAt: number, builtMs = 0) {
    if (state.view !== 'approvals') {
      return;
    }
    updates += 1;
    const renderStart = Date.now();
    const callIds = state.pending.map((call) => call.callId).join(' ');
    render(state);
    markConnected(root, updates);
    const rendered = Date.now();
    // How long from the host starting to post this state to the panel having painted it (same machine, same clock),
    // and its parts, for the bench: host (state built, diffed and checked), transport (-> handler), parse (contract
    // check, patch), render (DOM built) and layout+paint (-> the frame after). The total is written last: the bench
    // waits for it.
    requestAnimationFrame(() => {
      setTimeout(() => {
        const painted = Date.now();
        root.dataset['hostMs'] = String(builtMs);
        root.dataset['transportMs'] = String(receivedAt - sentAt - builtMs);
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

/** The waiting calls' cards, the same component as the chat's (full layout: the whole diff, every detail). */
const list = new CardList({ channel, layout: 'full', label: 'Calls waiting for approval', modeMemory: diffModeMemory });

root.replaceChildren(
  h('header', { class: 'panel-header' },
    icon('shield'),
    h('h1', {}, 'Approvals'),
    h('span', { class: 'spacer' }),
    (() => {
      const audit = button({ secondary: true, 'data-action': 'show-audit-log' }, 'Audit log');
      audit.addEventListener('click', () => channel.command('showAuditLog'));
      return audit;
    })(),
  ),
  trustNote,
  errorBar,
  grantNote,
  list.batch,
  emptyNote,
  questionNote,
  list.element,
  grantsSection,
);

function render(state: ApprovalsState): void {
  latest = state;
  trustNote.replaceChildren(
    state.trusted ? '' : h('p', { class: 'notice warning', role: 'note', 'data-field': 'trust' },
      'This workspace is not trusted: nothing is allowed without asking.'),
  );
  list.render(state.pending);
  emptyNote.hidden = state.pending.length > 0;
  renderQuestions(state.questions ?? [], state.pending.length === 0);
  renderGrants(state.grants);
  confirmNewGrants(state.grants);
  if (state.pending.length === 0) {
    errorBar.hidden = true;
  }
}

let shownQuestions: string | undefined;

/** The questions that wait in the chat, and the button that goes there (where they are answered). */
function renderQuestions(questions: NonNullable<ApprovalsState['questions']>, nothingHere: boolean): void {
  // Only in place of the empty note: with calls here, their cards come first (the status bar counts the questions).
  questionNote.hidden = questions.length === 0 || !nothingHere;
  // Drawn again only when the questions changed, so a focused button keeps the focus across the panel's updates.
  const key = JSON.stringify(questions);
  if (key === shownQuestions) {
    return;
  }
  shownQuestions = key;
  emptyText.textContent = questions.length === 0 ? 'No calls are waiting for approval.' : 'No calls are waiting for approval, but the agent waits for you:';
  if (questions.length === 0) {
    questionNote.replaceChildren();
    return;
  }
  const go = button({ 'data-action': 'go-to-question' }, questions.length === 1 ? 'Answer in the chat' : 'Answer them in the chat');
  go.addEventListener('click', () => channel.command('focusChat'));
  questionNote.replaceChildren(
    h('p', {}, icon('comment-discussion'), ' ', questions.length === 1 ? 'A question waits in the chat:' : `${questions.length} questions wait in the chat:`),
    h('ul', {}, ...questions.map(({ id, question }) => h('li', { 'data-question-id': id }, h('q', {}, question)))),
    go,
  );
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
    const revoke = button({ secondary: true, 'data-action': 'revoke', 'data-grant-id': grant.id, title: 'Revoke this grant' }, 'Revoke');
    revoke.addEventListener('click', () => channel.send({ type: 'revokeGrant', grantId: grant.id }));
    return h('li', { 'data-grant-id': grant.id, 'data-scope': grant.scope },
      h('span', { class: `scope ${grant.scope}` }, scopeNames[grant.scope]), ' ', grant.label, timeLeft(grant), revoke);
  });
  const reset = button({ secondary: true, 'data-action': 'reset-workspace' }, 'Reset workspace approvals');
  reset.addEventListener('click', () => channel.command('resetWorkspaceApprovals'));
  grantsSection.replaceChildren(
    h('h2', {}, 'Grants'),
    items.length === 0 ? h('p', { class: 'muted' }, 'No grants: every gated call asks.') : h('ul', {}, ...items),
    grants.some((grant) => grant.scope === 'workspace') ? reset : '',
  );
}
