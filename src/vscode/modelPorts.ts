/** The agent's model as the settings name it (with its key from SecretStorage), and what to say when it fails. */
import { OpenAICompatibleModel, type ChatModel, type ModelErrorKind } from '../core/llm/client';
import { ignoredSettingNote } from '../core/settings';
import { modelFailureActions, type NoticeActions } from '../core/agent/chats';
import { isRemoteWindow } from './commandBridge';
import type { ApiKeyStore } from './secrets';
import type { Settings } from './settings';
import { VsCodeLmModel } from './vscodeLmModel';
import { ignoredWorkspaceValues } from './workspaceSettings';

export async function createModel(settings: Settings, apiKeys: ApiKeyStore): Promise<ChatModel> {
  if (settings.get('model.provider') === 'vscode-lm') {
    return new VsCodeLmModel(settings.get('model.name'));
  }
  // The key comes from SecretStorage only; a loopback endpoint works without one.
  const apiKey = await apiKeys.get();
  return new OpenAICompatibleModel({
    baseUrl: settings.get('model.baseUrl'),
    model: settings.get('model.name'),
    ...(apiKey !== undefined ? { apiKey } : {}),
  });
}

/** A model error, with why when the workspace's toolgate.model.baseUrl was ignored, and what to do about it. */
export async function explainModelFailure(
  settings: Settings,
  error: string,
  kind: ModelErrorKind | undefined,
): Promise<{ text: string; actions?: NoticeActions }> {
  const ignored = kind !== undefined && settings.get('model.provider') === 'openai-compatible' ? await ignoredWorkspaceValues('toolgate.model.baseUrl') : [];
  const first = ignored[0];
  if (first === undefined) {
    const actions = modelFailureActions(kind);
    return { text: `The model failed: ${error}`, ...(actions.length > 0 ? { actions } : {}) };
  }
  const where = isRemoteWindow() ? 'the Remote settings of this window' : 'your user settings';
  return {
    text: `The model failed: ${error}. ${ignoredSettingNote(first, settings.get('model.baseUrl'), where)}`,
    actions: [
      { command: 'manageWorkspaceTrust', label: 'Trust this folder…' },
      { command: 'openModelSettings', label: 'Open the setting' },
    ],
  };
}
