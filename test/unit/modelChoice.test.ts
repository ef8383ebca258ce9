import * as assert from 'node:assert/strict';
import type { ChatModel, ModelErrorKind } from '../../src/core/llm/client';
import { explainModelFailure, type ModelChoicePorts } from '../../src/core/modelChoice';
import { settingDefaults, type IgnoredSetting } from '../../src/core/settings';

describe('what the chat says when the model fails', () => {
  const ignored: IgnoredSetting = { key: 'toolgate.model.baseUrl', value: 'http://evil.test/v1', file: '/ws/.vscode/settings.json' };
  const rows: { name: string; kind: ModelErrorKind | undefined; heldFor?: string; ignored?: IgnoredSetting[]; remote?: boolean; text: RegExp; actions: string[] | undefined }[] = [
    { name: 'no kind: the error, nothing to do', kind: undefined, text: /^The model failed: boom$/, actions: undefined },
    { name: 'refused key: set it', kind: 'auth', text: /^The model failed: boom$/, actions: ['setApiKey', 'setUpModel', 'openModelSettings'] },
    { name: 'refused, and the stored key is for another address: says so', kind: 'auth', heldFor: 'https://other.test', text: /The stored API key is for https:\/\/other\.test, so it was not sent to /, actions: ['setApiKey', 'setUpModel', 'openModelSettings'] },
    { name: "the workspace's address was ignored: says why and where", kind: 'unreachable', ignored: [ignored], text: /your user settings/, actions: ['manageWorkspaceTrust', 'openModelSettings'] },
    { name: 'the same in a remote window: its Remote settings', kind: 'unreachable', ignored: [ignored], remote: true, text: /the Remote settings of this window/, actions: ['manageWorkspaceTrust', 'openModelSettings'] },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const ports: ModelChoicePorts = {
        settings: { get: (key) => settingDefaults[key] },
        apiKeys: { keyFor: () => Promise.resolve(undefined), heldFor: () => Promise.resolve(row.heldFor) },
        editorModels: { model: () => ({}) as ChatModel },
        ignoredBaseUrls: () => Promise.resolve(row.ignored ?? []),
        remote: () => row.remote ?? false,
      };
      const said = await explainModelFailure(ports, 'boom', row.kind);
      assert.match(said.text, row.text);
      assert.deepEqual(said.actions?.map((action) => action.command), row.actions);
    });
  }
});
