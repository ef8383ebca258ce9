/**
 * A decided call, carried out as the gate decided it: a denial told to the model, an allowed MCP call made on its
 * server, an allowed built-in tool run (reads here; writes and commands in ./writeCall and ./commandCall).
 */
import type { GateResult } from '../approval/gate';
import type { BatchRunner } from './batchRunner';
import { runCommand } from './commandCall';
import { listFolder, readFileText, searchFolder } from './fileTools';
import { commandFolder } from './gateCall';
import { mcpText } from './mcpCalls';
import type { McpBridge, ResultKeeper } from './ports';
import type { Ready } from './preparedCall';
import { boundedForModel, deniedMessage } from './results';
import type { RunOptions, ToolCallResult } from './service';
import { writeAllowed } from './writeCall';

/** `attempt`: how many times a write was asked again because its file changed (./writeCall). */
export function completeCall(runner: BatchRunner, item: Ready, decision: GateResult, options: RunOptions, attempt: number): Promise<ToolCallResult> {
  if (decision.verdict === 'deny') {
    return Promise.resolve({ ok: false, output: deniedMessage(decision), decision });
  }
  // Each way's own promise, handed on as it is: no layer of this function's own between the call and its caller.
  return item.mcp && runner.deps.mcp ? callMcp({ mcp: runner.deps.mcp, results: runner.deps.results }, item.mcp, decision, options) : completeBuiltin(runner, item, decision, options, attempt);
}

/** An allowed built-in tool: a read run here, a write or a command in its own file. */
async function completeBuiltin(runner: BatchRunner, item: Ready, decision: Extract<GateResult, { verdict: 'allow' }>, options: RunOptions, attempt: number): Promise<ToolCallResult> {
  const parsed = item.parsed;
  if (!parsed) {
    return { ok: true, output: decision.reason, decision };
  }
  const resolver = runner.deps.resolver();
  const target = item.input.call.target ?? resolver.resolve('.');
  try {
    switch (parsed.tool) {
      case 'read_file':
        return { ok: true, output: await readFileText(runner.deps.files, target), decision };
      case 'list_files':
        return { ok: true, output: await listFolder(runner.deps.files, target), decision };
      case 'search_text':
        return { ok: true, output: await searchFolder(runner.deps.files, target, parsed.args.query, options.signal), decision };
      case 'write_file':
      case 'edit_file':
        return await writeAllowed(runner, item, decision, options, attempt);
      case 'run_in_terminal':
        return await runCommand(runner, item, decision, options, { command: decision.edited ?? parsed.args.command, cwd: commandFolder(item.input.call, resolver) });
      case 'ask_user':
        return { ok: false, output: 'Error: ask_user is answered in the chat, not run as a tool here.', decision };
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, output: `Error: ${parsed.tool} failed: ${message}`, decision };
  }
}

/** An allowed MCP call: the server's answer, cut for the model when too long (kept whole for the person). */
async function callMcp(ports: { mcp: McpBridge; results: ResultKeeper | undefined }, call: NonNullable<Ready['mcp']>, decision: GateResult, options: RunOptions): Promise<ToolCallResult> {
  try {
    const result = await ports.mcp.call(call.server, call.tool, call.args, options.signal ? { signal: options.signal } : {});
    const text = mcpText(result);
    const bounded = boundedForModel(text);
    const kept = bounded.cut && ports.results ? { kept: { ref: await ports.results.keep(text), chars: text.length } } : {};
    return result.isError === true
      ? { ok: false, output: `The MCP tool reported an error: ${bounded.text}`, decision, ...kept }
      : { ok: true, output: text === '' ? '(the tool returned no text)' : bounded.text, decision, ...kept };
  } catch (error) {
    return { ok: false, output: `Error: ${error instanceof Error ? error.message : String(error)}`, decision };
  }
}
