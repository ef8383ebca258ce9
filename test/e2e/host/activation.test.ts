import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { until } from '../harness/until';
import { defaultGatedTools } from '../../../src/core/settings';
import { defaultTerminalRules } from '../../../src/core/shell/rules';

const extensionId = 'toolgate.toolgate';

describe('Toolgate in the extension host', () => {
  it('is installed, activates, and answers a terminal call the moment activate() resolves', async () => {
    const extension = vscode.extensions.getExtension<{ evaluate(call: { tool: string; args: unknown }): Promise<{ verdict: string; reason: string }> }>(extensionId);
    assert.ok(extension, `${extensionId} is not installed`);
    const wasActive = extension.isActive;
    const api = await extension.activate();
    // Asked before the shell parser can have loaded (when this activates it cold): the answer must not depend on it.
    const first = await api.evaluate({ tool: 'run_in_terminal', args: { command: 'git status' } });
    assert.equal(extension.isActive, true);
    assert.equal(first.verdict, 'allow', `${first.reason} (Toolgate was ${wasActive ? 'already' : 'not yet'} active)`);
  });

  it('registers its commands', async () => {
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['toolgate.openApprovals', 'toolgate.setApiKey', 'toolgate.showAuditLog', 'toolgate.resetWorkspaceApprovals']) {
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
    const labels = (): string => vscode.window.tabGroups.all.flatMap((group) => group.tabs).map((tab) => tab.label).join(', ');
    const panel = await until(findPanel, 'the approvals tab', { timeoutMs: 15_000, detail: () => `the tabs are: ${labels()}` });
    assert.equal(panel.label, 'Toolgate Approvals');
  });

  it('reads its settings with the documented defaults', () => {
    const config = vscode.workspace.getConfiguration('toolgate');
    // The manifest's defaults are the code's: one source of truth for what is gated and what is never auto-allowed.
    assert.deepEqual(config.get('gatedTools'), defaultGatedTools);
    assert.deepEqual(config.get('autoApprove.terminal'), defaultTerminalRules);
    assert.equal(config.get('approval.timeoutSeconds'), 0);
    assert.ok((config.get<string[]>('protectedPaths') ?? []).includes('.vscode/**'));
  });
});

describe('the exported API in the extension host', () => {
  interface Api {
    evaluate(call: { tool: string; args: unknown }): Promise<{ verdict: string; reason: string }>;
    invokeTool(call: { tool: string; args: unknown }): Promise<{ ok: boolean; output: string }>;
  }
  async function api(): Promise<Api> {
    const extension = vscode.extensions.getExtension<Api>(extensionId);
    assert.ok(extension);
    return await extension.activate();
  }

  it('evaluate() gives the verdict and reason without asking or running anything', async () => {
    const toolgate = await api();
    const write = await toolgate.evaluate({ tool: 'write_file', args: { path: 'evaluated.txt', content: 'x' } });
    assert.equal(write.verdict, 'ask');
    assert.match(write.reason, /write_file is gated/);
    const read = await toolgate.evaluate({ tool: 'read_file', args: { path: 'README.md' } });
    assert.deepEqual(read, { verdict: 'allow', reason: 'allowed: read_file is not gated', warnings: [] });
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(folder);
    await assert.rejects(Promise.resolve(vscode.workspace.fs.stat(vscode.Uri.joinPath(folder, 'evaluated.txt'))));
  });

  it('a setting changed takes effect on the next call (the settings Toolgate keeps are dropped when VS Code says they changed)', async () => {
    const toolgate = await api();
    const config = vscode.workspace.getConfiguration('toolgate');
    const write = { tool: 'write_file', args: { path: 'evaluated.txt', content: 'x' } };
    assert.equal((await toolgate.evaluate(write)).verdict, 'ask');
    try {
      await config.update('gatedTools', { ...defaultGatedTools, write_file: false }, vscode.ConfigurationTarget.Workspace);
      assert.deepEqual(await toolgate.evaluate(write), { verdict: 'allow', reason: 'allowed: write_file is not gated', warnings: [] });
    } finally {
      await config.update('gatedTools', undefined, vscode.ConfigurationTarget.Workspace);
    }
    assert.equal((await toolgate.evaluate(write)).verdict, 'ask', 'gated again once the setting is back');
  });

  it('invalid arguments get a precise error and are never shown for approval', async () => {
    const toolgate = await api();
    const result = await toolgate.invokeTool({ tool: 'edit_file', args: { path: 'README.md', edits: 'all of it' } });
    assert.equal(result.ok, false);
    assert.match(result.output, /^Error: edit_file: invalid arguments: edits: .*Nothing was run\.$/);
    const missing = await toolgate.invokeTool({ tool: 'edit_file', args: { path: 'README.md', edits: [{ old: 'not in the file', new: 'x' }] } });
    assert.match(missing.output, /`old` was not found in README\.md/);
  });

  it('ungated tools run at once: read_file sees the workspace', async () => {
    const toolgate = await api();
    const result = await toolgate.invokeTool({ tool: 'read_file', args: { path: 'README.md' } });
    assert.equal(result.ok, true);
    assert.match(result.output, /# Fixture workspace/);
    const listing = await toolgate.invokeTool({ tool: 'list_files', args: {} });
    assert.match(listing.output, /^README\.md$/m);
    assert.match(listing.output, /^src\/$/m);
    const search = await toolgate.invokeTool({ tool: 'search_text', args: { query: 'Hello, ' } });
    assert.match(search.output, /src\/greet\.ts:2: return `Hello, \$\{name\}!`;/);
  });

  it('list_files reads the disk itself: folders end in /, a link to a folder too, sorted by name', async () => {
    const toolgate = await api();
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(root);
    const folder = path.join(root, `listed-${Date.now()}`);
    mkdirSync(path.join(folder, 'b-folder'), { recursive: true });
    writeFileSync(path.join(folder, 'a.txt'), 'a');
    symlinkSync(path.join(folder, 'b-folder'), path.join(folder, 'c-link'));
    try {
      const listing = await toolgate.invokeTool({ tool: 'list_files', args: { path: path.basename(folder) } });
      assert.equal(listing.ok, true);
      assert.deepEqual(listing.output.split('\n').filter((line) => line !== ''), ['a.txt', 'b-folder/', 'c-link/']);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
