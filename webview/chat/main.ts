/**
 * The chat's entry in its webview: the view mounted in the page's root, the host's messages handed to it.
 */
import { requireElement } from '../shared/elements';
import { connect, type HostHandlers } from '../shared/hostChannel';
import { mount } from './chatView';

// The host answers `ready` only after `connect` returns, so the view is mounted before any message reaches it.
const handlers: HostHandlers = {
  onState: (...args) => view.onState(...args),
  onFocus: (field) => view.onFocus(field),
  onFocusCall: (callId) => view.onFocusCall(callId),
  onResult: (...args) => view.onResult(...args),
};
const view = mount(requireElement('root'), connect('chat', handlers));
