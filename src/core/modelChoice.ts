/**
 * The agent's model as the settings name it (with its key from the secret storage), and what to say when it fails.
 * At the core's root: it speaks of the model (llm/) and of the chat's notices (agent/). The editor is reached through
 * ports (VS Code's models, the key store, the workspace's ignored settings).
 */
import { modelFailureActions, type NoticeActions } from './agent/chats';
import { ModelError, OpenAICompatibleModel, type ChatModel, type ModelErrorKind } from './llm/client';
import type { ApiKeysPort, EditorModelsPort, ModelSettingsPort } from './llm/modelSetupFlow';
import { ignoredSettingNote, type IgnoredSetting } from './settings';
import { baseUrlRefusal } from './managed/managedCeilings';
import type { ManagedPolicy } from './managed/managedSettings';

export interface ModelChoicePorts {
  settings: Pick<ModelSettingsPort, 'get'>;
  apiKeys: Pick<ApiKeysPort, 'keyFor' | 'heldFor'>;
  editorModels: Pick<EditorModelsPort, 'model'>;
  /** The workspace's value of toolgate.model.baseUrl that the editor ignores (an untrusted or machine-scoped one). */
  ignoredBaseUrls: () => Promise<IgnoredSetting[]>;
  /** Whether the window's extensions run on another machine: its user settings are then the Remote settings. */
  remote: () => boolean;
  /** The managed settings file in force: which model endpoints may be used. */
  managed?: () => ManagedPolicy | undefined;
}

/** A model the managed settings file does not allow: nothing is ever sent to it; each turn fails with why. */
function refusedModel(why: string): ChatModel {
  return { complete: () => Promise.reject(new ModelError('refused', why)) };
}

export async function createModel({ settings, apiKeys, editorModels, managed }: ModelChoicePorts): Promise<ChatModel> {
  const policy = managed?.();
  if (settings.get('model.provider') === 'vscode-lm') {
    if (policy?.model.allowedBaseUrls !== undefined) {
      return refusedModel(`the managed policy (${policy.file}) allows only the model endpoints it lists, so VS Code's own language models are not used: set toolgate.model.provider to openai-compatible and toolgate.model.baseUrl to one of ${policy.model.allowedBaseUrls.join(', ') || '(none)'}`);
    }
    return editorModels.model(settings.get('model.name'));
  }
  // The key comes from SecretStorage only, and only when it was set for this address; a loopback endpoint works without one.
  const baseUrl = settings.get('model.baseUrl');
  const refused = baseUrlRefusal(baseUrl, policy);
  if (refused !== undefined) {
    return refusedModel(`${refused}: set toolgate.model.baseUrl to one it allows`);
  }
  const apiKey = await apiKeys.keyFor(baseUrl, baseUrl);
  return new OpenAICompatibleModel({
    baseUrl,
    model: settings.get('model.name'),
    ...(apiKey !== undefined ? { apiKey } : {}),
  });
}

/** A model error, with why when the workspace's toolgate.model.baseUrl was ignored, and what to do about it. */
export async function explainModelFailure(
  { settings, apiKeys, ignoredBaseUrls, remote }: ModelChoicePorts,
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
  const ignored = kind !== undefined && settings.get('model.provider') === 'openai-compatible' ? await ignoredBaseUrls() : [];
  const first = ignored[0];
  if (first === undefined) {
    const actions = modelFailureActions(kind);
    return { text: `The model failed: ${error}`, ...(actions.length > 0 ? { actions } : {}) };
  }
  const where = remote() ? 'the Remote settings of this window' : 'your user settings';
  return {
    text: `The model failed: ${error}. ${ignoredSettingNote(first, settings.get('model.baseUrl'), where)}`,
    actions: [
      { command: 'manageWorkspaceTrust', label: 'Trust this folder…' },
      { command: 'openModelSettings', label: 'Open the setting' },
    ],
  };
}
