import * as assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { profileRules, rulesFor } from '../fixtures/seatbeltProfile';
import { useSession } from './harness/session';

/** The Seatbelt profile at the end of the report (after its heading line). */
function profileOf(report: string): string {
  const start = report.indexOf('(version 1)');
  assert.ok(start >= 0, 'the report ends with a Seatbelt profile');
  return report.slice(start);
}

/**
 * **Toolgate: Show Sandbox Policy** in the real VS Code on Linux, asked for macOS's form: the profile the pinned
 * library builds from this workspace's policy, checked rule by rule (what a Mac's sandbox-exec would enforce).
 */
describe('Show Sandbox Policy, in the real VS Code', function () {
  this.timeout(180_000);
  const session = useSession({ control: true, files: { '.git/config': '[core]\n', '.git/objects/.keep': '' } });

  it("macOS's form: writes to the protected paths and unlink/create of their folders denied, credentials unreadable, the workspace writable, the network only to the proxy", async () => {
    const report = await session.control.call<string>('/command', { command: 'toolgate.showSandboxPolicy', args: [{ platform: 'darwin' }] });
    const workspace = realpathSync(session.server.workspace);
    assert.match(report, /as it applies on macOS \(this machine: linux\)/);
    assert.match(report, /Engine: Seatbelt \(sandbox-exec\) with the profile @anthropic-ai\/sandbox-runtime 0\.0\.83/);
    assert.match(report, /not staged \(macOS has no overlay/);
    const rules = profileRules(profileOf(report));
    const writeDenies = rulesFor(rules, 'deny', 'file-write*');
    const moveDenies = rulesFor(rules, 'deny', 'file-write-unlink');
    for (const relative of ['.git/config', '.git/hooks', '.vscode', '.github/workflows']) {
      const absolute = path.join(workspace, relative);
      assert.ok(writeDenies.includes(`(subpath ${JSON.stringify(absolute)})`), `writes to ${relative} denied`);
      for (let folder = path.dirname(absolute); folder.length >= workspace.length; folder = path.dirname(folder)) {
        assert.ok(moveDenies.includes(`(literal ${JSON.stringify(folder)})`), `${folder} (above ${relative}) cannot be renamed or removed`);
      }
      assert.match(report, new RegExp(`${absolute.replaceAll('.', '\\.')}  \\(toolgate\\.protectedPaths`), `${relative} named with its setting`);
    }
    // `.env` by pattern (one made later is read-only too), and its folder, the workspace, kept in place.
    const envPattern = writeDenies.find((filter) => filter.startsWith('(regex') && filter.includes('\\\\.env'));
    assert.ok(envPattern !== undefined, 'writes to .env denied');
    assert.ok(new RegExp(JSON.parse(envPattern.slice('(regex '.length, -1)) as string).test(path.join(workspace, '.env')));
    assert.ok(moveDenies.includes(`(literal ${JSON.stringify(workspace)})`));
    // The credentials of the home VS Code runs with.
    const home = os.homedir();
    for (const relative of ['.ssh', '.aws']) {
      const readDenies = rulesFor(rules, 'deny', 'file-read*');
      assert.ok(readDenies.includes(`(subpath ${JSON.stringify(path.join(home, relative))})`), `reads of ~/${relative} denied (${path.join(home, relative)} itself)`);
    }
    assert.ok(rulesFor(rules, 'allow', 'file-write*').includes(`(subpath ${JSON.stringify(workspace)})`), 'the workspace writable');
    assert.ok(!rules.some((rule) => rule.action === 'allow' && rule.operations.includes('network*')), 'not the whole network');
    assert.deepEqual(rulesFor(rules, 'allow', 'network-outbound'), ['(remote ip "localhost:3128")'], 'outbound only to the proxy');
  });

  it("Linux's form, and a bad argument refused with what is wrong", async () => {
    const report = await session.control.call<string>('/command', { command: 'toolgate.showSandboxPolicy', args: [{ platform: 'linux' }] });
    assert.match(report, /^bwrap --unshare-all /m);
    assert.match(report, /Environment names a command gets from VS Code\n {2}PATH HOME /);
    await assert.rejects(
      session.control.call('/command', { command: 'toolgate.showSandboxPolicy', args: [{ platform: 'win32' }] }),
      /toolgate\.showSandboxPolicy takes \{ "platform": "linux" \| "darwin" \} or nothing/,
    );
  });
});
