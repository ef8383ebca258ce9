/**
 * The person's past decisions, read from the audit log (its JSON lines) and grouped by what a rule could match: a
 * command prefix (through the shell analysis), a file glob for writes and edits, an MCP tool. Only what the person
 * decided on a call that asked counts: calls allowed by a rule or grant, timeouts and cancellations asked nobody.
 * Nothing here comes from the model or from a tool's output: the log is written by the gate alone.
 */
import path from 'node:path';
import { AuditLine, type AuditEntry } from '../audit/auditLog';
import { analyseCommand } from '../shell/analysis';
import { commandTable } from '../shell/commandTable';

/** One call that asked the person, and what the person did. */
export interface PastDecision {
  callId: string;
  tool: string;
  /** The command, the workspace-relative path, or the MCP tool, as the audit log names it. */
  target: string;
  askedAt: string;
  /** Unset while nobody decided (or a timeout / cancellation settled it). */
  outcome?: 'allow' | 'deny';
  /** How long the person looked: decision time minus waiting since, in ms. */
  lookedMs?: number;
}

export type GroupKind = 'command' | 'edits' | 'mcp';

export interface DecisionGroup {
  /** Stable for the same matcher: `command:npm test`, `edits:src/*.ts`, `mcp:mcp__files__read`. */
  id: string;
  kind: GroupKind;
  /** The tool for MCP groups; `run_in_terminal` for commands; `write_file` for edits (rules cover both file tools). */
  tool: string;
  /** What a rule would match: the narrowest command prefix, the narrowest glob, the MCP tool. */
  matcher: string;
  decisions: PastDecision[];
  asked: number;
  allowed: number;
  denied: number;
  /** Median of how long the person looked at the decided calls, in ms (undefined when none was decided). */
  medianLookMs?: number;
}

const fileTools = new Set(['write_file', 'edit_file']);

/** The decisions the person made on calls that asked, oldest first; lines that do not parse are skipped. */
export function pastDecisions(logText: string): PastDecision[] {
  const asked = new Map<string, PastDecision>();
  for (const line of logText.split('\n')) {
    if (line.trim() === '') {
      continue;
    }
    let entry: AuditEntry;
    try {
      const parsed = AuditLine.safeParse(JSON.parse(line));
      if (!parsed.success || 'kind' in parsed.data) {
        continue;
      }
      entry = parsed.data;
    } catch {
      continue;
    }
    if (entry.verdict === 'ask') {
      if (entry.target !== undefined && !entry.target.endsWith('…')) {
        asked.set(entry.callId, { callId: entry.callId, tool: entry.tool, target: entry.target, askedAt: entry.time });
      }
      continue;
    }
    const waiting = asked.get(entry.callId);
    if (waiting === undefined || waiting.outcome !== undefined || entry.decidedBy !== 'person') {
      continue;
    }
    waiting.outcome = entry.verdict;
    const looked = Date.parse(entry.time) - Date.parse(waiting.askedAt);
    if (Number.isFinite(looked) && looked >= 0) {
      waiting.lookedMs = looked;
    }
  }
  return [...asked.values()];
}

/**
 * Whether the second word names a subcommand (`test` in `npm test`): for a command of the danger table, when the table
 * says it has subcommands; for another, when the word looks like one (not an option, a path or a value).
 */
function subcommandLike(words: readonly string[]): boolean {
  const second = words[1];
  const spec = commandTable[words[0] ?? ''];
  return second !== undefined && (spec === undefined ? /^[a-z][a-z0-9:_-]*$/i.test(second) : spec.subcommands !== undefined);
}

/** Commands that download and run package code: the package name belongs to the group (`npx eslint`). */
const packageRunners = new Set(['npx', 'pnpx', 'bunx']);

/**
 * The words of a command line a prefix rule could match: one static sub-command without redirects or concerns.
 * A line of several commands, a redirect, an expansion: no prefix rule alone can allow it, so it is not grouped.
 */
function commandWords(command: string, cwd: string): string[] | undefined {
  const analysis = analyseCommand(command, cwd, cwd);
  const only = analysis.commands.length === 1 ? analysis.commands[0] : undefined;
  if (analysis.parseError !== undefined || analysis.concerns.length > 0 || analysis.redirects.length > 0 || !only) {
    return undefined;
  }
  if (only.dynamic || only.assignments.length > 0 || only.via.length > 0 || only.implicit !== undefined || only.words.length === 0) {
    return undefined;
  }
  return only.words;
}

function commonPrefix(lists: readonly (readonly string[])[]): string[] {
  const [first, ...rest] = lists;
  const prefix: string[] = [];
  for (const [index, word] of (first ?? []).entries()) {
    if (!rest.every((list) => list[index] === word)) {
      break;
    }
    prefix.push(word);
  }
  return prefix;
}

/** The narrowest glob that covers every path: the file itself, `dir/*.ext`, or `dir/*`. */
function narrowestGlob(paths: readonly string[]): string {
  const distinct = [...new Set(paths)];
  const [only] = distinct;
  if (distinct.length === 1 && only !== undefined) {
    return only;
  }
  const folder = path.posix.dirname(only ?? '.');
  const extensions = new Set(distinct.map((file) => path.posix.extname(file)));
  const [extension] = [...extensions];
  const name = extensions.size === 1 && extension !== undefined && extension !== '' ? `*${extension}` : '*';
  return folder === '.' ? name : `${folder}/${name}`;
}

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) {
    return undefined;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function summarise(kind: GroupKind, tool: string, matcher: string, decisions: PastDecision[]): DecisionGroup {
  const looked = median(decisions.flatMap((decision) => (decision.lookedMs === undefined ? [] : [decision.lookedMs])));
  return {
    id: `${kind}:${matcher}`,
    kind,
    tool,
    matcher,
    decisions,
    asked: decisions.length,
    allowed: decisions.filter((decision) => decision.outcome === 'allow').length,
    denied: decisions.filter((decision) => decision.outcome === 'deny').length,
    ...(looked !== undefined ? { medianLookMs: looked } : {}),
  };
}

/**
 * Groups past decisions by what a rule could match. Commands group by their command and subcommand (`npm test`, or
 * `ls` when the second word is an option or a path; `npx` with its package) and the group's matcher is the
 * narrowest word prefix all of them share (`npm test` and `npm test -- --watch` -> `npm test`). Writes and edits
 * inside the workspace group by folder, matched by the narrowest glob. MCP calls group by tool. `cwd`: the folder
 * commands are read in (the first workspace folder).
 */
export function groupDecisions(decisions: readonly PastDecision[], cwd: string): DecisionGroup[] {
  const commands = new Map<string, { words: string[][]; decisions: PastDecision[] }>();
  const files = new Map<string, PastDecision[]>();
  const mcp = new Map<string, PastDecision[]>();
  const add = <T>(map: Map<string, T>, key: string, empty: () => T): T => {
    const found = map.get(key) ?? empty();
    map.set(key, found);
    return found;
  };
  for (const decision of decisions) {
    if (decision.tool === 'run_in_terminal') {
      const words = commandWords(decision.target, cwd);
      if (words === undefined) {
        continue;
      }
      const keyLength = packageRunners.has(words[0] ?? '') || subcommandLike(words) ? 2 : 1;
      const group = add(commands, words.slice(0, keyLength).join(' '), () => ({ words: [], decisions: [] }));
      group.words.push(words);
      group.decisions.push(decision);
    } else if (fileTools.has(decision.tool)) {
      if (path.posix.isAbsolute(decision.target) || decision.target.startsWith('..')) {
        continue;
      }
      add(files, path.posix.dirname(decision.target), () => []).push(decision);
    } else if (decision.tool.startsWith('mcp__')) {
      add(mcp, decision.tool, () => []).push(decision);
    }
  }
  return [
    ...[...commands.values()].map((group) => summarise('command', 'run_in_terminal', commonPrefix(group.words).join(' '), group.decisions)),
    ...[...files.values()].map((group) => summarise('edits', 'write_file', narrowestGlob(group.map((decision) => decision.target)), group)),
    ...[...mcp.entries()].map(([tool, group]) => summarise('mcp', tool, tool, group)),
  ];
}
