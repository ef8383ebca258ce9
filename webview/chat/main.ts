/**
 * The chat's entry in its webview: the view mounted in the page's root, the host's messages handed to it.
 */
import { connect, requireElement, type BridgeHandlers } from '../shared/bridge';
import { mount } from './chatView';

// The host answers `ready` only after `connect` returns, so the view is mounted before any message reaches it.
const handlers: BridgeHandlers = {
  onState: (...args) => view.onState(...args),
  onFocus: (field) => view.onFocus(field),
  onFocusCall: (callId) => view.onFocusCall(callId),
  onResult: (...args) => view.onResult(...args),
};
const view = mount(requireElement('root'), connect('chat', handlers));
