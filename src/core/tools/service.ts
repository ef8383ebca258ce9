/**
 * Runs tool calls through the gate: parse (invalid arguments never reach the panel), prepare (resolve paths, compute
 * the exact proposed content and its diff, analyse the command), ask the gate for the whole batch, then run what was
 * allowed exactly as shown. An edit whose file changed after its diff was shown is not written: it asks again with a
 * fresh diff. The editor is reached only through the ports of `./ports`.
 */
import path from 'node:path';
import pLimit from 'p-limit';
import type { CallRemedy, Gate, GateInput, GateResult } from '../approval/gate';
import { newCallId } from '../approval/broker';
import type { PathResolver } from '../approval/paths';
import type { GateCall, Judgement } from '../approval/policy';
import { describeCommandChanges, type CommandGitEffect } from '../checkpoints/gitStatus';
import type { TerminalCommandResult } from '../terminal/commandTerminal';
import { diffText } from '../diff/lineDiff';
import { isMcpModelName } from '../mcp/names';
import { diffPreview } from '../review/diffPreview';
import { describeHunkDecisions } from '../review/hunks';
import type { ChangeRecorder } from '../checkpoints/recorder';
import type { TurnRef } from '../checkpoints/store';
import { commandReport } from '../terminal/report';
import type { DiffPreview, Preview } from '../review/preview';
import { parseBuiltinCall, type ParsedCall } from '../toolDefinitions';
import { formatNote, listFolder, proposeEdit, proposeWrite, readFileText, searchFolder, type Proposal } from './fileTools';
import { commandFolder, gateCall } from './gateCall';
import { writesOf } from '../shell/analysis';
import { protectedWritesNotice } from '../sandbox/openOnce';
import { mcpArgs, mcpGateCall, mcpPreview, mcpText } from './mcpCalls';
import { ToolError, type CommandRunner, type LogPort, type McpBridge, type ResultKeeper, type RunHow, type WorkspaceFiles } from './ports';
import { sandboxFailure } from '../sandbox/failures';
import { entriesToAllow } from '../sandbox/networkRemedies';
import { agentCaller, apiSource } from '../callers';
import { applyWrite } from './applyWrite';
import { boundedForModel, deniedMessage, writtenMessage } from './results';
import { landedCounts, type LandedCounts, type LandingReport } from './landingSummary';
import { StagedLanding, type StagedLandingDeps } from './stagedLanding';
import { textToWrite } from './textToWrite';
import { discardStage, type Stage } from '../sandbox/stage';
import { allowedNote, type AllowedNote } from '../views/grants';
import { unreviewedReportLine } from '../views/unreviewed';
import { notRunOutput, readCall, type CheckedCall } from './callInput';

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
  /** A result too long for the model, kept whole for the person: how to open it, and its length. */
  kept?: { ref: string; chars: number };
  /** The gate's outcome, when the call reached the gate. */
  decision?: GateResult;
  /** How it was allowed, as the chat's entry of it says (the rule or grant); absent when denied or allowed by nothing named. */
  allowed?: AllowedNote;
  /** A staged command: what became of the changes it made (absent when it made none). */
  landed?: LandedCounts;
}

export interface RunOptions {
  chatId: string;
  signal?: AbortSignal;
  /** Progress of each request of a batch, by its index: waiting for the person, or running. */
  onStatus?: (index: number, status: 'waiting' | 'running') => void;
  /** A request's result as soon as it has one (an MCP call may finish before an earlier call of its batch). */
  onResult?: (index: number, result: ToolCallResult) => void;
  /** The agent's task and model turn these calls belong to: what they change is kept as a checkpoint of it. */
  turn?: TurnRef;
}

export interface ToolServiceDeps {
  gate: Gate;
  files: WorkspaceFiles;
  /** The workspace folders' resolver (rebuilt by the wiring when the folders change). */
  resolver: () => PathResolver;
  terminal: CommandRunner;
  terminalTimeoutSeconds: () => number;
  /**
   * Resolves once what judging a command needs is ready (the shell parser loaded, the sandbox probed), so that no
   * command is judged before.
   */
  commandJudgeReady: () => Promise<void>;
  log: LogPort;
  mcp?: McpBridge;
  /** The home folder `~` means in a command (default: this user's). */
  home?: string;
  /** Keeps checkpoints of what allowed calls change, for undo. */
  recorder?: Pick<ChangeRecorder, 'fileWritten' | 'commandRan' | 'landedUnreviewed'>;
  /** Keeps MCP results too long for the model whole, for the person. */
  results?: ResultKeeper;
  /** What a staged command's changes need to land (./stagedLanding): which files git ignores, and the setting. */
  staging?: Pick<StagedLandingDeps, 'ignored'> & { landIgnored: () => boolean };
  /**
   * Adds entries to toolgate.sandbox.allowedDomains in the person's own settings: they chose "Allow … on this machine"
   * on the card of a command the proxy refused. Absent: that remedy is not offered.
   */
  allowDomains?: (entries: readonly string[]) => Promise<void>;
}

/** The remedies a refused command's card offers, by id. */
const remedyIds = { save: 'allow-hosts', once: 'allow-hosts-once' } as const;
/** How many times one command is run again in the sandbox with more hosts allowed, before only the wide fix is left. */
const maxNarrowReruns = 3;

/** A request the service could not bring to the gate (invalid arguments, an unknown tool, a file it cannot read). */
type Prepared =
  | { kind: 'error'; message: string }
  /** Nothing to ask or run (a write that would change nothing): the answer is known. */
  | { kind: 'answered'; output: string }
  | Ready;

interface Ready {
  kind: 'ready';
  parsed: Extract<ParsedCall, { ok: true }> | undefined;
  request: ToolCallRequest;
  input: GateInput & { callId: string };
  proposal?: Proposal;
  mcp?: { server: string; tool: string; args: Record<string, unknown> };
}

type ApiDenial = { verdict: 'deny'; decidedBy: 'policy'; reason: string; callId: '' };

const maxConflictRetries = 3;

/** The file's encoding or binary note first, then what the diff itself notes. */
function withNote(preview: DiffPreview, note: string | undefined): DiffPreview {
  return note === undefined ? preview : { ...preview, note: preview.note !== undefined ? `${note} ${preview.note}` : note };
}

/**
 * How many calls are prepared at once (arguments parsed, the file read, the diff made). Calls beyond it wait their
 * turn: 200 arriving together were all prepared in the same few turns of the event loop, and their synchronous parts
 * added up to 100-200 ms in which the extension host (every extension in it) could do nothing else.
 */
const preparedAtOnce = 4;

export class ToolService {
  /** Proposed contents of waiting edits, for "Open in diff editor"; an entry lives while its call waits. */
  private readonly proposals = new Map<string, Proposal>();
  private readonly intake = pLimit(preparedAtOnce);

  constructor(private readonly deps: ToolServiceDeps) {}

  /** The proposal of a waiting write or edit. */
  proposal(callId: string): Proposal | undefined {
    return this.proposals.get(callId);
  }

  private async prepareMcp(request: ToolCallRequest, source: string): Promise<Prepared> {
    const resolved = this.deps.mcp?.resolve(request.tool);
    if (!resolved) {
      return { kind: 'error', message: `unknown MCP tool '${request.tool}': its server is not running or does not offer it` };
    }
    const args = mcpArgs(request.tool, request.args);
    if (!args.ok) {
      return { kind: 'error', message: args.error };
    }
    const call = mcpGateCall(request.tool, resolved, args.args);
    const ports = { files: this.deps.files, resolver: this.deps.resolver(), mcp: this.deps.mcp, log: this.deps.log };
    const preview = await mcpPreview(ports, resolved.server, resolved.tool.name, args.args);
    return {
      kind: 'ready',
      parsed: undefined,
      request,
      mcp: { server: resolved.server, tool: resolved.tool.name, args: args.args },
      input: { callId: newCallId(), call, preview, source },
    };
  }

  /**
   * `ownTool`: a tool that is neither built in nor an MCP server's may be the caller's own (the API's requestApproval
   * and evaluate), asked about and run by the caller. Whatever is run here (the agent's calls, invokeTool, the
   * language-model tools, the MCP endpoint) is only what Toolgate itself can run: anything else is an error.
   */
  private prepare(request: ToolCallRequest, ownTool = false): Promise<Prepared> {
    return this.intake(() => this.prepareNow(request, ownTool));
  }

  private async prepareNow(request: ToolCallRequest, ownTool: boolean): Promise<Prepared> {
    const source = request.source ?? agentCaller;
    if (isMcpModelName(request.tool)) {
      return this.prepareMcp(request, source);
    }
    const parsed = parseBuiltinCall(request.tool, request.args);
    const resolver = this.deps.resolver();
    const home = this.deps.home !== undefined ? { home: this.deps.home } : {};
    if (!parsed.ok) {
      if (!ownTool || parsed.kind !== 'unknown-tool') {
        return { kind: 'error', message: parsed.error };
      }
      // Another extension's own tool behind the same gate: shown with its exact arguments (checked by `readCall`).
      const call = gateCall(request.tool, request.args, resolver, { external: { gated: true, label: request.tool } });
      return { kind: 'ready', parsed: undefined, request, input: { callId: newCallId(), call, preview: { kind: 'none' }, source } };
    }
    try {
      switch (parsed.tool) {
        case 'write_file':
        case 'edit_file': {
          const target = resolver.resolve(parsed.args.path);
          const proposal =
            parsed.tool === 'write_file' ? await proposeWrite(this.deps.files, target, parsed.args) : await proposeEdit(this.deps.files, target, parsed.args);
          if (proposal.base.exists && proposal.newText === proposal.base.text) {
            return { kind: 'answered', output: `No change: ${target.relative ?? target.real} already has exactly this content, so nothing was asked or written.` };
          }
          const call = gateCall(parsed.tool, parsed.args, resolver, { baseHash: proposal.base.hash, ...home });
          const preview = withNote(diffPreview(target.relative ?? target.real, !proposal.base.exists, diffText(proposal.base.text, proposal.newText)), await formatNote(proposal));
          const input = { callId: newCallId(), call, preview, source, editable: { kind: 'content' as const, text: proposal.newText } };
          return { kind: 'ready', parsed, request, proposal, input };
        }
        case 'run_in_terminal': {
          // However soon after activation this is asked, the analysis waits for the parser rather than asking for a
          // reason the parser would not give. A parser that cannot load leaves the analysis a parse error: it asks.
          await this.deps.commandJudgeReady();
          // Decided before the card is shown, so the card says whether its changes are reviewed, and the launch holds to it.
          const staging = await this.deps.terminal.stagingStatus?.();
          const call = gateCall(parsed.tool, parsed.args, resolver, home);
          // The analysis lines are filled by the gate from the decision it makes, so the panel shows exactly why it asks.
          const preview: Preview = { kind: 'command', command: parsed.args.command, cwd: commandFolder(call, resolver), analysis: [] };
          // An edit is analysed as the proposal was (same folder): the cards show what the edited command does.
          const editedCall = (command: string): GateCall => gateCall(parsed.tool, { ...parsed.args, command }, resolver, home);
          // The card says what its Allow once opens in the sandbox: the protected files it names, for this run only.
          const opens = protectedWritesNotice(this.writesOf(call, source, '').protected.map((absolute) => ({ absolute, relative: resolver.resolve(absolute).relative ?? absolute })), resolver.roots);
          const input = { callId: newCallId(), call, preview, source, editable: { kind: 'command' as const, text: parsed.args.command }, editedCall, ...(staging ? { staging } : {}), ...(opens !== undefined ? { notices: [opens] } : {}) };
          return { kind: 'ready', parsed, request, input };
        }
        default:
          return { kind: 'ready', parsed, request, input: { callId: newCallId(), call: gateCall(parsed.tool, parsed.args, resolver, home), preview: { kind: 'none' }, source } };
      }
    } catch (error) {
      return { kind: 'error', message: `${parsed.tool}: ${error instanceof ToolError ? error.message : String(error)}` };
    }
  }

  /**
   * The API's `evaluate`: the verdict the policy gives right now (nothing asked, run or logged). Any input is answered,
   * never thrown: one that is not a call (`readCall`) is denied, saying what is wrong.
   */
  async evaluate(input: unknown): Promise<Pick<Judgement, 'verdict' | 'reason' | 'warnings'>> {
    try {
      const read = readCall(input);
      if (!read.ok) {
        return { verdict: 'deny', reason: `denied: ${read.error}`, warnings: [] };
      }
      const prepared = await this.prepare({ ...read.call, source: apiSource(read.call.source) }, true);
      if (prepared.kind === 'error') {
        return { verdict: 'deny', reason: `denied: ${prepared.message}`, warnings: [] };
      }
      if (prepared.kind === 'answered') {
        return { verdict: 'allow', reason: `allowed: ${prepared.output}`, warnings: [] };
      }
      const { verdict, reason, warnings } = this.deps.gate.evaluate(prepared.input.call, { chatId: 'api', source: prepared.input.source });
      return { verdict, reason, warnings };
    } catch (error) {
      return { verdict: 'deny', reason: `denied: ${this.failed('evaluate', error)}`, warnings: [] };
    }
  }

  /** The API's `requestApproval`: waits for the gate's decision on one call and runs nothing; answers any input. */
  async requestApproval(input: unknown, options: RunOptions): Promise<GateResult | ApiDenial> {
    try {
      const read = readCall(input);
      if (!read.ok) {
        return { verdict: 'deny', decidedBy: 'policy', reason: `denied: ${read.error}`, callId: '' };
      }
      const prepared = await this.prepare({ ...read.call, source: apiSource(read.call.source) }, true);
      if (prepared.kind === 'error') {
        return { verdict: 'deny', decidedBy: 'policy', reason: `denied: ${prepared.message}`, callId: '' };
      }
      if (prepared.kind === 'answered') {
        // Nothing would change, so there is nothing to approve; the caller still decides whether to act at all.
        return { verdict: 'allow', decidedBy: 'policy', reason: `allowed: ${prepared.output}`, callId: '' };
      }
      return await this.ask(prepared, options);
    } catch (error) {
      return { verdict: 'deny', decidedBy: 'policy', reason: `denied: ${this.failed('requestApproval', error)}`, callId: '' };
    }
  }

  /** The API's `invokeTool`: runs one of Toolgate's tools through the gate, as the caller it names; answers any input. */
  async invokeTool(input: unknown, options: RunOptions): Promise<ToolCallResult> {
    const read = readCall(input);
    if (!read.ok) {
      return { ok: false, output: notRunOutput(read.error) };
    }
    return await this.runOne({ ...read.call, source: apiSource(read.call.source) }, options);
  }

  /** What a caller is told when handling its call failed unexpectedly (the stack goes to the log). */
  private failed(entry: string, error: unknown): string {
    this.deps.log.error(`${entry} failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    return `Toolgate could not handle this call (${error instanceof Error ? error.message : String(error)})`;
  }

  /** One call to the gate, its proposal kept for the diff editor while it waits. */
  private async ask(item: Ready, options: RunOptions): Promise<GateResult> {
    if (item.proposal) {
      this.proposals.set(item.input.callId, item.proposal);
    }
    try {
      const [outcome] = this.deps.gate.request([item.input], options);
      if (!outcome) {
        throw new Error('the gate returned no result');
      }
      return await outcome;
    } finally {
      this.proposals.delete(item.input.callId);
    }
  }

  /**
   * One call from outside on its own (through the API, a language-model tool or the MCP endpoint), checked at its entry
   * (`readCall`): its result, never thrown. Only what Toolgate can run runs (a built-in tool but ask_user, which is
   * answered in Toolgate's chat, or a running MCP server's tool); anything else is refused before the gate.
   */
  async runOne(call: CheckedCall, options: RunOptions): Promise<ToolCallResult> {
    if (call.tool === 'ask_user') {
      return { ok: false, output: notRunOutput("ask_user: it is answered in Toolgate's chat, and cannot be run from outside") };
    }
    try {
      const [result] = await this.runBatch([call], options);
      if (result === undefined) {
        throw new Error('no result');
      }
      return result;
    } catch (error) {
      // Not "nothing was run": it may have failed after running.
      return { ok: false, output: `Error: ${call.tool}: ${this.failed('a call', error)}` };
    }
  }

  /** One model turn: every call is prepared, the gated ones are shown together, results come back in order. */
  async runBatch(requests: ToolCallRequest[], options: RunOptions): Promise<ToolCallResult[]> {
    const prepared = await Promise.all(requests.map((request) => this.prepare(request)));
    const ready = prepared.filter((item): item is Ready => item.kind === 'ready');
    for (const item of ready) {
      if (item.proposal) {
        this.proposals.set(item.input.callId, item.proposal);
      }
    }
    try {
      const outcomes = this.deps.gate.request(
        ready.map((item) => item.input),
        options,
      );
      prepared.forEach((item, index) => {
        if (item.kind === 'ready' && this.deps.gate.isWaiting(item.input.callId)) {
          options.onStatus?.(index, 'waiting');
        }
      });
      // MCP calls run each as soon as it is decided, so one hung server never holds up another's result; the built-in
      // calls run one after another in the model's order (a write, then an edit of the same file, then a command).
      let builtins: Promise<unknown> = Promise.resolve();
      let readyIndex = 0;
      const results = prepared.map((item, index): Promise<ToolCallResult> => {
        if (item.kind === 'error') {
          return Promise.resolve({ ok: false, output: notRunOutput(item.message) });
        }
        if (item.kind === 'answered') {
          return Promise.resolve({ ok: true, output: item.output });
        }
        const outcome = outcomes[readyIndex++];
        if (!outcome) {
          return Promise.resolve({ ok: false, output: 'Error: the gate returned no result. Nothing was run.' });
        }
        const run = async (): Promise<ToolCallResult> => {
          const decision = await outcome;
          this.proposals.delete(item.input.callId);
          if (decision.verdict === 'allow') {
            options.onStatus?.(index, 'running');
          }
          const completed = await this.complete(item, decision, options, 0);
          const allowed = allowedNote(decision);
          const result = allowed === undefined ? completed : { ...completed, allowed };
          if (decision.verdict === 'allow') {
            this.deps.gate.noteRun(options.turn, item.input.call.argsHash, result.ok);
          }
          options.onResult?.(index, result);
          return result;
        };
        if (item.mcp) {
          return run();
        }
        const next = builtins.then(run);
        builtins = next.catch(() => undefined);
        return next;
      });
      return await Promise.all(results);
    } finally {
      for (const item of ready) {
        this.proposals.delete(item.input.callId);
      }
    }
  }

  private async complete(item: Ready, decision: GateResult, options: RunOptions, attempt: number): Promise<ToolCallResult> {
    if (decision.verdict === 'deny') {
      return { ok: false, output: deniedMessage(decision), decision };
    }
    if (item.mcp && this.deps.mcp) {
      try {
        const result = await this.deps.mcp.call(item.mcp.server, item.mcp.tool, item.mcp.args, options.signal ? { signal: options.signal } : {});
        const text = mcpText(result);
        const bounded = boundedForModel(text);
        const kept = bounded.cut && this.deps.results ? { kept: { ref: await this.deps.results.keep(text), chars: text.length } } : {};
        return result.isError === true
          ? { ok: false, output: `The MCP tool reported an error: ${bounded.text}`, decision, ...kept }
          : { ok: true, output: text === '' ? '(the tool returned no text)' : bounded.text, decision, ...kept };
      } catch (error) {
        return { ok: false, output: `Error: ${error instanceof Error ? error.message : String(error)}`, decision };
      }
    }
    const parsed = item.parsed;
    if (!parsed) {
      return { ok: true, output: decision.reason, decision };
    }
    const resolver = this.deps.resolver();
    const target = item.input.call.target ?? resolver.resolve('.');
    try {
      switch (parsed.tool) {
        case 'read_file':
          return { ok: true, output: await readFileText(this.deps.files, target), decision };
        case 'list_files':
          return { ok: true, output: await listFolder(this.deps.files, target), decision };
        case 'search_text':
          return { ok: true, output: await searchFolder(this.deps.files, target, parsed.args.query, options.signal), decision };
        case 'write_file':
        case 'edit_file':
          return await this.write(item, decision, options, attempt);
        case 'run_in_terminal': {
          const command = decision.edited ?? parsed.args.command;
          const timeoutSeconds = this.deps.terminalTimeoutSeconds();
          const cwd = commandFolder(item.input.call, resolver);
          const run = async (how: RunHow): Promise<TerminalCommandResult & { observed?: CommandGitEffect }> => {
            const start = () => this.deps.terminal.run(command, cwd, timeoutSeconds, options.signal, options.chatId, how);
            return this.deps.recorder ? await this.deps.recorder.commandRan(options.turn, { command, cwd }, start) : await start();
          };
          const promised = item.input.staging;
          const writes = this.protectedWrites(item, decision, command, options);
          const first = await run({ ...(promised ? { staged: promised.staged } : {}), ...writes });
          let stage = first.stage;
          try {
            // Failed because of the sandbox: the person may allow what the proxy refused (for this run, or in the
            // allow-list) and run it again in the sandbox, or run it once without it, asked on a card of its own.
            let result = first;
            let failure = sandboxFailure(result);
            let again: GateResult | undefined;
            const hosts: { entries: string[]; saved: boolean } = { entries: [], saved: false };
            for (let rerun = 0; failure !== undefined && !options.signal?.aborted; rerun++) {
              const offered = rerun < maxNarrowReruns ? entriesToAllow(result.refusals ?? []).filter((entry) => !hosts.entries.includes(entry)) : [];
              again = await this.askUnconfined(item, command, failure, options, offered);
              if (again.verdict !== 'allow') {
                break;
              }
              // What the failed run staged is dropped: the next run starts from the workspace as it is.
              await this.discard(stage);
              stage = undefined;
              if (again.remedy === undefined) {
                result = await run({ unconfined: true });
                break;
              }
              if (again.remedy === remedyIds.save && this.deps.allowDomains) {
                try {
                  await this.deps.allowDomains(offered);
                  hosts.saved = true;
                } catch (error) {
                  this.deps.log.warn(`could not add ${offered.join(', ')} to toolgate.sandbox.allowedDomains (${error instanceof Error ? error.message : String(error)}); allowed for this command only`);
                }
              }
              hosts.entries.push(...offered);
              result = await run({ ...(promised ? { staged: promised.staged } : {}), ...writes, allowDomains: hosts.entries });
              stage = result.stage;
              failure = sandboxFailure(result);
            }
            const sandbox = failure === undefined ? undefined : { failure, rerun: again?.verdict === 'allow' && again.remedy === undefined };
            const report = commandReport(result, { command, edited: decision.edited !== undefined, timeoutSeconds, ...(sandbox ? { sandbox } : {}), ...(hosts.entries.length > 0 ? { allowedHosts: hosts } : {}) });
            const unconfinedRun = again?.verdict === 'allow' && again.remedy === undefined;
            const unreviewed = stage === undefined && !unconfinedRun && result.notRun === undefined ? unreviewedReportLine(promised) : undefined;
            const staged = stage === undefined ? undefined : await this.landStaged(stage, command, item.input.source, options, writes.open);
            const landing = staged?.summary ?? [unreviewed, describeCommandChanges(result.observed)].filter((line) => line !== undefined && line !== '').join(' ');
            const landed = staged?.counts;
            return { ok: report.ok, output: landing === '' ? report.text : `${report.text}\n\n${landing}`, decision, ...(landed !== undefined && Object.values(landed).some((count) => count > 0) ? { landed } : {}) };
          } finally {
            // Removed after the model has its answer: a stage is in Toolgate's own cache, which no command can read, and
            // one left by a window that closed meanwhile is swept at the next start. (4 ms of a 40 ms staged command.)
            void this.discard(stage);
          }
        }
        case 'ask_user':
          return { ok: false, output: 'Error: ask_user is answered in the chat, not run as a tool here.', decision };
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, output: `Error: ${parsed.tool} failed: ${message}`, decision };
    }
  }

  /**
   * The files a command was judged to write (`writes`, absolute) and, of those, the protected ones (`protected`): only
   * a path named without a link on its way (one that leads elsewhere is judged where it leads, and never opened).
   */
  private writesOf(call: GateCall | undefined, source: string, chatId: string, taskId?: string): { writes: string[]; protected: string[] } {
    const resolver = this.deps.resolver();
    const writes: string[] = [];
    const found: string[] = [];
    for (const target of writesOf(call?.commandAnalysis)) {
      const write = gateCall('write_file', { path: target }, resolver);
      const located = write.target;
      if (located?.root === undefined || located.relative === undefined) {
        continue;
      }
      const real = path.join(located.root, located.relative);
      writes.push(real);
      const named = located.absolute === real || located.absolute.endsWith(`/${located.relative}`);
      if (named && this.deps.gate.evaluate(write, { chatId, source, taskId }).kind === 'protected') {
        found.push(real);
      }
    }
    return { writes, protected: found };
  }

  /**
   * What a command about to run may write: the files it was judged to write, and the protected ones the person allowed
   * it to write on its card (`open`). Only an Allow by the person (a rule or grant cannot allow a protected write), and
   * only of the command that runs (the edited one's own analysis, if edited).
   */
  private protectedWrites(item: Ready, decision: Extract<GateResult, { verdict: 'allow' }>, command: string, options: RunOptions): { writes: string[]; open: string[] } {
    const ran = decision.edited === undefined ? item.input.call : item.input.editedCall?.(command);
    const found = this.writesOf(ran, item.input.source, options.chatId, options.turn?.taskId);
    return { writes: found.writes, open: decision.decidedBy === 'person' ? found.protected : [] };
  }

  /** Judges and lands what a staged command wrote (./stagedLanding); what is not landed is discarded after. */
  private async landStaged(stage: Stage, command: string, source: string, options: RunOptions, approved: readonly string[] = []): Promise<LandingReport> {
    const landing = new StagedLanding({
      gate: this.deps.gate,
      files: this.deps.files,
      resolver: this.deps.resolver(),
      ...(this.deps.recorder ? { recorder: this.deps.recorder } : {}),
      log: this.deps.log,
      ...(this.deps.staging?.ignored ? { ignored: this.deps.staging.ignored } : {}),
      landIgnored: this.deps.staging?.landIgnored() ?? true,
      keepProposal: (callId, proposal) => {
        this.proposals.set(callId, proposal);
        return () => this.proposals.delete(callId);
      },
    });
    try {
      return await landing.land(stage, { command, source, chatId: options.chatId, approved, ...(options.signal ? { signal: options.signal } : {}), ...(options.turn ? { turn: options.turn } : {}) });
    } catch (error) {
      this.deps.log.error(`staged changes of \`${command}\` could not be landed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
      return { summary: `Its changes to the workspace were staged, but reading them failed (${error instanceof Error ? error.message : String(error)}): none landed.`, counts: landedCounts([]) };
    }
  }

  private async discard(stage: Stage | undefined): Promise<void> {
    if (stage !== undefined) {
      await discardStage(stage).catch((error: unknown) => this.deps.log.warn(`a command's stage could not be removed (${String(error)})`));
    }
  }

  /** Asks whether a command that failed in the sandbox may run once without it: always the person (no rule or grant). */
  private async askUnconfined(item: Ready, command: string, failure: string, options: RunOptions, hosts: readonly string[] = []): Promise<GateResult> {
    // Not editable: what runs again is exactly what failed.
    const input: GateInput = { ...item.input };
    delete input.editable;
    const call = { ...input.call, args: { ...(input.call.args as object), command }, unconfined: { failure, ...(hosts.length > 0 ? { narrowFixes: true } : {}) } };
    return await this.ask(
      {
        ...item,
        input: {
          ...input,
          callId: newCallId(),
          call,
          // What runs is the command that ran (the person's edit included), shown as such.
          preview: input.preview.kind === 'command' ? { ...input.preview, command } : input.preview,
          notices: [hosts.length === 0
            ? `It ran in the sandbox and failed: ${failure}. "Run without sandbox" runs it once more, with all your access.`
            : `It ran in the sandbox and failed: ${failure}. Allowing ${hostList(hosts)} runs it again in the sandbox with only that added; "Run without sandbox" runs it once more with all your access.`],
          ...(hosts.length > 0 ? { remedies: this.hostRemedies(hosts) } : {}),
        },
      },
      options,
    );
  }

  /** The narrow fixes for refused hosts, offered before "Run without sandbox": in the allow-list, or for one run. */
  private hostRemedies(hosts: readonly string[]): CallRemedy[] {
    const list = hostList(hosts);
    return [
      ...(this.deps.allowDomains
        ? [{
            id: remedyIds.save,
            label: `Allow ${hosts.join(', ')} on this machine`,
            title: `Adds ${list} to toolgate.sandbox.allowedDomains in your user settings (commands of every workspace on this machine may then reach ${hosts.length === 1 ? 'it' : 'them'}), then runs this command again in the sandbox`,
          }]
        : []),
      {
        id: remedyIds.once,
        label: 'Allow once for this command',
        title: `Runs this command again in the sandbox with ${list} reachable for that run only; the allow-list is not changed`,
      },
    ];
  }

  /** Writes exactly what was allowed, if the file is still what the diff showed; else asks again with a fresh diff. */
  private async write(item: Ready, decision: Extract<GateResult, { verdict: 'allow' }>, options: RunOptions, attempt: number): Promise<ToolCallResult> {
    const proposal = item.proposal;
    if (!proposal) {
      throw new ToolError('no proposal was prepared');
    }
    // Hunk by hunk: the base with only the accepted hunks of the shown diff (the same diff, computed the same way).
    // A hunk without a decision (one past what the panel could show) is accepted, as the contract says.
    const shown = decision.hunks !== undefined ? diffText(proposal.base.text, proposal.newText).hunks : undefined;
    const decided = new Map((decision.hunks ?? []).map((hunk) => [hunk.index, hunk]));
    const hunkDecisions = shown?.map((_, index) => decided.get(index) ?? { index, accepted: true });
    const text = textToWrite(proposal, decision);
    // Never through a link put on its way since, nor through a hard link (./applyWrite).
    const applied = await applyWrite(this.deps.files, proposal.target, proposal.base, text, proposal.target.input);
    // A binary file replaced whole is not kept as a checkpoint (checkpoints hold text): its card said undo cannot bring it back.
    if (applied.kind === 'written' && proposal.base.format.kind === 'binary') {
      return { ok: true, output: writtenMessage(proposal, { text, savedToDisk: applied.savedToDisk, edited: decision.edited !== undefined }), decision };
    }
    if (applied.kind === 'written') {
      await this.deps.recorder?.fileWritten(options.turn, {
        path: proposal.target.absolute,
        ...(proposal.target.relative !== undefined ? { relativePath: proposal.target.relative } : {}),
        tool: item.input.call.tool,
        before: proposal.base.exists ? proposal.base.text : null,
        after: text,
      });
      const written = writtenMessage(proposal, { text, savedToDisk: applied.savedToDisk, edited: decision.edited !== undefined });
      if (shown !== undefined && hunkDecisions !== undefined) {
        const report = describeHunkDecisions(proposal.target.relative ?? proposal.target.real, proposal.base.text, proposal.newText, hunkDecisions, { hunks: shown });
        return { ok: true, output: `${written}\n${report.text}`, decision };
      }
      return { ok: true, output: written, decision };
    }
    if (attempt >= maxConflictRetries) {
      return { ok: false, output: `Error: ${applied.detail}, again and again; nothing was written. Read the file and try again.`, decision };
    }
    this.deps.log.info(`${item.input.call.tool}: ${applied.detail}; nothing was written, asking again with a fresh diff`);
    const fresh = await this.prepare(item.request);
    if (fresh.kind === 'error') {
      return { ok: false, output: `Error: ${applied.detail}, and the call no longer applies: ${fresh.message}. Nothing was written.` };
    }
    if (fresh.kind === 'answered') {
      return { ok: true, output: `${applied.detail}, and it now already has exactly this content: nothing was written.` };
    }
    fresh.input.notices = [`Asked again: ${applied.detail}, so nothing was written. This is a fresh diff.`];
    return await this.complete(fresh, await this.ask(fresh, options), options, attempt + 1);
  }
}

/** Entries of the allow-list as a sentence names them: `a`, `b` and `c`. */
function hostList(hosts: readonly string[]): string {
  const quoted = hosts.map((host) => `\`${host}\``);
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1) ?? ''}`;
}
