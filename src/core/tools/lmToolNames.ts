/**
 * The names of Toolgate's language-model tools (the public contract: `toolgate_<tool>`) and the short message VS Code
 * shows while one runs. No imports: the extension's activation registers the tools by these names before the rest of
 * Toolgate loads.
 */

/** The built-in tools offered to other agents, in the order they are listed. `ask_user` is not: a caller asks its own way. */
export const lmToolSources = ['write_file', 'edit_file', 'run_in_terminal', 'read_file', 'list_files', 'search_text'] as const;
export type LmToolSource = (typeof lmToolSources)[number];

/** `write_file` -> `toolgate_write_file`. */
export const lmToolName = (tool: LmToolSource): string => `toolgate_${tool}`;

const verbs: Record<LmToolSource, string> = {
  write_file: 'Writing',
  edit_file: 'Editing',
  run_in_terminal: 'Running',
  read_file: 'Reading',
  list_files: 'Listing',
  search_text: 'Searching for',
};

/** "Toolgate: Writing notes.txt": the path, the command or the query, cut to one short line. */
export function lmInvocationMessage(tool: LmToolSource, input: unknown): string {
  const record = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const value = record['command'] ?? record['query'] ?? record['path'] ?? '';
  const text = typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '';
  const shown = text.length > 80 ? `${text.slice(0, 79)}…` : text;
  return `Toolgate: ${verbs[tool]}${shown === '' ? '' : ` ${shown}`} (it waits for approval where the rules say so)`;
}
