/**
 * The chat's model setup, host side: loads an address's models, runs Test connection, asks for the API key for an
 * address, and saves the provider, address and model to the settings. The form holds what is typed; this holds what
 * came of it (`ModelSetupView`), and the chat view shows that. The editor is reached through ports.
 */
import { DisposableStore, type Disposable } from '../disposable';
import type { SettingKey, SettingValue } from '../settings';
import type { LogPort } from '../logPort';
import { ModelError, OpenAICompatibleModel, type ChatModel, type ToolSpec } from './client';
import { checkAddress, listProblem, planSave, savedWhere, testConnection, type ModelProbe, type ModelSettingKey, type SettingPlace } from './setup';
import { presetOf } from '../../shared/modelProviders';
import type { ModelSetupMessage, ModelSetupView } from '../../shared/modelSetup';

/** What a request of the form got: done (the view says the rest), or refused with why. */
type Outcome = { ok: true } | { ok: false; error: string };

/** How long the models list and the test's request may take: a local model loading for the first time is slow. */
const listTimeoutMs = 15_000;
const requestTimeoutMs = 60_000;
/** What the test and the list say for VS Code's own models, where there is no address. */
const vscodeModels = "VS Code's Language Model API";

/** The settings as the setup reads them, and news of their change (src/vscode/settings.ts). */
export interface ModelSettingsPort {
  get<K extends SettingKey>(key: K): SettingValue<K>;
  onDidChange(listener: (affects: (key: SettingKey) => boolean) => void): Disposable;
}

/** The API key in the editor's secret storage, kept with the origin it is for (src/vscode/model/secrets.ts). */
export interface ApiKeysPort {
  onDidChange(listener: () => void): Disposable;
  keyFor(address: string, configuredBaseUrl: string): Promise<string | undefined>;
  heldFor(configuredBaseUrl: string): Promise<string | undefined>;
  /** Asks the person for the key of `address`. */
  prompt(address: string): Promise<'stored' | 'removed' | 'unchanged'>;
}

/** The editor's own language models (VS Code's Language Model API): their families, and one of them to ask. */
export interface EditorModelsPort {
  families(): Promise<string[]>;
  model(name: string): ChatModel;
}

export interface ModelSetupDeps {
  settings: ModelSettingsPort;
  apiKeys: ApiKeysPort;
  editorModels: EditorModelsPort;
  /** Writes the model settings where they take effect; says where each went. */
  writeModelSettings(values: readonly (readonly [ModelSettingKey, string])[]): Promise<{ key: ModelSettingKey; place: SettingPlace }[]>;
  log: LogPort;
  /** The view changed: the chat sends its state again. */
  onDidChange(): void;
  /** Why a managed settings file refuses this model endpoint (nothing is sent to it), or undefined. */
  refused?: (baseUrl: string) => string | undefined;
}

/** The endpoint a form names, ready to be asked: its address, and whether the stored key goes with the requests. */
interface Target {
  label: string;
  probe: ModelProbe;
  key: { sent: true } | { sent: false; heldFor?: string };
}

function probeOf(model: ChatModel): Pick<ModelProbe, 'requestWithTool'> {
  return {
    requestWithTool: async (tool: ToolSpec, signal: AbortSignal) => {
      const turn = await model.complete([{ role: 'user', content: `Call the ${tool.name} tool now, with no arguments.` }], [tool], { signal });
      return { calledTool: turn.toolCalls.some((call) => call.name === tool.name) };
    },
  };
}

export class ModelSetup implements Disposable {
  private readonly store = new DisposableStore();
  private view: ModelSetupView = {};
  private listing: AbortController | undefined;
  private testing: AbortController | undefined;
  private tests = 0;
  /** The address and model a Save was last stopped for (the test found it not served): the next Save of them goes ahead. */
  private warnedSave: string | undefined;

  constructor(private readonly deps: ModelSetupDeps) {
    this.store.add(deps.apiKeys.onDidChange(() => void this.refreshKey()));
    // The model chip and the setup follow the settings, wherever they were changed.
    this.store.add(deps.settings.onDidChange((affects) => {
      if (affects('model.baseUrl')) {
        void this.refreshKey();
      } else if (affects('model.provider') || affects('model.name')) {
        deps.onDidChange();
      }
    }));
    this.store.add({ dispose: () => {
      this.listing?.abort();
      this.testing?.abort();
    } });
    void this.refreshKey();
  }

  /** What the chat shows of the setup. */
  get state(): ModelSetupView {
    return this.view;
  }

  private update(change: Partial<ModelSetupView>): void {
    this.view = { ...this.view, ...change };
    this.deps.onDidChange();
  }

  private async refreshKey(): Promise<void> {
    const heldFor = await this.deps.apiKeys.heldFor(this.deps.settings.get('model.baseUrl'));
    const { keyFor: _old, ...rest } = this.view;
    this.view = heldFor === undefined ? rest : { ...rest, keyFor: heldFor };
    this.deps.onDidChange();
  }

  /** Toolgate: Set API Key: for the configured address, unless the form names another. */
  async promptKey(address?: string): Promise<'stored' | 'removed' | 'unchanged'> {
    return await this.deps.apiKeys.prompt(address ?? this.deps.settings.get('model.baseUrl'));
  }

  handle(message: ModelSetupMessage): Outcome | Promise<Outcome> {
    switch (message.action) {
      case 'models':
        return this.loadModels(message);
      case 'test':
        return this.test(message);
      case 'save':
        return this.save(message);
      case 'key': {
        const address = checkAddress(message.baseUrl);
        if (!address.ok) {
          return { ok: false, error: address.problem };
        }
        void this.promptKey(address.baseUrl);
        return { ok: true };
      }
    }
  }

  private async target(message: ModelSetupMessage): Promise<Target | { problem: string }> {
    if (message.provider === 'vscode-lm') {
      const model = this.deps.editorModels.model(message.model.trim());
      return {
        label: vscodeModels,
        key: { sent: false },
        probe: {
          ...probeOf(model),
          listModels: async () => [...new Set(await this.deps.editorModels.families())],
        },
      };
    }
    const address = checkAddress(message.baseUrl);
    if (!address.ok) {
      return { problem: address.problem };
    }
    const refused = this.deps.refused?.(address.baseUrl);
    if (refused !== undefined) {
      return { problem: refused };
    }
    const configured = this.deps.settings.get('model.baseUrl');
    const apiKey = await this.deps.apiKeys.keyFor(address.baseUrl, configured);
    const heldFor = await this.deps.apiKeys.heldFor(configured);
    // No retries: the form says at once what is wrong, and the person decides when to try again.
    const model = new OpenAICompatibleModel({ baseUrl: address.baseUrl, model: message.model.trim(), maxRetries: 0, ...(apiKey === undefined ? {} : { apiKey }) });
    return {
      label: address.baseUrl,
      key: apiKey !== undefined ? { sent: true } : heldFor === undefined ? { sent: false } : { sent: false, heldFor },
      probe: { ...probeOf(model), listModels: (signal) => model.listModels(signal) },
    };
  }

  private async loadModels(message: ModelSetupMessage): Promise<Outcome> {
    this.listing?.abort();
    const listing = (this.listing = new AbortController());
    const target = await this.target(message);
    if (this.listing !== listing) {
      // A newer request (another address typed meanwhile) has the list now.
      return { ok: true };
    }
    if ('problem' in target) {
      this.update({ models: { baseUrl: message.baseUrl, status: 'failed', ids: [], error: target.problem } });
      return { ok: true };
    }
    this.update({ models: { baseUrl: target.label, status: 'loading', ids: [] } });
    const timer = setTimeout(() => listing.abort(), listTimeoutMs);
    try {
      const ids = (await target.probe.listModels(listing.signal)).sort((a, b) => a.localeCompare(b));
      if (this.listing === listing) {
        this.update({ models: { baseUrl: target.label, status: 'loaded', ids: ids.slice(0, 2000) } });
      }
    } catch (error) {
      if (this.listing === listing) {
        if (!(error instanceof ModelError)) {
          this.deps.log.error(`model setup: listing models failed: ${String(error)}`);
        }
        this.update({ models: { baseUrl: target.label, status: 'failed', ids: [], error: listProblem(error, target.label, target.key.sent, listTimeoutMs) } });
      }
    } finally {
      clearTimeout(timer);
    }
    return { ok: true };
  }

  private async test(message: ModelSetupMessage): Promise<Outcome> {
    this.testing?.abort();
    const testing = (this.testing = new AbortController());
    const id = ++this.tests;
    const model = message.model.trim();
    const target = await this.target(message);
    if (this.testing !== testing) {
      return { ok: true };
    }
    if ('problem' in target) {
      this.update({ test: { id, baseUrl: message.baseUrl, model, running: false, checks: [{ kind: 'address', result: 'fail', text: target.problem }] } });
      return { ok: true };
    }
    if (model === '') {
      this.update({ test: { id, baseUrl: target.label, model, running: false, checks: [{ kind: 'model', result: 'fail', text: 'Enter a model, or pick one from the list.' }] } });
      return { ok: true };
    }
    this.update({ test: { id, baseUrl: target.label, model, running: true, checks: [] } });
    const timer = setTimeout(() => testing.abort(), requestTimeoutMs);
    const live = (): boolean => this.testing === testing;
    try {
      const checks = await testConnection(target.probe, {
        baseUrl: target.label,
        model,
        key: target.key,
        keyNeed: presetOf(message.provider).key,
        signal: testing.signal,
        onProgress: (so) => {
          if (live()) {
            this.update({ test: { id, baseUrl: target.label, model, running: true, checks: so } });
          }
        },
      });
      if (live()) {
        this.update({ test: { id, baseUrl: target.label, model, running: false, checks } });
      }
    } catch (error) {
      this.deps.log.error(`model setup: the test failed: ${String(error)}`);
      if (live()) {
        this.update({ test: { id, baseUrl: target.label, model, running: false, checks: [{ kind: 'tools', result: 'fail', text: `The test failed: ${String(error)}` }] } });
      }
    } finally {
      clearTimeout(timer);
    }
    return { ok: true };
  }

  private async save(message: ModelSetupMessage): Promise<Outcome> {
    const local = message.provider === 'vscode-lm';
    const plan = planSave({ address: local ? undefined : checkAddress(message.baseUrl), model: message.model, label: vscodeModels, test: this.view.test, warnedFor: this.warnedSave });
    this.warnedSave = plan.warnedFor;
    if (!plan.ok) {
      this.update({ saved: { ok: false, text: plan.text } });
      return { ok: true };
    }
    const where = savedWhere(await this.deps.writeModelSettings([
      ['model.provider', local ? 'vscode-lm' : 'openai-compatible'],
      ...(plan.baseUrl === undefined ? [] : [['model.baseUrl', plan.baseUrl] as const]),
      ['model.name', plan.model],
    ]));
    this.update({ saved: { ok: true, text: `Saved in ${where}: ${presetOf(message.provider).label}, ${plan.what}. The next request uses it.` } });
    return { ok: true };
  }

  dispose(): void {
    this.store.dispose();
  }
}

