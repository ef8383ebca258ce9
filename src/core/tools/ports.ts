/**
 * What the tool service needs of the editor, as small ports. The VS Code implementations live in src/vscode
 * (`documents/workspaceFiles.ts`, `terminal/terminalRunner.ts`); unit tests and benches use in-memory or plain-Node ones.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FileFormat } from '../files/encoding';
import type { StagingStatus } from '../sandbox/commandSandbox';
import type { McpModelTool } from '../mcp/tools';
import type { TerminalCommandResult } from '../terminal/commandTerminal';
import type { RunHow } from '../terminal/confinedRun';

/** A file as a write starts from it: an open editor's unsaved buffer if it has one, else the disk. */
export interface FileSnapshot {
  exists: boolean;
  /** The decoded text; '' for a binary file (and a file that does not exist). */
  text: string;
  /**
   * sha256 of the file's bytes (an unsaved buffer: of the bytes it would be saved as), so a change is seen whatever
   * the encoding, and an encoding that decodes differently never looks like one.
   */
  hash: string;
  /** How the text is stored, and written back (a new file: UTF-8); or that the file is binary. */
  format: FileFormat;
}

export type ApplyOutcome =
  | { kind: 'written'; savedToDisk: boolean }
  /** The file is no longer what the diff was computed from: nothing was written. */
  | { kind: 'changed'; detail: string };

export type FileErrorKind = 'not-found' | 'is-folder' | 'not-a-folder' | 'too-large' | 'refused' | 'no-match' | 'binary' | 'unencodable' | 'link';

/** A file tool's failure the model is told about, with what went wrong as a kind. */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly kind: FileErrorKind = 'refused',
  ) {
    super(message);
  }
}

/** Workspace files by absolute path. */
export interface WorkspaceFiles {
  /** Throws ToolError ('is-folder', 'too-large') when the path cannot be written as a text file. */
  snapshot(absolute: string): Promise<FileSnapshot>;
  /**
   * Writes `text` if, and only if, the file is still `base` (else `changed`), in `base.format`'s encoding (over a
   * binary file or a new one: UTF-8), byte-exact outside what changed; throws ToolError if the editor refuses or the
   * encoding cannot hold the text ('unencodable'): nothing is written then.
   */
  apply(absolute: string, base: FileSnapshot, text: string, label: string): Promise<ApplyOutcome>;
  /** A folder's entries, sorted, folders with a trailing `/`. */
  list(absolute: string): Promise<string[] | { kind: 'not-found' | 'not-a-folder' }>;
  /** Lines containing `query` under the folder, as `relative:line: text`, at most `limit`. */
  search(absolute: string, query: string, limit: number, signal?: AbortSignal): Promise<string[]>;
}

export type { RunHow };

/** Runs an allowed command exactly as judged (the real one: the core's confined run over the chat's terminal). */
export interface CommandRunner {
  run(command: string, cwd: string, timeoutSeconds: number, signal?: AbortSignal, chatId?: string, how?: RunHow): Promise<TerminalCommandResult>;
  /** Whether a command's changes would be reviewed before they land, or why not: asked before its card is shown. */
  stagingStatus?(): Promise<StagingStatus>;
}

/** What the tool service needs of MCP: the model's tool names resolved, and calls to servers. */
export interface McpBridge {
  resolve(modelName: string): McpModelTool | undefined;
  call(server: string, tool: string, args: Record<string, unknown>, options: { signal?: AbortSignal }): Promise<CallToolResult>;
}

/** Keeps a tool result too long for the model whole, for the person: answers a reference to open it by. */
export interface ResultKeeper {
  keep(text: string): Promise<string>;
}

export type { LogPort } from '../logPort';
