/**
 * The two views' states as the host sends them (the contract's ChatState and ApprovalsState), assembled from the gate,
 * the agent's session, the chats, the checkpoints and the settings. Which waiting calls the chat shows is here too.
 */
import type { Gate } from '../approval/gate';
import type { SettingKey, SettingValue } from '../settings';
import type { PendingCallView } from '../../shared/approvals';
import type { ApprovalsState, ChatEntry, ChatState } from '../../shared/messages';
import type { ModelSetupView } from '../../shared/modelSetup';
import { approvalSchemas } from '../protocolSchemas';
import { grantViews } from './grants';
import { chatShowsCall } from '../callers';
import { forViews, pendingViews, type GateState } from './pendingCall';

type ViewGate = GateState & Pick<Gate, 'waitingDecisions' | 'revocableGrants'>;

/** The agent's calls of the chat `chatId` only: API and other chats' calls are reviewed in the panel. */
export function chatCalls(gate: GateState, chatId: string): PendingCallView[] {
  return pendingViews(gate, chatId).filter(chatShowsCall);
}

export interface ChatStateSources {
  gate: ViewGate;
  settings: { get<K extends SettingKey>(key: K): SettingValue<K> };
  trusted: () => boolean;
  agent: { readonly chatId: string; readonly isRunning: boolean };
  chats: { readonly current: { readonly entries: ChatEntry[] }; list(): ChatState['chats'] };
  setup: { readonly state: ModelSetupView };
  /** The checkpoints' tasks of a chat, each with its model turns. */
  tasks: (chatId: string) => readonly { taskId: string; turns: readonly { turn: number; undone: boolean }[] }[];
}

export function chatState({ gate, settings, trusted, agent, chats, setup, tasks }: ChatStateSources): ChatState {
  return {
    view: 'chat',
    model: { baseUrl: settings.get('model.baseUrl'), name: settings.get('model.name'), provider: settings.get('model.provider') },
    waitingCalls: gate.waitingDecisions,
    trusted: trusted(),
    chatId: agent.chatId,
    running: agent.isRunning,
    entries: chats.current.entries,
    pending: chatCalls(gate, agent.chatId).map(forViews),
    chats: chats.list(),
    setup: setup.state,
    turns: tasks(agent.chatId).flatMap(({ taskId, turns }) => turns.map(({ turn, undone }) => ({ taskId, turn, undone }))).slice(0, 10_000),
  };
}

export interface ApprovalsStateSources {
  gate: ViewGate;
  trusted: () => boolean;
  /** The chats whose grants the panel lists: the agent's current chat and the other agents' (API, tools, MCP). */
  grantChats: () => readonly string[];
  agent: { questionViews(): { id: string; question: string }[] };
  /** The person's last choice of unified or side-by-side diffs, as workspace state holds it (unified when none). */
  storedDiffMode: () => unknown;
}

/** The stored diff mode, or unified when there is none or it is not one (checked without a schema made per refresh). */
function storedMode(stored: unknown): ApprovalsState['diffMode'] {
  const parsed = approvalSchemas().DiffMode.safeParse(stored);
  return parsed.success ? parsed.data : 'unified';
}

export function approvalsState({ gate, trusted, grantChats, agent, storedDiffMode }: ApprovalsStateSources): ApprovalsState {
  return {
    view: 'approvals',
    waitingCalls: gate.waitingDecisions,
    trusted: trusted(),
    pending: pendingViews(gate).map(forViews),
    grants: grantViews(gate, grantChats()),
    questions: agent.questionViews(),
    diffMode: storedMode(storedDiffMode()),
  };
}
