/**
 * The git port over the git program: `git status` before and after a terminal command, so the undo can say which files
 * the command touched. git runs without a shell, in the folder, with a timeout and a cap on its output, the C locale,
 * no optional locks (a status never competes with the command for `index.lock`) and no fsmonitor hook (the folder's
 * config must not start a program of its own choosing just because we looked).
 *
 * "Not a repository", a folder that does not exist and a missing git all answer `null`; anything else that goes wrong
 * (a timeout, a repository git refuses to read, output over the cap) rejects, and `observeCommand` reports the
 * command's effect as unavailable with that message.
 *
 * File hashes, for files that were dirty already (so that a further change to them is seen), are read by Node: only
 * regular files (a symlink is hashed by its target path, a fifo never read), at most `maxHashFiles` of them; a file
 * larger than `maxHashBytes` is hashed by its size and modification time.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { checkIgnoreQuery, folderAncestors, ignoredAsWhole, ignoredInFolder } from '../sandbox/landingRules';
import type { GitPort, GitSnapshot } from './gitStatus';

export interface GitCliOptions {
  /** The git program (default `git`, found on the PATH). */
  git?: string;
  /** Per git run (default 5 s). */
  timeoutMs?: number;
  /** Most bytes of output git may write (default 64 MiB). */
  maxOutputBytes?: number;
  /** Most files `hashFiles` reads (default 2,000); the rest are left out. */
  maxHashFiles?: number;
  /** Files larger than this are hashed by size and modification time (default 8 MiB). */
  maxHashBytes?: number;
}

type GitRun = { kind: 'ok'; stdout: string } | { kind: 'failed'; code: number | null; stderr: string } | { kind: 'no-git' };

const notARepository = /not a git repository|must be run in a work tree/i;

/** The C locale (messages are matched), no optional locks, never a prompt for credentials. */
const gitEnv = (): NodeJS.ProcessEnv => ({ ...process.env, LC_ALL: 'C', LANGUAGE: 'C', GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' });
const hashConcurrency = 16;

export class GitCli implements GitPort {
  private readonly git: string;
  private readonly timeoutMs: number;
  private readonly maxOutputBytes: number;
  private readonly maxHashFiles: number;
  private readonly maxHashBytes: number;

  constructor(options: GitCliOptions = {}) {
    this.git = options.git ?? 'git';
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.maxOutputBytes = options.maxOutputBytes ?? 64 * 1024 * 1024;
    this.maxHashFiles = options.maxHashFiles ?? 2_000;
    this.maxHashBytes = options.maxHashBytes ?? 8 * 1024 * 1024;
  }

  private run(cwd: string, args: readonly string[]): Promise<GitRun> {
    return new Promise((resolve) => {
      execFile(
        this.git,
        ['--no-optional-locks', '-c', 'core.fsmonitor=false', ...args],
        {
          cwd,
          timeout: this.timeoutMs,
          killSignal: 'SIGKILL',
          maxBuffer: this.maxOutputBytes,
          encoding: 'utf8',
          windowsHide: true,
          env: gitEnv(),
        },
        (error, stdout, stderr) => {
          if (!error) {
            resolve({ kind: 'ok', stdout });
            return;
          }
          // ENOENT: git is missing, or the folder is (spawn reports both the same way).
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
            resolve({ kind: 'no-git' });
            return;
          }
          const code = typeof error.code === 'number' ? error.code : null;
          const why = error.killed ? `timed out after ${this.timeoutMs} ms` : stderr.trim().split('\n')[0] || error.message;
          resolve({ kind: 'failed', code, stderr: why });
        },
      );
    });
  }

  /**
   * The work tree holding `cwd`: its top and where `cwd` sits in it (`''` at the top, `a/b/` below); null when it is in
   * none or git is missing.
   */
  private async workTree(cwd: string): Promise<{ top: string; prefix: string } | null> {
    const found = await this.run(cwd, ['rev-parse', '--show-toplevel', '--show-prefix']);
    if (found.kind === 'no-git' || (found.kind === 'failed' && found.code === 128 && notARepository.test(found.stderr))) {
      return null;
    }
    if (found.kind === 'failed') {
      throw new Error(`git rev-parse failed: ${found.stderr}`);
    }
    const [top = '', prefix = ''] = found.stdout.split(/\r?\n/);
    return { top, prefix };
  }

  /** Of `entries` (relative to `top`), those git ignores: `git check-ignore`, which never names a tracked file. */
  private checkIgnore(top: string, entries: readonly string[]): Promise<ReadonlySet<string>> {
    return new Promise((resolve, reject) => {
      const child = execFile(
        this.git,
        ['--no-optional-locks', '-c', 'core.fsmonitor=false', 'check-ignore', '-z', '--stdin'],
        { cwd: top, timeout: this.timeoutMs * 4, killSignal: 'SIGKILL', maxBuffer: this.maxOutputBytes, encoding: 'utf8', windowsHide: true, env: gitEnv() },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : undefined;
          // 0: some are ignored; 1: none is.
          if (code === 0 || code === 1) {
            resolve(new Set(stdout.split('\0').filter((entry) => entry !== '')));
          } else if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') {
            resolve(new Set());
          } else {
            reject(new Error(`git check-ignore failed: ${stderr.trim().split('\n')[0] || (error?.message ?? 'no message')}`));
          }
        },
      );
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(entries.map((entry) => `${entry}\0`).join(''));
    });
  }

  /**
   * The state of the work tree holding `cwd`; null when there is none, or when it ignores `cwd` as a whole (a project
   * inside a parent repository that ignores it: that repository says nothing of the project's files, and its status
   * is not the project's).
   */
  async snapshot(cwd: string): Promise<GitSnapshot | null> {
    const tree = await this.workTree(cwd);
    if (tree === null) {
      return null;
    }
    if (tree.prefix !== '' && ignoredAsWhole(tree.prefix, await this.checkIgnore(tree.top, folderAncestors(tree.prefix)))) {
      return null;
    }
    const root = tree.top;
    const [head, status] = await Promise.all([
      this.run(root, ['rev-parse', '--verify', '--quiet', 'HEAD']),
      this.run(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all']),
    ]);
    if (status.kind !== 'ok') {
      throw new Error(`git status failed: ${status.kind === 'failed' ? status.stderr : 'git is missing'}`);
    }
    // `--verify --quiet` exits 1, saying nothing, on a branch with no commit yet.
    if (head.kind === 'failed' && head.code !== 1) {
      throw new Error(`git rev-parse HEAD failed: ${head.stderr}`);
    }
    return { root, head: head.kind === 'ok' ? head.stdout.trim() : null, status: status.stdout };
  }

  /**
   * Of `paths` (relative to `folder`), those the folder's own repository ignores (../sandbox/landingRules
   * `ignoredInFolder`): never a tracked file; none when `folder` is in no work tree, when its repository ignores it as
   * a whole, or when git is missing; rejects when git fails otherwise.
   */
  async ignored(folder: string, paths: readonly string[]): Promise<ReadonlySet<string>> {
    if (paths.length === 0) {
      return new Set();
    }
    const tree = await this.workTree(folder);
    if (tree === null) {
      return new Set();
    }
    return ignoredInFolder(tree.prefix, paths, await this.checkIgnore(tree.top, checkIgnoreQuery(tree.prefix, paths)));
  }

  showText(root: string, rev: string, file: string): Promise<string | null | undefined> {
    return new Promise((resolve) => {
      execFile(
        this.git,
        ['--no-optional-locks', '-c', 'core.fsmonitor=false', 'cat-file', 'blob', `${rev}:${file}`],
        { cwd: root, timeout: this.timeoutMs, killSignal: 'SIGKILL', maxBuffer: this.maxHashBytes, encoding: 'buffer', windowsHide: true, env: gitEnv() },
        (error, stdout, stderr) => {
          if (error) {
            // 128 "does not exist in" / "not a valid object name": the commit has no such file.
            resolve(typeof error.code === 'number' && /does not exist|exists on disk, but not in|not a valid object name|invalid object name/i.test(stderr.toString('utf8')) ? null : undefined);
            return;
          }
          try {
            resolve(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(stdout));
          } catch {
            resolve(undefined);
          }
        },
      );
    });
  }

  async hashFiles(root: string, paths: readonly string[]): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    const queue = paths.slice(0, this.maxHashFiles);
    const worker = async (): Promise<void> => {
      for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
        const hash = await this.hashFile(path.join(root, file));
        if (hash !== undefined) {
          out[file] = hash;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(hashConcurrency, queue.length) }, worker));
    return out;
  }

  private async hashFile(absolute: string): Promise<string | undefined> {
    try {
      const info = await lstat(absolute);
      const hash = createHash('sha256');
      if (info.isSymbolicLink()) {
        hash.update(`link:${await readlink(absolute)}`);
      } else if (!info.isFile()) {
        return undefined;
      } else if (info.size > this.maxHashBytes) {
        hash.update(`large:${info.size}:${info.mtimeMs}`);
      } else {
        hash.update(await readFile(absolute));
      }
      return hash.digest('hex');
    } catch {
      return undefined; // gone since git listed it
    }
  }
}
