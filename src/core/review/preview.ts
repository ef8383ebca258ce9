/**
 * What a waiting call shows of its change, as the core builds it: a file's diff, a command, or nothing. The core's own
 * types, so the gate and the tools need not import the webview contract; src/core/views hands a preview to the
 * contract as it is (the compiler checks there that each one is a contract Preview).
 */

/** One line of a diff, compact: kind (context/add/del), old and new line numbers, text. */
export type DiffRow = ['c' | 'a' | 'd', number | null, number | null, string];

export interface DiffHunkRows {
  header: string;
  rows: DiffRow[];
}

export interface DiffPreview {
  kind: 'diff';
  path: string;
  isNewFile: boolean;
  added: number;
  removed: number;
  hunks: DiffHunkRows[];
  // `| undefined` as the contract's inferred type has it, so a preview read back from a view fits too.
  note?: string | undefined;
}

/** A command; `analysis` is filled in by the views from the judgement (one line per finding). */
export interface CommandPreview {
  kind: 'command';
  command: string;
  cwd: string;
  analysis: { text: string; verdict: 'allow' | 'ask' | 'deny' | 'info' }[];
}

export type Preview = DiffPreview | CommandPreview | { kind: 'none' };
