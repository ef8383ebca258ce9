/**
 * The workspace's own settings files, read as they are on disk: while the workspace is not trusted VS Code leaves the
 * restricted settings out of what `getConfiguration()` and `inspect()` report, so only the files can say that the
 * workspace sets one (and so why it did not take effect).
 */
import * as vscode from 'vscode';
import { modelSettingPlace, type ModelSettingKey, type SettingPlace } from '../core/llm/setup';
import { withDomainsAdded } from '../core/sandbox/domains';
import { parseJsonc } from '../core/files/jsonc';
import { workspaceValuesOf, type IgnoredSetting, type RestrictedSetting, type WorkspaceSettingsFile } from '../core/settings';

async function readJsonc(uri: vscode.Uri): Promise<unknown> {
  try {
    return parseJsonc(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)));
  } catch {
    return undefined;
  }
}

/** Every settings file of the open workspace: the .code-workspace file's `settings`, and each folder's. */
export async function readWorkspaceSettingsFiles(): Promise<WorkspaceSettingsFile[]> {
  const files: WorkspaceSettingsFile[] = [];
  const workspaceFile = vscode.workspace.workspaceFile;
  if (workspaceFile !== undefined && workspaceFile.scheme !== 'untitled') {
    const content = await readJsonc(workspaceFile);
    const settings = typeof content === 'object' && content !== null && 'settings' in content ? content.settings : undefined;
    files.push({ label: workspaceFile.path.split('/').pop() ?? 'the workspace file', values: settings });
  }
  const folders = vscode.workspace.workspaceFolders ?? [];
  for (const folder of folders) {
    const label = folders.length > 1 ? `${folder.name}/.vscode/settings.json` : '.vscode/settings.json';
    files.push({ label, values: await readJsonc(vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json')) });
  }
  return files;
}

/** What the workspace sets for `key` that VS Code ignores right now: nothing when the workspace is trusted. */
export async function ignoredWorkspaceValues(key: RestrictedSetting): Promise<IgnoredSetting[]> {
  if (vscode.workspace.isTrusted) {
    return [];
  }
  return workspaceValuesOf(key, await readWorkspaceSettingsFiles());
}

/**
 * Adds one key to a rule setting in the workspace's settings (the person accepted a suggestion). VS Code merges object
 * settings across scopes, so only the workspace's own value is extended; resolves with where it was written.
 */
export async function addWorkspaceRule(setting: 'autoApprove.terminal' | 'autoApprove.edits', key: string, value: boolean): Promise<string> {
  const config = vscode.workspace.getConfiguration('toolgate');
  const current = config.inspect<Record<string, boolean>>(setting)?.workspaceValue ?? {};
  await config.update(setting, { ...current, [key]: value }, vscode.ConfigurationTarget.Workspace);
  return vscode.workspace.workspaceFile !== undefined ? 'the workspace file' : '.vscode/settings.json';
}

/** Writes one model setting where it takes effect (modelSettingPlace); returns where it went. */
async function writeModelSetting(key: ModelSettingKey, value: string): Promise<SettingPlace> {
  const config = vscode.workspace.getConfiguration('toolgate');
  const place = modelSettingPlace(key, config.inspect(key), vscode.env.remoteName !== undefined);
  await config.update(key, value, place === 'workspace' ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global);
  return place;
}

/** Writes the model settings in order; resolves with where each went. */
export async function writeModelSettings(values: readonly (readonly [ModelSettingKey, string])[]): Promise<{ key: ModelSettingKey; place: SettingPlace }[]> {
  const written: { key: ModelSettingKey; place: SettingPlace }[] = [];
  for (const [key, value] of values) {
    written.push({ key, place: await writeModelSetting(key, value) });
  }
  return written;
}

/**
 * Adds entries to toolgate.sandbox.allowedDomains in the person's own settings (a machine setting: VS Code takes it
 * only from there, in a remote window its Remote settings), as withDomainsAdded extends the list.
 */
export async function addAllowedDomains(entries: readonly string[]): Promise<void> {
  const config = vscode.workspace.getConfiguration('toolgate');
  const extended = withDomainsAdded(config.inspect('sandbox.allowedDomains')?.globalValue, entries);
  if (extended !== undefined) {
    await config.update('sandbox.allowedDomains', extended, vscode.ConfigurationTarget.Global);
  }
}
