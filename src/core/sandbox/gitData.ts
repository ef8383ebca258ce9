/**
 * What of a staged command's writes inside a `.git` folder lands without review: the ONE rule for git's own files
 * (issue 35, finding 4). An allow-list of git's data, never a deny-list of what is known to run code:
 *
 * - Lands unasked: new objects (files created under `objects/`, never `objects/info/…`), the index, `logs/**`,
 *   `FETCH_HEAD`, `ORIG_HEAD`, `COMMIT_EDITMSG`, and ref moves (`refs/**`, `HEAD`, `packed-refs` created or modified)
 *   whose new commit's tree changes no protected path compared with what the ref pointed at before (a new ref: with the
 *   commit HEAD points at now).
 * - Asked, on the command's card: a ref move that changes a protected path (with that path's diff), anything under
 *   `rebase-merge`, `rebase-apply`, `sequencer` (git runs their todo lists' `exec` lines on Continue), `worktrees`,
 *   `modules` (a submodule's git folder, config and hooks included), `config*`, `hooks`, `info`, `commondir`; a
 *   rewritten or deleted object, a deleted ref or HEAD, any symbolic link; and everything else in `.git`.
 *   MERGE_HEAD, MERGE_MSG, CHERRY_PICK_HEAD and the like are left off the list on purpose: they exist only while a
 *   merge, cherry-pick or revert stopped half way, and the person's next commit takes a parent or its message from
 *   them, so they are the command's say over a commit the person makes.
 *
 * The trees are read by the host's git with nothing of the repository's configuration (see `GitTrees`).
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where a path (relative to a workspace folder, `/` separators) is inside a repository's `.git` folder. */
export interface GitPath {
  /** The repository's folder relative to the workspace folder ('' for the folder itself). */
  repo: string;
  /** The path inside `.git` (never empty). */
  inner: string;
}

export function gitPathOf(relative: string): GitPath | undefined {
  const parts = relative.split('/');
  const at = parts.indexOf('.git');
  if (at < 0 || at === parts.length - 1) {
    return undefined;
  }
  return { repo: parts.slice(0, at).join('/'), inner: parts.slice(at + 1).join('/') };
}

export type GitChangeKind = 'created' | 'modified' | 'deleted' | 'mode' | 'symlink';

/** Why a change inside `.git` asks, typed; the words are `gitAskWords`. */
export type GitAskKind = 'link' | 'control' | 'operation' | 'worktrees' | 'submodule' | 'rewritten-object' | 'deleted' | 'unlisted';

export type GitPathRule =
  | { lands: 'data'; what: 'object' | 'index' | 'log' | 'scratch' }
  /** Lands if the ref move it makes changes no protected path (`judgeRefChange`). */
  | { lands: 'ref' }
  | { lands: 'asks'; kind: GitAskKind };

export const gitAskWords: Record<GitAskKind, string> = {
  link: 'a symbolic link inside .git',
  control: "git's configuration, hooks or info (they decide what git runs and ignores)",
  operation: 'a rebase, cherry-pick or revert in progress (git runs its todo list, exec lines included, on Continue)',
  worktrees: "another worktree's git folder",
  submodule: "a submodule's git folder",
  'rewritten-object': 'rewrites an object git already had',
  deleted: 'deletes part of the repository',
  unlisted: "not among git's data that lands unasked",
};

const operations = new Set(['rebase-merge', 'rebase-apply', 'sequencer']);
const scratch = new Set(['FETCH_HEAD', 'ORIG_HEAD', 'COMMIT_EDITMSG']);
const validRef = /^(HEAD|refs\/(?!.*(?:\/\/|\/\.|\.\.|\.lock$|\/$))[A-Za-z0-9._/+-]+)$/;

/** The rule for one change inside `.git`: pure, by path and kind of change only. */
export function classifyGitPath(inner: string, change: GitChangeKind): GitPathRule {
  const asks = (kind: GitAskKind): GitPathRule => ({ lands: 'asks', kind });
  const [first = '', ...rest] = inner.split('/');
  if (change === 'symlink') {
    return asks('link');
  }
  if (operations.has(first)) {
    return asks('operation');
  }
  if (first === 'worktrees') {
    return asks('worktrees');
  }
  if (first === 'modules') {
    return asks('submodule');
  }
  if (first === 'hooks' || first === 'info' || first.startsWith('config') || first === 'commondir' || (first === 'objects' && rest[0] === 'info')) {
    return asks('control');
  }
  if (first === 'objects' && rest.length > 0) {
    return change === 'created' ? { lands: 'data', what: 'object' } : asks(change === 'deleted' ? 'deleted' : 'rewritten-object');
  }
  if (change === 'deleted') {
    return asks('deleted');
  }
  if (change === 'mode') {
    return asks('unlisted');
  }
  if (inner === 'index') {
    return { lands: 'data', what: 'index' };
  }
  if (first === 'logs' && rest.length > 0) {
    return { lands: 'data', what: 'log' };
  }
  if (scratch.has(inner)) {
    return { lands: 'data', what: 'scratch' };
  }
  if (inner === 'packed-refs' || validRef.test(inner)) {
    return { lands: 'ref' };
  }
  return asks('unlisted');
}

/** One ref's move: `from` undefined for a ref the command created; `base` what its tree was compared with. */
export interface RefMove {
  ref: string;
  from?: string;
  to: string;
  /** A new ref is compared with the commit HEAD points at now (undefined: HEAD is unborn, so every path is new). */
  base?: string;
  /** HEAD made to point at another branch. */
  symref?: string;
}

/** A protected path a ref move changes: its text in the two trees (undefined: absent), or that it is not text. */
export interface ProtectedChange {
  path: string;
  before?: string;
  after?: string;
  binary?: boolean;
}

export type RefVerdict =
  | { kind: 'clean'; moves: RefMove[] }
  | { kind: 'protected'; moves: RefMove[]; changes: ProtectedChange[]; sentence: string }
  /** A ref deleted (by a change to packed-refs): asks, as a deleted ref file does. */
  | { kind: 'deleted'; sentence: string }
  /** The trees could not be read (git missing, failed, too slow, a ref that does not parse): asks, with why. */
  | { kind: 'unchecked'; sentence: string };

const short = (id: string | undefined): string => (id === undefined ? 'nothing' : id.slice(0, 7));
const shortRef = (ref: string): string => ref.replace(/^refs\/(heads|tags)\//, '');

/** "moves main from abc1234 to def5678", "creates feature at def5678", "points HEAD at feature (abc1234)". */
export function describeMove(move: RefMove): string {
  if (move.symref !== undefined && move.from === move.to) {
    return `points HEAD at ${shortRef(move.symref)} (${short(move.to)})`;
  }
  if (move.from === undefined) {
    return `creates ${shortRef(move.ref)} at ${short(move.to)}`;
  }
  return `moves ${shortRef(move.ref)} from ${short(move.from)} to ${short(move.to)}${move.symref !== undefined ? ` (onto ${shortRef(move.symref)})` : ''}`;
}

/** What a `.git` folder holds at a path inside it: its text, undefined when absent. Rejects for anything not a file. */
export type GitView = (inner: string) => Promise<string | undefined>;

function parsePackedRefs(text: string | undefined): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of (text ?? '').split('\n')) {
    const match = /^([0-9a-f]{40}|[0-9a-f]{64}) (\S+)$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) {
      refs.set(match[2], match[1]);
    }
  }
  return refs;
}

/** The object a ref names in a view (symbolic refs followed, at most 5 deep), undefined if it names none. */
async function resolveRef(view: GitView, ref: string, depth = 0): Promise<{ id: string | undefined; symref?: string }> {
  if (!validRef.test(ref) || depth > 5) {
    throw new Error(`${ref} is not a ref git would follow`);
  }
  const text = await view(ref);
  if (text !== undefined) {
    const symbolic = /^ref: (\S+)\s*$/.exec(text);
    if (symbolic?.[1] !== undefined) {
      return { id: (await resolveRef(view, symbolic[1], depth + 1)).id, symref: symbolic[1] };
    }
    const id = /^([0-9a-f]{40}|[0-9a-f]{64})\s*$/.exec(text)?.[1];
    if (id === undefined) {
      throw new Error(`${ref} holds neither an object id nor a ref`);
    }
    return { id };
  }
  return { id: parsePackedRefs(await view('packed-refs')).get(ref) };
}

/** Reads trees and blobs; `GitTrees` is the real one. */
export interface TreeReader {
  /** Paths whose entries differ between two tree-ish objects (`from` undefined: the empty tree), with their blobs. */
  changed(from: string | undefined, to: string): Promise<{ path: string; fromBlob?: string; toBlob?: string }[]>;
  blobs(ids: readonly string[]): Promise<Map<string, Buffer>>;
}

/**
 * Whether the ref change at `inner` (a ref file, HEAD or packed-refs, created or modified) moves any ref to a commit
 * whose tree changes a protected path. `isProtected` takes a path relative to the repository's folder.
 */
export async function judgeRefChange(inner: string, before: GitView, after: GitView, isProtected: (repoPath: string) => boolean, trees: TreeReader): Promise<RefVerdict> {
  let moves: RefMove[];
  try {
    const refs = inner === 'packed-refs' ? await packedRefsTouched(before, after) : [inner];
    moves = [];
    for (const ref of refs) {
      const was = await resolveRef(before, ref);
      const now = await resolveRef(after, ref);
      if (now.id === undefined && was.id === undefined) {
        // An unborn branch (a new repository's HEAD): nothing moved.
        continue;
      }
      if (now.id === undefined) {
        return { kind: 'deleted', sentence: ref === 'HEAD' ? 'leaves HEAD pointing at nothing' : `deletes ${shortRef(ref)}` };
      }
      if (was.id === now.id && was.symref === now.symref) {
        continue;
      }
      const base = was.id ?? (await resolveRef(before, 'HEAD')).id;
      moves.push({ ref, to: now.id, ...(was.id !== undefined ? { from: was.id } : {}), ...(base !== undefined ? { base } : {}), ...(now.symref !== undefined && now.symref !== was.symref ? { symref: now.symref } : {}) });
    }
  } catch (error) {
    return { kind: 'unchecked', sentence: `moves a ref that could not be read (${error instanceof Error ? error.message : String(error)}), so whether it changes a protected path is unknown` };
  }
  const changes: ProtectedChange[] = [];
  const protectedMoves: RefMove[] = [];
  for (const move of moves) {
    if (move.base === move.to) {
      continue;
    }
    let changed: Awaited<ReturnType<TreeReader['changed']>>;
    try {
      changed = (await trees.changed(move.base, move.to)).filter((entry) => isProtected(entry.path));
    } catch (error) {
      return { kind: 'unchecked', sentence: `${describeMove(move)}, but git could not compare its trees (${error instanceof Error ? error.message : String(error)}), so whether it changes a protected path is unknown` };
    }
    if (changed.length === 0) {
      continue;
    }
    protectedMoves.push(move);
    const ids = changed.flatMap((entry) => [entry.fromBlob, entry.toBlob]).filter((id): id is string => id !== undefined);
    const blobs = await trees.blobs(ids).catch(() => new Map<string, Buffer>());
    for (const entry of changed) {
      const text = (id: string | undefined): string | undefined | null => (id === undefined ? undefined : (blobs.get(id)?.toString('utf8') ?? null));
      const [was, now] = [text(entry.fromBlob), text(entry.toBlob)];
      if (was === null || now === null || [was, now].some((side) => side?.includes('\0') === true)) {
        changes.push({ path: entry.path, binary: true });
      } else {
        changes.push({ path: entry.path, ...(was !== undefined ? { before: was } : {}), ...(now !== undefined ? { after: now } : {}) });
      }
    }
  }
  if (protectedMoves.length === 0) {
    return { kind: 'clean', moves };
  }
  const paths = [...new Set(changes.map((change) => change.path))].sort();
  const sentence = `${protectedMoves.map(describeMove).join('; ')}, which changes ${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ` and ${paths.length - 5} more` : ''}`;
  return { kind: 'protected', moves, changes, sentence };
}

/** The refs whose packed entry the change to packed-refs added, moved or removed. */
async function packedRefsTouched(before: GitView, after: GitView): Promise<string[]> {
  const [was, now] = [parsePackedRefs(await before('packed-refs')), parsePackedRefs(await after('packed-refs'))];
  return [...new Set([...was.keys(), ...now.keys()])].filter((ref) => was.get(ref) !== now.get(ref)).sort();
}

/** A view of a `.git` folder on disk: regular files only (a link or a folder where a ref should be rejects). */
export function diskView(gitDir: string): GitView {
  return async (inner) => {
    const file = path.join(gitDir, inner);
    const stat = await fs.lstat(file).catch(() => undefined);
    if (stat === undefined) {
      return undefined;
    }
    if (!stat.isFile()) {
      throw new Error(`.git/${inner} is not a regular file`);
    }
    return fs.readFile(file, 'utf8');
  };
}

/** The empty tree's id, which git knows without having the object (`--root` would compare with a parent if any). */
const emptyTree = (idLength: number): string =>
  idLength === 64 ? '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321' : '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

const gitTimeoutMs = 5_000;
const maxGitOutput = 64 * 1024 * 1024;

/**
 * Trees and blobs read by the host's git, safely: a repository's configuration can make git run programs (fsmonitor,
 * hooks, textconv, external diff, `core.sshCommand`), and the command may have left any of that in `.git`. So git runs
 * with an environment of our own (never the host's: no GIT_* from it), no system or global configuration
 * (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null, HOME an empty folder), and GIT_DIR a fresh empty folder of ours
 * holding only HEAD, refs and, for SHA-256 repositories, the object format: the workspace's `.git/config`, hooks and
 * info are never read. It only reads objects: GIT_OBJECT_DIRECTORY is the workspace's objects and
 * GIT_ALTERNATE_OBJECT_DIRECTORIES the command's new ones (its own `objects/info/alternates`, which git would follow,
 * makes the check refuse instead). The two commands are plumbing (`diff-tree --raw`, `cat-file --batch`), which run
 * no hooks, diff drivers or pagers. Each run is bounded in time and output.
 */
export class GitTrees implements TreeReader {
  private gitDir: Promise<string> | undefined;

  constructor(
    private readonly objects: string,
    private readonly newObjects: string | undefined,
    private readonly git = 'git',
  ) {}

  async changed(from: string | undefined, to: string): Promise<{ path: string; fromBlob?: string; toBlob?: string }[]> {
    const args = ['diff-tree', '-r', '-z', '--raw', '--no-renames', '--no-ext-diff', '--no-textconv', '--no-commit-id', from ?? emptyTree(to.length), to];
    const fields = (await this.run(args, to.length)).toString('utf8').split('\0');
    const found: { path: string; fromBlob?: string; toBlob?: string }[] = [];
    const blob = (mode: string | undefined, id: string | undefined): string | undefined => (mode === undefined || id === undefined || /^0+$/.test(id) || mode === '160000' ? undefined : id);
    for (let index = 0; index + 1 < fields.length; index += 2) {
      const [fromMode, toMode, fromId, toId] = (fields[index] ?? '').replace(/^:/, '').split(' ');
      const file = fields[index + 1] ?? '';
      const [a, b] = [blob(fromMode, fromId), blob(toMode, toId)];
      found.push({ path: file, ...(a !== undefined ? { fromBlob: a } : {}), ...(b !== undefined ? { toBlob: b } : {}) });
    }
    return found;
  }

  async blobs(ids: readonly string[]): Promise<Map<string, Buffer>> {
    const found = new Map<string, Buffer>();
    if (ids.length === 0) {
      return found;
    }
    const output = await this.run(['cat-file', '--batch'], ids[0]?.length ?? 40, `${ids.join('\n')}\n`);
    let at = 0;
    while (at < output.length) {
      const end = output.indexOf(10, at);
      const [id, type, size] = output.subarray(at, end).toString('utf8').split(' ');
      if (end < 0 || id === undefined || type === undefined || size === undefined) {
        break;
      }
      const length = Number(size);
      found.set(id, output.subarray(end + 1, end + 1 + length));
      at = end + 1 + length + 1;
    }
    return found;
  }

  /** Removes the throw-away GIT_DIR. */
  async dispose(): Promise<void> {
    const dir = await this.gitDir?.catch(() => undefined);
    if (dir !== undefined) {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  private async run(args: readonly string[], idLength: number, input?: string): Promise<Buffer> {
    if (this.newObjects !== undefined && (await fs.lstat(path.join(this.newObjects, 'info', 'alternates')).catch(() => undefined)) !== undefined) {
      throw new Error('the command wrote objects/info/alternates');
    }
    this.gitDir ??= throwAwayGitDir(idLength);
    const gitDir = await this.gitDir;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: gitDir,
      LC_ALL: 'C',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_DIR: gitDir,
      GIT_OBJECT_DIRECTORY: this.objects,
      GIT_NO_REPLACE_OBJECTS: '1',
      GIT_OPTIONAL_LOCKS: '0',
      GIT_TERMINAL_PROMPT: '0',
      ...(this.newObjects !== undefined ? { GIT_ALTERNATE_OBJECT_DIRECTORIES: this.newObjects } : {}),
    };
    return new Promise((resolve, reject) => {
      const child = execFile(this.git, args, { cwd: gitDir, env, timeout: gitTimeoutMs, killSignal: 'SIGKILL', maxBuffer: maxGitOutput, encoding: 'buffer' }, (error, stdout, stderr) => {
        if (error) {
          const code = (error as NodeJS.ErrnoException).code;
          reject(new Error(code === 'ENOENT' ? 'git is not installed' : error.killed ? `git took longer than ${gitTimeoutMs / 1000} s` : stderr.toString('utf8').trim().split('\n')[0] || error.message));
          return;
        }
        resolve(stdout);
      });
      // git may exit without reading its input (a bad object id): that is its answer, not an error of ours.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(input ?? '');
    });
  }
}

/** An empty git folder of ours in the host's temporary folder: HEAD, refs, objects, and the object format. */
async function throwAwayGitDir(idLength: number): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolgate-git-'));
  await fs.mkdir(path.join(dir, 'refs'));
  await fs.mkdir(path.join(dir, 'objects'));
  await fs.writeFile(path.join(dir, 'HEAD'), 'ref: refs/heads/main\n');
  if (idLength === 64) {
    await fs.writeFile(path.join(dir, 'config'), '[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n');
  }
  return dir;
}
