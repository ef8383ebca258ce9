/**
 * The settings of the public contract, as zod schemas. Settings are read from `unknown` and parsed; a malformed
 * value falls back to its default with a warning instead of loosening anything.
 */
import * as z from 'zod';
import { defaultTerminalRules } from './shell/rules';

export const defaultGatedTools: Readonly<Record<string, boolean>> = {
  read_file: false,
  list_files: false,
  search_text: false,
  write_file: true,
  edit_file: true,
  run_in_terminal: true,
};

export const defaultProtectedPaths: readonly string[] = [
  '.vscode/**',
  '.git/**',
  // A nested repository's `.git` (a folder, or a file that points git elsewhere) configures what git runs there.
  '**/.git',
  '**/.git/**',
  '.env*',
  '**/.env*',
  '**/*.code-workspace',
  '.github/workflows/**',
  '.vscode/mcp.json',
];

const BooleanMap = z.record(z.string(), z.boolean());

export const settingSchemas = {
  'model.baseUrl': z.url(),
  'model.name': z.string().min(1),
  gatedTools: BooleanMap,
  'autoApprove.terminal': BooleanMap,
  'autoApprove.edits': BooleanMap,
  protectedPaths: z.array(z.string().min(1)),
  'approval.timeoutSeconds': z.number().min(0),
  'terminal.timeoutSeconds': z.number().min(1),
  'model.provider': z.enum(['openai-compatible', 'vscode-lm']),
  'agent.maxSteps': z.number().int().min(1).max(500),
} as const;

export type SettingKey = keyof typeof settingSchemas;
export type SettingValue<K extends SettingKey> = z.infer<(typeof settingSchemas)[K]>;

export const settingDefaults: { [K in SettingKey]: SettingValue<K> } = {
  'model.baseUrl': 'http://127.0.0.1:11434/v1',
  'model.name': 'gpt-4o-mini',
  gatedTools: { ...defaultGatedTools },
  'autoApprove.terminal': { ...defaultTerminalRules },
  'autoApprove.edits': {},
  protectedPaths: [...defaultProtectedPaths],
  'approval.timeoutSeconds': 0,
  'terminal.timeoutSeconds': 120,
  'model.provider': 'openai-compatible',
  'agent.maxSteps': 25,
};

export interface ParsedSetting<T> {
  value: T;
  /** Set when the stored value was malformed and the default is used instead. */
  problem?: string;
}

export function parseSetting<K extends SettingKey>(key: K, raw: unknown): ParsedSetting<SettingValue<K>> {
  if (raw === undefined) {
    return { value: settingDefaults[key] };
  }
  const parsed = settingSchemas[key].safeParse(raw);
  if (parsed.success) {
    return { value: parsed.data as SettingValue<K> };
  }
  const detail = parsed.error.issues[0]?.message ?? 'invalid value';
  return { value: settingDefaults[key], problem: `toolgate.${key} is invalid (${detail}); using the default` };
}
