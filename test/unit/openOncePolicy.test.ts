/**
 * The pure rules behind a protected file opened for one run (issue 36, item 3): which files a command writes, which
 * paths may be opened at all, how the policy holds an opened file (read-only no more, its folders pinned, nothing else
 * changed), bwrap's arguments for it, and which refused writes a failed run names.
 */
import * as assert from 'node:assert/strict';
import { bwrapArgs } from '../../src/core/sandbox/bwrap';
import { sandboxFailure, type SandboxedRun } from '../../src/core/sandbox/failures';
import { openablePlace, protectedWritesNotice } from '../../src/core/sandbox/openOnce';
import { normalisePolicy, type SandboxPolicy } from '../../src/core/sandbox/policy';
import { pathsInReadOnlyErrors, refusedWrites } from '../../src/core/sandbox/refusedWrites';
import { analyseCommand, writesOf } from '../../src/core/shell/analysis';
import { initShellParser } from '../../src/core/shell/parser';

describe('a protected file opened for one run: the pure rules', () => {
  before(() => initShellParser());

  describe('the files a command line writes, as its analysis reads them', () => {
    const table: [string, string, string[]][] = [
      ['an append redirect', `echo '{}' >> .vscode/settings.json`, ['/ws/.vscode/settings.json']],
      ['a truncating redirect in a later command', 'ls && echo x > a.txt', ['/ws/a.txt']],
      ['two redirects, once each', 'echo a > x; echo b >> x; echo c > y', ['/ws/x', '/ws/y']],
      ['a redirect to /dev/null and a duplication write nothing', 'ls > /dev/null 2>&1', []],
      ['a read is not a write', 'cat < .env', []],
      ['touch names what it touches', 'touch .vscode/tasks.json', ['/ws/.vscode/tasks.json']],
      ['a target that depends on an expansion is not named', 'echo x > "$name"', []],
      ['no writes', 'git status', []],
    ];
    for (const [what, command, expected] of table) {
      it(what, () => {
        assert.deepEqual(writesOf(analyseCommand(command, '/ws', '/home/someone')).map((target) => target.replace(/\/\.\//g, '/')), expected);
      });
    }
    it('no analysis, no writes', () => assert.deepEqual(writesOf(undefined), []));
  });

  describe('which paths may be opened at all, whatever is on disk', () => {
    const table: [string, string, ReturnType<typeof openablePlace>][] = [
      ['a protected file in the workspace', '/ws/.vscode/settings.json', { folder: '/ws', relative: '.vscode/settings.json' }],
      ['in the innermost of nested folders', '/ws/sub/.env', { folder: '/ws/sub', relative: '.env' }],
      ['outside every folder', '/etc/passwd', { refused: 'outside' }],
      ['a prefix that is not the folder', '/ws-other/.env', { refused: 'outside' }],
      ['the folder itself', '/ws', { refused: 'outside' }],
      ['with `..` in it', '/ws/a/../../etc/passwd', { refused: 'outside' }],
      ["git's hooks", '/ws/.git/hooks/pre-commit', { refused: 'git' }],
      ["git's config", '/ws/.git/config', { refused: 'git' }],
      ["a nested repository's `.git` file", '/ws/lib/.git', { refused: 'git' }],
    ];
    for (const [what, absolute, expected] of table) {
      it(what, () => assert.deepEqual(openablePlace(absolute, ['/ws', '/ws/sub']), expected));
    }
  });

  describe("the command card's line on what its Allow once opens", () => {
    const table: [string, string[], string | undefined][] = [
      ['no protected file', [], undefined],
      ['one', ['.vscode/settings.json'], 'Allow once lets this command write the protected file `.vscode/settings.json`: the sandbox opens that file alone, for this run only.'],
      ['two', ['.env', '.vscode/tasks.json'], 'Allow once lets this command write the protected files `.env`, `.vscode/tasks.json`: the sandbox opens those files alone, for this run only.'],
      ["git's files are never opened", ['.git/hooks/pre-commit'], "The sandbox keeps `.git/hooks/pre-commit` read-only even if you allow it: git's own files are never opened for a command."],
    ];
    for (const [what, relative, expected] of table) {
      it(what, () => assert.equal(protectedWritesNotice(relative.map((entry) => ({ absolute: `/ws/${entry}`, relative: entry })), ['/ws']), expected));
    }
  });

  describe('the policy holds an opened file: read-only no more, its folders pinned, nothing else loosened', () => {
    const base: Omit<SandboxPolicy, 'pinned'> = { writable: ['/ws'], readOnly: ['/ws/.vscode', '/ws/.env', '/ws/pkg/.env'], hidden: [{ path: '/h/.ssh', kind: 'dir' }], network: 'none', env: {} };
    const table: [string, SandboxPolicy['writableOnce'], { readOnly: string[]; pinned: string[]; once: string[]; conflicts: number }][] = [
      ['none: as before', undefined, { readOnly: ['/ws/.env', '/ws/.vscode', '/ws/pkg/.env'], pinned: ['/ws/pkg'], once: [], conflicts: 0 }],
      ['a file inside a read-only folder: the folder stays read-only', [{ path: '/ws/.vscode/settings.json', fd: 3 }], { readOnly: ['/ws/.env', '/ws/.vscode', '/ws/pkg/.env'], pinned: ['/ws/pkg'], once: ['/ws/.vscode/settings.json'], conflicts: 0 }],
      ['a read-only file itself: it leaves the read-only list, its folder stays pinned', [{ path: '/ws/pkg/.env', fd: 3 }], { readOnly: ['/ws/.env', '/ws/.vscode'], pinned: ['/ws/pkg'], once: ['/ws/pkg/.env'], conflicts: 0 }],
      ['a new file deep in a new folder: its folders are pinned', [{ path: '/ws/a/b/.env' }], { readOnly: ['/ws/.env', '/ws/.vscode', '/ws/pkg/.env'], pinned: ['/ws/a', '/ws/a/b', '/ws/pkg'], once: ['/ws/a/b/.env'], conflicts: 0 }],
      ['outside every writable folder: not opened, and said', [{ path: '/etc/passwd', fd: 3 }], { readOnly: ['/ws/.env', '/ws/.vscode', '/ws/pkg/.env'], pinned: ['/ws/pkg'], once: [], conflicts: 1 }],
      ['twice: once', [{ path: '/ws/.env', fd: 3 }, { path: '/ws/.env', fd: 4 }], { readOnly: ['/ws/.vscode', '/ws/pkg/.env'], pinned: ['/ws/pkg'], once: ['/ws/.env'], conflicts: 0 }],
    ];
    for (const [what, writableOnce, expected] of table) {
      it(what, () => {
        const { policy, conflicts } = normalisePolicy({ ...base, ...(writableOnce !== undefined ? { writableOnce } : {}) });
        assert.deepEqual(policy.readOnly, expected.readOnly);
        assert.deepEqual(policy.pinned, expected.pinned);
        assert.deepEqual((policy.writableOnce ?? []).map((entry) => entry.path), expected.once);
        assert.equal(conflicts.length, expected.conflicts);
        assert.deepEqual(policy.hidden, base.hidden);
        assert.deepEqual(policy.writable, base.writable);
      });
    }
  });

  it("bwrap binds the opened file after the read-only entries: by its descriptor, or by its path on a stage", () => {
    const { policy } = normalisePolicy({ writable: ['/ws'], readOnly: ['/ws/.vscode'], hidden: [], network: 'none', env: {}, writableOnce: [{ path: '/ws/.vscode/settings.json', fd: 3 }, { path: '/ws/.env' }] });
    const args = bwrapArgs(policy, '/ws');
    const readOnly = args.indexOf('/ws/.vscode');
    const byFd = args.indexOf('--bind-fd');
    assert.ok(readOnly > 0 && byFd > readOnly, args.join(' '));
    assert.deepEqual(args.slice(byFd, byFd + 3), ['--bind-fd', '3', '/ws/.vscode/settings.json']);
    const byPath = args.lastIndexOf('/ws/.env');
    assert.deepEqual(args.slice(byPath - 2, byPath + 1), ['--bind', '/ws/.env', '/ws/.env']);
  });

  describe('the paths named on read-only errors, in the words of bash, coreutils, Node and Python', () => {
    const table: [string, string, string[]][] = [
      ['bash', 'bash: line 1: .vscode/settings.json: Read-only file system', ['.vscode/settings.json']],
      ['touch', "touch: cannot touch '.vscode/x': Read-only file system", ['.vscode/x']],
      ['Node', "Error: EROFS: read-only file system, open '.vscode/tasks.json'", ['.vscode/tasks.json']],
      ['Python', "PermissionError: [Errno 30] Read-only file system: '.env'", ['.env']],
      ['another error names nothing', "bash: .vscode/x: No such file or directory", []],
    ];
    for (const [what, output, expected] of table) {
      it(what, () => assert.deepEqual(pathsInReadOnlyErrors(`noise\n${output}\nmore`), expected));
    }
  });

  describe('the refused writes a failed run names: from its policy, never a path the policy did not hold read-only', () => {
    const policy = { readOnly: ['/ws/.vscode', '/ws/.env'], writableOnce: [{ path: '/ws/.vscode/settings.json' }] };
    const table: [string, Partial<Parameters<typeof refusedWrites>[0]>, ReturnType<typeof refusedWrites>][] = [
      ['a judged write into a read-only folder', { writes: ['/ws/.vscode/tasks.json'] }, [{ path: '/ws/.vscode/tasks.json' }]],
      ['a judged write the policy opened is not refused', { writes: ['/ws/.vscode/settings.json'] }, []],
      ['a judged write elsewhere is not the sandbox', { writes: ['/ws/src/a.ts'] }, []],
      ['an allowed file that was not opened, with why', { notOpened: [{ path: '/ws/.git/config', kind: 'git' }] }, [{ path: '/ws/.git/config', why: 'git' }]],
      ['a path in the output, from where the command ran', { output: "touch: cannot touch '../.env': Read-only file system", cwd: '/ws/src' }, [{ path: '/ws/.env' }]],
      ['a path in the output the policy did not hold read-only', { output: "touch: cannot touch '/usr/x': Read-only file system" }, []],
      ['named once', { writes: ['/ws/.env'], output: 'bash: .env: Read-only file system' }, [{ path: '/ws/.env' }]],
    ];
    for (const [what, input, expected] of table) {
      it(what, () => assert.deepEqual(refusedWrites({ policy, writes: [], notOpened: [], output: '', cwd: '/ws', ...input }), expected));
    }
  });

  describe("the failure's words name the path and the sandbox", () => {
    const run: SandboxedRun = { exitCode: 1, output: 'bash: .vscode/settings.json: No such file or directory', sandboxed: true, notRun: undefined, cancelled: false, timedOut: false };
    const table: [string, SandboxedRun, string | undefined][] = [
      ['a protected file kept read-only', { ...run, refusedWrites: [{ path: '.vscode/settings.json' }] }, 'the sandbox kept `.vscode/settings.json` read-only (protected path)'],
      [
        'an allowed file that was not opened says why',
        { ...run, refusedWrites: [{ path: '.git/hooks/pre-commit', why: 'git' }, { path: '.env', why: 'link' }] },
        "the sandbox kept `.git/hooks/pre-commit` read-only (protected path: git's own files are never opened for a command), `.env` read-only (protected path: a symbolic link is there or on its way, and links are never opened)",
      ],
      ['a run that succeeded names nothing', { ...run, exitCode: 0, refusedWrites: [{ path: '.env' }] }, undefined],
      ['without refused writes, the guess from the output stays', { ...run, output: 'x: Read-only file system' }, 'a write was refused: outside the workspace and in protected paths the sandbox is read-only'],
    ];
    for (const [what, result, expected] of table) {
      it(what, () => assert.equal(sandboxFailure(result), expected));
    }
  });
});
