import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Control } from './harness/control';
import { ApprovalsPanelDriver } from './harness/panel';
import { useCodeServer } from './harness/session';

describe('an untrusted workspace (Workspace Trust on, folder not trusted)', function () {
  this.timeout(180_000);
  const control = new Control();
  const session = useCodeServer({
    workspaceTrust: true,
    env: control.env,
    extraExtensions: [control.vsix],
    // A workspace setting that would ungate writes: restricted mode must ignore it, and the policy must ask anyway.
    settings: { 'toolgate.gatedTools': { write_file: false, read_file: false }, 'toolgate.autoApprove.terminal': { '/.*/': true } },
  });

  it('auto-allows nothing: even an ungated read asks, with the reason', async () => {
    const read = await control.call<{ verdict: string; reason: string }>('/evaluate', { tool: 'read_file', args: { path: 'README.md' } });
    assert.deepEqual([read.verdict, read.reason], ['ask', 'asks: this workspace is not trusted, so nothing is allowed without asking']);
    const command = await control.call<{ verdict: string }>('/evaluate', { tool: 'run_in_terminal', args: { command: 'ls' } });
    assert.equal(command.verdict, 'ask');
  });

  it('a write waits in the panel, which says the workspace is not trusted, and offers no grant', async () => {
    const result = control.invoke('write_file', { path: 'untrusted.txt', content: 'x' });
    const panel = new ApprovalsPanelDriver(session.workbench);
    const card = await panel.waitForCall('write_file', 'untrusted.txt');
    assert.match(await card.locator('[data-field="why"]').innerText(), /not trusted/);
    assert.equal(await card.locator('[data-action="allow-workspace"]').getAttribute('disabled'), '');
    const frame = await session.workbench.webviewFrame('[data-field="trust"]');
    assert.match(await frame.locator('[data-field="trust"]').innerText(), /not trusted/);
    await session.workbench.screenshot('untrusted-workspace');
    await panel.act(card, 'deny');
    assert.equal((await result).ok, false);
    assert.equal(existsSync(path.join(session.server.workspace, 'untrusted.txt')), false);
  });
});
