/**
 * A call prepared for the gate: its arguments parsed (invalid arguments never reach the panel), its paths resolved,
 * the exact proposed content and its diff computed, its command analysed; or the error that keeps it from the gate,
 * or the answer already known without asking.
 */
import { newCallId } from '../approval/broker';
import type { GateInput } from '../approval/gate';
import type { PathResolver } from '../approval/paths';
import type { GateCall } from '../approval/policy';
import { agentCaller } from '../callers';
import { diffText } from '../diff/lineDiff';
import { isMcpModelName } from '../mcp/names';
import { diffPreview } from '../review/diffPreview';
import type { DiffPreview, Preview } from '../review/preview';
import { protectedWritesNotice } from '../sandbox/openOnce';
import { parseBuiltinCall, type ParsedCall } from '../toolDefinitions';
import { judgedWrites } from './commandWrites';
import { formatNote, proposeEdit, proposeWrite, type Proposal } from './fileTools';
import { commandFolder, gateCall, type GateCallOptions } from './gateCall';
import { mcpArgs, mcpGateCall, mcpPreview, mcpPreviewed } from './mcpCalls';
import { ToolError } from './ports';
import type { ToolCallRequest, ToolServiceDeps } from './service';

/** A request the service could not bring to the gate (invalid arguments, an unknown tool, a file it cannot read). */
export type Prepared =
  | { kind: 'error'; message: string }
  /** Nothing to ask or run (a write that would change nothing): the answer is known. */
  | { kind: 'answered'; output: string }
  | Ready;

export interface Ready {
  kind: 'ready';
  parsed: Extract<ParsedCall, { ok: true }> | undefined;
  request: ToolCallRequest;
  input: GateInput & { callId: string };
  proposal?: Proposal;
  mcp?: { server: string; tool: string; args: Record<string, unknown> };
}

/** A built-in call whose arguments parsed, of one of `T`'s tools. */
type ParsedTool<T extends string> = Extract<ParsedCall, { ok: true; tool: T }>;

/** What every built-in call is prepared with: who asks, the folders' resolver, what `~` means. */
interface Preparing {
  request: ToolCallRequest;
  source: string;
  resolver: PathResolver;
  home: Pick<GateCallOptions, 'home'>;
}

/** The file's encoding or binary note first, then what the diff itself notes. */
function withNote(preview: DiffPreview, note: string | undefined): DiffPreview {
  return note === undefined ? preview : { ...preview, note: preview.note !== undefined ? `${note} ${preview.note}` : note };
}

/** How the part of preparing that waits (a file read, a diff, a server's dry run) takes its turn: BatchRunner's intake. */
export type PrepareQueue = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * See `BatchRunner.prepare` for `ownTool`. An MCP call with no preview to make is prepared at once, its value and not a
 * promise (nothing in it waits, so it spends no turn of the event loop); the rest of the work takes its turn in `queue`.
 */
export function prepareCall(deps: ToolServiceDeps, request: ToolCallRequest, ownTool: boolean, queue: PrepareQueue): Prepared | Promise<Prepared> {
  const source = request.source ?? agentCaller;
  return isMcpModelName(request.tool) ? prepareMcp(deps, request, source, queue) : queue(() => prepareBuiltin(deps, request, ownTool, source));
}

async function prepareBuiltin(deps: ToolServiceDeps, request: ToolCallRequest, ownTool: boolean, source: string): Promise<Prepared> {
  const parsed = parseBuiltinCall(request.tool, request.args);
  const resolver = deps.resolver();
  const home = deps.home !== undefined ? { home: deps.home } : {};
  if (!parsed.ok) {
    if (!ownTool || parsed.kind !== 'unknown-tool') {
      return { kind: 'error', message: parsed.error };
    }
    // Another extension's own tool behind the same gate: shown with its exact arguments (checked by `readCall`).
    const call = gateCall(request.tool, request.args, resolver, { external: { gated: true, label: request.tool } });
    return { kind: 'ready', parsed: undefined, request, input: { callId: newCallId(), call, preview: { kind: 'none' }, source } };
  }
  const preparing = { request, source, resolver, home };
  try {
    switch (parsed.tool) {
      case 'write_file':
      case 'edit_file':
        return await prepareFileChange(deps, parsed, preparing);
      case 'run_in_terminal':
        return await prepareCommand(deps, parsed, preparing);
      default:
        return { kind: 'ready', parsed, request, input: { callId: newCallId(), call: gateCall(parsed.tool, parsed.args, resolver, home), preview: { kind: 'none' }, source } };
    }
  } catch (error) {
    return { kind: 'error', message: `${parsed.tool}: ${error instanceof ToolError ? error.message : String(error)}` };
  }
}

function prepareMcp(deps: ToolServiceDeps, request: ToolCallRequest, source: string, queue: PrepareQueue): Prepared | Promise<Prepared> {
  const resolved = deps.mcp?.resolve(request.tool);
  if (!resolved) {
    return { kind: 'error', message: `unknown MCP tool '${request.tool}': its server is not running or does not offer it` };
  }
  const args = mcpArgs(request.tool, request.args);
  if (!args.ok) {
    return { kind: 'error', message: args.error };
  }
  const call = mcpGateCall(request.tool, resolved, args.args);
  const ready = (preview: Preview): Ready => ({
    kind: 'ready',
    parsed: undefined,
    request,
    mcp: { server: resolved.server, tool: resolved.tool.name, args: args.args },
    input: { callId: newCallId(), call, preview, source },
  });
  // Only a filesystem server's write or edit has a preview to make: no other call waits for one.
  if (!mcpPreviewed(resolved.tool.name, args.args)) {
    return ready({ kind: 'none' });
  }
  return queue(() => mcpPreview({ files: deps.files, resolver: deps.resolver(), mcp: deps.mcp, log: deps.log }, resolved.server, resolved.tool.name, args.args)).then(ready);
}

/** A write or an edit: the exact content it proposes, bound to the file it starts from, shown as a diff. */
async function prepareFileChange(deps: ToolServiceDeps, parsed: ParsedTool<'write_file' | 'edit_file'>, { request, source, resolver, home }: Preparing): Promise<Prepared> {
  const target = resolver.resolve(parsed.args.path);
  const proposal =
    parsed.tool === 'write_file' ? await proposeWrite(deps.files, target, parsed.args) : await proposeEdit(deps.files, target, parsed.args);
  if (proposal.base.exists && proposal.newText === proposal.base.text) {
    return { kind: 'answered', output: `No change: ${target.relative ?? target.real} already has exactly this content, so nothing was asked or written.` };
  }
  const call = gateCall(parsed.tool, parsed.args, resolver, { baseHash: proposal.base.hash, ...home });
  const preview = withNote(diffPreview(target.relative ?? target.real, !proposal.base.exists, diffText(proposal.base.text, proposal.newText)), await formatNote(proposal));
  const input = { callId: newCallId(), call, preview, source, editable: { kind: 'content' as const, text: proposal.newText } };
  return { kind: 'ready', parsed, request, proposal, input };
}

/** A command: analysed once the parser is ready, shown with whether its changes are reviewed and what it opens. */
async function prepareCommand(deps: ToolServiceDeps, parsed: ParsedTool<'run_in_terminal'>, { request, source, resolver, home }: Preparing): Promise<Prepared> {
  // However soon after activation this is asked, the analysis waits for the parser rather than asking for a
  // reason the parser would not give. A parser that cannot load leaves the analysis a parse error: it asks.
  await deps.commandJudgeReady();
  // Decided before the card is shown, so the card says whether its changes are reviewed, and the launch holds to it.
  const staging = await deps.terminal.stagingStatus?.();
  const call = gateCall(parsed.tool, parsed.args, resolver, home);
  // The analysis lines are filled by the gate from the decision it makes, so the panel shows exactly why it asks.
  const preview: Preview = { kind: 'command', command: parsed.args.command, cwd: commandFolder(call, resolver), analysis: [] };
  // An edit is analysed as the proposal was (same folder): the cards show what the edited command does.
  const editedCall = (command: string): GateCall => gateCall(parsed.tool, { ...parsed.args, command }, resolver, home);
  // The card says what its Allow once opens in the sandbox: the protected files it names, for this run only.
  const opens = protectedWritesNotice(judgedWrites(deps, call, source, '').protected.map((absolute) => ({ absolute, relative: resolver.resolve(absolute).relative ?? absolute })), resolver.roots);
  const input = { callId: newCallId(), call, preview, source, editable: { kind: 'command' as const, text: parsed.args.command }, editedCall, ...(staging ? { staging } : {}), ...(opens !== undefined ? { notices: [opens] } : {}) };
  return { kind: 'ready', parsed, request, input };
}
