import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GitCli } from '../../src/core/checkpoints/gitCli';
import { parseGitStatus } from '../../src/core/checkpoints/gitStatus';

const sha = (data: string): string => createHash('sha256').update(data).digest('hex');

describe('the git port over the git program', () => {
  let dir: string;
  const git = (cwd: string, ...args: string[]): void => {
    execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=t', ...args], { cwd, stdio: 'ignore' });
  };
  /** A throw-away repository under `dir` with one commit (a.txt, sub/b.txt). */
  const repository = (name = 'repo', commit = true): string => {
    const repo = path.join(dir, name);
    mkdirSync(path.join(repo, 'sub'), { recursive: true });
    git(repo, 'init', '-q');
    writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    writeFileSync(path.join(repo, 'sub', 'b.txt'), 'b\n');
    if (commit) {
      git(repo, 'add', '.');
      git(repo, 'commit', '-qm', 'init');
    }
    return repo;
  };
  /** A stand-in for git: a shell script. */
  const fakeGit = (body: string): string => {
    const file = path.join(dir, `git-${Math.random().toString(36).slice(2)}`);
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  };

  beforeEach(() => {
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-gitcli-')));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reports the root, HEAD and the status of the work tree holding a folder', async () => {
    const repo = repository();
    writeFileSync(path.join(repo, 'a.txt'), 'changed\n');
    writeFileSync(path.join(repo, 'sub', 'new\nline.txt'), 'n\n');
    const snapshot = await new GitCli().snapshot(path.join(repo, 'sub'));
    assert.ok(snapshot);
    assert.equal(snapshot.root, repo);
    assert.match(snapshot.head ?? '', /^[0-9a-f]{40}$/);
    assert.deepEqual(parseGitStatus(snapshot.status), {
      kind: 'ok',
      entries: [
        { path: 'a.txt', index: ' ', worktree: 'M' },
        { path: 'sub/new\nline.txt', index: '?', worktree: '?' },
      ],
    });
  });

  it('a branch with no commit yet has no HEAD', async () => {
    const repo = repository('fresh', false);
    const snapshot = await new GitCli().snapshot(repo);
    assert.equal(snapshot?.head, null);
    assert.equal(parseGitStatus(snapshot.status).kind, 'ok');
  });

  const none: { name: string; cwd: () => string; git?: () => string }[] = [
    { name: 'a folder outside any repository', cwd: () => dir },
    { name: 'a folder that does not exist', cwd: () => path.join(dir, 'missing') },
    { name: 'inside .git', cwd: () => path.join(repository(), '.git') },
    { name: 'no git program', cwd: () => dir, git: () => path.join(dir, 'no-such-git') },
  ];
  for (const row of none) {
    it(`answers null for ${row.name}`, async () => {
      const cli = new GitCli(row.git ? { git: row.git() } : {});
      assert.equal(await cli.snapshot(row.cwd()), null);
    });
  }

  const failures: { name: string; script: string; error: RegExp }[] = [
    { name: 'git that hangs is stopped at the timeout', script: 'sleep 5', error: /timed out after 200 ms/ },
    { name: 'git that fails otherwise', script: 'echo "fatal: detected dubious ownership" >&2; exit 128', error: /dubious ownership/ },
    { name: 'status that fails', script: 'case "$*" in *status*) echo "fatal: index file corrupt" >&2; exit 128;; *rev-parse*--show-toplevel*) pwd;; esac', error: /git status failed: fatal: index file corrupt/ },
  ];
  for (const row of failures) {
    it(`rejects when ${row.name}`, async () => {
      const cli = new GitCli({ git: fakeGit(row.script), timeoutMs: 200 });
      await assert.rejects(cli.snapshot(dir), row.error);
    });
  }

  it('names the ignored paths among those asked (new or not, at any depth, with odd names), never a tracked file, and none outside a repository', async () => {
    const repo = repository();
    writeFileSync(path.join(repo, '.gitignore'), 'build/\n*.log\na.txt\n');
    const asked = ['build/out.js', 'build/deep/x.js', 'sub/debug.log', 'new line\n.log', 'src/kept.ts', 'a.txt', 'sub/b.txt'];
    assert.deepEqual([...(await new GitCli().ignored(repo, asked))].sort(), ['build/deep/x.js', 'build/out.js', 'new line\n.log', 'sub/debug.log'], 'a.txt is tracked: its pattern does not count');
    assert.deepEqual([...(await new GitCli().ignored(path.join(repo, 'sub'), ['debug.log', 'b.txt']))], ['debug.log'], 'relative to the folder asked about');
    assert.deepEqual([...(await new GitCli().ignored(dir, ['x.log']))], []);
    assert.deepEqual([...(await new GitCli({ git: path.join(dir, 'no-such-git') }).ignored(repo, ['x.log']))], []);
    await assert.rejects(new GitCli({ git: fakeGit('echo "fatal: index file corrupt" >&2; exit 128') }).ignored(repo, ['x.log']), /git rev-parse failed: fatal: index file corrupt/);
    await assert.rejects(new GitCli({ git: fakeGit('case "$*" in *rev-parse*) printf "%s\\n\\n" "$PWD";; *) echo "fatal: index file corrupt" >&2; exit 128;; esac') }).ignored(repo, ['x.log']), /git check-ignore failed: fatal: index file corrupt/);
  });

  // Issue 36: a workspace folder inside a parent repository that ignores it counted every file as ignored, so nothing a
  // command wrote there was reviewed. "Ignored" is the folder's own repository's word, never a parent's about the folder.
  const places: { name: string; make: (root: string) => string; ignored: string[]; status: 'none' | 'own' | 'parent' }[] = [
    {
      name: 'a plain folder, in no repository',
      make: (root) => {
        mkdirSync(path.join(root, 'plain'));
        return path.join(root, 'plain');
      },
      ignored: [],
      status: 'none',
    },
    {
      name: 'a folder inside a parent repository whose .gitignore ignores the folder (the demo in .tmp/)',
      make: () => {
        const parent = repository('parent');
        writeFileSync(path.join(parent, '.gitignore'), '.tmp/\n*.log\n');
        mkdirSync(path.join(parent, '.tmp', 'demo'), { recursive: true });
        return path.join(parent, '.tmp', 'demo');
      },
      ignored: [],
      status: 'none',
    },
    {
      name: "a project in a home folder whose repository ignores everything (`*`)",
      make: () => {
        const home = repository('home');
        writeFileSync(path.join(home, '.gitignore'), '*\n');
        mkdirSync(path.join(home, 'proj'), { recursive: true });
        return path.join(home, 'proj');
      },
      ignored: [],
      status: 'none',
    },
    {
      name: 'a folder with its own repository inside an ignoring parent: its own rules',
      make: () => {
        const parent = repository('parent');
        writeFileSync(path.join(parent, '.gitignore'), '.tmp/\n');
        const own = path.join(parent, '.tmp', 'demo');
        mkdirSync(own, { recursive: true });
        git(own, 'init', '-q');
        writeFileSync(path.join(own, '.gitignore'), '*.log\nnode_modules/\n');
        return own;
      },
      ignored: ['debug.log', 'node_modules/x/index.js'],
      status: 'own',
    },
    {
      name: 'a subfolder the repository does not ignore: the repository\'s rules',
      make: () => {
        const parent = repository('parent');
        writeFileSync(path.join(parent, '.gitignore'), '*.log\nnode_modules/\n');
        return path.join(parent, 'sub');
      },
      ignored: ['debug.log', 'node_modules/x/index.js'],
      status: 'parent',
    },
  ];
  const asked = ['a.txt', 'src/b.ts', 'CHANGELOG.md', 'debug.log', 'node_modules/x/index.js'];
  for (const place of places) {
    it(`which files count as ignored, and whose status is read: ${place.name}`, async () => {
      const folder = place.make(dir);
      assert.deepEqual([...(await new GitCli().ignored(folder, asked))].sort(), place.ignored);
      const snapshot = await new GitCli().snapshot(folder);
      assert.equal(snapshot === null ? 'none' : snapshot.root === folder ? 'own' : 'parent', place.status, "an ignoring parent's status says nothing of the folder");
    });
  }

  it('hashes regular files, by target for a link, never reads a fifo, and by size past the cap', async () => {
    writeFileSync(path.join(dir, 'small.txt'), 'small\n');
    writeFileSync(path.join(dir, 'big.bin'), 'x'.repeat(100));
    symlinkSync('small.txt', path.join(dir, 'link'));
    execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    mkdirSync(path.join(dir, 'folder'));
    const hashes = await new GitCli({ maxHashBytes: 50 }).hashFiles(dir, ['small.txt', 'big.bin', 'link', 'fifo', 'folder', 'gone.txt']);
    assert.deepEqual(Object.keys(hashes).sort(), ['big.bin', 'link', 'small.txt']);
    assert.equal(hashes['small.txt'], sha('small\n'));
    assert.equal(hashes['link'], sha('link:small.txt'));
    assert.match(hashes['big.bin'] ?? '', /^[0-9a-f]{64}$/);
    assert.notEqual(hashes['big.bin'], sha('x'.repeat(100)));
  });

  it('reads at most maxHashFiles files', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `f${i}.txt`);
    for (const name of names) {
      writeFileSync(path.join(dir, name), name);
    }
    const hashes = await new GitCli({ maxHashFiles: 25 }).hashFiles(dir, names);
    assert.deepEqual(Object.keys(hashes).sort(), names.slice(0, 25).sort());
  });
});
