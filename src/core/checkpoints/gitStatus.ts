/**
 * What a terminal command did to a git work tree, for the undo that cannot revert it: `git status` before and after
 * the command (and the HEAD commit, and a content hash of each file already dirty, so a further change to it is seen).
 * Parsing and comparing are pure; running git is a port (`GitCli` in gitCli.ts runs the git program).
 *
 * Not seen: files git ignores, and a file changed and changed back by the same command.
 */
import * as z from '../../zod';

/** One entry of `git status --porcelain=v1`: the index (X) and work-tree (Y) status letters and the path. */
export interface GitStatusEntry {
  /** Relative to the repository root, `/` separators. */
  path: string;
  /** X: the index status (`' '`, `M`, `A`, `D`, `R`, `C`, `U`, `?`, `!`). */
  index: string;
  /** Y: the work-tree status. */
  worktree: string;
  /** For a rename or copy: the path it came from. */
  from?: string;
}

export type GitStatusParse = { kind: 'ok'; entries: GitStatusEntry[] } | { kind: 'unparsable'; message: string };

const STATUS_LETTERS = /^[ MTADRCU?!][ MTADRCU?!]$/;

/** Decodes a path git quoted (core.quotePath): C escapes, and octal escapes for the bytes of UTF-8. */
function unquote(text: string): string | undefined {
  if (!text.startsWith('"')) {
    return text;
  }
  if (!text.endsWith('"') || text.length < 2) {
    return undefined;
  }
  const body = text.slice(1, -1);
  const bytes: number[] = [];
  const simple: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '"': 34, '\\': 92 };
  for (let i = 0; i < body.length; i++) {
    const char = body[i] ?? '';
    if (char !== '\\') {
      bytes.push(...new TextEncoder().encode(char));
      continue;
    }
    const next = body[i + 1] ?? '';
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1, i + 4));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else if (next in simple) {
      bytes.push(simple[next] ?? 0);
      i += 1;
    } else {
      return undefined;
    }
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(new Uint8Array(bytes));
}

/**
 * Parses `git status --porcelain=v1` output: with `-z` (`nulTerminated`, the form the port should ask for: no
 * quoting, a rename's source path follows as its own field) or line by line (quoted paths, `from -> to` renames).
 * A `## branch` header line is skipped.
 */
export function parseGitStatus(output: string, nulTerminated = true): GitStatusParse {
  const entries: GitStatusEntry[] = [];
  const fields = nulTerminated ? output.split('\0') : output.split('\n');
  if (fields[fields.length - 1] === '') {
    fields.pop();
  }
  for (let i = 0; i < fields.length; i++) {
    const field = nulTerminated ? (fields[i] ?? '') : (fields[i] ?? '').replace(/\r$/, '');
    if (field.startsWith('## ')) {
      continue;
    }
    const letters = field.slice(0, 2);
    if (!STATUS_LETTERS.test(letters) || field[2] !== ' ' || field.length < 4) {
      return { kind: 'unparsable', message: `not a git status --porcelain=v1 entry: ${JSON.stringify(field.slice(0, 80))}` };
    }
    const index = letters[0] ?? ' ';
    const worktree = letters[1] ?? ' ';
    const rest = field.slice(3);
    const moved = index === 'R' || index === 'C' || worktree === 'R' || worktree === 'C';
    if (nulTerminated) {
      const entry: GitStatusEntry = { path: rest, index, worktree };
      if (moved) {
        const from = fields[++i];
        if (from === undefined || from === '') {
          return { kind: 'unparsable', message: `a rename without its source path: ${JSON.stringify(rest)}` };
        }
        entry.from = from;
      }
      entries.push(entry);
      continue;
    }
    // Line format: `from -> to` for renames; each side quoted when it holds special characters.
    const arrow = moved ? /^("(?:[^"\\]|\\.)*"|.*?) -> ("(?:[^"\\]|\\.)*"|.*)$/.exec(rest) : null;
    const path = unquote(arrow ? (arrow[2] ?? '') : rest);
    const from = arrow ? unquote(arrow[1] ?? '') : undefined;
    if (path === undefined || path === '' || (arrow && (from === undefined || from === ''))) {
      return { kind: 'unparsable', message: `cannot read the path of ${JSON.stringify(field.slice(0, 80))}` };
    }
    entries.push({ path, index, worktree, ...(from !== undefined ? { from } : {}) });
  }
  return { kind: 'ok', entries };
}

/** What the git port reports for a folder. */
export interface GitSnapshot {
  /** The repository's top-level folder (absolute). */
  root: string;
  /** The HEAD commit; null on a branch with no commit yet. */
  head: string | null;
  /** Raw output of `git status --porcelain=v1 -z --untracked-files=all` run in the root. */
  status: string;
}

/** Runs git for the checkpoints: `GitCli` (gitCli.ts) over the git program; tests may fake it. */
export interface GitPort {
  /** The state of the work tree holding `cwd`; `null` when it is not in a git work tree (or git is missing). */
  snapshot(cwd: string): Promise<GitSnapshot | null>;
  /** Content hashes of files (relative to `root`) that exist; a missing file is left out. */
  hashFiles(root: string, paths: readonly string[]): Promise<Record<string, string>>;
  /**
   * A file's text in commit `rev` (path relative to `root`): `null` when the commit has no such file, undefined when
   * it cannot be told or is not UTF-8 text. Without it, a command's changes are listed but not undone.
   */
  showText?(root: string, rev: string, path: string): Promise<string | null | undefined>;
}

/** How a file's git status changed across a command. `clean` = not listed (unchanged, or ignored). */
export const TouchedFile = z.strictObject({
  path: z.string(),
  before: z.string(),
  after: z.string(),
  /** Listed as dirty before and after with the same status, but its content changed. */
  contentChanged: z.optional(z.boolean()),
});
export type TouchedFile = z.infer<typeof TouchedFile>;

/** Most files listed for one command; the rest are counted. */
export const MAX_TOUCHED = 200;

export const CommandGitEffect = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('not-a-repository') }),
  z.strictObject({ kind: z.literal('unavailable'), message: z.string() }),
  z.strictObject({
    kind: z.literal('observed'),
    root: z.string(),
    headBefore: z.nullable(z.string()),
    headAfter: z.nullable(z.string()),
    touched: z.array(TouchedFile),
    /** Touched files beyond MAX_TOUCHED, not listed. */
    more: z.int().check(z.nonnegative()),
  }),
]);
export type CommandGitEffect = z.infer<typeof CommandGitEffect>;

const statusCode = (entry: GitStatusEntry | undefined): string => (entry ? `${entry.index}${entry.worktree}` : 'clean');

/**
 * The files whose status (or, for files dirty on both sides with hashes given, whose content) differs between two
 * status listings, sorted by path.
 */
export function compareGitStatus(
  before: readonly GitStatusEntry[],
  after: readonly GitStatusEntry[],
  hashes: { before?: Readonly<Record<string, string>>; after?: Readonly<Record<string, string>> } = {},
): TouchedFile[] {
  const byPath = (entries: readonly GitStatusEntry[]): Map<string, GitStatusEntry> => new Map(entries.map((entry) => [entry.path, entry]));
  const was = byPath(before);
  const now = byPath(after);
  const touched: TouchedFile[] = [];
  for (const path of [...new Set([...was.keys(), ...now.keys()])].sort()) {
    const first = statusCode(was.get(path));
    const second = statusCode(now.get(path));
    if (first !== second) {
      touched.push({ path, before: first, after: second });
      continue;
    }
    const hashBefore = hashes.before?.[path];
    const hashAfter = hashes.after?.[path];
    if (hashBefore !== hashAfter) {
      touched.push({ path, before: first, after: second, contentChanged: true });
    }
  }
  return touched;
}

const LETTER_NAMES: Record<string, string> = { M: 'modified', T: 'type changed', A: 'added', D: 'deleted', R: 'renamed', C: 'copied' };

/**
 * What an unstaged command changed, as git saw it, for the model: '' when git saw nothing (or could not look).
 * Ignored files are not listed (git does not see them).
 */
export function describeCommandChanges(effect: CommandGitEffect | undefined): string {
  if (effect?.kind !== 'observed' || (effect.touched.length === 0 && effect.headBefore === effect.headAfter)) {
    return '';
  }
  const lines = ['What it changed in the workspace, as git saw it (files git ignores are not listed):'];
  if (effect.headBefore !== effect.headAfter) {
    lines.push(`- HEAD moved from ${effect.headBefore?.slice(0, 12) ?? '(no commit)'} to ${effect.headAfter?.slice(0, 12) ?? '(no commit)'}`);
  }
  for (const file of effect.touched) {
    const change =
      file.contentChanged === true
        ? `${describeGitStatus(file.after)}, changed further`
        : file.before === 'clean'
          ? file.after === '??' ? 'created (untracked)' : describeGitStatus(file.after)
          : `${describeGitStatus(file.before)} -> ${describeGitStatus(file.after)}`;
    lines.push(`- ${file.path}: ${change}`);
  }
  if (effect.more > 0) {
    lines.push(`- and ${effect.more} more`);
  }
  return lines.join('\n');
}

/** A status code (`XY` or `clean`) in words: `modified`, `added (staged)`, `untracked`, `clean`, ... */
export function describeGitStatus(code: string): string {
  if (code === 'clean' || code === '??') {
    return code === 'clean' ? 'clean' : 'untracked';
  }
  if (code === '!!') {
    return 'ignored';
  }
  const index = code[0] ?? ' ';
  const worktree = code[1] ?? ' ';
  if (index === 'U' || worktree === 'U' || code === 'AA' || code === 'DD') {
    return 'conflicted';
  }
  const staged = index === ' ' ? undefined : `${LETTER_NAMES[index] ?? index} (staged)`;
  const unstaged = worktree === ' ' ? undefined : (LETTER_NAMES[worktree] ?? worktree);
  return [staged, unstaged].filter((part) => part !== undefined).join(', ') || code;
}

/** The paths whose content should be hashed: those listed, not deleted in the work tree. */
export function pathsToHash(entries: readonly GitStatusEntry[]): string[] {
  return entries.filter((entry) => entry.worktree !== 'D' && entry.index !== '!').map((entry) => entry.path);
}

type Observed = { kind: 'none' } | { kind: 'error'; message: string } | { kind: 'ok'; snapshot: GitSnapshot; entries: GitStatusEntry[]; hashes: Record<string, string> };

async function observe(git: GitPort, cwd: string, root?: string): Promise<Observed> {
  try {
    const snapshot = await git.snapshot(root ?? cwd);
    if (snapshot === null) {
      return { kind: 'none' };
    }
    const parsed = parseGitStatus(snapshot.status, true);
    if (parsed.kind !== 'ok') {
      return { kind: 'error', message: parsed.message };
    }
    const hashes = await git.hashFiles(snapshot.root, pathsToHash(parsed.entries));
    return { kind: 'ok', snapshot, entries: parsed.entries, hashes };
  } catch (error) {
    return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Runs `run` between two looks at the git work tree holding `cwd`, and says which files the command touched. The
 * command's own result (or error) passes through untouched; a failure of git only makes the effect `unavailable`.
 */
export async function observeCommand<T>(git: GitPort, cwd: string, run: () => Promise<T>): Promise<{ result: T; git: CommandGitEffect }> {
  const before = await observe(git, cwd);
  const result = await run();
  if (before.kind === 'none') {
    return { result, git: { kind: 'not-a-repository' } };
  }
  if (before.kind === 'error') {
    return { result, git: { kind: 'unavailable', message: `git status failed before the command: ${before.message}` } };
  }
  const after = await observe(git, cwd, before.snapshot.root);
  if (after.kind !== 'ok') {
    const message = after.kind === 'none' ? 'the folder is no longer a git work tree' : after.message;
    return { result, git: { kind: 'unavailable', message: `git status failed after the command: ${message}` } };
  }
  const touched = compareGitStatus(before.entries, after.entries, { before: before.hashes, after: after.hashes });
  return {
    result,
    git: {
      kind: 'observed',
      root: before.snapshot.root,
      headBefore: before.snapshot.head,
      headAfter: after.snapshot.head,
      touched: touched.slice(0, MAX_TOUCHED),
      more: Math.max(0, touched.length - MAX_TOUCHED),
    },
  };
}
