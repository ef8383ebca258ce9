import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exampleManagedSettings } from '../fixtures/managedSettings';
import { OtlpReceiver } from '../fixtures/otlpReceiver';
import { until } from './harness/until';
import { useSession } from './harness/session';

/** The contract's example (its model ceiling and export replaced: this window asks no model, and exports to a local collector). */
const { model: _model, audit: _audit, ...managedSettings } = exampleManagedSettings;

/** Whether the file can be honoured here: only a file that only root can change is, so only root can write one. */
const asRoot = process.getuid?.() === 0;

/**
 * A managed settings file in place, in the real VS Code, against a person whose own settings allow everything: a
 * workspace rule that auto-approves every command, and machine settings that list a domain the file does not. The
 * file is named by TOOLGATE_MANAGED_SETTINGS_FILE (read while the system's own file does not exist), root-owned, 644.
 */
describe('a managed settings file in the real VS Code: nothing the person set loosens it', function () {
  this.timeout(240_000);
  const folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-managed-e2e-')));
  const file = path.join(folder, 'managed-settings.json');
  // The team's collector, on this machine's loopback: OTLP/HTTP with JSON, decoded as it arrives.
  const collector = new OtlpReceiver();
  // Registered before the VS Code session's own hook: the file names the collector's port before the window reads it.
  before(async () => {
    await collector.start();
    writeFileSync(file, JSON.stringify({ ...managedSettings, audit: { otlp: { endpoint: collector.endpoint, protocol: 'http/json' } } }, null, 2));
    chmodSync(file, 0o644);
  });
  after(async () => {
    await collector.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  const session = useSession({
    control: true,
    env: { TOOLGATE_MANAGED_SETTINGS_FILE: file },
    settings: { 'toolgate.autoApprove.terminal': { '/.*/': true } },
    machineSettings: { 'toolgate.sandbox.allowedDomains': ['packages.example.com', 'evil.example.net'] },
    files: { 'src/a.txt': 'a\n' },
  });
  const { control } = session;
  const auditLines = (): { callId: string; verdict: string; decidedBy: string; reason: string; tool: string }[] => {
    const storage = path.join(session.server.userDataDir, 'User', 'workspaceStorage');
    const [log] = execFileSync('find', [storage, '-name', 'audit.jsonl'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
    return log === undefined ? [] : readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { callId: string; verdict: string; decidedBy: string; reason: string; tool: string });
  };

  it(asRoot ? 'a command the file denies is denied, though a workspace rule allows every command; the audit log says the managed policy decided' : 'a file an ordinary user owns is ignored, and the report says why', async () => {
    const report = await control.call<string>('/command', { command: 'toolgate.showSandboxPolicy', args: [{ platform: 'linux' }] });
    if (!asRoot) {
      assert.match(report, new RegExp(`${file.replaceAll('.', '\\.')} is IGNORED: the file .* is owned by user \\d+, not root`));
      return;
    }
    const curl = await control.call<{ verdict: string; reason: string }>('/evaluate', { tool: 'run_in_terminal', args: { command: 'curl https://example.com' } });
    assert.deepEqual(curl, { verdict: 'deny', reason: `denied: managed policy: \`curl\` is denied (${file})`, warnings: [] });
    // What the file says nothing of is still the person's to decide, but no setting of theirs auto-approves it.
    const ls = await control.call<{ verdict: string }>('/evaluate', { tool: 'run_in_terminal', args: { command: 'ls' } });
    assert.equal(ls.verdict, 'ask');
    // Run for real through the API: denied, never run, recorded as the managed policy's decision.
    const run = await control.invoke('run_in_terminal', { command: 'curl -s https://example.com > fetched.txt' });
    assert.equal(run.ok, false);
    assert.match(run.output, /refused by the organisation's managed policy/);
    await until(() => auditLines().some((line) => line.tool === 'run_in_terminal' && line.verdict === 'deny' && line.decidedBy === 'managed'), 'the managed denial in the audit log');
  });

  it('the card of a write offers no Always allow in this workspace, and says why', async function () {
    if (!asRoot) {
      const state = await control.call<{ verdict: string }>('/evaluate', { tool: 'write_file', args: { path: 'src/a.txt', content: 'b\n' } });
      assert.equal(state.verdict, 'ask', 'the person\'s own policy, the file ignored');
      return;
    }
    const approval = control.call<{ approved: boolean; reason: string }>('/approval', { tool: 'write_file', args: { path: 'src/a.txt', content: 'b\n' } });
    const card = await session.panel().waitForCall('write_file');
    assert.equal(await card.locator('[data-action="allow-workspace"]').count(), 0, 'no Always allow in this workspace, not even turned off');
    assert.equal(await card.locator('[data-action="allow-session"]').count(), 1);
    assert.match((await card.locator('[data-field="grant-limits"]').textContent()) ?? '', new RegExp(`Managed policy \\(${file.replaceAll('.', '\\.')}\\): no grants for the whole workspace; grants end after 60 minutes at most\\.`));
    assert.equal(await card.locator('[data-field="grant-minutes"]').getAttribute('max'), '60');
    await session.workbench.screenshot('managed-write-card');
    // What the person sees of it in a smaller window, in either theme: the note stays beside the grants it explains.
    const page = session.workbench.page;
    await page.setViewportSize({ width: 900, height: 700 });
    for (const theme of ['Light Modern', 'Dark Modern'] as const) {
      await session.workbench.setColorTheme(theme);
      await card.locator('[data-field="grant-limits"]').scrollIntoViewIfNeeded();
      assert.ok(await card.locator('[data-field="grant-limits"]').isVisible(), `the managed note is shown (${theme})`);
      await session.workbench.screenshot(`managed-write-card-900-${theme === 'Light Modern' ? 'light' : 'dark'}`);
    }
    await page.setViewportSize({ width: 1400, height: 900 });
    await session.panel().deny(card, 'checked the card');
    assert.equal((await approval).approved, false);
  });

  it('the sandbox policy report lists the managed entries and their file, and the person\'s domains cut to the ceiling', async () => {
    const report = await control.call<string>('/command', { command: 'toolgate.showSandboxPolicy', args: [{ platform: 'linux' }] });
    if (!asRoot) {
      assert.match(report, /is IGNORED/);
      return;
    }
    assert.match(report, new RegExp(`Managed settings, in force from ${file.replaceAll('.', '\\.')}`));
    assert.match(report, /\n {2}deny\.terminal: curl, \/\^git push\/\n/);
    assert.match(report, /\n {2}sandbox\.required: true/);
    const domains = /Allowed domains \(toolgate\.sandbox\.allowedDomains, cut to the managed ceiling\)\n((?: {2}.*\n)+)/.exec(report);
    assert.equal(domains?.[1], '  packages.example.com\n');
    assert.match(report, /overrides toolgate\.sandbox\.allowedDomains: `evil\.example\.net` are not reachable/);
    assert.match(report, /overrides toolgate\.autoApprove\.terminal: .*`\/\.\*\/` do not auto-approve anything: the managed policy sets grants\.autoApproveRules to false/);
  });

  it('every decision reaches the team\'s collector as a log record; those made while it is down arrive once it is back', async () => {
    if (!asRoot) {
      assert.equal(collector.records.length, 0, 'an ignored file exports nothing');
      return;
    }
    const decided = (callId: string) => collector.records.find((record) => record.attributes['toolgate.call.id'] === callId);
    // The managed denial of the first test, as the collector got it.
    const denial = auditLines().find((line) => line.tool === 'run_in_terminal' && line.decidedBy === 'managed');
    assert.ok(denial !== undefined);
    await collector.waitFor(() => decided(denial.callId) !== undefined, 'the managed denial at the collector', 30_000);
    const sent = decided(denial.callId);
    assert.deepEqual(
      { encoding: sent?.encoding, path: sent?.path, tool: sent?.attributes['toolgate.tool'], verdict: sent?.attributes['toolgate.verdict'], decidedBy: sent?.attributes['toolgate.decided_by'] },
      { encoding: 'json', path: '/v1/logs', tool: 'run_in_terminal', verdict: 'deny', decidedBy: 'managed' },
    );
    // The collector goes away; decisions go on, at once, and wait in the spool.
    await collector.stop();
    const whileDown = await Promise.all(['curl -I https://example.com', 'git push origin main'].map((command) => control.invoke('run_in_terminal', { command })));
    assert.deepEqual(whileDown.map((result) => result.ok), [false, false]);
    const downIds = await until(() => {
      const ids = auditLines().filter((line) => line.verdict === 'deny' && line.tool === 'run_in_terminal').map((line) => line.callId).filter((id) => id !== denial.callId);
      return ids.length >= 2 ? ids : undefined;
    }, 'the decisions made while the collector was down, in the audit log');
    assert.ok(downIds.every((id) => decided(id) === undefined), 'nothing reached a collector that was down');
    await collector.start();
    await collector.waitFor(() => downIds.every((id) => decided(id) !== undefined), 'the decisions made while it was down, once it is back', 90_000);
  });
});
