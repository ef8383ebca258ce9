/**
 * The managed settings file's bounds on a command, run for real in bubblewrap as if the person had allowed it: its
 * protected paths and the file itself (where a workspace folder holds it) stay read-only, the person's writable folder
 * beyond its ceiling stays read-only, and a command holds no capability. Run as root and as an ordinary user.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CommandSandbox } from '../../src/core/sandbox/commandSandbox';
import type { SandboxInputs } from '../../src/core/sandbox/gather';
import { probeSandbox } from '../../src/core/sandbox/sandbox';
import { sandboxInputsUnder } from '../../src/core/managed/managedCeilings';
import { parseManagedSettings } from '../../src/core/managed/managedSettings';
import { defaultProtectedPaths } from '../../src/core/settings';
import type { CommandResult } from '../../src/core/terminal/bashRunner';
import { runLaunched } from '../fixtures/launchedRun';
import { scratchFolder } from '../fixtures/scratch';

describe('a command under the managed settings file (real bubblewrap)', function () {
  this.timeout(30_000);
  let base: string;
  let workspace: string;
  let cache: string;
  let inputs: SandboxInputs;

  before(() => {
    base = scratchFolder('toolgate-managed-sandbox-');
    workspace = path.join(base, 'ws');
    cache = path.join(base, 'person-cache');
    for (const folder of [path.join(workspace, 'infra'), path.join(workspace, 'etc', 'toolgate'), cache, path.join(base, 'home')]) {
      mkdirSync(folder, { recursive: true });
    }
    writeFileSync(path.join(workspace, 'infra', 'main.tf'), 'original\n');
    const file = path.join(workspace, 'etc', 'toolgate', 'managed-settings.json');
    writeFileSync(file, '{"protectedPaths": ["infra/**"]}\n');
    const policy = parseManagedSettings(JSON.stringify({ protectedPaths: ['infra/**'], sandbox: { writablePaths: [] } }), file).policy;
    inputs = sandboxInputsUnder(
      { workspaceFolders: [workspace], protectedGlobs: defaultProtectedPaths, extraHidden: [], extraWritable: [cache], ownStorage: [path.join(base, 'storage')], network: 'none', home: path.join(base, 'home'), cacheRoot: path.join(base, 'cache') },
      policy,
      path.join(base, 'home'),
    );
  });

  after(() => rmSync(base, { recursive: true, force: true }));

  async function run(command: string): Promise<CommandResult> {
    const sandbox = new CommandSandbox({ probe: () => probeSandbox(), inputs: () => inputs, log: () => undefined });
    const prepared = await sandbox.launch(workspace);
    assert.ok('launch' in prepared, `the sandbox starts here: ${'unavailable' in prepared ? prepared.unavailable : ''}`);
    return runLaunched(command, { cwd: workspace, timeoutMs: 15_000, wrap: prepared.launch, graceMs: 500, drainMs: 300 });
  }

  const refused: { name: string; command: string; file: () => string; before: string }[] = [
    { name: 'a managed protected path', command: 'echo changed > infra/main.tf', file: () => path.join(workspace, 'infra', 'main.tf'), before: 'original\n' },
    { name: 'the managed file itself, inside the workspace', command: 'echo "{}" > etc/toolgate/managed-settings.json', file: () => path.join(workspace, 'etc', 'toolgate', 'managed-settings.json'), before: '{"protectedPaths": ["infra/**"]}\n' },
    { name: 'the managed file by a rename of its folder', command: 'mv etc/toolgate etc/moved && echo "{}" > etc/moved/managed-settings.json', file: () => path.join(workspace, 'etc', 'toolgate', 'managed-settings.json'), before: '{"protectedPaths": ["infra/**"]}\n' },
  ];
  for (const row of refused) {
    it(`cannot change ${row.name}`, async () => {
      const result = await run(row.command);
      assert.notEqual(result.exitCode, 0, result.output);
      assert.equal(readFileSync(row.file(), 'utf8'), row.before);
    });
  }

  it("the person's writable folder past the managed ceiling stays read-only, and the command holds no capability", async () => {
    const result = await run(`echo x > ${cache}/written 2>/dev/null; echo "wrote=$?"; grep CapEff /proc/self/status`);
    assert.match(result.output, /wrote=[1-9]/);
    assert.match(result.output, /CapEff:\s+0+\n/);
    assert.throws(() => readFileSync(path.join(cache, 'written')));
  });
});
