/**
 * The person's settings that a managed entry overrides, each said with the managed value: shown as a warning when the
 * window starts and whenever the file or the settings change, so nobody wonders why a rule of theirs does nothing.
 */
import { domainsUnder, writableUnder, baseUrlRefusal } from './managedCeilings';
import type { ManagedPolicy } from './managedSettings';

/** The person's values the managed file can override. */
export interface OverridableSettings {
  terminalRules: Readonly<Record<string, boolean>>;
  editRules: Readonly<Record<string, boolean>>;
  gatedTools: Readonly<Record<string, boolean>>;
  gatedByDefault: Readonly<Record<string, boolean>>;
  allowedDomains: readonly string[];
  writablePaths: readonly string[];
  provider: 'openai-compatible' | 'vscode-lm';
  baseUrl: string;
}

const list = (items: readonly string[]): string => items.map((item) => `\`${item}\``).join(', ');

/** One sentence per overridden setting: which, what of it does not apply, and the managed value that decides. */
export function managedOverrides(policy: ManagedPolicy | undefined, values: OverridableSettings, home: string): string[] {
  if (policy === undefined) {
    return [];
  }
  const by = (key: string, value: unknown): string => `the managed policy sets ${key} to ${JSON.stringify(value)} (${policy.file})`;
  const notes: string[] = [];
  if (!policy.grants.autoApproveRules) {
    for (const [setting, rules] of [['toolgate.autoApprove.terminal', values.terminalRules], ['toolgate.autoApprove.edits', values.editRules]] as const) {
      const allowing = Object.keys(rules).filter((key) => rules[key] === true);
      if (allowing.length > 0) {
        notes.push(`${setting}: ${list(allowing)} do not auto-approve anything: ${by('grants.autoApproveRules', false)}`);
      }
    }
    const ungated = Object.keys(values.gatedByDefault).filter((tool) => values.gatedByDefault[tool] === true && values.gatedTools[tool] === false);
    if (ungated.length > 0) {
      notes.push(`toolgate.gatedTools: ${list(ungated)} stay gated: ${by('grants.autoApproveRules', false)}`);
    }
  }
  const domains = domainsUnder(values.allowedDomains, policy);
  if (domains.cut.length > 0) {
    notes.push(`toolgate.sandbox.allowedDomains: ${list(domains.cut)} are not reachable: ${by('sandbox.allowedDomains', policy.sandbox.allowedDomains)}`);
  }
  const writable = writableUnder(values.writablePaths, policy, home);
  if (writable.cut.length > 0) {
    notes.push(`toolgate.sandbox.writablePaths: ${list(writable.cut)} stay read-only: ${by('sandbox.writablePaths', policy.sandbox.writablePaths)}`);
  }
  if (policy.model.allowedBaseUrls !== undefined) {
    if (values.provider === 'vscode-lm') {
      notes.push(`toolgate.model.provider: VS Code's own models are not used: ${by('model.allowedBaseUrls', policy.model.allowedBaseUrls)}`);
    } else if (baseUrlRefusal(values.baseUrl, policy) !== undefined) {
      notes.push(`toolgate.model.baseUrl: ${values.baseUrl} is not used: ${by('model.allowedBaseUrls', policy.model.allowedBaseUrls)}`);
    }
  }
  return notes;
}
