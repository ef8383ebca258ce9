/**
 * Nothing silent (issue 35): where a command's changes would land without review, the status item, its card and the
 * model's report say so and why, with what fixes it; and a command whose card promised review runs staged or not at
 * all (the launch decision, in the real bubblewrap and overlay).
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CommandSandbox, type StagingStatus } from '../../src/core/sandbox/commandSandbox';
import type { SandboxInputs } from '../../src/core/sandbox/gather';
import { findBwrap, probeSandbox } from '../../src/core/sandbox/sandbox';
import { discardStage, findUnshare, probeStaging, type StagingProbe } from '../../src/core/sandbox/stage';
import { runLaunched } from '../fixtures/launchedRun';
import { reviewSetting, unreviewedCardLine, unreviewedItem, unreviewedNotRun, unreviewedReportLine } from '../../src/core/views/unreviewed';
import { scratchFolder } from '../fixtures/scratch';

describe('nothing silent: where changes land without review, what each surface says', () => {
  it('turned off: the card, the status item (a click opens the setting) and the model\'s report, word for word', () => {
    const status: StagingStatus = { staged: false, why: 'setting-off', reason: `${reviewSetting} is off` };
    assert.equal(unreviewedCardLine(status), `Its changes will land in the workspace without review: ${reviewSetting} is off. Turn it on to review them.`);
    assert.deepEqual(unreviewedItem(status), {
      text: '$(warning) Changes unreviewed',
      tooltip: `Toolgate: commands' changes land in the workspace without review: ${reviewSetting} is off. Turn it on to review them.`,
      setting: reviewSetting,
    });
    assert.equal(unreviewedReportLine(status), `Its changes were not reviewed: they went straight to the workspace (${reviewSetting} is off).`);
  });

  // Each cause with its probe's line and what fixes it (none where nothing the person does would).
  const causes: [Exclude<StagingStatus, { staged: true }>, string | undefined][] = [
    [
      { staged: false, why: 'apparmor', reason: 'AppArmor keeps unshare from making a user namespace (Operation not permitted)' },
      'To review them, let unshare make user namespaces: `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`, or an AppArmor profile for /usr/bin/unshare with `userns,`; then reload the window.',
    ],
    [{ staged: false, why: 'no-unshare', reason: "util-linux's unshare is missing" }, "To review them, install util-linux's `unshare` and reload the window."],
    [{ staged: false, why: 'overlay-refused', reason: 'an overlay mount in a user namespace failed (mount: permission denied)' }, 'Review needs overlayfs in an unprivileged user namespace (Linux 5.11 or later).'],
    [
      { staged: false, why: 'folder-path', reason: '/w/a,b has a comma, colon, backslash or line break in its path, which an overlay mount cannot take' },
      'To review them, open the folder from a path without a comma, colon, backslash or line break.',
    ],
    [{ staged: false, why: 'probe-failed', reason: 'the staging check failed: Error: EACCES' }, undefined],
    [{ staged: false, why: 'not-built', reason: 'commands are not staged by this build' }, undefined],
  ];
  for (const [status, fix] of causes) {
    it(`${status.why}: the card and the status item say why${fix === undefined ? '' : ' and what fixes it'}; the model is told`, () => {
      const said = `without review: ${status.reason}.${fix === undefined ? '' : ` ${fix}`}`;
      assert.equal(unreviewedCardLine(status), `Its changes will land in the workspace ${said}`);
      assert.equal(unreviewedItem(status)?.tooltip, `Toolgate: commands' changes land in the workspace ${said}`);
      assert.equal(unreviewedItem(status)?.setting, undefined);
      assert.equal(unreviewedReportLine(status), `Its changes were not reviewed: they went straight to the workspace (${status.reason}).`);
    });
  }

  const silent: [string, StagingStatus | undefined][] = [
    ['not said (a runner that does not stage)', undefined],
    ['staged', { staged: true }],
  ];
  for (const [name, status] of silent) {
    it(`${name}: nothing is said anywhere`, () => {
      assert.deepEqual([unreviewedCardLine(status), unreviewedItem(status), unreviewedReportLine(status)], [undefined, undefined, undefined]);
    });
  }

  it('no sandbox at all: the card already says it would run unconfined; the status item says there is none', () => {
    const status: StagingStatus = { staged: false, why: 'no-sandbox', reason: 'bubblewrap is not installed' };
    assert.deepEqual([unreviewedCardLine(status), unreviewedReportLine(status)], [undefined, undefined]);
    assert.deepEqual(unreviewedItem(status), {
      text: '$(warning) No sandbox',
      tooltip: 'Toolgate: no sandbox here (bubblewrap is not installed): every command asks, and runs unconfined if you allow it.',
    });
  });

});

describe('the staging probe says why it cannot stage, typed', () => {
  it('no unshare', async () => {
    assert.deepEqual(await probeStaging(undefined), { available: false, why: 'no-unshare', reason: "util-linux's unshare is missing" });
  });

  it('no bubblewrap', async () => {
    assert.deepEqual(await probeStaging('/usr/bin/unshare', os.tmpdir(), () => undefined), { available: false, why: 'no-bwrap', reason: 'bubblewrap is not installed' });
  });

  const failing: [boolean, Extract<StagingProbe, { available: false }>][] = [
    [true, { available: false, why: 'apparmor', reason: 'AppArmor keeps unshare from making a user namespace (' }],
    [false, { available: false, why: 'overlay-refused', reason: 'an overlay mount in a user namespace failed (' }],
  ];
  for (const [apparmor, expected] of failing) {
    it(`an unshare that fails, with AppArmor's user-namespace rule ${apparmor ? 'on' : 'off'}`, async () => {
      const parent = scratchFolder('toolgate-probe-');
      try {
        const probe = await probeStaging('/bin/false', parent, findBwrap, () => apparmor);
        assert.ok(!probe.available);
        assert.equal(probe.why, expected.why);
        assert.ok(probe.reason.startsWith(expected.reason), probe.reason);
      } finally {
        rmSync(parent, { recursive: true, force: true });
      }
    });
  }
});

describe('a command runs as its card said: staged, or not at all (the real sandbox and overlay)', function () {
  this.timeout(30_000);
  let base: string;
  let workspace: string;
  before(() => {
    base = scratchFolder('toolgate-unreviewed-');
    workspace = path.join(base, 'ws');
    mkdirSync(workspace);
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  function sandbox(enabled: () => boolean, probe: () => Promise<StagingProbe> = () => probeStaging(findUnshare(), path.join(base, 'stages'))): { sandbox: CommandSandbox; log: string[] } {
    const log: string[] = [];
    const inputs: SandboxInputs = { workspaceFolders: [workspace], protectedGlobs: [], extraHidden: [], extraWritable: [], ownStorage: [], network: 'none', cacheRoot: path.join(base, 'cache') };
    return {
      sandbox: new CommandSandbox({
        probe: () => probeSandbox(),
        inputs: () => inputs,
        log: (line) => log.push(line),
        staging: { parent: path.join(base, 'stages'), unshare: findUnshare() ?? '/usr/bin/unshare', probe, enabled },
      }),
      log,
    };
  }

  it('a card that promised review: staged, and the workspace untouched until it lands', async () => {
    mkdirSync(path.join(base, 'stages'), { recursive: true });
    const { sandbox: staged } = sandbox(() => true);
    assert.deepEqual(await staged.stagingStatus(), { staged: true });
    const prepared = await staged.launch(workspace, undefined, { stage: true });
    assert.ok('launch' in prepared && prepared.launch.stage !== undefined, JSON.stringify(prepared));
    try {
      const result = await runLaunched('echo x > staged.txt', { cwd: workspace, timeoutMs: 15_000, wrap: prepared.launch, graceMs: 500, drainMs: 300 });
      assert.equal(result.exitCode, 0, result.output);
      assert.equal(existsSync(path.join(workspace, 'staged.txt')), false);
    } finally {
      await discardStage(prepared.launch.stage);
    }
  });

  it('a card that promised review, and staging turned off before the launch: not run, and why', async () => {
    let enabled = true;
    const { sandbox: turnedOff, log } = sandbox(() => enabled);
    assert.deepEqual(await turnedOff.stagingStatus(), { staged: true });
    enabled = false;
    const prepared = await turnedOff.launch(workspace, undefined, { stage: true });
    assert.deepEqual(prepared, { notStaged: 'toolgate.sandbox.reviewCommandChanges is off' });
    assert.deepEqual(log.filter((line) => line.startsWith('not run')), ['not run: its card said its changes would be reviewed, but it cannot be staged now (toolgate.sandbox.reviewCommandChanges is off)']);
    assert.equal(unreviewedNotRun('toolgate.sandbox.reviewCommandChanges is off'), 'Its card said its changes would be reviewed before they land, but it cannot be staged now (toolgate.sandbox.reviewCommandChanges is off), so nothing was run.');
  });

  it('staging unavailable here: said before the card (typed), and a card that promised review anyway is not run', async () => {
    const { sandbox: apparmor } = sandbox(() => true, () => Promise.resolve({ available: false, why: 'apparmor', reason: 'AppArmor keeps unshare from making a user namespace' }));
    assert.deepEqual(await apparmor.stagingStatus(), { staged: false, why: 'apparmor', reason: 'AppArmor keeps unshare from making a user namespace' });
    assert.deepEqual(await apparmor.launch(workspace, undefined, { stage: true }), { notStaged: 'AppArmor keeps unshare from making a user namespace' });
  });

  it('a card that said its changes land without review: runs confined, writing to the workspace directly', async () => {
    const { sandbox: off } = sandbox(() => false);
    assert.deepEqual(await off.stagingStatus(), { staged: false, why: 'setting-off', reason: 'toolgate.sandbox.reviewCommandChanges is off' });
    const prepared = await off.launch(workspace, undefined, { stage: false });
    assert.ok('launch' in prepared && prepared.launch.stage === undefined);
    const result = await runLaunched('echo direct > direct.txt', { cwd: workspace, timeoutMs: 15_000, wrap: prepared.launch, graceMs: 500, drainMs: 300 });
    assert.equal(result.exitCode, 0, result.output);
    assert.equal(readFileSync(path.join(workspace, 'direct.txt'), 'utf8'), 'direct\n');
  });

  it('a workspace folder an overlay cannot take: said before the card', async () => {
    const odd = path.join(base, 'a,b');
    mkdirSync(odd);
    const inputs: SandboxInputs = { workspaceFolders: [odd], protectedGlobs: [], extraHidden: [], extraWritable: [], ownStorage: [], network: 'none' };
    const oddSandbox = new CommandSandbox({ probe: () => probeSandbox(), inputs: () => inputs, log: () => undefined, staging: { parent: path.join(base, 'stages'), unshare: '/usr/bin/unshare', probe: () => Promise.resolve({ available: true }), enabled: () => true } });
    const status = await oddSandbox.stagingStatus();
    assert.ok(!status.staged && status.why === 'folder-path', JSON.stringify(status));
    assert.deepEqual(await oddSandbox.launch(odd, undefined, { stage: true }), { notStaged: status.reason });
  });
});
