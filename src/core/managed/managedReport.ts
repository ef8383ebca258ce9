/**
 * The managed settings file in the sandbox policy report (Toolgate: Show Sandbox Policy): whether it is in force and
 * why not, each of its entries, and what of the person's settings it overrides.
 */
import type { ManagedFileState } from './managedFile';
import type { ManagedPolicy } from './managedSettings';

export interface ReportSection {
  title: string;
  lines: string[];
}

const listed = (entries: readonly string[] | undefined): string => (entries === undefined ? '' : entries.length === 0 ? '(none)' : entries.join(', '));

/** Each entry the file sets, as `key: value`, in the file's order of keys. */
function entries(policy: ManagedPolicy): string[] {
  const lines: string[] = [];
  for (const list of ['deny', 'ask'] as const) {
    for (const kind of ['terminal', 'paths', 'mcpTools'] as const) {
      if (policy[list][kind].length > 0) {
        lines.push(`${list}.${kind}: ${listed(policy[list][kind])}`);
      }
    }
  }
  if (policy.protectedPaths.length > 0) {
    lines.push(`protectedPaths: ${listed(policy.protectedPaths)}`);
  }
  if (policy.sandbox.required) {
    lines.push('sandbox.required: true (no command or MCP server runs unconfined; no Run without sandbox)');
  }
  if (policy.sandbox.allowedDomains !== undefined) {
    lines.push(`sandbox.allowedDomains (a ceiling): ${listed(policy.sandbox.allowedDomains)}`);
  }
  if (policy.sandbox.writablePaths !== undefined) {
    lines.push(`sandbox.writablePaths (a ceiling): ${listed(policy.sandbox.writablePaths)}`);
  }
  if (!policy.grants.workspace) {
    lines.push('grants.workspace: false (no Always allow in this workspace; those made before are set aside)');
  }
  if (!policy.grants.autoApproveRules) {
    lines.push('grants.autoApproveRules: false (only false rules apply; every tool gated by default stays gated)');
  }
  if (policy.grants.maxMinutes !== undefined) {
    lines.push(`grants.maxMinutes: ${policy.grants.maxMinutes} (every grant ends by then)`);
  }
  if (policy.mcp.allowedServers !== undefined) {
    lines.push(`mcp.allowedServers: ${listed(policy.mcp.allowedServers)}`);
  }
  if (policy.model.allowedBaseUrls !== undefined) {
    lines.push(`model.allowedBaseUrls: ${listed(policy.model.allowedBaseUrls)}`);
  }
  if (policy.audit.otlp !== undefined) {
    lines.push('audit.otlp: every decision is also sent to the collector it names (the person cannot turn this off)');
  }
  return lines.length === 0 ? ['(it sets nothing)'] : lines;
}

/** The report's section on the managed file; `overrides`: what of the person's settings it overrides (managedOverrides). */
export function managedReportSection(state: ManagedFileState, overrides: readonly string[]): ReportSection {
  switch (state.state) {
    case 'absent':
      return { title: 'Managed settings', lines: [`none (${state.file ?? 'no managed settings file on this platform'} does not exist)`] };
    case 'ignored':
      return { title: 'Managed settings', lines: [`${state.file} is IGNORED: ${state.why}`] };
    case 'honoured':
      return {
        title: `Managed settings, in force from ${state.file} (no setting, grant or choice of yours loosens them)`,
        lines: [
          ...entries(state.policy),
          ...state.problems.map((problem) => `problem: ${problem}`),
          ...overrides.map((override) => `overrides ${override}`),
        ],
      };
  }
}
