/** What the chat view and the approvals panel ask of the host, translated into calls on the core (validated already). */
import type { AgentSession } from '../core/agent/session';
import type { Gate } from '../core/approval/gate';
import type { GrantStore } from '../core/approval/grants';
import type { PanelRequest } from './approvalsPanel';
import type { ChatRequest } from './chatViewProvider';
import type { Outcome } from './commandBridge';
import type { ProposedContentProvider } from './proposedContent';

export function chatRequests(agent: AgentSession): (message: ChatRequest) => Outcome {
  return (message) => {
    switch (message.type) {
      case 'submit':
        agent.submit(message.prompt);
        return { ok: true };
      case 'stop':
        return agent.cancel() ? { ok: true } : { ok: false, error: 'no task is running' };
      case 'newChat':
        return agent.newChat();
      case 'openChat':
        return agent.openChat(message.chatId);
      case 'answer':
        return agent.answer(message.questionId, message.answer);
    }
  };
}

export function panelRequests(gate: Gate, grants: GrantStore, proposed: ProposedContentProvider): (message: PanelRequest) => Promise<Outcome> {
  return async (message) => {
    switch (message.type) {
      case 'decide':
        return gate.settle(message, {
          action: message.action,
          ...(message.reason !== undefined ? { reason: message.reason } : {}),
          ...(message.grantOption !== undefined ? { grantOption: message.grantOption } : {}),
          ...(message.edited !== undefined ? { edited: message.edited } : {}),
          ...(message.hunks !== undefined ? { hunks: message.hunks.map(({ index, accepted, reason }) => ({ index, accepted, ...(reason !== undefined ? { reason } : {}) })) } : {}),
        });
      case 'decideAll': {
        const outcome = gate.settleAll(message.calls, { allow: message.action === 'allow-all', ...(message.reason !== undefined ? { reason: message.reason } : {}) });
        return outcome.errors.length === 0 ? { ok: true } : { ok: false, error: outcome.errors.join('; ') };
      }
      case 'openDiff':
        await proposed.openDiff(message.callId);
        return { ok: true };
      case 'revokeGrant':
        return (await grants.revoke(message.grantId)) ? { ok: true } : { ok: false, error: `no grant ${message.grantId}` };
    }
  };
}
