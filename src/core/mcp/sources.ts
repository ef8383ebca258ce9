/**
 * Where MCP servers come from, read into one list: the `mcp.json` of the user's VS Code profile (the servers VS Code
 * users already have), `.vscode/mcp.json` (JSONC), and the `toolgate.mcp.servers` setting at user and workspace level
 * (a workspace server replaces the user's of the same name); later sources replace earlier ones of the same name, and
 * `${workspaceFolder}` / `${userHome}` are substituted. And whether a server may start: one the workspace defines
 * starts only in a trusted workspace; a stdio one from the workspace or the profile only once the person allowed its
 * exact launch (the profile's file is written by other tools too).
 */
import { canonicalJson, sha256 } from '../approval/hash';
import { parseJsonc } from '../files/jsonc';
import { mergeMcpConfigs, parseMcpConfig, type McpServerConfig } from './config';

export interface McpSources {
  /** The text of the VS Code profile's `mcp.json`, if there is one. */
  profileFileText?: string | undefined;
  /** The text of `.vscode/mcp.json`, if the workspace has one. */
  fileText: string | undefined;
  /** The setting's value at user and at workspace level. */
  userSetting: unknown;
  workspaceSetting: unknown;
  /** The first workspace folder (for `${workspaceFolder}`) and the home folder (for `${userHome}`). */
  folder: string | undefined;
  home: string;
}

export interface McpServerList {
  servers: McpServerConfig[];
  /** Problems to warn about (a server that was left out). */
  errors: string[];
  /** What the person may want to know (a server that replaces another). */
  notes: string[];
}

export const profileFileLabel = "mcp.json of your VS Code profile";

/** One `{ servers }` file's servers, or why it could not be read. */
function readFile(text: string | undefined, kind: 'workspace-file' | 'profile-file', label: string): McpServerList {
  if (text === undefined) {
    return { servers: [], errors: [], notes: [] };
  }
  try {
    return parseMcpConfig(parseJsonc(text), { kind, label });
  } catch (error) {
    return { servers: [], errors: [`${label}: not valid JSON (${error instanceof Error ? error.message : String(error)})`], notes: [] };
  }
}

export function readMcpSources(sources: McpSources): McpServerList {
  const profile = readFile(sources.profileFileText, 'profile-file', profileFileLabel);
  const workspaceFile = readFile(sources.fileText, 'workspace-file', '.vscode/mcp.json');
  const files = mergeMcpConfigs(profile.servers, workspaceFile.servers);
  const fromFile: McpServerList = { servers: files.servers, errors: [...profile.errors, ...workspaceFile.errors], notes: [...profile.notes, ...workspaceFile.notes, ...files.notes] };
  const user = parseMcpConfig(sources.userSetting ?? {}, { kind: 'setting', label: 'toolgate.mcp.servers (user)', origin: 'user' });
  const workspace = parseMcpConfig(sources.workspaceSetting ?? {}, { kind: 'setting', label: 'toolgate.mcp.servers (workspace)', origin: 'workspace' });
  const fromSetting = [...user.servers.filter((server) => !workspace.servers.some((other) => other.name === server.name)), ...workspace.servers];
  const merged = mergeMcpConfigs(fromFile.servers, fromSetting);
  return {
    servers: merged.servers.map((config) => substituteVariables(config, sources.folder, sources.home)),
    errors: [...fromFile.errors, ...user.errors, ...workspace.errors],
    notes: [...fromFile.notes, ...user.notes, ...workspace.notes, ...merged.notes],
  };
}

/** `${workspaceFolder}` (and `${userHome}`) in a server's command, arguments, folder and environment, as VS Code does. */
export function substituteVariables(config: McpServerConfig, folder: string | undefined, home: string): McpServerConfig {
  const apply = (value: string): string => value.replace(/\$\{workspaceFolder\}/g, folder ?? '${workspaceFolder}').replace(/\$\{userHome\}/g, home);
  if (config.type !== 'stdio') {
    return { ...config, url: apply(config.url) };
  }
  return {
    ...config,
    command: apply(config.command),
    args: config.args.map(apply),
    env: Object.fromEntries(Object.entries(config.env).map(([key, value]) => [key, value === null ? null : apply(value)])),
    ...(config.cwd !== undefined ? { cwd: apply(config.cwd) } : {}),
  };
}

/** What a launch approval covers: the command line, arguments, environment keys and folder (or the URL and header names). */
export function launchHash(config: McpServerConfig): string {
  if (config.type !== 'stdio') {
    return sha256(canonicalJson({ type: config.type, url: config.url, headers: Object.keys(config.headers).sort() }));
  }
  return sha256(canonicalJson({ command: config.command, args: config.args, envKeys: Object.keys(config.env).sort(), cwd: config.cwd ?? null, sandbox: config.sandbox }));
}

export type LaunchDecision =
  | { kind: 'start' }
  | { kind: 'refuse'; note: string }
  /** Ask the person, showing `detail`; remember `hash` if they allow it. */
  | { kind: 'ask'; question: string; detail: string; hash: string };

export function launchDecision(config: McpServerConfig, trusted: boolean, approvedHashes: readonly string[]): LaunchDecision {
  if (config.origin === 'user') {
    return { kind: 'start' };
  }
  if (config.origin === 'workspace' && !trusted) {
    return { kind: 'refuse', note: `server "${config.name}" is defined in this workspace, which is not trusted: it was not started` };
  }
  if (config.type !== 'stdio') {
    return { kind: 'start' };
  }
  const hash = launchHash(config);
  if (approvedHashes.includes(hash)) {
    return { kind: 'start' };
  }
  const envKeys = Object.keys(config.env);
  const detail = [
    `Command: ${config.command}`,
    `Arguments: ${config.args.length === 0 ? '(none)' : config.args.map((arg) => JSON.stringify(arg)).join(' ')}`,
    `Environment keys: ${envKeys.length === 0 ? '(none)' : envKeys.join(', ')}`,
    `Working folder: ${config.cwd ?? '(the workspace)'}`,
    `Sandbox: ${config.sandbox === false ? 'none' : config.sandbox.network ? 'yes, with the network' : 'yes, no network'}`,
    '',
    config.sandbox === false
      ? 'It will run with your permissions. Its tool calls still go through the approval panel.'
      : `It runs in the sandbox: it may write only in the workspace, cannot read your credentials${config.sandbox.network ? '' : ' and cannot reach the network'}. Its tool calls still go through the approval panel.`,
  ].join('\n');
  const where = config.origin === 'workspace' ? 'defined in this workspace' : `from the ${profileFileLabel}`;
  return { kind: 'ask', question: `Start the MCP server "${config.name}" ${where}?`, detail, hash };
}
