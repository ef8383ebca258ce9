/**
 * The built-in tools as the model sees them: name, description, zod parameters and risk, apart from their
 * implementations (src/vscode). Arguments from the model are parsed here; invalid ones never reach the gate.
 *
 * Vocabulary, not a tool's running: the policy and the grant options (approval/) read it, and so do the tool service
 * (tools/) and the agent, so it sits beside them at the core's root (in tools/ it made approval and tools import each
 * other).
 */
import * as z from '../zod';

const RelativeOrAbsolutePath = z
  .string().check(z.minLength(1, 'must not be empty'), z.maxLength(4096, 'is longer than 4096 characters'), z.refine((value) => !value.includes('\0'), 'must not contain a NUL character'));

export const toolParams = {
  read_file: z.strictObject({ path: RelativeOrAbsolutePath }),
  list_files: z.strictObject({ path: z.optional(RelativeOrAbsolutePath) }),
  search_text: z.strictObject({ query: z.string().check(z.minLength(1, 'must not be empty')), path: z.optional(RelativeOrAbsolutePath) }),
  write_file: z.strictObject({ path: RelativeOrAbsolutePath, content: z.string() }),
  edit_file: z.strictObject({
    path: RelativeOrAbsolutePath,
    edits: z
      .array(z.strictObject({ old: z.string().check(z.minLength(1, 'must not be empty')), new: z.string() })).check(z.minLength(1, 'needs at least one edit')),
  }),
  run_in_terminal: z.strictObject({
    command: z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(100_000)),
    cwd: z.optional(RelativeOrAbsolutePath),
  }),
  ask_user: z.strictObject({
    question: z.string().check(z.minLength(1, 'must not be empty')),
    options: z.array(z.string().check(z.minLength(1))).check(z.minLength(1, 'needs at least one option')),
    allowFreeText: z.optional(z.boolean()),
  }),
} as const;

export type BuiltinToolName = keyof typeof toolParams;
export type ToolArgs<T extends BuiltinToolName> = z.infer<(typeof toolParams)[T]>;

/** What running a tool can do: read the workspace, change files, execute code, or only talk to the person. */
export type ToolRisk = 'read' | 'write' | 'execute' | 'interact';

export interface ToolDefinition {
  name: BuiltinToolName;
  description: string;
  risk: ToolRisk;
}

export const builtinTools: Readonly<Record<BuiltinToolName, ToolDefinition>> = {
  read_file: {
    name: 'read_file',
    risk: 'read',
    description: 'Read a text file. `path` is relative to the first workspace folder unless absolute.',
  },
  list_files: {
    name: 'list_files',
    risk: 'read',
    description: 'List the entries of a folder (default: the workspace folder). Folders end with `/`.',
  },
  search_text: {
    name: 'search_text',
    risk: 'read',
    description: 'Search text files for a literal string; returns `path:line: text` lines.',
  },
  write_file: {
    name: 'write_file',
    risk: 'write',
    description: 'Create a file or replace its whole content. The person sees the diff and must approve it.',
  },
  edit_file: {
    name: 'edit_file',
    risk: 'write',
    description:
      'Replace exact text in a file: each `old` must occur exactly once. The person sees the diff and must approve it.',
  },
  run_in_terminal: {
    name: 'run_in_terminal',
    risk: 'execute',
    description:
      'Run a command line with bash (non-interactive: no aliases, no rc files) in the workspace folder or `cwd`, shown in a VS Code terminal; returns its output and exit code. Needs approval.',
  },
  ask_user: {
    name: 'ask_user',
    risk: 'interact',
    description: 'Ask the person a question with a list of options (and optionally free text); returns the answer.',
  },
};

export function isBuiltinTool(name: string): name is BuiltinToolName {
  return Object.prototype.hasOwnProperty.call(toolParams, name);
}

export type ParsedCall =
  | { [T in BuiltinToolName]: { ok: true; tool: T; args: ToolArgs<T> } }[BuiltinToolName]
  | { ok: false; kind: 'unknown-tool' | 'invalid-json' | 'invalid-arguments'; error: string };

/**
 * Parses a built-in tool's arguments from `unknown` (a JSON string from the model, or an object from the API).
 * The error names every problem precisely, for the model to correct itself.
 */
export function parseBuiltinCall(tool: string, rawArgs: unknown): ParsedCall {
  if (!isBuiltinTool(tool)) {
    return { ok: false, kind: 'unknown-tool', error: `unknown tool '${tool}'. Known tools: ${Object.keys(toolParams).join(', ')}` };
  }
  let value = rawArgs;
  if (typeof rawArgs === 'string') {
    try {
      value = JSON.parse(rawArgs === '' ? '{}' : rawArgs) as unknown;
    } catch (error) {
      return { ok: false, kind: 'invalid-json', error: `${tool}: the arguments are not valid JSON (${(error as Error).message})` };
    }
  }
  const parsed = toolParams[tool].safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'arguments'}: ${issue.message}`)
      .join('; ');
    return { ok: false, kind: 'invalid-arguments', error: `${tool}: invalid arguments: ${problems}` };
  }
  return { ok: true, tool, args: parsed.data } as ParsedCall;
}

/** The path a call writes (write/edit) or reads, if any. */
export function targetPathOf(call: { tool: string; args: unknown }): string | undefined {
  const args = call.args as Record<string, unknown> | null;
  if (args === null || typeof args !== 'object') {
    return undefined;
  }
  switch (call.tool) {
    case 'read_file':
    case 'write_file':
    case 'edit_file':
      return typeof args['path'] === 'string' ? args['path'] : undefined;
    case 'list_files':
    case 'search_text':
      return typeof args['path'] === 'string' ? args['path'] : '.';
    case 'run_in_terminal':
      return typeof args['cwd'] === 'string' ? args['cwd'] : '.';
    default:
      return undefined;
  }
}
