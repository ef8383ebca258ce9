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
  // The key comes from SecretStorage only, and only when it was set for this address; a loopback endpoint works without one.
  const baseUrl = settings.get('model.baseUrl');
  const apiKey = await apiKeys.keyFor(baseUrl, baseUrl);
  return new OpenAICompatibleModel({
    baseUrl,
    model: settings.get('model.name'),
    ...(apiKey !== undefined ? { apiKey } : {}),
  });
}

/** A model error, with why when the workspace's toolgate.model.baseUrl was ignored, and what to do about it. */
export async function explainModelFailure(
  settings: Settings,
  apiKeys: ApiKeyStore,
  error: string,
  kind: ModelErrorKind | undefined,
): Promise<{ text: string; actions?: NoticeActions }> {
  if (kind === 'auth' && settings.get('model.provider') === 'openai-compatible') {
    // A key set for another address is not sent: say so, or the person re-enters the right key for the wrong address.
    const baseUrl = settings.get('model.baseUrl');
    const heldFor = await apiKeys.heldFor(baseUrl);
    if (heldFor !== undefined && (await apiKeys.keyFor(baseUrl, baseUrl)) === undefined) {
      return { text: `The model failed: ${error}. The stored API key is for ${heldFor}, so it was not sent to ${baseUrl}.`, actions: modelFailureActions(kind) };
    }
  }
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
