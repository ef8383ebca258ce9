/**
 * The bridge from the agent loop to the tool service for one model turn: its gated calls go to the gate as one batch
 * (each result shown as soon as it is there), its `ask_user` calls go to the chat; each result comes back as the agent
 * loop takes it.
 */
import type { TaskRef } from '../checkpoints/recorder';
import type { ToolCall } from '../llm/client';
import type { ToolCallResult, ToolService } from '../tools/service';
import type { ToolDecisionNote, ToolOutcome, ToolRunner } from './agent';

/** What a turn's calls reach: the tool service for the gated ones, the chat's question for `ask_user`. */
export interface TurnCallPorts {
  tools: Pick<ToolService, 'runBatch'>;
  ask: (call: ToolCall, signal: AbortSignal) => Promise<ToolOutcome>;
}

export async function runTurnCalls(
  calls: ToolCall[],
  where: { chatId: string; task: TaskRef; turn: number },
  ports: TurnCallPorts,
  options: Parameters<ToolRunner['run']>[1],
): Promise<ToolOutcome[]> {
  const indexed = calls.map((call, index) => ({ call, index }));
  const gated = indexed.filter(({ call }) => call.name !== 'ask_user');
  const asked = indexed.filter(({ call }) => call.name === 'ask_user');
  const outcomes: ToolOutcome[] = calls.map((call) => ({ id: call.id, ok: false, status: 'failed', output: 'Error: not run.' }));
  const runGated = async (): Promise<void> => {
    if (gated.length === 0) {
      return;
    }
    const results = await ports.tools.runBatch(
      gated.map(({ call }) => ({ tool: call.name, args: call.arguments, source: 'agent' })),
      {
        chatId: where.chatId,
        turn: { ...where.task, turn: Math.max(0, where.turn) },
        signal: options.signal,
        onStatus: (index, status) => {
          const call = gated[index]?.call;
          if (call) {
            options.onStatus(call.id, status);
          }
        },
        // Shown as soon as it is there: a quick call's result does not wait for a slow one of the same turn.
        onResult: (index, result) => {
          const call = gated[index]?.call;
          if (call) {
            const { status, ...detail } = toolOutcome(call, result);
            options.onStatus(call.id, status, detail);
          }
        },
      },
    );
    results.forEach((result, position) => {
      const item = gated[position];
      if (item) {
        outcomes[item.index] = toolOutcome(item.call, result);
      }
    });
  };
  await Promise.all([
    runGated(),
    ...asked.map(async ({ call, index }) => {
      outcomes[index] = await ports.ask(call, options.signal);
    }),
  ]);
  return outcomes;
}

/** A call's result as the agent loop takes it: its status in the chat, what the model is told, how it was allowed. */
function toolOutcome(call: ToolCall, result: ToolCallResult): ToolOutcome {
  const status = result.decision?.verdict === 'deny' ? 'denied' : result.ok ? 'done' : 'failed';
  const decided = decisionNote(call, result);
  const note = result.landed === undefined ? decided : { ...decided, landed: result.landed };
  return { id: call.id, ok: result.ok, output: result.output, status, ...(note ? { note } : {}), ...(result.kept ? { kept: result.kept } : {}) };
}

/** What the chat entry of an allowed call says about how it was allowed (typed, from the gate's result). */
function decisionNote(call: ToolCall, result: ToolCallResult): ToolDecisionNote | undefined {
  const decision = result.decision;
  if (decision?.verdict !== 'allow') {
    return undefined;
  }
  const note: ToolDecisionNote = {
    ...result.allowed,
    ...(decision.edited !== undefined && call.name === 'run_in_terminal' ? { ran: decision.edited } : {}),
  };
  return Object.keys(note).length > 0 ? note : undefined;
}
