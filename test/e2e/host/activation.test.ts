import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const extensionId = 'toolgate.toolgate';

describe('Toolgate in the extension host', () => {
  it('is installed and activates', async () => {
    const extension = vscode.extensions.getExtension(extensionId);
    assert.ok(extension, `${extensionId} is not installed`);
    await extension.activate();
    assert.equal(extension.isActive, true);
  });

  it('registers its commands', async () => {
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['toolgate.openApprovals', 'toolgate.setApiKey']) {
      assert.ok(commands.includes(id), `${id} is not registered`);
    }
  });

  it('opens the approvals panel as a webview tab in the editor area', async () => {
    await vscode.commands.executeCommand('toolgate.openApprovals');
    // The tab model reaches the extension host from the window asynchronously: wait for the tab to appear.
    const findPanel = (): vscode.Tab | undefined =>
      vscode.window.tabGroups.all
        .flatMap((group) => group.tabs)
        .find((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('toolgate.approvals'));
    const deadline = Date.now() + 15_000;
    while (!findPanel() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const panel = findPanel();
    const labels = vscode.window.tabGroups.all.flatMap((group) => group.tabs).map((tab) => tab.label);
    assert.ok(panel, `no approvals tab among: ${labels.join(', ')}`);
    assert.equal(panel.label, 'Toolgate Approvals');
  });

  it('reads its settings with the documented defaults', () => {
    const config = vscode.workspace.getConfiguration('toolgate');
    assert.deepEqual(config.get('gatedTools'), {
      read_file: false,
      list_files: false,
      search_text: false,
      write_file: true,
      edit_file: true,
      run_in_terminal: true,
    });
    assert.equal(config.get('approval.timeoutSeconds'), 0);
    assert.ok((config.get<string[]>('protectedPaths') ?? []).includes('.vscode/**'));
  });
});
