/**
 * Runs tool calls through the gate: parse (invalid arguments never reach the panel), prepare (resolve paths, compute
 * the exact proposed content and its diff, analyse the command), ask the gate for the whole batch, then run what was
 * allowed exactly as shown. An edit whose file changed after its diff was shown is not written: it asks again with a
 * fresh diff.
 */
import os from 'node:os';
import * as vscode from 'vscode';
import type { GateInput, GateResult } from '../core/approval/gate';
import type { Gate } from '../core/approval/gate';
import { newCallId } from '../core/approval/broker';
import { callHash } from '../core/approval/hash';
import type { PathResolver } from '../core/approval/paths';
import type { Decision, GateCall } from '../core/approval/policy';
import { diffText, type LineDiff } from '../core/diff/lineDiff';
import { isMcpModelName } from '../core/mcp/names';
import type { McpModelTool } from '../core/mcp/tools';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parsePatch } from 'diff';
import { analyseCommand } from '../core/shell/analysis';
import { commandReport } from '../core/terminal/report';
import { parseBuiltinCall, targetPathOf, type ParsedCall } from '../core/tools/definitions';
import type { DiffPreview, DiffRow, Preview } from '../shared/approvals';
import type { Log } from './log';
import type { Settings } from './settings';
import { applyProposal, listFilesTool, proposeEdit, proposeWrite, readFileTool, searchTextTool, snapshot, ToolError, type Proposal } from './tools/files';
import type { TerminalRunner } from './tools/terminal';
import type { WorkspacePaths } from './workspacePaths';

export interface ToolCallRequest {
  tool: string;
  args: unknown;
  /** Who asks: 'agent' (default), an extension id, 'mcp:<server>'. */
  source?: string;
}

export interface ToolCallResult {
  ok: boolean;
  /** What the model (or the caller) is told. */
  output: string;
  /** The gate's outcome, when the call reached the gate. */
  decision?: GateResult;
}

/** What the tool service needs of MCP: the model's tool names resolved, and calls to servers. */
export interface McpBridge {
  resolve(modelName: string): McpModelTool | undefined;
  call(server: string, tool: string, args: Record<string, unknown>, options: { signal?: AbortSignal }): Promise<CallToolResult>;
}

export interface RunOptions {
  chatId: string;
  signal?: AbortSignal;
  /** Progress of each request of a batch, by its index: waiting for the person, or running. */
  onStatus?: (index: number, status: 'waiting' | 'running') => void;
}

type Prepared =
  | { kind: 'error'; message: string }
  | {
      kind: 'ready';
      parsed: Extract<ParsedCall, { ok: true }> | undefined;
      request: ToolCallRequest;
      input: GateInput & { callId: string };
      proposal?: Proposal;
      mcp?: { server: string; tool: string; args: Record<string, unknown> };
    };

const maxConflictRetries = 3;
const maxPreviewRows = 200_000;

export function diffPreview(relativePath: string, isNewFile: boolean, diff: LineDiff): DiffPreview {
  let rows = 0;
  const hunks = [];
  for (const hunk of diff.hunks) {
    if (rows > maxPreviewRows) {
      break;
    }
    rows += hunk.lines.length;
    hunks.push({
      header: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
      rows: hunk.lines.map((line) => [
        line.kind === 'context' ? 'c' : line.kind === 'add' ? 'a' : 'd',
        line.oldLine ?? null,
        line.newLine ?? null,
        line.text,
      ] as ['c' | 'a' | 'd', number | null, number | null, string]),
    });
  }
  const notes = [diff.note, rows > maxPreviewRows ? `the diff is cut after ${maxPreviewRows} lines; open it in the diff editor to see all` : undefined].filter(
    (note): note is string => note !== undefined,
  );
  return {
    kind: 'diff',
    path: relativePath,
    isNewFile,
    added: diff.added,
    removed: diff.removed,
    hunks,
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  };
}

export class ToolService {
  /** Proposed contents of waiting edits, for "Open in diff editor". */
  readonly proposals = new Map<string, Proposal>();

  constructor(
    private readonly gate: Gate,
    private readonly settings: Settings,
    private readonly terminal: TerminalRunner,
    private readonly log: Log,
    private readonly paths: WorkspacePaths,
    /** Resolves once the shell parser is loaded (on first use), so that no command is analysed before it is. */
    private readonly shellParserReady: () => Promise<void>,
    private readonly mcp?: McpBridge,
  ) {}

  private resolver(): PathResolver {
    return this.paths.resolver;
  }

  /** Builds what the gate judges, without I/O beyond resolving paths. */
  private gateCall(tool: string, args: unknown, resolver: PathResolver, baseHash?: string, external?: GateCall['external']): GateCall {
    const call: GateCall = { tool, args, argsHash: callHash(tool, args, baseHash) };
    const target = targetPathOf({ tool, args });
    if (target !== undefined) {
      call.target = resolver.resolve(target);
    }
    if (tool === 'run_in_terminal') {
      const command = (args as { command: string }).command;
      const cwd = call.target?.absolute ?? resolver.roots[0] ?? process.cwd();
      call.commandAnalysis = analyseCommand(command, cwd, os.homedir());
    }
    if (external) {
      call.external = external;
    }
    return call;
  }

  private async prepareMcp(request: ToolCallRequest, source: string): Promise<Prepared> {
    const resolved = this.mcp?.resolve(request.tool);
    if (!resolved) {
      return { kind: 'error', message: `unknown MCP tool '${request.tool}': its server is not running or does not offer it` };
    }
    let args: unknown = request.args;
    if (typeof args === 'string') {
      try {
        args = JSON.parse(args === '' ? '{}' : args) as unknown;
      } catch (error) {
        return { kind: 'error', message: `${request.tool}: the arguments are not valid JSON (${(error as Error).message})` };
      }
    }
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      return { kind: 'error', message: `${request.tool}: the arguments must be a JSON object` };
    }
    const record = args as Record<string, unknown>;
    const { server, tool } = resolved;
    const annotations = Object.entries(tool.annotations ?? {})
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}: ${String(value)}`);
    const call: GateCall = {
      tool: request.tool,
      args: record,
      argsHash: callHash(request.tool, record, tool.definitionHash),
      external: {
        gated: resolved.gated,
        definitionHash: tool.definitionHash,
        label: `${server}/${tool.name}`,
        server,
        description: tool.description,
        annotations,
      },
    };
    const preview = await this.mcpPreview(server, tool.name, record);
    return {
      kind: 'ready',
      parsed: undefined,
      request,
      mcp: { server, tool: tool.name, args: record },
      input: { callId: newCallId(), call, preview, source },
    };
  }

  /** For server-filesystem's writes: the diff, computed (write_file) or asked of the server in dry-run (edit_file). */
  private async mcpPreview(server: string, tool: string, args: Record<string, unknown>): Promise<Preview> {
    const filePath = args['path'];
    if (typeof filePath !== 'string') {
      return { kind: 'none' };
    }
    try {
      if (tool === 'write_file' && typeof args['content'] === 'string') {
        const target = this.resolver().resolve(filePath);
        const base = await snapshot(vscode.Uri.file(target.absolute));
        return diffPreview(target.relative ?? target.absolute, !base.exists, diffText(base.text, args['content']));
      }
      if (tool === 'edit_file' && Array.isArray(args['edits']) && this.mcp) {
        const result = await this.mcp.call(server, tool, { ...args, dryRun: true }, {});
        const text = mcpText(result);
        const patch = parsePatch(text.replace(/^`+diff\n?|`+\s*$/gm, ''))[0];
        if (result.isError === true || !patch || patch.hunks.length === 0) {
          return { kind: 'none' };
        }
        let added = 0;
        let removed = 0;
        const hunks = patch.hunks.map((hunk) => {
          let oldLine = hunk.oldStart;
          let newLine = hunk.newStart;
          const rows = hunk.lines.flatMap((line): DiffRow[] => {
            const kind = line[0];
            const body = line.slice(1);
            if (kind === '+') {
              added++;
              return [['a', null, newLine++, body]];
            }
            if (kind === '-') {
              removed++;
              return [['d', oldLine++, null, body]];
            }
            if (kind === ' ') {
              return [['c', oldLine++, newLine++, body]];
            }
            return [];
          });
          return { header: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, rows };
        });
        return { kind: 'diff', path: filePath, isNewFile: false, added, removed, hunks, note: `diff from ${server}'s edit_file dry run` };
      }
    } catch (error) {
      this.log.warn(`MCP preview for ${server}/${tool} failed: ${String(error)}`);
    }
    return { kind: 'none' };
  }

  private async prepare(request: ToolCallRequest): Promise<Prepared> {
    const source = request.source ?? 'agent';
    if (isMcpModelName(request.tool)) {
      return this.prepareMcp(request, source);
    }
    const parsed = parseBuiltinCall(request.tool, request.args);
    const resolver = this.resolver();
    if (!parsed.ok) {
      if (source !== 'agent' && parsed.kind !== 'unknown-tool') {
        return { kind: 'error', message: parsed.error };
      }
      if (source === 'agent') {
        return { kind: 'error', message: parsed.error };
      }
      // Another extension's own tool behind the same gate: shown with its exact arguments.
      const call = this.gateCall(request.tool, request.args ?? {}, resolver, undefined, { gated: true, label: request.tool });
      return { kind: 'ready', parsed: undefined, request, input: { callId: newCallId(), call, preview: { kind: 'none' }, source } };
    }
    try {
      switch (parsed.tool) {
        case 'write_file':
        case 'edit_file': {
          const target = resolver.resolve(parsed.args.path);
          const proposal = parsed.tool === 'write_file' ? await proposeWrite(target, parsed.args) : await proposeEdit(target, parsed.args);
          const call = this.gateCall(parsed.tool, parsed.args, resolver, proposal.base.hash);
          const relative = target.relative ?? target.real;
          const preview = diffPreview(relative, !proposal.base.exists, diffText(proposal.base.text, proposal.newText));
          return {
            kind: 'ready',
            parsed,
            request,
            proposal,
            input: { callId: newCallId(), call, preview, source, editable: { kind: 'content', text: proposal.newText } },
          };
        }
        case 'run_in_terminal': {
          // However soon after activation this is asked, the analysis waits for the parser rather than asking for a
          // reason the parser would not give. A parser that cannot load leaves the analysis a parse error: it asks.
          await this.shellParserReady();
          const call = this.gateCall(parsed.tool, parsed.args, resolver);
          const cwd = call.target?.absolute ?? resolver.roots[0] ?? process.cwd();
          const preview: Preview = {
            kind: 'command',
            command: parsed.args.command,
            cwd,
            // Filled by the gate from the decision it makes, so the panel shows exactly why it asks.
            analysis: [],
          };
          return { kind: 'ready', parsed, request, input: { callId: newCallId(), call, preview, source, editable: { kind: 'command', text: parsed.args.command } } };
        }
        default:
          return { kind: 'ready', parsed, request, input: { callId: newCallId(), call: this.gateCall(parsed.tool, parsed.args, resolver), preview: { kind: 'none' }, source } };
      }
    } catch (error) {
      return { kind: 'error', message: error instanceof ToolError ? `${parsed.tool}: ${error.message}` : `${parsed.tool}: ${String(error)}` };
    }
  }

  /** The verdict the policy gives right now (nothing asked, run or logged). */
  async evaluate(request: ToolCallRequest): Promise<Pick<Decision, 'verdict' | 'reason' | 'warnings'>> {
    const prepared = await this.prepare({ source: 'api', ...request });
    if (prepared.kind === 'error') {
      return { verdict: 'deny', reason: `denied: ${prepared.message}`, warnings: [] };
    }
    const { verdict, reason, warnings } = this.gate.evaluate(prepared.input.call);
    return { verdict, reason, warnings };
  }

  /** Waits for the gate's decision on one call; runs nothing. */
  async requestApproval(request: ToolCallRequest, options: RunOptions): Promise<GateResult | { verdict: 'deny'; decidedBy: 'policy'; reason: string; callId: '' }> {
    const prepared = await this.prepare({ source: 'api', ...request });
    if (prepared.kind === 'error') {
      return { verdict: 'deny', decidedBy: 'policy', reason: `denied: ${prepared.message}`, callId: '' };
    }
    const [result] = this.gate.request([prepared.input], options);
    if (!result) {
      throw new Error('the gate returned no result');
    }
    return await result;
  }

  /** One model turn: every call is prepared, the gated ones are shown together, results come back in order. */
  async runBatch(requests: ToolCallRequest[], options: RunOptions): Promise<ToolCallResult[]> {
    const prepared = await Promise.all(requests.map((request) => this.prepare(request)));
    const ready = prepared.filter((item): item is Extract<Prepared, { kind: 'ready' }> => item.kind === 'ready');
    for (const item of ready) {
      if (item.proposal) {
        this.proposals.set(item.input.callId, item.proposal);
      }
    }
    const outcomes = this.gate.request(
      ready.map((item) => item.input),
      options,
    );
    prepared.forEach((item, index) => {
      if (item.kind === 'ready' && this.gate.isWaiting(item.input.callId)) {
        options.onStatus?.(index, 'waiting');
      }
    });
    const results: ToolCallResult[] = [];
    let readyIndex = 0;
    for (const [index, item] of prepared.entries()) {
      if (item.kind === 'error') {
        results.push({ ok: false, output: `Error: ${item.message}. Nothing was run.` });
        continue;
      }
      const outcome = outcomes[readyIndex++];
      if (!outcome) {
        results.push({ ok: false, output: 'Error: the gate returned no result. Nothing was run.' });
        continue;
      }
      const decision = await outcome;
      if (decision.verdict === 'allow') {
        options.onStatus?.(index, 'running');
      }
      results.push(await this.complete(item, decision, options, 0));
    }
    return results;
  }

  private async complete(item: Extract<Prepared, { kind: 'ready' }>, decision: GateResult, options: RunOptions, attempt: number): Promise<ToolCallResult> {
    this.proposals.delete(decision.callId);
    if (decision.verdict === 'deny') {
      return { ok: false, output: deniedMessage(decision), decision };
    }
    if (item.mcp && this.mcp) {
      try {
        const result = await this.mcp.call(item.mcp.server, item.mcp.tool, item.mcp.args, options.signal ? { signal: options.signal } : {});
        const text = mcpText(result);
        return result.isError === true
          ? { ok: false, output: `The MCP tool reported an error: ${text}`, decision }
          : { ok: true, output: text === '' ? '(the tool returned no text)' : text, decision };
      } catch (error) {
        return { ok: false, output: `Error: ${error instanceof Error ? error.message : String(error)}`, decision };
      }
    }
    const parsed = item.parsed;
    if (!parsed) {
      return { ok: true, output: decision.reason, decision };
    }
    try {
      switch (parsed.tool) {
        case 'read_file':
          return { ok: true, output: await readFileTool(item.input.call.target ?? this.resolver().resolve(parsed.args.path)), decision };
        case 'list_files':
          return { ok: true, output: await listFilesTool(item.input.call.target ?? this.resolver().resolve('.')), decision };
        case 'search_text':
          return {
            ok: true,
            output: await searchTextTool(item.input.call.target ?? this.resolver().resolve('.'), parsed.args.query, options.signal),
            decision,
          };
        case 'write_file':
        case 'edit_file': {
          const proposal = item.proposal;
          if (!proposal) {
            throw new ToolError('no proposal was prepared');
          }
          const text = decision.edited ?? proposal.newText;
          const applied = await applyProposal(proposal, text);
          if (applied.kind === 'changed') {
            if (attempt >= maxConflictRetries) {
              return { ok: false, output: `Error: ${applied.detail}, again and again; nothing was written. Read the file and try again.`, decision };
            }
            this.log.info(`${parsed.tool}: ${applied.detail}; nothing was written, asking again with a fresh diff`);
            const fresh = await this.prepare(item.request);
            if (fresh.kind === 'error') {
              return { ok: false, output: `Error: ${applied.detail}, and the call no longer applies: ${fresh.message}. Nothing was written.` };
            }
            if (fresh.proposal) {
              this.proposals.set(fresh.input.callId, fresh.proposal);
            }
            fresh.input.notices = [`Asked again: ${applied.detail}, so nothing was written. This is a fresh diff.`];
            const [again] = this.gate.request([fresh.input], options);
            if (!again) {
              throw new ToolError('the gate returned no result');
            }
            return await this.complete(fresh, await again, options, attempt + 1);
          }
          const where = applied.savedToDisk ? '' : ' (in the open editor, unsaved: the person had unsaved changes there)';
          const relative = proposal.target.relative ?? proposal.target.real;
          if (decision.edited !== undefined) {
            return {
              ok: true,
              output: `The person edited the content before allowing it. Wrote their version to ${relative}${where}; it now reads:\n${text}`,
              decision,
            };
          }
          return { ok: true, output: `${proposal.base.exists ? 'Updated' : 'Created'} ${relative}${where}.`, decision };
        }
        case 'run_in_terminal': {
          const command = decision.edited ?? parsed.args.command;
          const cwd = item.input.call.target?.absolute ?? this.resolver().roots[0] ?? process.cwd();
          const timeoutSeconds = this.settings.get('terminal.timeoutSeconds');
          const result = await this.terminal.run(command, cwd, timeoutSeconds, options.signal);
          const report = commandReport(result, { command, edited: decision.edited !== undefined, timeoutSeconds });
          return { ok: report.ok, output: report.text, decision };
        }
        case 'ask_user':
          return { ok: false, output: 'Error: ask_user is answered in the chat, not run as a tool here.', decision };
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, output: `Error: ${parsed.tool} failed: ${message}`, decision };
    }
  }
}

export function deniedMessage(decision: Extract<GateResult, { verdict: 'deny' }>): string {
  switch (decision.decidedBy) {
    case 'person':
      return decision.personReason !== undefined
        ? `The person denied this call and said: "${decision.personReason}". Nothing was changed.`
        : 'The person denied this call. Nothing was changed.';
    case 'timeout':
      return `Nobody answered in time, so the call was denied (${decision.reason}). Nothing was changed.`;
    case 'cancel':
      return `The call was not run: ${decision.reason.replace(/^denied: /, '')}. Nothing was changed.`;
    case 'policy':
      return `The call was refused by policy (${decision.reason}). Nothing was changed.`;
  }
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
