/**
 * How MCP tools are named to the model (`mcp__<server>__<tool>`, within the OpenAI limit `^[a-zA-Z0-9_-]{1,64}$`)
 * and how a tool definition is hashed so a grant stops applying when the server changes what the tool says it does.
 */
import { canonicalJson, sha256 } from '../approval/hash';

export const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;
const PREFIX = 'mcp__';

export interface McpToolRef {
  server: string;
  tool: string;
}

/** SHA-256 of the canonical JSON of what the model is told about a tool. */
export function definitionHash(tool: { name: string; description?: string | undefined; inputSchema: unknown }): string {
  return sha256(canonicalJson({ name: tool.name, description: tool.description ?? null, inputSchema: tool.inputSchema }));
}

const clean = (part: string): string => part.replace(/[^a-zA-Z0-9_-]/g, '_');

/** The plain name before collision handling: sanitised, not yet truncated. */
function plainName(ref: McpToolRef): string {
  return `${PREFIX}${clean(ref.server)}__${clean(ref.tool)}`;
}

function hashedName(ref: McpToolRef, hashLength: number): string {
  const suffix = sha256(`${ref.server}\u0000${ref.tool}`).slice(0, hashLength);
  return `${plainName(ref).slice(0, MAX - hashLength - 1)}_${suffix}`;
}

const keyOf = (ref: McpToolRef): string => JSON.stringify([ref.server, ref.tool]);

/**
 * A bidirectional map between model names and (server, tool). Deterministic: the same set of tools always gets the
 * same names, whatever order they come in. A name is `mcp__<server>__<tool>` when that is valid and unique; a name
 * that had to be changed (characters replaced, or too long) and collides, or is too long, gets a short hash suffix.
 * When two unchanged names collide (`a__b`/`c` vs `a`/`b__c`), both get one.
 */
export class McpToolNameMap {
  private readonly toModelName = new Map<string, string>();
  private readonly fromModelName = new Map<string, McpToolRef>();

  constructor(refs: Iterable<McpToolRef>) {
    const unique = new Map<string, McpToolRef>();
    for (const ref of refs) {
      unique.set(keyOf(ref), { server: ref.server, tool: ref.tool });
    }
    const groups = new Map<string, McpToolRef[]>();
    for (const ref of unique.values()) {
      const plain = plainName(ref);
      const group = groups.get(plain) ?? [];
      group.push(ref);
      groups.set(plain, group);
    }
    const chosen = new Map<string, string>();
    for (const [plain, group] of groups) {
      const exact = group.filter((ref) => `${PREFIX}${ref.server}__${ref.tool}` === plain);
      for (const ref of group) {
        const keepsPlain = plain.length <= MAX && (group.length === 1 || (exact.length === 1 && exact[0] === ref));
        chosen.set(keyOf(ref), keepsPlain ? plain : hashedName(ref, 8));
      }
    }
    // A hashed name can (in theory) equal another tool's plain name: lengthen the hash of the hashed ones until unique.
    for (let hashLength = 8; ; hashLength += 8) {
      const owners = new Map<string, string[]>();
      for (const [key, name] of chosen) {
        owners.set(name, [...(owners.get(name) ?? []), key]);
      }
      const clashing = [...owners.values()].filter((keys) => keys.length > 1);
      if (clashing.length === 0 || hashLength >= 48) {
        break;
      }
      for (const keys of clashing) {
        for (const key of keys) {
          const ref = unique.get(key);
          // Two kept plain names are never equal (one per group), so every clash has a hashed name to lengthen.
          if (ref !== undefined && chosen.get(key) !== plainName(ref)) {
            chosen.set(key, hashedName(ref, hashLength + 8));
          }
        }
      }
    }
    for (const [key, name] of chosen) {
      const ref = unique.get(key);
      if (ref !== undefined) {
        this.toModelName.set(key, name);
        this.fromModelName.set(name, ref);
      }
    }
  }

  /** The name the model sees for this tool, if it is in the map. */
  toModel(server: string, tool: string): string | undefined {
    return this.toModelName.get(keyOf({ server, tool }));
  }

  /** The server and tool a model-side name stands for. */
  fromModel(name: string): McpToolRef | undefined {
    const ref = this.fromModelName.get(name);
    return ref === undefined ? undefined : { ...ref };
  }

  /** Every (model name, ref) pair, sorted by model name. */
  entries(): { modelName: string; server: string; tool: string }[] {
    return [...this.fromModelName]
      .map(([modelName, ref]) => ({ modelName, server: ref.server, tool: ref.tool }))
      .sort((a, b) => (a.modelName < b.modelName ? -1 : a.modelName > b.modelName ? 1 : 0));
  }

  get size(): number {
    return this.fromModelName.size;
  }
}

/** Whether a model-side name belongs to an MCP tool (by prefix; use the map to resolve it). */
export function isMcpModelName(name: string): boolean {
  return name.startsWith(PREFIX);
}
