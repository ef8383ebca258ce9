import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-icon/index.js';
import type { ApprovalsState, ViewState } from '../../src/shared/messages';
import { connect, h, markConnected, requireElement } from '../shared/bridge';

const root = requireElement('root');
let updates = 0;

function render(state: ApprovalsState): void {
  const heading = h('header', { class: 'panel-header' },
    h('vscode-icon', { name: 'shield', 'aria-hidden': 'true' }),
    h('h1', {}, 'Approvals'),
  );
  const notices: Node[] = [];
  if (!state.trusted) {
    notices.push(h('p', { class: 'notice warning', role: 'note', 'data-field': 'trust' },
      'This workspace is not trusted: nothing is allowed without asking.'));
  }
  const body = state.waitingCalls === 0
    ? h('section', { class: 'empty', 'data-field': 'empty', role: 'status' },
        h('vscode-icon', { name: 'pass', 'aria-hidden': 'true' }),
        h('p', {}, 'No calls are waiting for approval.'))
    : h('section', { class: 'waiting', role: 'status', 'data-field': 'waiting-count' },
        `${state.waitingCalls} call${state.waitingCalls === 1 ? '' : 's'} waiting.`);
  root.replaceChildren(heading, ...notices, body);
}

connect('approvals', {
  onState(state: ViewState) {
    if (state.view !== 'approvals') {
      return;
    }
    updates += 1;
    render(state);
    markConnected(root, updates);
  },
});
