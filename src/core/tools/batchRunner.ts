/**
 * The batch runner: a model turn's calls prepared a few at a time (./preparedCall), the gated ones asked of the gate
 * together, each run as soon as it is decided (./completeCall), results in the model's order. The proposals of waiting
 * writes and edits are kept here while they wait.
 */
import type { GateResult } from '../approval/gate';
import { allowedNote } from '../views/grants';
import { notRunOutput } from './callInput';
import { completeCall } from './completeCall';
import { Intake } from './intake';
import type { Proposal } from './fileTools';
import { prepareCall, type Prepared, type PrepareQueue, type Ready } from './preparedCall';
import type { RunOptions, ToolCallRequest, ToolCallResult, ToolServiceDeps } from './service';

/**
 * How many calls are prepared at once (arguments parsed, the file read, the diff made). Calls beyond it wait their
 * turn: 200 arriving together were all prepared in the same few turns of the event loop, and their synchronous parts
 * added up to 100-200 ms in which the extension host (every extension in it) could do nothing else.
 */
const preparedAtOnce = 4;

/** Each value, awaited only if some of them are promises: a batch of calls prepared at once spends no turn on it. */
function allOf<T>(items: (T | Promise<T>)[]): T[] | Promise<T[]> {
  return items.some((item) => item instanceof Promise) ? Promise.all(items) : (items as T[]);
}

export class BatchRunner {
  /** Proposed contents of waiting edits, for "Open in diff editor"; an entry lives while its call waits. */
  readonly proposals = new Map<string, Proposal>();
  private readonly intake = new Intake(preparedAtOnce);

  constructor(readonly deps: ToolServiceDeps) {}

  /**
   * `ownTool`: a tool that is neither built in nor an MCP server's may be the caller's own (the API's requestApproval
   * and evaluate), asked about and run by the caller. Whatever is run here (the agent's calls, invokeTool, the
   * language-model tools, the MCP endpoint) is only what Toolgate itself can run: anything else is an error.
   */
  prepare(request: ToolCallRequest, ownTool = false): Promise<Prepared> {
    const prepared = prepareCall(this.deps, request, ownTool, this.queue);
    return prepared instanceof Promise ? prepared : Promise.resolve(prepared);
  }

  /** How preparing waits its turn (see prepareCall). */
  private readonly queue: PrepareQueue = (work) => this.intake.run(work);

  /** One call to the gate, its proposal kept for the diff editor while it waits. */
  async ask(item: Ready, options: RunOptions): Promise<GateResult> {
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

  /** One model turn: every call is prepared, the gated ones are shown together, results come back in order. */
  async runBatch(requests: ToolCallRequest[], options: RunOptions): Promise<ToolCallResult[]> {
    const each = allOf(requests.map((request) => prepareCall(this.deps, request, false, this.queue)));
    const prepared = each instanceof Promise ? await each : each;
    const ready = prepared.filter((item): item is Ready => item.kind === 'ready');
    for (const item of ready) {
      if (item.proposal) {
        this.proposals.set(item.input.callId, item.proposal);
      }
    }
    try {
      const outcomes = this.deps.gate.decide(
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
        const run = (): Promise<ToolCallResult> => this.settle(item, index, outcome, options);
        if (item.mcp) {
          return run();
        }
        const next = builtins.then(run);
        builtins = next.catch(() => undefined);
        return next;
      });
      // One call's result awaited alone: Promise.all would spend turns on a batch of one (what most model turns are).
      const [only] = results;
      return results.length === 1 && only !== undefined ? [await only] : await Promise.all(results);
    } finally {
      for (const item of ready) {
        this.proposals.delete(item.input.callId);
      }
    }
  }

  /** A call of a batch, once decided: run if allowed, the run noted for the gate, its result told as soon as it is known. */
  private async settle(item: Ready, index: number, outcome: GateResult | Promise<GateResult>, options: RunOptions): Promise<ToolCallResult> {
    const decision = outcome instanceof Promise ? await outcome : outcome;
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
  }

  /** Carries out a decided call (./completeCall); `attempt` counts a write's asks again after its file changed. */
  complete(item: Ready, decision: GateResult, options: RunOptions, attempt: number): Promise<ToolCallResult> {
    return completeCall(this, item, decision, options, attempt);
  }
}
