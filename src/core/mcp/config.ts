/**
 * MCP server configuration: `.vscode/mcp.json` (VS Code's format) and the `toolgate.mcp.servers` setting (the same
 * shape plus `requireApproval` and `tools`). Each bad server yields one error naming the source, the server and the
 * field; the other servers still parse. Each server is validated by a zod schema, like the other settings.
 */
import * as z from '../../zod';

/** Who defined a server: the workspace, the user's settings, or the user's VS Code profile (its `mcp.json`). */
export type McpServerOrigin = 'workspace' | 'user' | 'profile';
export type McpRequireApproval = 'all' | 'none' | readonly string[];

interface McpServerConfigBase {
  name: string;
  /** 'workspace' for servers from a workspace file (subject to Workspace Trust and first-run approval). */
  origin: McpServerOrigin;
  /** Where it was defined: the file path or the setting name. */
  source: string;
  /** Which tools stop for approval. Always 'all' for servers from a workspace file. */
  requireApproval: McpRequireApproval;
  /** When present, only these tools are shown to the model. */
  tools?: readonly string[];
}

export interface McpStdioServerConfig extends McpServerConfigBase {
  type: 'stdio';
  command: string;
  args: readonly string[];
  /** `null` removes a variable. */
  env: Readonly<Record<string, string | null>>;
  cwd?: string;
  /**
   * Whether it runs in the commands' sandbox (and whether it may reach the network there), or `false`: unconfined.
   * A server from the workspace always runs in it; one from the user's settings only when its `sandbox` says so.
   */
  sandbox: false | { network: boolean };
}

export interface McpRemoteServerConfig extends McpServerConfigBase {
  type: 'http' | 'sse';
  url: string;
  headers: Readonly<Record<string, string>>;
}

export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig;

export interface McpConfigSource {
  /** A `{ servers }` document (the workspace's `.vscode/mcp.json`, the profile's `mcp.json`), or the setting's object. */
  kind: 'workspace-file' | 'profile-file' | 'setting';
  /** File path or setting name, used in every message. */
  label: string;
  /** Defaults to 'workspace' for a workspace file and 'user' for the setting. */
  origin?: McpServerOrigin;
}

export interface McpConfigParseResult {
  servers: McpServerConfig[];
  /** One per rejected server (or per unreadable document). */
  errors: string[];
  /** Things that were accepted but adjusted, for the log. */
  notes: string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parses the servers of one source. `raw` is the parsed document (`{ servers }`) or, for the setting, the servers object. */
export function parseMcpConfig(raw: unknown, source: McpConfigSource): McpConfigParseResult {
  const result: McpConfigParseResult = { servers: [], errors: [], notes: [] };
  const origin = source.origin ?? (source.kind === 'workspace-file' ? 'workspace' : source.kind === 'profile-file' ? 'profile' : 'user');
  let servers: unknown = raw;
  if (source.kind !== 'setting') {
    if (raw === undefined || raw === null) {
      return result;
    }
    if (!isRecord(raw)) {
      result.errors.push(`${source.label}: must be a JSON object with a "servers" object`);
      return result;
    }
    servers = raw['servers'];
    if (raw['inputs'] !== undefined && !Array.isArray(raw['inputs'])) {
      result.errors.push(`${source.label}: "inputs" must be an array`);
    }
  }
  if (servers === undefined || servers === null) {
    return result;
  }
  if (!isRecord(servers)) {
    result.errors.push(`${source.label}: "servers" must be an object mapping names to server definitions`);
    return result;
  }
  for (const [name, value] of Object.entries(servers)) {
    const parsed = parseServer(name, value, origin, source);
    if (parsed.ok) {
      result.servers.push(parsed.server);
      if (parsed.note !== undefined) {
        result.notes.push(parsed.note);
      }
    } else {
      result.errors.push(`${source.label}: server "${name}": ${parsed.error}`);
    }
  }
  return result;
}

// The shape of one server, schema first. Each message reads after the field's name: `"args[1]" must be a string`.
const nonEmpty = z.string({ error: 'must be a non-empty string' }).check(z.refine((text) => text.trim() !== '', { error: 'must be a non-empty string' }));
const strings = z.array(z.string({ error: 'must be a string' }), { error: 'must be an array of strings' });
const common = {
  requireApproval: z.optional(z
    .union([z.literal('all'), z.literal('none'), z.array(z.string())], { error: 'must be "all", "none" or an array of tool names' })),
  tools: z.optional(strings),
};
const stdioSchema = z.object({
  ...common,
  command: nonEmpty,
  args: z._default(strings, []),
  env: z._default(z.record(z.string(), z.union([z.string(), z.null()], { error: 'must be a string or null' }), { error: 'must be an object of strings' }), {}),
  cwd: z.optional(z.string({ error: 'must be a non-empty string' }).check(z.minLength(1, { error: 'must be a non-empty string' }))),
  sandbox: z.optional(z.union([z.boolean(), z.strictObject({ network: z.optional(z.boolean({ error: 'must be true or false' })) })], { error: 'must be true, false or { "network": true }' })),
});
const remoteSchema = z.object({
  ...common,
  url: nonEmpty.check(z.superRefine((url, context) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      context.addIssue({ code: 'custom', message: `is not a valid URL (${JSON.stringify(url)})` });
      return;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      context.addIssue({ code: 'custom', message: `must be http: or https: (got ${parsed.protocol})` });
    }
  })),
  headers: z._default(z.record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be an object of strings' }), {}),
});

/** `"env.X"`, `"args[1]"`: the field a zod issue is about, as a person would write it. */
function fieldOf(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${String(key)}]` : text === '' ? String(key) : `${text}.${String(key)}`), '');
}

type ParsedServer = { ok: true; server: McpServerConfig; note?: string } | { ok: false; error: string };

function parseServer(name: string, value: unknown, origin: McpServerOrigin, source: McpConfigSource): ParsedServer {
  if (name.trim() === '') {
    return { ok: false, error: 'the server name must not be empty' };
  }
  if (!isRecord(value)) {
    return { ok: false, error: 'must be an object' };
  }
  // VS Code infers the type from `command` or `url` when it is left out.
  const type = value['type'] ?? (value['command'] !== undefined ? 'stdio' : value['url'] !== undefined ? 'http' : undefined);
  if (type !== 'stdio' && type !== 'http' && type !== 'sse') {
    return {
      ok: false,
      error: type === undefined
        ? '"type" is missing and there is no "command" or "url" to infer it from'
        : `"type" must be "stdio", "http" or "sse" (got ${JSON.stringify(type)})`,
    };
  }
  const parsed = type === 'stdio' ? stdioSchema.safeParse(value) : remoteSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: issue ? `"${fieldOf(issue.path)}" ${issue.message}` : 'is not a valid server definition' };
  }
  let requireApproval: McpRequireApproval = parsed.data.requireApproval ?? 'all';
  let note: string | undefined;
  if (source.kind !== 'setting' && requireApproval !== 'all') {
    // An mcp.json may never relax approval: it is VS Code's file (other tools write it too), not Toolgate's policy.
    note = `${source.label}: server "${name}": "requireApproval" is ignored in an mcp.json; every tool asks (set it in toolgate.mcp.servers instead)`;
    requireApproval = 'all';
  }
  const base = {
    name,
    origin,
    source: source.label,
    requireApproval,
    ...(parsed.data.tools !== undefined ? { tools: parsed.data.tools } : {}),
  };
  const data = parsed.data;
  let sandbox: McpStdioServerConfig['sandbox'] = false;
  if ('command' in data) {
    const asked = data.sandbox;
    sandbox = asked === undefined ? (origin === 'workspace' ? { network: false } : false) : asked === true ? { network: false } : asked === false ? false : { network: asked.network ?? false };
    if (origin === 'workspace' && sandbox === false) {
      // A workspace file may never take its server out of the sandbox.
      const ignored = `${source.label}: server "${name}": "sandbox": false is ignored for a server from the workspace; it runs in the sandbox (set it in your user settings' toolgate.mcp.servers instead)`;
      note = note === undefined ? ignored : `${note}; ${ignored}`;
      sandbox = { network: false };
    }
  }
  const server: McpServerConfig = 'command' in data
    ? { ...base, type: 'stdio', command: data.command, args: data.args, env: data.env, ...(data.cwd !== undefined ? { cwd: data.cwd } : {}), sandbox }
    : { ...base, type: type === 'sse' ? 'sse' : 'http', url: data.url, headers: data.headers };
  return note === undefined ? { ok: true, server } : { ok: true, server, note };
}

/**
 * Combines the workspace file's servers with the setting's. A name defined in both: the setting wins, with a note.
 */
export function mergeMcpConfigs(
  fromFile: readonly McpServerConfig[],
  fromSetting: readonly McpServerConfig[],
): { servers: McpServerConfig[]; notes: string[] } {
  const notes: string[] = [];
  const byName = new Map<string, McpServerConfig>();
  for (const server of fromFile) {
    byName.set(server.name, server);
  }
  for (const server of fromSetting) {
    const previous = byName.get(server.name);
    if (previous !== undefined) {
      notes.push(`server "${server.name}" is defined in ${previous.source} and in ${server.source}; using ${server.source}`);
      byName.delete(server.name);
    }
    byName.set(server.name, server);
  }
  return { servers: [...byName.values()], notes };
}

/** Whether calling `tool` on this server must stop for approval. */
export function toolRequiresApproval(config: Pick<McpServerConfig, 'requireApproval'>, tool: string): boolean {
  const rule = config.requireApproval;
  if (rule === 'all') {
    return true;
  }
  if (rule === 'none') {
    return false;
  }
  return rule.includes(tool);
}

/** Whether the model may see `tool` (the optional `tools` list). */
export function toolVisible(config: Pick<McpServerConfig, 'tools'>, tool: string): boolean {
  return config.tools === undefined || config.tools.includes(tool);
}

/** Two configs start the same server (everything but where it was written and the gating lists). */
export function sameLaunch(a: McpServerConfig, b: McpServerConfig): boolean {
  const launch = (config: McpServerConfig): unknown =>
    config.type === 'stdio'
      ? [config.type, config.command, config.args, config.env, config.cwd ?? null, config.sandbox]
      : [config.type, config.url, config.headers];
  return JSON.stringify(launch(a)) === JSON.stringify(launch(b)) && a.origin === b.origin;
}

