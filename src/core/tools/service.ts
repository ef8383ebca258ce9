/**
 * Runs tool calls through the gate: parse (invalid arguments never reach the panel), prepare (resolve paths, compute
 * the exact proposed content and its diff, analyse the command), ask the gate for the whole batch, then run what was
 * allowed exactly as shown. An edit whose file changed after its diff was shown is not written: it asks again with a
 * fresh diff. The editor is reached only through the ports of `./ports`.
 *
 * This is the service's face: what a call and its result are, and the entries other code uses, each checking its
 * input before anything else (./callInput). The work is in its parts: the batch runner (./batchRunner), preparing a
 * call (./preparedCall), carrying out a decided one (./completeCall: ./writeCall, ./commandCall, ./sandboxReruns).
 */
import type { Gate, GateResult } from '../approval/gate';
import type { PathResolver } from '../approval/paths';
import type { Judgement } from '../approval/policy';
import { apiSource } from '../callers';
import type { ChangeRecorder } from '../checkpoints/recorder';
import type { TurnRef } from '../checkpoints/store';
import type { AllowedNote } from '../views/grants';
import { BatchRunner } from './batchRunner';
import { notRunOutput, readCall, type CheckedCall } from './callInput';
import type { Proposal } from './fileTools';
import type { CommandRunner, LogPort, McpBridge, ResultKeeper, WorkspaceFiles } from './ports';
import type { LandedCounts } from './landingSummary';
import type { StagedLandingDeps } from './stagedLanding';

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

type ApiDenial = { verdict: 'deny'; decidedBy: 'policy'; reason: string; callId: '' };

export class ToolService {
  /** Prepares, asks and runs calls; keeps the proposals of waiting writes and edits. */
  private readonly calls: BatchRunner;

  constructor(private readonly deps: ToolServiceDeps) {
    this.calls = new BatchRunner(deps);
  }

  /** The proposal of a waiting write or edit. */
  proposal(callId: string): Proposal | undefined {
    return this.calls.proposals.get(callId);
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
      const prepared = await this.calls.prepare({ ...read.call, source: apiSource(read.call.source) }, true);
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
      const prepared = await this.calls.prepare({ ...read.call, source: apiSource(read.call.source) }, true);
      if (prepared.kind === 'error') {
        return { verdict: 'deny', decidedBy: 'policy', reason: `denied: ${prepared.message}`, callId: '' };
      }
      if (prepared.kind === 'answered') {
        // Nothing would change, so there is nothing to approve; the caller still decides whether to act at all.
        return { verdict: 'allow', decidedBy: 'policy', reason: `allowed: ${prepared.output}`, callId: '' };
      }
      return await this.calls.ask(prepared, options);
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
  runBatch(requests: ToolCallRequest[], options: RunOptions): Promise<ToolCallResult[]> {
    return this.calls.runBatch(requests, options);
  }
}
