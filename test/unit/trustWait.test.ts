import * as assert from 'node:assert/strict';
import { Emitter } from '../../src/core/disposable';
import { trustAnswered } from '../../src/core/terminal/trustWait';

describe("a new terminal's trust request, answered", () => {
  const rows: { name: string; happen: (events: { grant(): void; close(): void; open(): void; trust(): void; abort(): void }) => void; trusted: boolean }[] = [
    { name: 'granted', happen: (e) => e.grant(), trusted: true },
    { name: 'the terminal closed without a grant (desktop Cancel)', happen: (e) => e.close(), trusted: false },
    { name: 'the task stopped', happen: (e) => e.abort(), trusted: false },
    { name: 'the terminal opened in a folder trusted by then', happen: (e) => {
        e.trust();
        e.open();
      }, trusted: true },
    { name: 'the terminal opened, the grant arriving within the grace', happen: (e) => {
        e.open();
        setImmediate(() => e.grant());
      }, trusted: true },
    { name: 'the terminal opened and no grant came (code-server Cancel)', happen: (e) => e.open(), trusted: false },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const granted = new Emitter<void>();
      const closed = new Emitter<void>();
      const controller = new AbortController();
      let trusted = false;
      let open = (): void => undefined;
      const opened = new Promise<void>((resolve) => (open = resolve));
      const answer = trustAnswered({ onDidGrant: granted.event, onDidClose: closed.event, opened, isTrusted: () => trusted, signal: controller.signal, graceMs: 20 });
      row.happen({ grant: () => granted.fire(), close: () => closed.fire(), open, trust: () => (trusted = true), abort: () => controller.abort() });
      assert.equal(await answer, row.trusted);
    });
  }

  it('a task already stopped is not trusted', async () => {
    const controller = new AbortController();
    controller.abort();
    assert.equal(await trustAnswered({ onDidGrant: new Emitter<void>().event, onDidClose: new Emitter<void>().event, opened: new Promise(() => undefined), isTrusted: () => true, signal: controller.signal }), false);
  });
});
