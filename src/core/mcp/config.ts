/**
 * MCP server configuration: `.vscode/mcp.json` (VS Code's format) and the `toolgate.mcp.servers` setting (the same
 * shape plus `requireApproval` and `tools`). Each bad server yields one error naming the source, the server and the
 * field; the other servers still parse.
 */

export type McpServerOrigin = 'workspace' | 'user';
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
}

export interface McpRemoteServerConfig extends McpServerConfigBase {
  type: 'http' | 'sse';
  url: string;
  headers: Readonly<Record<string, string>>;
}

export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig;

export interface McpConfigSource {
  kind: 'workspace-file' | 'setting';
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

class FieldError extends Error {}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parses the servers of one source. `raw` is the parsed document (`{ servers }`) or, for the setting, the servers object. */
export function parseMcpConfig(raw: unknown, source: McpConfigSource): McpConfigParseResult {
  const result: McpConfigParseResult = { servers: [], errors: [], notes: [] };
  const origin = source.origin ?? (source.kind === 'workspace-file' ? 'workspace' : 'user');
  let servers: unknown = raw;
  if (source.kind === 'workspace-file') {
    if (raw === undefined || raw === null) {
      return result;
    }
    if (!isRecord(raw)) {
      result.errors.push(`${source.label}: must be a JSON object with a "servers" object`);
      return result;
    }
    servers = raw.servers;
    if (raw.inputs !== undefined && !Array.isArray(raw.inputs)) {
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
    try {
      result.servers.push(parseServer(name, value, source, origin, result.notes));
    } catch (error) {
      if (!(error instanceof FieldError)) {
        throw error;
      }
      result.errors.push(`${source.label}: server "${name}": ${error.message}`);
    }
  }
  return result;
}

function parseServer(
  name: string,
  value: unknown,
  source: McpConfigSource,
  origin: McpServerOrigin,
  notes: string[],
): McpServerConfig {
  if (name.trim() === '') {
    throw new FieldError('the server name must not be empty');
  }
  if (!isRecord(value)) {
    throw new FieldError('must be an object');
  }
  const type = value.type ?? (value.command !== undefined ? 'stdio' : value.url !== undefined ? 'http' : undefined);
  if (type !== 'stdio' && type !== 'http' && type !== 'sse') {
    throw new FieldError(
      type === undefined
        ? '"type" is missing and there is no "command" or "url" to infer it from'
        : `"type" must be "stdio", "http" or "sse" (got ${JSON.stringify(type)})`,
    );
  }
  const base = {
    name,
    origin,
    source: source.label,
    requireApproval: parseRequireApproval(value.requireApproval, source, name, notes),
    ...(value.tools !== undefined ? { tools: stringArray(value.tools, 'tools') } : {}),
  };
  if (type === 'stdio') {
    const command = value.command;
    if (typeof command !== 'string' || command.trim() === '') {
      throw new FieldError('"command" must be a non-empty string');
    }
    const cwd = value.cwd;
    if (cwd !== undefined && (typeof cwd !== 'string' || cwd === '')) {
      throw new FieldError('"cwd" must be a non-empty string');
    }
    return {
      ...base,
      type,
      command,
      args: value.args === undefined ? [] : stringArray(value.args, 'args'),
      env: value.env === undefined ? {} : stringMap(value.env, 'env', true),
      ...(cwd !== undefined ? { cwd } : {}),
    };
  }
  const url = value.url;
  if (typeof url !== 'string' || url === '') {
    throw new FieldError('"url" must be a non-empty string');
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new FieldError(`"url" is not a valid URL (${JSON.stringify(url)})`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new FieldError(`"url" must be http: or https: (got ${parsed.protocol})`);
  }
  const headers = value.headers === undefined ? {} : stringMap(value.headers, 'headers', false);
  return { ...base, type, url, headers: headers as Record<string, string> };
}

function parseRequireApproval(value: unknown, source: McpConfigSource, name: string, notes: string[]): McpRequireApproval {
  if (value === undefined) {
    return 'all';
  }
  let parsed: McpRequireApproval;
  if (value === 'all' || value === 'none') {
    parsed = value;
  } else if (Array.isArray(value)) {
    parsed = stringArray(value, 'requireApproval');
  } else {
    throw new FieldError('"requireApproval" must be "all", "none" or an array of tool names');
  }
  if (source.kind === 'workspace-file' && parsed !== 'all') {
    notes.push(
      `${source.label}: server "${name}": "requireApproval" is ignored in a workspace file; every tool asks (set it in toolgate.mcp.servers instead)`,
    );
    return 'all';
  }
  return parsed;
}

function stringArray(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) {
    throw new FieldError(`"${field}" must be an array of strings`);
  }
  value.forEach((item: unknown, index) => {
    if (typeof item !== 'string') {
      throw new FieldError(`"${field}[${String(index)}]" must be a string`);
    }
  });
  return value as string[];
}

function stringMap(value: unknown, field: string, allowNull: boolean): Record<string, string | null> {
  if (!isRecord(value)) {
    throw new FieldError(`"${field}" must be an object of strings`);
  }
  const out: Record<string, string | null> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string' || (allowNull && item === null)) {
      out[key] = item;
    } else {
      throw new FieldError(`"${field}.${key}" must be a string${allowNull ? ' or null' : ''}`);
    }
  }
  return out;
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
      ? [config.type, config.command, config.args, config.env, config.cwd ?? null]
      : [config.type, config.url, config.headers];
  return JSON.stringify(launch(a)) === JSON.stringify(launch(b)) && a.origin === b.origin;
}

/**
 * JSON with comments and trailing commas (as in `.vscode/mcp.json`) to a value. Comments and trailing commas are
 * removed outside strings only; anything else that is not JSON throws a SyntaxError.
 */
export function parseJsonc(text: string): unknown {
  return JSON.parse(stripJsonc(text)) as unknown;
}

export function stripJsonc(text: string): string {
  let out = '';
  let i = 0;
  const n = text.length;
  // Index in `out` of the last comma outside strings that has only whitespace/comments after it so far.
  let pendingComma = -1;
  while (i < n) {
    const ch = text.charAt(i);
    const next = text.charAt(i + 1);
    if (ch === '"') {
      let j = i + 1;
      while (j < n && text.charAt(j) !== '"') {
        j += text.charAt(j) === '\\' ? 2 : 1;
      }
      out += text.slice(i, j + 1);
      i = j + 1;
      pendingComma = -1;
    } else if (ch === '/' && next === '/') {
      while (i < n && text.charAt(i) !== '\n') {
        i += 1;
      }
    } else if (ch === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end === -1) {
        throw new SyntaxError('unterminated /* comment');
      }
      // Keep line breaks so JSON.parse positions stay roughly right.
      out += text.slice(i, end + 2).replace(/[^\n]/g, ' ');
      i = end + 2;
    } else if (ch === ',') {
      pendingComma = out.length;
      out += ch;
      i += 1;
    } else if (ch === '}' || ch === ']') {
      if (pendingComma !== -1) {
        out = `${out.slice(0, pendingComma)} ${out.slice(pendingComma + 1)}`;
      }
      pendingComma = -1;
      out += ch;
      i += 1;
    } else {
      if (!/\s/.test(ch)) {
        pendingComma = -1;
      }
      out += ch;
      i += 1;
    }
  }
  return out;
}
