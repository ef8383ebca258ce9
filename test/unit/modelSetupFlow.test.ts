import * as assert from 'node:assert/strict';
import type { ChatModel } from '../../src/core/llm/client';
import { ModelSetup, type ModelSetupDeps } from '../../src/core/llm/modelSetupFlow';
import type { ModelSettingKey } from '../../src/core/llm/setup';
import { settingDefaults } from '../../src/core/settings';
import type { ModelSetupMessage, ModelSetupView } from '../../src/shared/modelSetup';

/** The setup over fakes of its ports: settings at their defaults, no stored key, two editor models. */
function setupWith(refused?: ModelSetupDeps['refused']): { setup: ModelSetup; prompted: string[]; written: (readonly (readonly [ModelSettingKey, string])[])[] } {
  const prompted: string[] = [];
  const written: (readonly (readonly [ModelSettingKey, string])[])[] = [];
  const none = { dispose: () => undefined };
  const deps: ModelSetupDeps = {
    settings: { get: (key) => settingDefaults[key], onDidChange: () => none },
    apiKeys: {
      onDidChange: () => none,
      keyFor: () => Promise.resolve(undefined),
      heldFor: () => Promise.resolve(undefined),
      prompt: (address) => (prompted.push(address), Promise.resolve('unchanged')),
    },
    editorModels: { families: () => Promise.resolve(['gpt-4o', 'claude', 'gpt-4o']), model: () => ({}) as ChatModel },
    writeModelSettings: (values) => (written.push(values), Promise.resolve(values.map(([key]) => ({ key, place: 'user' as const })))),
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    onDidChange: () => undefined,
    ...(refused !== undefined ? { refused } : {}),
  };
  return { setup: new ModelSetup(deps), prompted, written };
}

const message = (action: ModelSetupMessage['action'], provider: ModelSetupMessage['provider'], baseUrl: string, model: string): ModelSetupMessage => ({ type: 'modelSetup', requestId: 'r', action, provider, baseUrl, model });

describe("the model setup's flow", () => {
  const rows: { name: string; message: ModelSetupMessage; view: (view: ModelSetupView) => unknown; expected: unknown; prompted?: string[]; written?: unknown[] }[] = [
    {
      name: "the key for a form's address: asked for that address",
      message: message('key', 'custom', ' https://api.example.test/v1/ ', ''),
      view: () => undefined,
      expected: undefined,
      prompted: ['https://api.example.test/v1'],
    },
    {
      name: "VS Code's models: each family once, sorted",
      message: message('models', 'vscode-lm', '', ''),
      view: (view) => view.models,
      expected: { baseUrl: "VS Code's Language Model API", status: 'loaded', ids: ['claude', 'gpt-4o'] },
    },
    {
      name: 'models of an address that is not one: failed, saying why',
      message: message('models', 'custom', 'ollama', ''),
      view: (view) => view.models?.status,
      expected: 'failed',
    },
    {
      name: 'a test without a model: the model line fails, nothing is sent',
      message: message('test', 'vscode-lm', '', '  '),
      view: (view) => view.test?.checks,
      expected: [{ kind: 'model', result: 'fail', text: 'Enter a model, or pick one from the list.' }],
    },
    {
      name: 'a save of a bad address: not saved, nothing written',
      message: message('save', 'custom', 'file:///etc', 'm'),
      view: (view) => view.saved?.ok,
      expected: false,
      written: [],
    },
    {
      name: "a save of VS Code's model: the provider and the model, no address",
      message: message('save', 'vscode-lm', '', ' claude '),
      view: (view) => view.saved?.ok,
      expected: true,
      written: [[['model.provider', 'vscode-lm'], ['model.name', 'claude']]],
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const { setup, prompted, written } = setupWith();
      try {
        assert.deepEqual(await setup.handle(row.message), { ok: true });
        assert.deepEqual(row.view(setup.state), row.expected);
        assert.deepEqual(prompted, row.prompted ?? []);
        assert.deepEqual(written, row.written ?? []);
      } finally {
        setup.dispose();
      }
    });
  }

  it('an address the managed settings file does not allow: its models are not listed, nothing is sent, and why is shown', async () => {
    const { setup } = setupWith((baseUrl) => (baseUrl === 'https://llm.example.com/v1' ? undefined : `the managed policy allows only https://llm.example.com/v1, not ${baseUrl}`));
    try {
      // An unreachable address: were anything sent, the listing would fail as unreachable, not with the managed policy's words.
      assert.deepEqual(await setup.handle(message('models', 'custom', 'http://127.0.0.1:9/v1', '')), { ok: true });
      assert.deepEqual(setup.state.models, { baseUrl: 'http://127.0.0.1:9/v1', status: 'failed', ids: [], error: 'the managed policy allows only https://llm.example.com/v1, not http://127.0.0.1:9/v1' });
    } finally {
      setup.dispose();
    }
  });

  it('a key for an address that is not one is refused, and nothing is asked', async () => {
    const { setup, prompted } = setupWith();
    const outcome = await setup.handle(message('key', 'custom', 'ollama', ''));
    assert.equal(outcome.ok, false);
    assert.deepEqual(prompted, []);
    setup.dispose();
  });
});
