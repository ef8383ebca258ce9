/**
 * Toolgate's tools as VS Code language-model tools (`vscode.lm.registerTool`), for the agents people already use in
 * VS Code (Copilot agent mode, other extensions): named `toolgate_<tool>`, with the built-in tools' arguments, and
 * described and shaped from the same zod schemas the agent's tools are. Their calls go through the gate as the agent's
 * do. `ask_user` is not offered: a caller has its own way to ask.
 */
import { lmToolName, lmToolSources, type LmToolSource } from './lmToolNames';
import type { ToolSpec } from '../llm/client';
import { builtinTools } from '../toolDefinitions';
import { builtinToolSpecs } from './specs';
import { notRunOutput, readToolCall } from './callInput';
import type { RunOptions, ToolCallResult, ToolService } from './service';
import { lmToolCaller } from '../callers';

export { lmToolName, lmToolSources, type LmToolSource } from './lmToolNames';

/** The built-in tool a language-model tool name stands for, if it is one of Toolgate's. */
export function lmToolSource(name: string): LmToolSource | undefined {
  return lmToolSources.find((tool) => lmToolName(tool) === name);
}

const displayNames: Record<LmToolSource, string> = {
  write_file: 'Toolgate: Write File',
  edit_file: 'Toolgate: Edit File',
  run_in_terminal: 'Toolgate: Run in Terminal',
  read_file: 'Toolgate: Read File',
  list_files: 'Toolgate: List Files',
  search_text: 'Toolgate: Search Text',
};

export { lmToolCaller } from '../callers';

/**
 * A call of one of these tools by another agent: its input checked first (src/core/tools/callInput.ts: a JSON value
 * within the bounds, whatever VS Code hands over), then through the gate as that caller. Answers, never throws.
 */
export async function runLmTool(tools: Pick<ToolService, 'runOne'>, tool: LmToolSource, input: unknown, options: RunOptions): Promise<ToolCallResult> {
  const read = readToolCall(tool, input);
  if (!read.ok) {
    return { ok: false, output: notRunOutput(read.error) };
  }
  return await tools.runOne({ ...read.call, source: lmToolCaller }, options);
}

/** What a tool says it does to the model of another agent: the built-in description, and what the gate may do. */
function modelDescription(description: string): string {
  return `${description} Goes through Toolgate's approval gate: a person may allow, edit, review hunk by hunk or deny it (with a reason, returned here).`;
}

/** Each offered tool with its spec (the built-in description and JSON schema) and whether it only reads. */
function offeredTools(): { tool: LmToolSource; spec: ToolSpec; readOnly: boolean }[] {
  const specs = new Map(builtinToolSpecs(lmToolSources).map((spec) => [spec.name, spec]));
  return lmToolSources.map((tool) => {
    const spec = specs.get(tool);
    if (spec === undefined) {
      throw new RangeError(`no spec for ${tool}`);
    }
    return { tool, spec, readOnly: builtinTools[tool].risk === 'read' };
  });
}

/** The tools of Toolgate's MCP endpoint: the built-in tools' names and arguments, described as the language-model tools are. */
export function gateToolListing(): {
  name: LmToolSource;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; openWorldHint: boolean };
}[] {
  return offeredTools().map(({ tool, spec, readOnly }) => {
    return {
      name: tool,
      title: displayNames[tool],
      description: modelDescription(spec.description),
      inputSchema: { ...spec.parameters, type: 'object' },
      // Hints for the client's own prompts (VS Code does not ask before a read-only tool): what the tool may do, not
      // what the gate will allow. A command can do anything, so it is not read-only, and may reach the network.
      annotations: { readOnlyHint: readOnly, destructiveHint: !readOnly, openWorldHint: tool === 'run_in_terminal' },
    };
  });
}

/**
 * The `contributes.languageModelTools` entries of package.json: a test checks that package.json says exactly this,
 * and `node --import tsx scripts/languageModelTools.ts` writes it there.
 */
export function lmToolContributions(): Record<string, unknown>[] {
  return offeredTools().map(({ tool, spec, readOnly }) => {
    return {
      name: lmToolName(tool),
      toolReferenceName: lmToolName(tool),
      displayName: displayNames[tool],
      canBeReferencedInPrompt: true,
      icon: '$(shield)',
      tags: ['toolgate'],
      userDescription: `${displayNames[tool].replace('Toolgate: ', '')} through Toolgate's gate: ${readOnly ? 'runs without asking unless a rule says otherwise' : 'waits for your approval, with the exact diff or command'}.`,
      modelDescription: modelDescription(spec.description),
      inputSchema: spec.parameters,
    };
  });
}
