/**
 * The settings of the public contract, as zod schemas. Settings are read from `unknown` and parsed; a malformed
 * value falls back to its default with a warning instead of loosening anything.
 */
import * as z from '../zod';
import { OtlpExportConfig } from './audit/export/otlpConfig';
import type { Disposable } from './disposable';
import { parseDomainEntry } from './sandbox/domains';
import { EnvironmentName } from './sandbox/environment';
import { defaultTerminalRules } from './shell/rules';

/** `toolgate.approvals.revealPanel`: when the Approvals panel opens for a new call (the rule is views/panelReveal.ts). */
export const RevealPanel = z.enum(['whenNotVisible', 'always', 'never']);
export type RevealPanel = z.infer<typeof RevealPanel>;

/**
 * The settings whose `true` keys let a call run without asking: a call allowed by one names it (the webview
 * contract's RuleSetting is the same list; src/core/views checks it).
 */
export type RuleSetting = 'toolgate.autoApprove.terminal' | 'toolgate.autoApprove.edits' | 'toolgate.gatedTools';

export const defaultGatedTools: Readonly<Record<string, boolean>> = {
  read_file: false,
  list_files: false,
  search_text: false,
  write_file: true,
  edit_file: true,
  run_in_terminal: true,
};

export const defaultProtectedPaths: readonly string[] = Object.freeze([
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
  // Configuration that runs code or decides what runs: a nested folder's editor settings and tasks, CI and
  // dev-container definitions, git hooks managers, package manager settings (`script-shell`, `node-options`).
  '**/.vscode/**',
  '.github/actions/**',
  '.gitlab-ci.yml',
  '.circleci/**',
  '.devcontainer/**',
  '.devcontainer.json',
  '.husky/**',
  '**/.npmrc',
  '**/.yarnrc',
  '**/.yarnrc.yml',
]);

const BooleanMap = z.record(z.string(), z.boolean());

/**
 * The built-in protected globs and the person's, one array per value of the setting (the policy compiles it once).
 * The defaults are a floor: a settings file can add protected paths, never remove these.
 */
const protectedLists = new WeakMap<readonly string[], readonly string[]>();
export function protectedPathsWith(own: readonly string[]): readonly string[] {
  let list = protectedLists.get(own);
  if (list === undefined) {
    list = Object.freeze([...new Set([...defaultProtectedPaths, ...own])]);
    protectedLists.set(own, list);
  }
  return list;
}

export const settingSchemas = {
  'model.baseUrl': z.url(),
  'model.name': z.string().check(z.minLength(1)),
  gatedTools: BooleanMap,
  'autoApprove.terminal': BooleanMap,
  'autoApprove.edits': BooleanMap,
  protectedPaths: z.array(z.string().check(z.minLength(1))),
  'approval.timeoutSeconds': z.number().check(z.gte(0)),
  'terminal.timeoutSeconds': z.number().check(z.gte(1)),
  'model.provider': z.enum(['openai-compatible', 'vscode-lm']),
  'agent.maxSteps': z.int().check(z.gte(1), z.lte(500)),
  'checkpoints.maxMegabytes': z.number().check(z.gte(1)),
  'autoApprove.maxConsecutive': z.int().check(z.gte(0)),
  'suggestions.minDecisions': z.int().check(z.gte(1), z.lte(1000)),
  'notifications.whenHidden': z.boolean(),
  'approvals.revealPanel': RevealPanel,
  'sandbox.hiddenPaths': z.array(z.string().check(z.minLength(1))),
  'sandbox.writablePaths': z.array(z.string().check(z.minLength(1))),
  'sandbox.reviewCommandChanges': z.boolean(),
  'sandbox.landIgnoredFiles': z.boolean(),
  // Machine-scoped (package.json): a workspace cannot send the audit elsewhere. `null`: no export from the setting.
  'audit.otlp': z.union([z.null(), OtlpExportConfig]),
  // One name that is not a variable name makes the whole list fall back to none: nothing passed rather than a guess.
  'sandbox.passEnvironment': z.array(EnvironmentName),
  // One entry that does not parse makes the whole list fall back to none: no network rather than a guess.
  'sandbox.allowedDomains': z.array(
    z.string().check(z.superRefine((entry, context) => {
      const parsed = parseDomainEntry(entry);
      if ('problem' in parsed) {
        context.addIssue({ code: 'custom', message: parsed.problem });
      }
    })),
  ),
} as const;

export type SettingKey = keyof typeof settingSchemas;
export type SettingValue<K extends SettingKey> = z.infer<(typeof settingSchemas)[K]>;

/** The settings as the core reads them (src/vscode/settings.ts): each through its schema, and news of their change. */
export interface SettingsPort {
  get<K extends SettingKey>(key: K): SettingValue<K>;
  onDidChange(listener: (affects: (key: SettingKey) => boolean) => void): Disposable;
}

export const settingDefaults: { [K in SettingKey]: SettingValue<K> } = {
  'model.baseUrl': 'http://127.0.0.1:11434/v1',
  // A model Ollama serves with tool calls, to go with the default address (Ollama's).
  'model.name': 'qwen2.5-coder:7b',
  gatedTools: { ...defaultGatedTools },
  'autoApprove.terminal': { ...defaultTerminalRules },
  'autoApprove.edits': {},
  protectedPaths: [...defaultProtectedPaths],
  'approval.timeoutSeconds': 0,
  'terminal.timeoutSeconds': 120,
  'model.provider': 'openai-compatible',
  'agent.maxSteps': 25,
  'checkpoints.maxMegabytes': 16,
  'autoApprove.maxConsecutive': 50,
  'suggestions.minDecisions': 5,
  'notifications.whenHidden': true,
  'approvals.revealPanel': 'whenNotVisible',
  'sandbox.hiddenPaths': [],
  'sandbox.writablePaths': [],
  'sandbox.allowedDomains': [],
  'sandbox.reviewCommandChanges': true,
  'sandbox.landIgnoredFiles': true,
  'sandbox.passEnvironment': [],
  'audit.otlp': null,
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

/**
 * The settings VS Code takes only from the user (and machine) settings while the workspace is not trusted: the
 * manifest's `capabilities.untrustedWorkspaces.restrictedConfigurations` (a unit test keeps the two lists equal).
 */
export const restrictedSettings = [
  'toolgate.model.baseUrl',
  'toolgate.gatedTools',
  'toolgate.autoApprove.terminal',
  'toolgate.autoApprove.edits',
  'toolgate.protectedPaths',
  'toolgate.approval.timeoutSeconds',
  'toolgate.mcp.servers',
  'toolgate.terminal.timeoutSeconds',
] as const;
export type RestrictedSetting = (typeof restrictedSettings)[number];

/** A settings file of the workspace (a folder's .vscode/settings.json, or the `settings` of a .code-workspace). */
export interface WorkspaceSettingsFile {
  /** How the person knows it: `.vscode/settings.json`, `app/.vscode/settings.json`, `team.code-workspace`. */
  label: string;
  /** Its parsed content; anything that is not an object holds no setting. */
  values: unknown;
}

export interface IgnoredSetting {
  key: RestrictedSetting;
  value: unknown;
  file: string;
}

/** What the workspace's settings files give to `key`: VS Code ignores it while the workspace is not trusted. */
export function workspaceValuesOf(key: RestrictedSetting, files: readonly WorkspaceSettingsFile[]): IgnoredSetting[] {
  return files.flatMap((file) => {
    const values = file.values;
    if (typeof values !== 'object' || values === null || Array.isArray(values) || !Object.hasOwn(values, key)) {
      return [];
    }
    return [{ key, value: (values as Record<string, unknown>)[key], file: file.label }];
  });
}

/**
 * Why a setting did not take effect, in words for the person: the workspace sets it, VS Code ignores that while the
 * folder is not trusted, so `effective` (the user's value or the default) was used. `where`: the settings that the
 * person can set it in instead (a machine-scoped setting of a remote window lives in its Remote settings).
 */
export function ignoredSettingNote(ignored: IgnoredSetting, effective: unknown, where = 'your user settings'): string {
  return (
    `This folder's ${ignored.file} sets ${ignored.key} to ${JSON.stringify(ignored.value)}, but VS Code ignores that ` +
    `setting while the folder is not trusted (Restricted Mode), so ${JSON.stringify(effective)} was used. ` +
    `Trust the folder, or set ${ignored.key} in ${where}.`
  );
}
