/**
 * The model setup, in the chat: provider, address, the API key (asked for in VS Code's own password box, never typed
 * here), the model picked from the endpoint's list, Test connection and Save. The form keeps what is typed; the host
 * sends what came of it (`ModelSetupView`) and only those parts are redrawn, so nothing typed is lost to an update.
 */
import * as z from '../../src/zod';
import type { ChatState } from '../../src/shared/messages';
import { modelAfterList, originOf, presetOf, providerOf, providerPresets, sameAddress } from '../../src/shared/modelProviders';
import { ProviderId, type ConnectionCheck, type ModelSetupView } from '../../src/shared/modelSetup';
import { button, h, icon } from '../shared/elements';
import type { HostChannel } from '../shared/hostChannel';

const resultIcons: Record<ConnectionCheck['result'], string> = { pass: 'pass', warn: 'warning', fail: 'error', skip: 'circle-slash' };
const resultWords: Record<ConnectionCheck['result'], string> = { pass: 'Works', warn: 'Warning', fail: 'Failed', skip: 'Not checked' };
const vscodeModels = "VS Code's Language Model API";
/** The provider the select names, or `custom` for anything else (a select's value is only a string). */
const chosenProvider = z.catch(ProviderId, 'custom');


/** A labelled field: the label names it for a screen reader and a click on it focuses the field. */
function field(label: string, id: string, control: HTMLElement, ...after: HTMLElement[]): HTMLElement {
  control.id = id;
  return h('div', { class: 'setup-field' }, h('label', { for: id }, label), h('div', { class: 'setup-control' }, control, ...after));
}

export class ModelSetupForm {
  readonly element: HTMLElement;
  private readonly provider = h('select', { 'data-field': 'setup-provider' });
  private readonly hint = h('p', { class: 'muted', 'data-field': 'setup-hint' });
  private readonly baseUrl = h('input', { type: 'text', 'data-field': 'setup-base-url', spellcheck: 'false', placeholder: 'http://127.0.0.1:11434/v1' });
  private readonly addressRow: HTMLElement;
  private readonly keyText = h('span', { 'data-field': 'setup-key' });
  private readonly keyRow: HTMLElement;
  private readonly model = h('input', { type: 'text', 'data-field': 'setup-model', spellcheck: 'false', placeholder: 'Type a model, or load the list' });
  private readonly modelList = h('select', { 'data-field': 'setup-model-list', 'aria-label': "The endpoint's models" });
  private readonly modelsStatus = h('p', { class: 'muted', 'data-field': 'setup-models-status', role: 'status' });
  private readonly checks = h('ul', { class: 'setup-checks', 'data-field': 'setup-checks', 'aria-label': 'Test connection results' });
  private readonly testing = h('p', { class: 'muted', 'data-field': 'setup-testing', role: 'status', hidden: true }, icon('loading', { spin: true }), ' Testing the connection…');
  private readonly saved = h('p', { 'data-field': 'setup-saved', role: 'status', hidden: true });
  private readonly test = button({ 'data-action': 'setup-test', secondary: true }, icon('plug'), 'Test connection');
  private view: ModelSetupView = {};
  /** The last test and save as they were when the form opened: older results are not shown as this visit's. */
  private before = { test: '', saved: '' };
  /** The list the model field was last filled from, so a list fills it once, as it arrives, not on every redraw. */
  private listFilled = '';

  constructor(private readonly channel: HostChannel, private readonly onClose: () => void) {
    for (const preset of providerPresets) {
      this.provider.append(h('option', { value: preset.id }, preset.label));
    }
    this.provider.addEventListener('change', () => this.providerChanged());
    this.baseUrl.addEventListener('change', () => this.ask('models'));
    this.modelList.addEventListener('change', () => {
      if (this.modelList.value !== '') {
        this.model.value = this.modelList.value;
        this.model.focus();
      }
    });
    const setKey = button({ 'data-action': 'setup-key', secondary: true }, icon('key'), 'Set API Key…');
    setKey.title = "Opens VS Code's password box: the key is kept in its secret storage and sent only to this address";
    setKey.addEventListener('click', () => this.ask('key'));
    const load = button({ 'data-action': 'setup-load-models', secondary: true, title: 'Ask the endpoint for its models again (GET /models)', 'aria-label': 'Load the models again' }, icon('refresh'));
    load.addEventListener('click', () => this.ask('models'));
    this.test.addEventListener('click', () => this.ask('test'));
    const save = button({ 'data-action': 'setup-save' }, icon('check'), 'Save');
    save.addEventListener('click', () => this.ask('save'));
    const close = button({ 'data-action': 'setup-close', secondary: true, 'aria-label': 'Close the model setup' }, 'Close');
    close.addEventListener('click', () => this.close());
    const settings = h('a', { href: '#', 'data-action': 'host-command', 'data-command': 'openModelSettings' }, 'All model settings');
    settings.addEventListener('click', (event) => {
      event.preventDefault();
      channel.command('openModelSettings');
    });
    this.addressRow = field('Address', 'setup-base-url', this.baseUrl);
    this.keyRow = h('div', { class: 'setup-field' }, h('span', { class: 'setup-label' }, 'API key'), h('div', { class: 'setup-control' }, this.keyText, setKey));
    this.element = h(
      'section',
      { class: 'model-setup', 'data-field': 'model-setup', role: 'region', 'aria-label': 'Model setup', hidden: true },
      h('div', { class: 'setup-title' }, h('h2', {}, 'Set up the model'), h('span', { class: 'spacer' }), close),
      h('p', { class: 'muted' }, 'Test connection checks the address, the key, the model and its tool calls.'),
      field('Provider', 'setup-provider', this.provider),
      this.hint,
      this.addressRow,
      this.keyRow,
      field('Model', 'setup-model', this.model, this.modelList, load),
      this.modelsStatus,
      h('div', { class: 'actions' }, this.test, save, h('span', { class: 'spacer' }), settings),
      this.testing,
      this.checks,
      this.saved,
    );
    this.element.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && !(event.target instanceof HTMLSelectElement)) {
        event.preventDefault();
        this.close();
      }
    });
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  /** Opens the form on the settings as they are, loads the models, and puts the focus on the provider. */
  open(model: ChatState['model']): void {
    this.provider.value = providerOf(model.provider, model.baseUrl);
    this.baseUrl.value = model.provider === 'vscode-lm' ? '' : model.baseUrl;
    this.model.value = model.name;
    this.before = { test: JSON.stringify(this.view.test ?? null), saved: JSON.stringify(this.view.saved ?? null) };
    this.element.hidden = false;
    this.update(this.view);
    this.showProvider();
    this.ask('models');
    this.provider.focus();
  }

  close(): void {
    this.element.hidden = true;
    this.onClose();
  }

  private get providerId(): ProviderId {
    return chosenProvider.parse(this.provider.value);
  }

  private providerChanged(): void {
    const preset = presetOf(this.providerId);
    if (preset.baseUrl !== '') {
      this.baseUrl.value = preset.baseUrl;
    }
    // The model named for the provider before is not one this one serves: its list (or the person) names the next.
    this.model.value = '';
    this.showProvider();
    this.ask('models');
  }

  private showProvider(): void {
    const preset = presetOf(this.providerId);
    const local = preset.id === 'vscode-lm';
    this.hint.textContent = preset.hint;
    this.addressRow.hidden = local;
    this.keyRow.hidden = local;
    this.showKey();
    this.showModels();
  }

  private ask(action: 'models' | 'test' | 'save' | 'key'): void {
    if (action === 'save') {
      this.saved.hidden = true;
    }
    this.channel.send({ type: 'modelSetup', action, provider: this.providerId, baseUrl: this.baseUrl.value, model: this.model.value });
  }

  /** What the host says of the setup: the key's address, the models, the test, the save. */
  update(view: ModelSetupView): void {
    this.view = view;
    if (!this.isOpen) {
      return;
    }
    this.showKey();
    this.showModels();
    this.showTest(JSON.stringify(view.test ?? null) === this.before.test ? undefined : view.test);
    const saved = JSON.stringify(view.saved ?? null) === this.before.saved ? undefined : view.saved;
    this.saved.hidden = saved === undefined;
    this.saved.className = saved?.ok === false ? 'notice error' : 'muted';
    if (saved !== undefined && this.saved.textContent !== saved.text) {
      this.saved.textContent = saved.text;
      this.saved.scrollIntoView({ block: 'nearest' });
    }
  }

  private showKey(): void {
    const preset = presetOf(this.providerId);
    const origin = originOf(this.baseUrl.value);
    const heldFor = this.view.keyFor;
    const need = preset.key === 'required' ? ' This provider needs one.' : preset.key === 'none' ? ' None is needed here.' : '';
    this.keyText.textContent = heldFor === undefined
      ? `No API key stored.${need}`
      : heldFor === origin
        ? `A key is stored for ${heldFor}.`
        : `The stored key is for ${heldFor}: it is not sent to ${origin ?? 'this address'}.${need}`;
  }

  private showModels(): void {
    const models = this.view.models;
    const local = this.providerId === 'vscode-lm';
    const here = models !== undefined && (local ? models.baseUrl === vscodeModels : sameAddress(models.baseUrl, this.baseUrl.value));
    const ids = here && models.status === 'loaded' ? models.ids : [];
    const list = here && models.status === 'loaded' ? `${models.baseUrl}\n${ids.join('\n')}` : '';
    if (list !== '' && list !== this.listFilled) {
      this.model.value = modelAfterList(this.model.value, ids);
    }
    this.listFilled = list;
    this.modelList.replaceChildren(
      h('option', { value: '' }, ids.length === 0 ? 'No list' : `Pick one of ${ids.length}`),
      ...ids.map((id) => h('option', { value: id, ...(id === this.model.value ? { selected: true } : {}) }, id)),
    );
    this.modelList.hidden = ids.length === 0;
    if (!here) {
      this.modelsStatus.textContent = '';
      return;
    }
    this.modelsStatus.textContent = models.status === 'loading'
      ? 'Loading the models…'
      : models.status === 'failed'
        ? (models.error ?? 'The models could not be listed.')
        : ids.length === 0 ? 'The endpoint lists no models.' : `${ids.length} model${ids.length === 1 ? '' : 's'} listed${ids.includes(this.model.value) ? `, ${this.model.value} among them` : ''}.`;
  }

  private showTest(test: ModelSetupView['test']): void {
    this.testing.hidden = test?.running !== true;
    this.test.disabled = test?.running === true;
    const finished = test !== undefined && !test.running && this.checks.dataset['test'] !== `${test.id} done`;
    this.checks.replaceChildren(...(test?.checks ?? []).map((check) =>
      h('li', { 'data-check': check.kind, 'data-result': check.result, class: `check ${check.result}` },
        h('span', { class: `codicon codicon-${resultIcons[check.result]}`, role: 'img', 'aria-label': resultWords[check.result] }), ' ', check.text)));
    this.checks.dataset['test'] = test === undefined ? '' : `${test.id}${test.running ? '' : ' done'}`;
    if (finished) {
      // The result is what the person waits for: in view, even in a short side bar.
      this.checks.scrollIntoView({ block: 'nearest' });
    }
  }
}
