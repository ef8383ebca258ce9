import * as assert from 'node:assert/strict';
import { useSession } from './harness/session';

describe('a burst of calls, in the real VS Code', function () {
  this.timeout(240_000);
  const session = useSession({ control: true });
  const { control } = session;

  it('200 calls arrive at once: the panel shows all 200, and after Deny all none, with every caller denied', async () => {
    const calls = Array.from({ length: 200 }, (_, index) =>
      control.call<{ approved: boolean; decidedBy: string }>('/approval', { tool: 'write_file', args: { path: `burst/f${index}.txt`, content: `${index}\n` } }),
    );
    const frame = await session.workbench.webviewFrame('body[data-view="approvals"] main#root[data-state="connected"]', 60_000);
    const cards = frame.locator('article.call[data-call-id]');
    await frame.waitForFunction(() => document.querySelectorAll('article.call[data-call-id]').length === 200, undefined, { timeout: 60_000 });
    await frame.locator('[data-action="deny-all"]').first().click();
    await cards.first().waitFor({ state: 'detached', timeout: 60_000 });
    const decisions = await Promise.all(calls);
    assert.deepEqual([...new Set(decisions.map((decision) => `${String(decision.approved)}/${decision.decidedBy}`))], ['false/person'], JSON.stringify(decisions.slice(0, 3)));
    assert.equal(await cards.count(), 0);
  });
});
