/**
 * MCP tool calls through the gate: the arguments checked, the call the gate judges (pinned to the tool's definition),
 * a diff preview for the filesystem server's writes, and the result's text for the model.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parsePatch } from 'diff';
import { callHash } from '../approval/hash';
import type { PathResolver } from '../approval/paths';
import type { GateCall } from '../approval/policy';
import { diffText } from '../diff/lineDiff';
import type { McpModelTool } from '../mcp/tools';
import { diffPreview, hunkHeader } from '../review/diffPreview';
import type { DiffRow, Preview } from '../review/preview';
import type { LogPort, McpBridge, WorkspaceFiles } from './ports';
import { checkJsonValue } from './callInput';

export type McpArgs = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

/**
 * The model's arguments as a JSON object (a string is parsed; empty means `{}`), within the bounds of a call from
 * outside (./callInput): JSON text of any depth parses, and the hash and the card must not meet it unchecked.
 */
export function mcpArgs(tool: string, raw: unknown): McpArgs {
  let args = raw;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args === '' ? '{}' : args) as unknown;
    } catch (error) {
      return { ok: false, error: `${tool}: the arguments are not valid JSON (${(error as Error).message})` };
    }
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return { ok: false, error: `${tool}: the arguments must be a JSON object` };
  }
  const checked = checkJsonValue(args);
  return checked.ok ? { ok: true, args: checked.value as Record<string, unknown> } : { ok: false, error: `${tool}: invalid arguments: ${checked.error}` };
}

/** Each tool definition's annotations as the card lists them, made once per definition rather than once per call. */
const annotationsOf = new WeakMap<McpModelTool['tool'], readonly string[]>();

function annotationLines(tool: McpModelTool['tool']): string[] {
  let lines = annotationsOf.get(tool);
  if (lines === undefined) {
    lines = Object.entries(tool.annotations ?? {})
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}: ${String(value)}`);
    annotationsOf.set(tool, lines);
  }
  return [...lines]; // each call's own list: the card's view hands it on as a mutable array
}

/** What the gate judges for an MCP call: its hash covers the tool's definition, so a redefined tool asks again. */
export function mcpGateCall(modelName: string, resolved: McpModelTool, args: Record<string, unknown>): GateCall {
  const { server, tool } = resolved;
  const annotations = annotationLines(tool);
  return {
    tool: modelName,
    args,
    argsHash: callHash(modelName, args, tool.definitionHash),
    external: { gated: resolved.gated, definitionHash: tool.definitionHash, label: `${server}/${tool.name}`, server, description: tool.description, annotations },
  };
}

/** A unified diff's hunks as panel rows. */
function patchPreview(text: string, path: string, note: string): Preview {
  const patch = parsePatch(text.replace(/^`+diff\n?|`+\s*$/gm, ''))[0];
  if (!patch || patch.hunks.length === 0) {
    return { kind: 'none' };
  }
  let added = 0;
  let removed = 0;
  const hunks = patch.hunks.map((hunk) => {
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    const rows = hunk.lines.flatMap((line): DiffRow[] => {
      const body = line.slice(1);
      switch (line[0]) {
        case '+':
          added++;
          return [['a', null, newLine++, body]];
        case '-':
          removed++;
          return [['d', oldLine++, null, body]];
        case ' ':
          return [['c', oldLine++, newLine++, body]];
        default:
          return [];
      }
    });
    return { header: hunkHeader(hunk), rows };
  });
  return { kind: 'diff', path, isNewFile: false, added, removed, hunks, note };
}

/** Whether a call is one of server-filesystem's writes, which mcpPreview shows as a diff. */
export function mcpPreviewed(tool: string, args: Record<string, unknown>): boolean {
  return (tool === 'write_file' || tool === 'edit_file') && typeof args['path'] === 'string';
}

/** For server-filesystem's writes: the diff, computed (write_file) or asked of the server in dry-run (edit_file). */
export async function mcpPreview(
  ports: { files: WorkspaceFiles; resolver: PathResolver; mcp: McpBridge | undefined; log: LogPort },
  server: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<Preview> {
  const filePath = args['path'];
  if (!mcpPreviewed(tool, args) || typeof filePath !== 'string') {
    return { kind: 'none' };
  }
  try {
    if (tool === 'write_file' && typeof args['content'] === 'string') {
      const target = ports.resolver.resolve(filePath);
      const base = await ports.files.snapshot(target.absolute);
      return diffPreview(target.relative ?? target.absolute, !base.exists, diffText(base.text, args['content']));
    }
    if (tool === 'edit_file' && Array.isArray(args['edits']) && ports.mcp) {
      const result = await ports.mcp.call(server, tool, { ...args, dryRun: true }, {});
      return result.isError === true ? { kind: 'none' } : patchPreview(mcpText(result), filePath, `diff from ${server}'s edit_file dry run`);
    }
  } catch (error) {
    ports.log.warn(`MCP preview for ${server}/${tool} failed: ${String(error)}`);
  }
  return { kind: 'none' };
}

/** The text of an MCP tool result; other content is named, not dropped silently. */
export function mcpText(result: CallToolResult): string {
  const content = Array.isArray(result.content) ? result.content : [];
  return content
    .map((part) => {
      if (part.type === 'text') {
        return part.text;
      }
      if (part.type === 'resource') {
        return 'text' in part.resource ? part.resource.text : `[resource ${part.resource.uri}]`;
      }
      return `[${part.type} content]`;
    })
    .join('\n');
}
