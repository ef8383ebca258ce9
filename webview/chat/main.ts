import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-icon/index.js';
import type { ChatState, ViewState } from '../../src/shared/messages';
import { connect, h, markConnected, requireElement } from '../shared/bridge';

const root = requireElement('root');
let updates = 0;

const bridge = connect('chat', {
  onState(state: ViewState) {
    if (state.view !== 'chat') {
      return;
    }
    updates += 1;
    render(state);
    markConnected(root, updates);
  },
});

function render(state: ChatState): void {
  const openApprovals = h('vscode-button', { 'data-action': 'open-approvals', secondary: true },
    h('vscode-icon', { name: 'shield', slot: 'content-before' }), 'Open Approvals');
  openApprovals.addEventListener('click', () => bridge.command('openApprovals'));

  const setKey = h('vscode-button', { 'data-action': 'set-api-key', secondary: true },
    h('vscode-icon', { name: 'key', slot: 'content-before' }), 'Set API Key');
  setKey.addEventListener('click', () => bridge.command('setApiKey'));

  const waiting = state.waitingCalls === 0
    ? 'No calls are waiting for approval.'
    : `${state.waitingCalls} call${state.waitingCalls === 1 ? '' : 's'} waiting for approval.`;

  root.replaceChildren(
    h('section', { class: 'chat-status', 'aria-label': 'Session' },
      h('p', { 'data-field': 'model' }, 'Model: ', h('code', {}, state.model.name), ' at ', h('code', {}, state.model.baseUrl)),
      h('p', { 'data-field': 'waiting', role: 'status' }, waiting),
      state.trusted ? '' : h('p', { class: 'notice warning', role: 'note' },
        'This workspace is not trusted: every gated call asks.'),
    ),
    h('div', { class: 'actions' }, openApprovals, setKey),
  );
}
