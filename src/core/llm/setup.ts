/**
 * The model setup's rules, apart from VS Code: what an address must be, which address a stored API key may be sent
 * to, and Test connection (the address answers, the key is taken, the model is served, it takes a request with tools),
 * each line saying what to do when it fails.
 */
import * as z from '../../zod';
import { checkKinds, originOf } from '../../shared/modelProviders';
import type { ConnectionCheck } from '../../shared/modelSetup';
import { ModelError, type ToolSpec } from './client';

export type AddressCheck = { ok: true; baseUrl: string } | { ok: false; problem: string };

/** The address as the form sent it, checked: http or https, no key or password in it, without a trailing slash. */
export function checkAddress(raw: string): AddressCheck {
  const text = raw.trim();
  if (text === '') {
    return { ok: false, problem: "Enter the endpoint's address, for example http://127.0.0.1:11434/v1." };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, problem: `'${text}' is not an address: it starts with http:// or https://, for example http://127.0.0.1:11434/v1.` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, problem: `'${text}' is not an http or https address.` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, problem: "Leave the key out of the address: Set API Key keeps it in VS Code's secret storage." };
  }
  if (url.search !== '' || url.hash !== '') {
    return { ok: false, problem: `'${text}' has a query or fragment; the address is the part before /chat/completions, for example https://api.openai.com/v1.` };
  }
  return { ok: true, baseUrl: text.replace(/\/+$/, '') };
}


/** Whether requests to this address stay on this machine (a key sent there over http is not on the network). */
export function isLoopback(address: string): boolean {
  try {
    const host = new URL(address).hostname;
    return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

/**
 * The API key as SecretStorage holds it: the key and the origin it was set for. A key is sent only to that origin, so
 * an address changed later (in the form, in settings, by a trusted workspace) never receives a key meant for another.
 * A key stored before keys had an origin is a bare string: it goes to the configured address only, as it always did.
 */
const StoredKey = z.strictObject({ v: z.literal(1), key: z.string().check(z.minLength(1)), origin: z.string().check(z.minLength(1)) });
export interface HeldKey {
  key: string;
  /** Undefined for a key stored before keys had an origin. */
  origin: string | undefined;
}

export function parseStoredKey(raw: string | undefined): HeldKey | undefined {
  if (raw === undefined || raw === '') {
    return undefined;
  }
  if (raw.startsWith('{')) {
    try {
      const parsed = StoredKey.safeParse(JSON.parse(raw));
      if (parsed.success) {
        return { key: parsed.data.key, origin: parsed.data.origin };
      }
    } catch {
      // Not JSON: a bare key that happens to start with '{'.
    }
  }
  return { key: raw, origin: undefined };
}

export function serializeKey(key: string, origin: string): string {
  return JSON.stringify({ v: 1, key, origin });
}

/** The origin a held key may be sent to: its own, or (a key without one) the configured address's. */
export function keyOrigin(held: HeldKey, configuredBaseUrl: string): string | undefined {
  return held.origin ?? originOf(configuredBaseUrl);
}

/** The key to send to `address`, if the held one is for it. */
export function keyFor(held: HeldKey | undefined, address: string, configuredBaseUrl: string): string | undefined {
  if (held === undefined) {
    return undefined;
  }
  const target = originOf(address);
  return target !== undefined && target === keyOrigin(held, configuredBaseUrl) ? held.key : undefined;
}

/** What Test connection needs of the endpoint: its list of models, and one small request with a tool. */
export interface ModelProbe {
  listModels(signal: AbortSignal): Promise<string[]>;
  /** One chat request offering `tool`; resolves with whether the model called it. */
  requestWithTool(tool: ToolSpec, signal: AbortSignal): Promise<{ calledTool: boolean }>;
}

export interface ConnectionTest {
  baseUrl: string;
  model: string;
  /** Whether a key goes with the requests; when not, the origin the stored key is for, if there is one. */
  key: { sent: true } | { sent: false; heldFor?: string };
  /** What the provider needs: a key it must have is checked before anything is sent. */
  keyNeed: 'required' | 'optional' | 'none';
  signal: AbortSignal;
  /** Each time a line is added or settled: the lines so far. */
  onProgress(checks: ConnectionCheck[]): void;
  now?: () => number;
}

/** The tool the test offers: harmless, unknown to any model, and never run (its call is only counted). */
export const probeTool: ToolSpec = {
  name: 'toolgate_connection_test',
  description: 'Confirms that tool calls work. Call it with no arguments.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
};

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Why the key line failed, and what fixes it: Set API Key for this address. */
function keyProblem(test: ConnectionTest, error: ModelError): string {
  const status = error.status === undefined ? '' : ` (${error.status})`;
  if (test.key.sent) {
    return `The endpoint refused the API key${status}. Set API Key to store the right one for ${originOf(test.baseUrl) ?? test.baseUrl}.`;
  }
  const held = test.key.heldFor === undefined ? '' : ` The stored key is for ${test.key.heldFor}, so it was not sent here.`;
  return `The endpoint needs an API key${status}.${held} Set API Key to store one for ${originOf(test.baseUrl) ?? test.baseUrl}.`;
}

/**
 * Test connection, one line per thing checked, reported as it goes. It stops at the first failure that makes the rest
 * meaningless (an address that does not answer, a refused key) and marks what it did not check as skipped.
 */
export async function testConnection(probe: ModelProbe, test: ConnectionTest): Promise<ConnectionCheck[]> {
  const now = test.now ?? Date.now;
  const checks: ConnectionCheck[] = [];
  // Shown in the order a person reads them (address, key, model, tools), whatever order they were found in.
  const ordered = (): ConnectionCheck[] => [...checks].sort((a, b) => checkKinds.indexOf(a.kind) - checkKinds.indexOf(b.kind));
  const report = (check: ConnectionCheck): void => {
    checks.push(check);
    test.onProgress(ordered());
  };
  const skipRest = (): ConnectionCheck[] => {
    for (const kind of ['address', 'key', 'model', 'tools'] as const) {
      if (!checks.some((check) => check.kind === kind)) {
        report({ kind, result: 'skip', text: `Not checked (${kind === 'tools' ? 'the request with a tool' : kind}): fix the line that failed first.` });
      }
    }
    return ordered();
  };
  if (test.keyNeed === 'required' && !test.key.sent) {
    const held = test.key.heldFor === undefined ? 'No API key is stored.' : `The stored API key is for ${test.key.heldFor}, so it is not sent here.`;
    report({ kind: 'key', result: 'fail', text: `${held} This provider needs one: Set API Key.` });
    return skipRest();
  }
  if (test.key.sent && !isLoopback(test.baseUrl) && test.baseUrl.startsWith('http:')) {
    report({ kind: 'address', result: 'warn', text: `${test.baseUrl} is plain http to another machine: the API key would cross the network unencrypted. Use https if the server offers it.` });
  }

  // 1. The address answers, and lists its models.
  let listed: string[] | undefined;
  try {
    listed = await probe.listModels(test.signal);
    if (!checks.some((check) => check.kind === 'address')) {
      report({ kind: 'address', result: 'pass', text: `${test.baseUrl} answered: it serves ${listed.length} model${listed.length === 1 ? '' : 's'}.` });
    }
    report(test.key.sent ? { kind: 'key', result: 'pass', text: 'The API key was accepted.' } : { kind: 'key', result: 'pass', text: 'No API key needed so far.' });
  } catch (error) {
    if (!(error instanceof ModelError)) {
      throw error;
    }
    if (error.kind === 'auth') {
      report({ kind: 'address', result: 'pass', text: `${test.baseUrl} answered.` });
      report({ kind: 'key', result: 'fail', text: keyProblem(test, error) });
      return skipRest();
    }
    if (error.kind === 'unreachable' || error.kind === 'cancelled') {
      const why = error.kind === 'cancelled' ? 'did not answer in time' : error.message.replace(/: check that .*$/, '');
      report({ kind: 'address', result: 'fail', text: `${test.baseUrl} ${error.kind === 'cancelled' ? why : `could not be reached: ${why}`}. Is the server running, and is this its address?` });
      return skipRest();
    }
    // Some servers do not list models; the request with a tool says whether the address is right.
    report({ kind: 'address', result: 'warn', text: `${test.baseUrl} does not list its models (${error.message.replace(/^the (model )?endpoint \S+ /, '')}). The request below tells whether the address is right.` });
  }

  // 2. The model is one it serves.
  if (listed !== undefined && listed.length > 0) {
    if (listed.includes(test.model)) {
      report({ kind: 'model', result: 'pass', text: `It serves ${test.model}.` });
    } else {
      const some = listed.slice(0, 5).join(', ');
      report({ kind: 'model', result: 'fail', text: `It does not list ${test.model}. Pick one of its ${listed.length} models (${some}${listed.length > 5 ? ', …' : ''}).` });
      return skipRest();
    }
  }

  // 3. One request with a tool: the model answers, and the endpoint takes tools.
  const started = now();
  try {
    const answer = await probe.requestWithTool(probeTool, test.signal);
    if (!checks.some((check) => check.kind === 'key')) {
      report({ kind: 'key', result: 'pass', text: test.key.sent ? 'The API key was accepted.' : 'No API key needed.' });
    }
    if (!checks.some((check) => check.kind === 'model')) {
      report({ kind: 'model', result: 'pass', text: `${test.model} answered.` });
    }
    report(answer.calledTool
      ? { kind: 'tools', result: 'pass', text: `A request with a tool worked: ${test.model} called it, in ${seconds(now() - started)}.` }
      : { kind: 'tools', result: 'warn', text: `The endpoint took a request with a tool, but ${test.model} answered in text instead of calling it (${seconds(now() - started)}). Some models call tools poorly; the agent needs them.` });
  } catch (error) {
    if (!(error instanceof ModelError)) {
      throw error;
    }
    const text = error.message.replace(/: (check|choose|run) '.*$/, '').replace(/^the /, 'The ');
    switch (error.kind) {
      case 'auth':
        report({ kind: 'key', result: 'fail', text: keyProblem(test, error) });
        break;
      case 'model-not-found':
        report({ kind: 'model', result: 'fail', text: `${text}. Pick a model it serves.` });
        break;
      case 'no-tool-support':
        report({ kind: 'tools', result: 'fail', text: `${text}. The agent works only through tools: pick a model that supports them.` });
        break;
      case 'rate-limited':
        report({ kind: 'tools', result: 'warn', text: `${text}. The address and key work; try again in a moment.` });
        break;
      case 'cancelled':
        report({ kind: 'tools', result: 'fail', text: `${test.model} did not answer in time. A local model may still be loading: try again.` });
        break;
      case 'unreachable':
      case 'server':
      case 'bad-response':
        report({ kind: 'tools', result: 'fail', text: `${text}.` });
        break;
    }
    return skipRest();
  }
  return ordered();
}

/** Why the models could not be listed, with what to do: the key for an address that wants one, else the endpoint's words. */
export function listProblem(error: unknown, where: string, keySent: boolean, timeoutMs: number): string {
  if (!(error instanceof ModelError)) {
    return `Listing the models failed: ${String(error)}`;
  }
  if (error.kind === 'auth') {
    return keySent ? 'The endpoint refused the API key: Set API Key.' : 'The endpoint wants an API key: Set API Key.';
  }
  if (error.kind === 'cancelled') {
    return `${where} did not answer within ${timeoutMs / 1000} s.`;
  }
  return `No list of models: ${error.message.replace(/: check .*$/, '')}. Type the model's name.`;
}

/** The last Test connection, as the setup holds it. */
export interface TestedModel {
  baseUrl: string;
  model: string;
  running: boolean;
  checks: readonly ConnectionCheck[];
}

/**
 * Why Save stops once before saving: the last Test connection, of this same address and model, found the model not
 * served. Undefined when nothing stands in the way (no such test, another address or model, or the test still runs).
 */
export function notServedWarning(test: TestedModel | undefined, label: string, model: string): string | undefined {
  if (test === undefined || test.running || test.model !== model || test.baseUrl.replace(/\/+$/, '') !== label.replace(/\/+$/, '')) {
    return undefined;
  }
  const failed = test.checks.find((check) => check.kind === 'model' && check.result === 'fail');
  return failed === undefined
    ? undefined
    : `Not saved: Test connection just found that ${label} does not serve ${model}. ${failed.text} Or press Save again to save ${model} anyway.`;
}

/** What Save does with the form: refuses with why, or writes (the model, the address when there is one, and how to say it). */
export type SavePlan =
  | { ok: false; text: string; warnedFor: string | undefined }
  | { ok: true; model: string; baseUrl: string | undefined; what: string; warnedFor: undefined };

/**
 * Save's rules: an address that is an address, a model, and not silently a model the last Test connection of this same
 * address found not served (`warnedFor`: what the person was warned about; saving the same again goes ahead).
 * `label` names the source when there is no address (VS Code's language models).
 */
export function planSave(form: { address: AddressCheck | undefined; model: string; label: string; test: TestedModel | undefined; warnedFor: string | undefined }): SavePlan {
  const model = form.model.trim();
  if (form.address?.ok === false) {
    return { ok: false, text: `Not saved: ${form.address.problem}`, warnedFor: undefined };
  }
  if (model === '') {
    return { ok: false, text: 'Not saved: enter a model, or pick one from the list.', warnedFor: undefined };
  }
  const baseUrl = form.address?.baseUrl;
  const where = baseUrl ?? form.label;
  const warning = notServedWarning(form.test, where, model);
  const asked = `${where}\n${model}`;
  if (warning !== undefined && form.warnedFor !== asked) {
    return { ok: false, text: warning, warnedFor: asked };
  }
  return { ok: true, model, baseUrl, what: baseUrl === undefined ? `${model} from ${form.label}` : `${model} at ${baseUrl}`, warnedFor: undefined };
}

/** Where a model setting was written: the workspace's settings, the user's, or (in a remote window) the machine's. */
export type SettingPlace = 'workspace' | 'user' | 'remote';
export type ModelSettingKey = 'model.provider' | 'model.baseUrl' | 'model.name';

/**
 * The model settings of scope `machine-overridable` (package.json): written "for the user" in a remote window (code-server,
 * SSH, WSL, a container), VS Code puts them in the Remote settings of the machine the extension runs on.
 */
export const machineModelSettings: readonly ModelSettingKey[] = ['model.baseUrl'];

/** Where VS Code writes a model setting that the workspace does not set (`remote`: the window's extensions run elsewhere). */
export function userPlace(key: ModelSettingKey, remote: boolean): SettingPlace {
  return remote && machineModelSettings.includes(key) ? 'remote' : 'user';
}

/**
 * Where a model setting is written so that it takes effect: where the workspace already sets it (else the workspace's
 * value would win over the one written), otherwise for the user (userPlace).
 */
export function modelSettingPlace(key: ModelSettingKey, inspected: { workspaceValue?: unknown; workspaceFolderValue?: unknown } | undefined, remote: boolean): SettingPlace {
  return inspected?.workspaceFolderValue !== undefined || inspected?.workspaceValue !== undefined ? 'workspace' : userPlace(key, remote);
}

const placeWords: Record<SettingPlace, string> = {
  workspace: "this workspace's settings",
  user: 'your user settings',
  remote: 'the Remote settings of the machine the extension runs on',
};
const settingWords: Record<ModelSettingKey, string> = { 'model.provider': 'provider', 'model.baseUrl': 'address', 'model.name': 'model' };

/**
 * Where the settings went, as a person reads it: the place, and when they went to more than one, what went where
 * ("your user settings (provider, model) and the Remote settings of the machine the extension runs on (address)").
 */
export function savedWhere(written: readonly { key: ModelSettingKey; place: SettingPlace }[]): string {
  const places = [...new Set(written.map((entry) => entry.place))];
  const why = (place: SettingPlace): string => (place === 'workspace' ? '; it set them already' : '');
  if (places.length === 1 && places[0] !== undefined) {
    return places[0] === 'workspace' ? `${placeWords.workspace} (it sets the model already)` : placeWords[places[0]];
  }
  return places.map((place) => `${placeWords[place]} (${written.filter((entry) => entry.place === place).map((entry) => settingWords[entry.key]).join(', ')}${why(place)})`).join(' and ');
}
