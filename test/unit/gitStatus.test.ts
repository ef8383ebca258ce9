import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GitCli } from '../../src/core/checkpoints/gitCli';
import {
  compareGitStatus,
  describeCommandChanges,
  describeGitStatus,
  MAX_TOUCHED,
  observeCommand,
  parseGitStatus,
  type GitPort,
  type GitStatusEntry,
} from '../../src/core/checkpoints/gitStatus';

describe('git status parsing', () => {
  const rows: { name: string; output: string; z: boolean; entries?: GitStatusEntry[]; unparsable?: RegExp }[] = [
    { name: 'clean', output: '', z: true, entries: [] },
    {
      name: '-z: modified, untracked, staged, deleted',
      output: ' M src/a.ts\0?? new file.txt\0A  added.ts\0 D gone.ts\0',
      z: true,
      entries: [
        { path: 'src/a.ts', index: ' ', worktree: 'M' },
        { path: 'new file.txt', index: '?', worktree: '?' },
        { path: 'added.ts', index: 'A', worktree: ' ' },
        { path: 'gone.ts', index: ' ', worktree: 'D' },
      ],
    },
    {
      name: '-z: a rename carries its source as the next field',
      output: 'R  b.txt\0a.txt\0 M c.txt\0',
      z: true,
      entries: [
        { path: 'b.txt', index: 'R', worktree: ' ', from: 'a.txt' },
        { path: 'c.txt', index: ' ', worktree: 'M' },
      ],
    },
    {
      name: '-z: paths are not quoted, newlines and unicode included',
      output: '?? line\nbreak.txt\0 M ünï.txt\0',
      z: true,
      entries: [
        { path: 'line\nbreak.txt', index: '?', worktree: '?' },
        { path: 'ünï.txt', index: ' ', worktree: 'M' },
      ],
    },
    {
      name: 'lines: quoted paths with octal UTF-8 and escapes, a rename with an arrow',
      output: '## main\nR  a.txt -> b.txt\n M "\\303\\274n\\303\\257.txt"\n?? "q\\"uote\\ttab.txt"\n',
      z: false,
      entries: [
        { path: 'b.txt', index: 'R', worktree: ' ', from: 'a.txt' },
        { path: 'ünï.txt', index: ' ', worktree: 'M' },
        { path: 'q"uote\ttab.txt', index: '?', worktree: '?' },
      ],
    },
    { name: 'not porcelain', output: 'On branch main\n', z: false, unparsable: /not a git status/ },
    { name: '-z rename without source', output: 'R  b.txt\0', z: true, unparsable: /without its source/ },
    { name: 'bad quoting', output: ' M "a\\qb"\n', z: false, unparsable: /cannot read the path/ },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const parsed = parseGitStatus(row.output, row.z);
      if (row.unparsable) {
        assert.ok(parsed.kind === 'unparsable');
        assert.match(parsed.message, row.unparsable);
      } else {
        assert.deepEqual(parsed, { kind: 'ok', entries: row.entries });
      }
    });
  }
});

describe('what a command touched, from git status before and after', () => {
  const e = (code: string, file: string): GitStatusEntry => ({ index: code[0] ?? ' ', worktree: code[1] ?? ' ', path: file });
  const rows: { name: string; before: GitStatusEntry[]; after: GitStatusEntry[]; hashes?: { before: Record<string, string>; after: Record<string, string> }; touched: string[] }[] = [
    { name: 'nothing changed', before: [e(' M', 'a')], after: [e(' M', 'a')], touched: [] },
    { name: 'a clean file modified', before: [], after: [e(' M', 'a')], touched: ['a clean -> " M"'] },
    { name: 'a file created', before: [], after: [e('??', 'n')], touched: ['n clean -> "??"'] },
    { name: 'a change committed', before: [e('M ', 'a')], after: [], touched: ['a "M " -> clean'] },
    { name: 'a dirty file changed further (seen by its hash)', before: [e(' M', 'a')], after: [e(' M', 'a')], hashes: { before: { a: '1' }, after: { a: '2' } }, touched: ['a " M" -> " M" content'] },
    { name: 'sorted by path', before: [], after: [e('??', 'z'), e(' M', 'b')], touched: ['b clean -> " M"', 'z clean -> "??"'] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const touched = compareGitStatus(row.before, row.after, row.hashes ?? {});
      assert.deepEqual(
        touched.map((file) => `${file.path} ${file.before === 'clean' ? 'clean' : JSON.stringify(file.before)} -> ${file.after === 'clean' ? 'clean' : JSON.stringify(file.after)}${file.contentChanged === true ? ' content' : ''}`),
        row.touched,
      );
    });
  }
});

describe('git status codes in words', () => {
  const rows: [string, string][] = [
    ['clean', 'clean'],
    ['??', 'untracked'],
    ['!!', 'ignored'],
    [' M', 'modified'],
    ['M ', 'modified (staged)'],
    ['MM', 'modified (staged), modified'],
    ['A ', 'added (staged)'],
    ['AM', 'added (staged), modified'],
    [' D', 'deleted'],
    ['R ', 'renamed (staged)'],
    ['UU', 'conflicted'],
    ['AA', 'conflicted'],
  ];
  for (const [code, words] of rows) {
    it(`${JSON.stringify(code)} is ${words}`, () => assert.equal(describeGitStatus(code), words));
  }
});

/** The git port the extension uses, over the real git program. */
const realGit = new GitCli();

describe("what an unstaged command changed, told to the model", () => {
  const observed = (touched: { path: string; before: string; after: string; contentChanged?: boolean }[], headAfter = 'a'.repeat(40), more = 0) =>
    ({ kind: 'observed' as const, root: '/w', headBefore: 'a'.repeat(40), headAfter, touched, more });
  const rows: [string, Parameters<typeof describeCommandChanges>[0], string][] = [
    ['nothing seen', observed([]), ''],
    ['not a repository', { kind: 'not-a-repository' }, ''],
    ['git failed', { kind: 'unavailable', message: 'timed out' }, ''],
    [
      'created, modified, deleted, changed further, and more',
      observed([
        { path: 'made.txt', before: 'clean', after: '??' },
        { path: 'mod.txt', before: 'clean', after: ' M' },
        { path: 'del.txt', before: 'clean', after: ' D' },
        { path: 'dirty.txt', before: ' M', after: ' M', contentChanged: true },
        { path: 'staged.txt', before: 'A ', after: 'AM' },
      ], 'a'.repeat(40), 3),
      [
        'What it changed in the workspace, as git saw it (files git ignores are not listed):',
        '- made.txt: created (untracked)',
        '- mod.txt: modified',
        '- del.txt: deleted',
        '- dirty.txt: modified, changed further',
        '- staged.txt: added (staged) -> added (staged), modified',
        '- and 3 more',
      ].join('\n'),
    ],
    ['a commit', observed([], 'b'.repeat(40)), 'What it changed in the workspace, as git saw it (files git ignores are not listed):\n- HEAD moved from aaaaaaaaaaaa to bbbbbbbbbbbb'],
  ];
  for (const [name, effect, text] of rows) {
    it(name, () => assert.equal(describeCommandChanges(effect), text));
  }
});

describe('observing a command in a real git repository', () => {
  let repo: string;
  const git = (...args: string[]): void => {
    execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=t', ...args], { cwd: repo, stdio: 'ignore' });
  };
  beforeEach(() => {
    repo = mkdtempSync(path.join(tmpdir(), 'toolgate-git-'));
    git('init', '-q');
    writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    writeFileSync(path.join(repo, 'dirty.txt'), 'd\n');
    writeFileSync(path.join(repo, 'ünï.txt'), 'u\n');
    git('add', '.');
    git('commit', '-qm', 'init');
    writeFileSync(path.join(repo, 'dirty.txt'), 'd2\n'); // already dirty before the command
  });
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  it('lists the files the command touched and passes its result through', async () => {
    const { result, git: effect } = await observeCommand(realGit, repo, () => {
      writeFileSync(path.join(repo, 'ünï.txt'), 'changed\n');
      writeFileSync(path.join(repo, 'dirty.txt'), 'd3\n');
      writeFileSync(path.join(repo, 'new file.txt'), 'n\n');
      rmSync(path.join(repo, 'a.txt'));
      return Promise.resolve(42);
    });
    assert.equal(result, 42);
    assert.ok(effect.kind === 'observed');
    assert.deepEqual(
      effect.touched.map((file) => [file.path, file.before, file.after, file.contentChanged ?? false]),
      [
        ['a.txt', 'clean', ' D', false],
        ['dirty.txt', ' M', ' M', true],
        ['new file.txt', 'clean', '??', false],
        ['ünï.txt', 'clean', ' M', false],
      ],
    );
    assert.equal(effect.headBefore, effect.headAfter);
    assert.equal(effect.more, 0);
  });

  it('sees a commit move HEAD', async () => {
    const { git: effect } = await observeCommand(realGit, repo, () => {
      git('commit', '-qam', 'by the command');
      return Promise.resolve();
    });
    assert.ok(effect.kind === 'observed');
    assert.notEqual(effect.headBefore, effect.headAfter);
    assert.deepEqual(effect.touched.map((file) => [file.path, file.before, file.after]), [['dirty.txt', ' M', 'clean']]);
  });

  it('outside a repository, and when git fails', async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'toolgate-nogit-'));
    try {
      assert.deepEqual((await observeCommand(realGit, outside, () => Promise.resolve(1))).git, { kind: 'not-a-repository' });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
    const failing: GitPort = { snapshot: () => Promise.reject(new Error('git exploded')), hashFiles: (root, paths) => realGit.hashFiles(root, paths) };
    const observed = await observeCommand(failing, repo, () => Promise.resolve(1));
    assert.deepEqual(observed, { result: 1, git: { kind: 'unavailable', message: 'git status failed before the command: git exploded' } });
  });

  it('caps the list', async () => {
    const { git: effect } = await observeCommand(realGit, repo, () => {
      for (let i = 0; i < MAX_TOUCHED + 5; i++) {
        writeFileSync(path.join(repo, `f${String(i).padStart(3, '0')}.txt`), 'x');
      }
      return Promise.resolve();
    });
    assert.ok(effect.kind === 'observed');
    assert.equal(effect.touched.length, MAX_TOUCHED);
    assert.equal(effect.more, 5);
  });
});
