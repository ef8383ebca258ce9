import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { sha256 } from '../../../src/core/approval/hash';
import type { FileVersion } from '../../../src/core/review/hunks';
import { documentInSync } from '../../../src/vscode/documents/workspaceFiles';
import { WorkspaceUndoFiles } from '../../../src/vscode/undo/undoFiles';

const version = (text: string | null): FileVersion => ({ exists: text !== null, hash: sha256(text ?? '') });

describe('the undo\'s file port in the extension host', function () {
  this.timeout(30_000);
  let folder: string;
  const warnings: string[] = [];
  const files = new WorkspaceUndoFiles((message) => warnings.push(message));
  const at = (name: string): string => path.join(folder, name);
  const disk = (name: string): string | null => (existsSync(at(name)) ? readFileSync(at(name), 'utf8') : null);

  beforeEach(() => {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(root, 'no workspace folder is open');
    folder = path.join(root, `undo-host-${Date.now()}`);
    mkdirSync(folder, { recursive: true });
    warnings.length = 0;
  });
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    rmSync(folder, { recursive: true, force: true });
  });

  it('replaces, creates and deletes in one edit', async () => {
    writeFileSync(at('a.txt'), 'agent\n');
    writeFileSync(at('created.txt'), 'by the agent\n');
    const result = await files.apply([
      { path: at('a.txt'), text: 'before\n', expected: version('agent\n') },
      { path: at('restored.txt'), text: 'back\n', expected: version(null) },
      { path: at('created.txt'), text: null, expected: version('by the agent\n') },
    ]);
    assert.deepEqual(result, { kind: 'applied' });
    assert.deepEqual([disk('a.txt'), disk('restored.txt'), disk('created.txt')], ['before\n', 'back\n', null]);
    assert.deepEqual(warnings, []);
  });

  // Issue 37: WorkspaceEdit.size counts only text edits, so an undo of deletes alone was never applied (yet reported done).
  for (const [how, make] of [
    ['written by a command (on disk only)', (name: string): Promise<void> => {
      writeFileSync(at(name), 'landed\n');
      return Promise.resolve();
    }],
    ['created by a WorkspaceEdit (as a staged file lands)', async (name: string): Promise<void> => {
      const create = new vscode.WorkspaceEdit();
      create.createFile(vscode.Uri.file(at(name)), { overwrite: false, contents: new TextEncoder().encode('landed\n') });
      assert.ok(await vscode.workspace.applyEdit(create));
    }],
  ] as const) {
    it(`an undo of deletes alone deletes: a file ${how}`, async () => {
      await make('landed.txt');
      await make('landed-2.txt');
      assert.equal(disk('landed.txt'), 'landed\n');
      const result = await files.apply([
        { path: at('landed.txt'), text: null, expected: version('landed\n') },
        { path: at('landed-2.txt'), text: null, expected: version('landed\n') },
      ]);
      assert.deepEqual(result, { kind: 'applied' });
      assert.deepEqual([disk('landed.txt'), disk('landed-2.txt')], [null, null]);
      assert.equal(await files.read(at('landed.txt')), null, 'read back as the undo verifies it');
    });
  }

  it('reads and edits an open document with unsaved changes in its buffer, without saving it', async () => {
    writeFileSync(at('open.txt'), 'on disk\n');
    const doc = await vscode.workspace.openTextDocument(at('open.txt'));
    const typing = new vscode.WorkspaceEdit();
    typing.insert(doc.uri, new vscode.Position(0, 0), 'unsaved ');
    assert.ok(await vscode.workspace.applyEdit(typing));
    assert.equal(await files.read(at('open.txt')), 'unsaved on disk\n');
    assert.equal(await files.read(at('missing.txt')), null);
    assert.deepEqual(await files.apply([{ path: at('open.txt'), text: 'put back\n', expected: version('unsaved on disk\n') }]), { kind: 'applied' });
    assert.equal(doc.getText(), 'put back\n');
    assert.equal(doc.isDirty, true);
    assert.equal(disk('open.txt'), 'on disk\n');
  });

  it("an open, clean document is in sync once VS Code has reloaded what another process wrote; not once it is edited first", async () => {
    writeFileSync(at('reloaded.txt'), 'before\n');
    const doc = await vscode.workspace.openTextDocument(at('reloaded.txt'));
    assert.equal(await documentInSync(doc, 'before\n'), true, 'in sync already');
    const synced = documentInSync(doc, 'after\n');
    writeFileSync(at('reloaded.txt'), 'after\n');
    assert.equal(await synced, true);
    assert.equal(doc.getText(), 'after\n');
    let answered: boolean | undefined;
    const edited = documentInSync(doc, 'never written\n').then((inSync) => (answered = inSync));
    const typing = new vscode.WorkspaceEdit();
    typing.insert(doc.uri, new vscode.Position(0, 0), 'typed ');
    assert.ok(await vscode.workspace.applyEdit(typing));
    // Answered by the edit's change of the document, not by the 3 s deadline (which would answer false too).
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answered, false, 'an edit makes it dirty: it will not catch up with the disk');
    await edited;
  });

  it('writes nothing when any file is not the version the undo was planned on', async () => {
    writeFileSync(at('a.txt'), 'agent\n');
    writeFileSync(at('b.txt'), 'changed by the person meanwhile\n');
    const result = await files.apply([
      { path: at('a.txt'), text: 'before\n', expected: version('agent\n') },
      { path: at('b.txt'), relativePath: 'b.txt', text: 'before\n', expected: version('agent\n') },
      { path: at('c.txt'), text: 'x\n', expected: version('exists?') },
    ]);
    assert.deepEqual(result, { kind: 'changed', path: 'b.txt' });
    assert.deepEqual([disk('a.txt'), disk('b.txt'), disk('c.txt')], ['agent\n', 'changed by the person meanwhile\n', null]);
  });
});
