/**
 * The suggestions view: rules or grants the host proposes from the person's own past decisions, each with what it would
 * and would not allow. It decides nothing: Accept sends the suggestion's id, and the host recomputes and applies it.
 */
import type { DecisionGroupView, SuggestionView } from '../../src/shared/suggestions';
import type { ViewState } from '../../src/shared/messages';
import { button, h, markConnected, requireElement } from '../shared/elements';
import { connect } from '../shared/hostChannel';

const root = requireElement('root');
let updates = 0;
const errorBar = h('p', { class: 'notice error', role: 'alert', 'data-field': 'error', hidden: true });
const doneBar = h('p', { class: 'notice', role: 'status', 'data-field': 'done', hidden: true });
const intro = h('p', { class: 'hint' });
const list = h('div', { class: 'suggestions', role: 'list', 'aria-label': 'Suggested rules' });
const groupsSection = h('section', { class: 'groups', 'data-field': 'groups', 'aria-label': 'Your decisions by group' });

const channel = connect('suggestions', {
  onState(state: ViewState) {
    if (state.view !== 'suggestions') {
      return;
    }
    updates += 1;
    errorBar.hidden = true;
    doneBar.hidden = state.done === undefined;
    doneBar.textContent = state.done ?? '';
    intro.textContent =
      `From your own decisions in the audit log: a group you allowed every time (at least ${state.minDecisions} times) can ` +
      'become a rule, and one you denied every time a rule that always asks. Nothing changes until you click Accept.';
    list.replaceChildren(...state.suggestions.map(card));
    if (state.suggestions.length === 0) {
      list.append(h('p', { class: 'empty', 'data-field': 'empty' }, state.trusted
        ? state.groups.length === 0
          ? 'No suggestion yet: the audit log has no decision of yours to learn from.'
          : 'No suggestion yet: each group of your decisions below says why.'
        : 'This workspace is not trusted: VS Code ignores the rules in its settings, so nothing is suggested. Trust the folder first.'));
    }
    groupsSection.replaceChildren(h('h2', {}, 'Your decisions'), groupTable(state.groups));
    markConnected(root, updates);
  },
  onResult(_requestId, ok, error) {
    if (!ok) {
      errorBar.hidden = false;
      errorBar.textContent = error ?? 'the host refused that';
    }
  },
});

const seconds = (ms: number | undefined): string => (ms === undefined ? '–' : `${(ms / 1000).toFixed(1)} s`);

function counts(item: DecisionGroupView | SuggestionView): string {
  return `asked ${item.asked}, allowed ${item.allowed}, denied ${item.denied}; you looked ${seconds(item.medianLookMs)} (median)`;
}

function probeList(title: string, field: string, probes: SuggestionView['past']): HTMLElement {
  return h('div', { 'data-field': field },
    h('h4', {}, title),
    h('ul', {}, ...probes.map((probe) =>
      h('li', { 'data-verdict': probe.verdict }, h('code', {}, probe.text), ` — ${probe.why}: ${probe.reason}`))),
  );
}

function card(suggestion: SuggestionView): HTMLElement {
  const accept = button({ 'data-action': 'accept-suggestion', 'aria-label': `Accept: ${suggestion.summary}` }, 'Accept');
  accept.addEventListener('click', () => {
    channel.send({ type: 'acceptSuggestion', suggestionId: suggestion.id });
  });
  const probes = [...suggestion.past, ...suggestion.dangerous];
  const allows = probes.filter((probe) => probe.verdict === 'allow');
  const asks = probes.filter((probe) => probe.verdict !== 'allow');
  return h('section', { class: 'suggestion card', role: 'listitem', 'data-suggestion-id': suggestion.id, 'data-kind': suggestion.kind },
    h('h3', {}, h('code', {}, suggestion.matcher), suggestion.allows ? ' — allow without asking' : ' — always ask'),
    h('p', { 'data-field': 'counts' }, counts(suggestion)),
    h('p', { 'data-field': 'summary' }, suggestion.summary),
    ...suggestion.warnings.map((warning) => h('p', { class: 'notice warning', 'data-field': 'warning' }, warning)),
    ...(allows.length > 0 ? [probeList('It would allow', 'would-allow', allows)] : []),
    ...(asks.length > 0 ? [probeList('It would still ask', 'would-ask', asks)] : []),
    h('div', { class: 'actions' }, accept),
  );
}

function groupTable(groups: readonly DecisionGroupView[]): HTMLElement {
  return h('table', {},
    h('thead', {}, h('tr', {}, h('th', {}, 'Matches'), h('th', {}, 'Asked'), h('th', {}, 'Allowed'), h('th', {}, 'Denied'), h('th', {}, 'Looked (median)'), h('th', {}, 'Why no suggestion'))),
    h('tbody', {}, ...groups.map((group) =>
      h('tr', { 'data-group-id': group.id },
        h('td', {}, h('code', {}, group.matcher)),
        h('td', {}, String(group.asked)),
        h('td', {}, String(group.allowed)),
        h('td', {}, String(group.denied)),
        h('td', {}, seconds(group.medianLookMs)),
        h('td', { 'data-field': 'why' }, group.why ?? '')))),
  );
}

root.replaceChildren(
  h('header', { class: 'panel-header' }, h('h1', {}, 'Suggestions')),
  intro,
  errorBar,
  doneBar,
  list,
  groupsSection,
);
