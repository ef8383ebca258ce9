/**
 * The providers the chat's model setup offers and the rules for the addresses it is given: plain data and functions,
 * apart from the setup's schemas (modelSetup.ts), so that the host's model settings use them without building the
 * webview protocol's schemas, which it builds only when a view first needs them (src/core/protocolSchemas.ts).
 */
export const providerIds = ['ollama', 'lmstudio', 'openai', 'openrouter', 'vllm', 'custom', 'vscode-lm'] as const;
export type ProviderId = (typeof providerIds)[number];

export interface ProviderPreset {
  id: ProviderId;
  label: string;
  /** The address it serves at by default ('' when there is none to suggest). */
  baseUrl: string;
  /** Whether requests need an API key: `optional` when it depends on how the server was started. */
  key: 'required' | 'optional' | 'none';
  /** One line of help under the form: how to get the endpoint going, what a model needs. */
  hint: string;
}

/** The providers the form offers, in its order: the local ones first, since they need no account. */
export const providerPresets: readonly ProviderPreset[] = [
  { id: 'ollama', label: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1', key: 'none', hint: 'Models on this machine. Pull one that calls tools first, for example: ollama pull qwen2.5-coder:7b' },
  { id: 'lmstudio', label: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1', key: 'none', hint: 'Start the server in LM Studio (Developer) and load a model that supports tool use.' },
  { id: 'openai', label: 'OpenAI', baseUrl: 'https://api.openai.com/v1', key: 'required', hint: 'Needs an API key from your OpenAI account.' },
  { id: 'openrouter', label: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1', key: 'required', hint: 'Needs an OpenRouter API key; pick a model that supports tools.' },
  { id: 'vllm', label: 'vLLM', baseUrl: 'http://127.0.0.1:8000/v1', key: 'optional', hint: 'Start vLLM with --enable-auto-tool-choice and a --tool-call-parser, or tool calls fail.' },
  { id: 'custom', label: 'Other OpenAI-compatible', baseUrl: '', key: 'optional', hint: 'Any server with /chat/completions and tool calls; the address usually ends in /v1.' },
  { id: 'vscode-lm', label: 'VS Code language model', baseUrl: '', key: 'none', hint: "A model another extension offers through VS Code's Language Model API (GitHub Copilot Chat, for one)." },
];

export function presetOf(id: ProviderId): ProviderPreset {
  const preset = providerPresets.find((candidate) => candidate.id === id);
  if (preset === undefined) {
    throw new RangeError(`no provider preset '${id}'`);
  }
  return preset;
}

/** The address without a trailing slash, for comparing two that differ only by it. */
const trimmed = (url: string): string => url.trim().replace(/\/+$/, '');

/** Whether two addresses are the same but for spaces and a trailing slash. */
export const sameAddress = (a: string, b: string): boolean => trimmed(a) === trimmed(b);

/** The origin an address sends to (scheme, host and port), or undefined when it is not an address. */
export function originOf(address: string): string | undefined {
  try {
    return new URL(address.trim()).origin;
  } catch {
    return undefined;
  }
}

/** Which provider the settings name: VS Code's models, a preset whose address they use, else any OpenAI-compatible. */
export function providerOf(provider: string, baseUrl: string): ProviderId {
  if (provider === 'vscode-lm') {
    return 'vscode-lm';
  }
  return providerPresets.find((preset) => preset.baseUrl !== '' && sameAddress(preset.baseUrl, baseUrl))?.id ?? 'custom';
}

export const checkKinds = ['address', 'key', 'model', 'tools'] as const;

/**
 * The model the form holds once an endpoint's list arrives: the one model it lists, when the field is empty or names a
 * model it does not list (nothing else could work there); otherwise what was typed.
 */
export function modelAfterList(typed: string, ids: readonly string[]): string {
  const [only] = ids;
  return ids.length === 1 && only !== undefined && !ids.includes(typed.trim()) ? only : typed;
}
