import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ChatDriver, useFakeModel } from './harness/chat';
import { Control } from './harness/control';
import { useCodeServer } from './harness/session';

interface UndoOutcome {
  kind: string;
  reverted?: { path: string }[];
  left?: { path: string; why: string }[];
  text?: string;
}

describe("undo the agent's task in the real VS Code: only the agent's changes go, a later hand edit stays", function () {
  this.timeout(180_000);
  const model = useFakeModel();
  const control = new Control();
  const session = useCodeServer(() => ({
    env: control.env,
    extraExtensions: [control.vsix],
    // The agent's writes run without asking here: this is about what undo reverts, not about the panel.
    settings: { ...model.workspaceSettings(), 'toolgate.gatedTools': { write_file: false, edit_file: false } },
  }));
  const file = (relative: string): string => path.join(session.server.workspace, relative);

  it('a two-turn task, a hand edit afterwards, then Undo Task: the hand edit survives and the agent edits are gone', async () => {
    const original = 'alpha\nbeta\ngamma\ndelta\nepsilon\n';
    writeFileSync(file('app.txt'), original);
    model.fake.script([
      { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: JSON.stringify({ path: 'app.txt', edits: [{ old: 'alpha', new: 'ALPHA' }] }) }] },
      { toolCalls: [{ id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'created.txt', content: 'made by the agent\n' }) }] },
      { text: 'Done.' },
    ]);
    const chat = new ChatDriver(session.workbench);
    await chat.say('Change app.txt and add created.txt');
    await (await chat.frame()).locator('[data-entry="assistant"]', { hasText: 'Done.' }).waitFor({ timeout: 60_000 });
    await chat.idle();
    assert.equal(readFileSync(file('app.txt'), 'utf8'), original.replace('alpha', 'ALPHA'));
    assert.equal(readFileSync(file('created.txt'), 'utf8'), 'made by the agent\n');

    // The person edits the same file afterwards, away from the agent's line.
    const handEdited = original.replace('alpha', 'ALPHA').replace('epsilon', 'epsilon, by hand');
    writeFileSync(file('app.txt'), handEdited);
    for (let tries = 0; (await control.call<{ text: string }>('/documentText', { path: 'app.txt' })).text !== handEdited; tries++) {
      assert.ok(tries < 100, 'VS Code did not see the hand edit');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const result = await control.call<UndoOutcome>('/command', { command: 'toolgate.undoTask' });
    assert.equal(result.kind, 'undone', JSON.stringify(result));
    assert.equal(readFileSync(file('app.txt'), 'utf8'), original.replace('epsilon', 'epsilon, by hand'), 'the agent edit is reverted, the hand edit kept');
    assert.equal(existsSync(file('created.txt')), false, 'the file the agent created (unchanged since) is gone');
    assert.deepEqual(
      (result.reverted ?? []).map((entry) => path.basename(entry.path)).sort(),
      ['app.txt', 'created.txt'],
    );
    assert.deepEqual(result.left ?? [], []);

    // Undoing again finds nothing left to undo, and says so.
    const again = await control.call<UndoOutcome>('/command', { command: 'toolgate.undoTask' });
    assert.equal(again.kind, 'not-undone', JSON.stringify(again));
  });
});
