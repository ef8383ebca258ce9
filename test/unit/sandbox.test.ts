/**
 * The sandbox with the real bubblewrap: what a command run in it can and cannot do to the files, the network and the
 * processes of the machine. Every case runs for real in a throw-away folder with a fake home holding canaries.
 */
import * as assert from 'node:assert/strict';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { bwrapArgs } from '../../src/core/sandbox/bwrap';
import { CommandSandbox } from '../../src/core/sandbox/commandSandbox';
import { sandboxFailure } from '../../src/core/sandbox/failures';
import { gatherSandboxPolicy, protectedIn, type SandboxInputs } from '../../src/core/sandbox/gather';
import { normalisePolicy } from '../../src/core/sandbox/policy';
import { explainProbeFailure, findBwrap, probeSandbox } from '../../src/core/sandbox/sandbox';
import { goneWithin } from '../fixtures/processes';
import type { CommandResult } from '../../src/core/terminal/bashRunner';
import { runLaunched } from '../fixtures/launchedRun';
import { defaultProtectedPaths } from '../../src/core/settings';
import { scratchFolder } from '../fixtures/scratch';

describe('the command sandbox (real bubblewrap)', function () {
  this.timeout(30_000);
  let base: string;
  let workspace: string;
  let home: string;
  let outside: string;
  let listener: Server;
  let port: number;
  let inputs: SandboxInputs;

  before(async () => {
    // Not under /tmp: the sandbox gives every command a private /tmp, so a home or folder there would be out of sight.
    base = scratchFolder('toolgate-sandbox-');
    workspace = path.join(base, 'ws');
    home = path.join(base, 'home');
    outside = path.join(base, 'outside');
    for (const folder of [workspace, home, outside, path.join(workspace, '.git', 'hooks'), path.join(workspace, '.vscode'), path.join(workspace, 'pkg', '.vscode'), path.join(home, '.ssh'), path.join(home, '.aws'), path.join(workspace, 'sub', '.git')]) {
      mkdirSync(folder, { recursive: true });
    }
    writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'CANARY-SSH-KEY\n');
    writeFileSync(path.join(home, '.aws', 'credentials'), 'CANARY-AWS\n');
    writeFileSync(path.join(home, '.netrc'), 'CANARY-NETRC\n');
    writeFileSync(path.join(home, 'notes.txt'), 'readable\n');
    execFileSync('git', ['init', '-q', workspace]);
    writeFileSync(path.join(workspace, 'sub', '.git', 'config'), '[core]\n');
    writeFileSync(path.join(workspace, '.vscode', 'settings.json'), '{}\n');
    writeFileSync(path.join(workspace, 'pkg', '.vscode', 'tasks.json'), '{}\n');
    writeFileSync(path.join(workspace, '.env'), 'SECRET=1\n');
    writeFileSync(path.join(workspace, 'code.ts'), 'export {};\n');
    listener = createServer((socket) => socket.end('CANARY-LOOPBACK\n'));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
    inputs = {
      workspaceFolders: [workspace],
      protectedGlobs: defaultProtectedPaths,
      extraHidden: [path.join(outside, 'hidden-by-setting')],
      extraWritable: [],
      // VS Code's user data folder holds the extension's storage: both hidden, the inner one by the outer.
      ownStorage: [path.join(base, 'storage'), path.join(base, 'storage', 'workspaceStorage', 'toolgate')],
      network: 'none',
      home,
      cacheRoot: path.join(base, 'cache'),
    };
    mkdirSync(path.join(base, 'storage', 'workspaceStorage', 'toolgate'), { recursive: true });
    writeFileSync(path.join(base, 'storage', 'audit.jsonl'), 'CANARY-AUDIT\n');
    mkdirSync(path.join(outside, 'hidden-by-setting'));
    writeFileSync(path.join(outside, 'hidden-by-setting', 'token'), 'CANARY-SETTING\n');
  });

  after(async () => {
    await new Promise((resolve) => listener.close(resolve));
    rmSync(base, { recursive: true, force: true });
  });

  async function run(command: string, cwd = workspace, timeoutMs = 15_000): Promise<CommandResult> {
    const sandbox = new CommandSandbox({ probe: () => probeSandbox(), inputs: () => inputs, log: () => undefined });
    const prepared = await sandbox.launch(cwd);
    assert.ok('launch' in prepared, `the sandbox starts here: ${'unavailable' in prepared ? prepared.unavailable : ''}`);
    return runLaunched(command, { cwd, timeoutMs, wrap: prepared.launch, graceMs: 500, drainMs: 300 });
  }

  it('starts here (bubblewrap is installed and may create namespaces)', async () => {
    assert.deepEqual(await probeSandbox(), { available: true, engine: 'bwrap', program: findBwrap() });
  });

  it('writes in the workspace land, the output comes back, the exit code is the command\'s', async () => {
    const result = await run('echo made > made.txt && cat made.txt; exit 7');
    assert.equal(result.exitCode, 7);
    assert.equal(result.output, 'made\n');
    assert.equal(result.sandboxed, true);
    assert.equal(readFileSync(path.join(workspace, 'made.txt'), 'utf8'), 'made\n');
  });

  const refusedWrites: [string, string][] = [
    ['outside the workspace', 'echo x > $OUT/written.txt'],
    ['in the home folder', 'echo x > $HOME_DIR/written.txt'],
    ['.git/config', 'echo "[core] fsmonitor = touch /tmp/x" >> .git/config'],
    ['a hook', 'echo "#!/bin/sh" > .git/hooks/pre-commit'],
    ['a nested repository\'s config', 'echo x >> sub/.git/config'],
    ['.vscode', 'echo x > .vscode/tasks.json'],
    ['a nested .vscode', 'echo x > pkg/.vscode/tasks.json'],
    ['.env', 'echo x >> .env'],
    ['.vscode, by a rename over it', 'cp code.ts /tmp/new.json && mv /tmp/new.json .vscode/settings.json'],
    ['.vscode, by removing it', 'rm -rf .vscode'],
  ];
  for (const [what, command] of refusedWrites) {
    it(`refuses a write ${what}`, async () => {
      const before = snapshot();
      const result = await run(command.replace('$OUT', outside).replace('$HOME_DIR', home));
      assert.notEqual(result.exitCode, 0, result.output);
      assert.deepEqual(snapshot(), before, `nothing changed: ${result.output}`);
      assert.ok(sandboxFailure(result) !== undefined, `the failure is recognised as the sandbox's: ${result.output}`);
    });
  }

  it('lets git write its own files in .git (a commit works), while config and hooks stay read-only', async () => {
    const config = readFileSync(path.join(workspace, '.git', 'config'), 'utf8');
    const result = await run('git config core.fsmonitor "touch pwned" 2>&1; git -c user.email=a@b -c user.name=a add code.ts && git -c user.email=a@b -c user.name=a commit -qm one && git log --oneline | wc -l');
    // git writes config.lock and renames it over config: the rename onto the read-only mount is refused.
    assert.match(result.output, /could not write config file .git\/config: Device or resource busy\n1\n$/);
    assert.equal(readFileSync(path.join(workspace, '.git', 'config'), 'utf8'), config);
  });

  it('a private /tmp: what the command writes there is gone, the host\'s /tmp untouched', async () => {
    const marker = `toolgate-sandbox-marker-${process.pid}`;
    const result = await run(`echo x > /tmp/${marker} && ls /tmp/${marker} && echo $TMPDIR`);
    assert.equal(result.output, `/tmp/${marker}\n/tmp\n`);
    assert.equal(existsSync(path.join('/tmp', marker)), false);
  });

  const canaries: [string, string][] = [
    ['~/.ssh', 'cat $HOME_DIR/.ssh/id_rsa; ls -a $HOME_DIR/.ssh'],
    ['~/.aws', 'cat $HOME_DIR/.aws/credentials'],
    ['~/.netrc', 'cat $HOME_DIR/.netrc'],
    ['Toolgate\'s storage', 'cat $BASE/storage/audit.jsonl'],
    ['a path the setting hides', 'cat $OUT/hidden-by-setting/token'],
    ['a hidden folder found by a search', 'grep -r CANARY $HOME_DIR $BASE/storage $OUT 2>/dev/null'],
  ];
  for (const [what, command] of canaries) {
    it(`cannot read ${what}`, async () => {
      const result = await run(command.replace(/\$HOME_DIR/g, home).replace(/\$BASE/g, base).replace(/\$OUT/g, outside));
      assert.doesNotMatch(result.output, /CANARY/, result.output);
    });
  }

  it('names the protected paths a command created, which it could not guard because they did not exist yet', async () => {
    const sandbox = new CommandSandbox({ probe: () => probeSandbox(), inputs: () => inputs, log: () => undefined });
    const prepared = await sandbox.launch(workspace);
    assert.ok('launch' in prepared);
    try {
      const result = await runLaunched('mkdir -p .devcontainer && echo "{}" > .devcontainer/devcontainer.json && echo x > .vscode/tasks.json; echo x > plain.txt', { cwd: workspace, timeoutMs: 15_000, wrap: prepared.launch });
      assert.match(result.output, /\.vscode\/tasks\.json: Read-only file system/);
      assert.deepEqual(await sandbox.newlyProtected(prepared.launch), [path.join(workspace, '.devcontainer')]);
    } finally {
      rmSync(path.join(workspace, '.devcontainer'), { recursive: true, force: true });
      rmSync(path.join(workspace, 'plain.txt'), { force: true });
    }
  });

  it('hides the credentials of the account\'s own home too, when HOME names another folder', async () => {
    const account = path.join(base, 'account');
    mkdirSync(path.join(account, '.ssh'), { recursive: true });
    const { policy } = await gatherSandboxPolicy({ ...inputs, accountHome: account });
    assert.deepEqual(policy.hidden.filter((entry) => entry.path.endsWith('.ssh')).map((entry) => entry.path), [path.join(home, '.ssh'), path.join(account, '.ssh')]);
  });

  it('reads the rest of the home folder (read-only)', async () => {
    const result = await run(`cat ${home}/notes.txt`);
    assert.equal(result.output, 'readable\n');
  });

  it('has no network: the host\'s loopback listener is not reachable', async () => {
    const result = await run(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`);
    assert.doesNotMatch(result.output, /CANARY/);
    assert.notEqual(result.exitCode, 0);
    assert.ok(sandboxFailure(result) !== undefined, result.output);
  });

  it('leaves nothing running: background and setsid processes end with the command', async () => {
    const tag = `toolgate-leftover-${process.pid}`;
    await run(`(exec -a ${tag} sleep 60 &); setsid bash -c 'exec -a ${tag} sleep 60' & nohup bash -c 'exec -a ${tag} sleep 60' >/dev/null 2>&1 & echo started`);
    assert.equal(await goneWithin(tag), '');
  });

  it('a timeout ends everything it started', async () => {
    const tag = `toolgate-timeout-${process.pid}`;
    const result = await run(`(exec -a ${tag} sleep 60 &); exec -a ${tag} sleep 60`, workspace, 500);
    assert.equal(result.timedOut, true);
    assert.equal(await goneWithin(tag), '');
  });

  it('/proc and /dev/fd are the command\'s own', async () => {
    const result = await run('echo $$; readlink /proc/self/fd/0; ls /proc | grep -c "^[0-9]"');
    const [pid, stdin, count] = result.output.trim().split('\n');
    assert.ok(Number(pid) < 10, `bash has a small pid of its own namespace: ${pid}`);
    assert.equal(stdin, '/dev/null');
    assert.ok(Number(count) < 10, `it sees only its own processes: ${count}`);
  });

  it('cannot make the file system writable again, nor link a protected file to change it', async () => {
    const before = snapshot();
    const config = readFileSync(path.join(workspace, '.git', 'config'), 'utf8');
    const result = await run('mount -o remount,rw / 2>&1; ln .git/config cfg 2>&1; echo x >> cfg; unshare -rm sh -c "mount --bind . .git" 2>&1; echo done');
    assert.match(result.output, /Invalid cross-device link[\s\S]*done\n$/);
    assert.equal(readFileSync(path.join(workspace, '.git', 'config'), 'utf8'), config);
    // The `echo x >> cfg` made a new file of its own, nothing else changed.
    assert.equal(readFileSync(path.join(workspace, 'cfg'), 'utf8'), 'x\n');
    rmSync(path.join(workspace, 'cfg'));
    assert.deepEqual(snapshot(), before);
  });

  it('tool caches go to a writable per-workspace cache folder', async () => {
    const result = await run('mkdir -p "$npm_config_cache" && echo cached > "$npm_config_cache/entry" && cat "$npm_config_cache/entry"');
    assert.equal(result.output, 'cached\n');
  });

  function snapshot(): string {
    return execFileSync('bash', ['-c', `cd ${base} && find . -path ./cache -prune -o -path ./ws/made.txt -prune -o -path './ws/.git/*' ! -path './ws/.git/config' ! -path './ws/.git/hooks*' -prune -o -print0 | sort -z | xargs -0 sha1sum 2>/dev/null; find . -path ./cache -prune -o -print | sort`]).toString();
  }
});


describe('the sandbox policy, without starting it', () => {
  it('bwrap\'s arguments: everything read-only first, then the writable folders, the pinned folders, then read-only and hidden over them', () => {
    const args = bwrapArgs({ writable: ['/ws'], readOnly: ['/ws/.vscode', '/ws/pkg/.vscode'], pinned: ['/ws/.git', '/ws/pkg'], hidden: [{ path: '/h/.ssh', kind: 'dir' }, { path: '/h/.netrc', kind: 'file' }], network: 'none', env: {} }, '/ws/src');
    assert.deepEqual(args, [
      '--unshare-all', '--unshare-user', '--cap-drop', 'ALL', '--disable-userns', '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/dev/shm',
      '--bind', '/ws', '/ws', '--bind', '/ws/.git', '/ws/.git', '--bind', '/ws/pkg', '/ws/pkg',
      '--ro-bind', '/ws/.vscode', '/ws/.vscode', '--ro-bind', '/ws/pkg/.vscode', '/ws/pkg/.vscode',
      '--tmpfs', '/h/.ssh', '--remount-ro', '/h/.ssh', '--ro-bind', '/dev/null', '/h/.netrc', '--chdir', '/ws/src',
    ]);
    assert.ok(bwrapArgs({ writable: [], readOnly: [], pinned: [], hidden: [], network: 'host', env: {} }, '/').includes('--share-net'));
  });

  it('a hidden path that holds a writable folder is not hidden (and says so); read-only paths outside writable ones are dropped', () => {
    const { policy, conflicts } = normalisePolicy({
      writable: ['/home/me/project', '/home/me/project'],
      readOnly: ['/home/me/project/.vscode', '/etc/passwd'],
      hidden: [{ path: '/home/me', kind: 'dir' }, { path: '/home/me/.ssh', kind: 'dir' }, { path: '/data', kind: 'dir' }, { path: '/data/User/storage', kind: 'dir' }],
      network: 'none',
      env: {},
    });
    assert.deepEqual(policy.writable, ['/home/me/project']);
    assert.deepEqual(policy.readOnly, ['/home/me/project/.vscode']);
    // The user data folder hides the storage inside it already.
    assert.deepEqual(policy.hidden, [{ path: '/home/me/.ssh', kind: 'dir' }, { path: '/data', kind: 'dir' }]);
    assert.equal(conflicts.length, 1);
  });

  it('finds the protected paths of a folder: whole folders once, files at any depth, only git\'s control files in .git', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-protected-')));
    try {
      for (const folder of ['.vscode', 'a/.vscode', '.git/hooks', '.git/objects', '.git/modules/lib/hooks', 'node_modules/x/.vscode', '.github/workflows', '.github/other']) {
        mkdirSync(path.join(root, folder), { recursive: true });
      }
      for (const file of ['.git/config', '.git/HEAD', '.git/modules/lib/config', '.env', 'b/.env.local', 'x.code-workspace', '.github/other/a.yml', 'code.ts']) {
        mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        writeFileSync(path.join(root, file), '');
      }
      linkSync(path.join(root, 'code.ts'), path.join(root, 'hard.ts'));
      const found = (await protectedIn(root, defaultProtectedPaths)).paths.map((entry) => path.relative(root, entry)).sort();
      assert.deepEqual(found, ['.env', '.git/config', '.git/hooks', '.git/modules/lib/config', '.git/modules/lib/hooks', '.github/workflows', '.vscode', 'a/.vscode', 'b/.env.local', 'x.code-workspace']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('is unavailable where it cannot start, saying why in one line', async () => {
    assert.deepEqual(await probeSandbox('linux', () => undefined), { available: false, reason: 'bubblewrap is not installed (install the `bubblewrap` package: sudo apt install bubblewrap)' });
    const darwin = await probeSandbox('darwin', () => undefined, { exists: () => false });
    assert.match(darwin.available ? '' : darwin.reason, /sandbox-exec is missing/);
    assert.match((await probeSandbox('linux', () => '/bin/false')).available ? '' : 'unavailable', /unavailable/);
    assert.match(explainProbeFailure('bwrap: setting up uid map: Permission denied\n'), /user namespaces are off/);
    const sandbox = new CommandSandbox({ probe: () => probeSandbox('linux', () => undefined), inputs: () => { throw new Error('not asked'); }, log: () => undefined });
    assert.deepEqual(sandbox.status(), { available: false, reason: 'the sandbox has not been checked yet' });
    assert.ok('unavailable' in (await sandbox.launch('/')));
    assert.equal(sandbox.status().available, false);
  });

  const failures: [string, Partial<CommandResult>, string | undefined][] = [
    ['a read-only file', { output: 'bash: .git/config: Read-only file system\n', exitCode: 1 }, 'a write was refused'],
    ['no network (curl)', { output: 'curl: (6) Could not resolve host: example.org\n', exitCode: 6 }, 'the network is off'],
    ['no network (npm)', { output: 'npm error code EAI_AGAIN\n', exitCode: 1 }, 'the network is off'],
    ['the sandbox did not start', { output: 'bwrap: Can\'t mkdir parents for /x: Read-only file system\n', exitCode: 1 }, 'the sandbox itself could not start (bwrap: Can\'t mkdir'],
    ['a folder that holds protected files, renamed', { output: 'mv: cannot move \'.git\' to \'.git-old\': Device or resource busy\n', exitCode: 1 }, 'a protected file, or a folder that holds protected files, cannot be renamed or removed in the sandbox'],
    ['a refused connection', { output: 'Error: connect ECONNREFUSED 127.0.0.1:5432\n', exitCode: 1 }, 'a connection was refused'],
    ['a test that failed', { output: 'AssertionError: 1 !== 2\n', exitCode: 1 }, undefined],
    ['success that prints the words', { output: 'Read-only file system handled\n', exitCode: 0 }, undefined],
    ['curl exiting 0 with the proxy\'s refusal as its output', { output: "Toolgate's sandbox refused 127.0.0.1:3000 (not in toolgate.sandbox.allowedDomains)\n", exitCode: 0, refusedConnections: ['127.0.0.1:3000 (not in toolgate.sandbox.allowedDomains)'] }, 'the sandbox refused connections to 127.0.0.1:3000'],
    ['success whose refused call went unseen (a version check)', { output: 'built\n', exitCode: 0, refusedConnections: ['telemetry.example:443 (not in toolgate.sandbox.allowedDomains)'] }, undefined],
    ['not in the sandbox', { output: 'Read-only file system\n', exitCode: 1, sandboxed: false }, undefined],
  ];
  for (const [what, change, expected] of failures) {
    it(`recognises a failure the sandbox caused: ${what}`, () => {
      const because = sandboxFailure({ exitCode: 0, output: '', sandboxed: true, notRun: undefined, cancelled: false, timedOut: false, ...change });
      if (expected === undefined) {
        assert.equal(because, undefined);
      } else {
        assert.ok(because?.startsWith(expected), because);
      }
    });
  }
});
