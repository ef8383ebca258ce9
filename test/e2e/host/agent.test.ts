import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fakeOpenAI';

interface TaskResult {
  reason: string;
  answer: string;
  error?: string;
  transcript: { role: string; content: string | null; toolCallId?: string }[];
}

describe('toolgate.runTask in the extension host', function () {
  this.timeout(60_000);
  let fake: FakeOpenAI;
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('toolgate');

  before(async () => {
    fake = await startFakeOpenAI();
    await vscode.extensions.getExtension('toolgate.toolgate')?.activate();
    await config().update('model.baseUrl', fake.baseUrl, vscode.ConfigurationTarget.Workspace);
    await config().update('model.name', 'toolgate-test-model', vscode.ConfigurationTarget.Workspace);
  });

  after(async () => {
    await config().update('model.provider', undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('model.baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('model.name', undefined, vscode.ConfigurationTarget.Workspace);
    await fake.close();
  });

  it('runs a task without the chat view and resolves with the transcript', async () => {
    fake.script([
      { toolCalls: [{ id: 'read_1', name: 'read_file', arguments: JSON.stringify({ path: 'README.md' }) }] },
      { text: 'The README describes a fixture workspace.' },
    ]);
    const result = await vscode.commands.executeCommand<TaskResult>('toolgate.runTask', 'Summarise the README');
    assert.equal(result.reason, 'finished');
    assert.equal(result.answer, 'The README describes a fixture workspace.');
    const tool = result.transcript.find((message) => message.role === 'tool' && message.toolCallId === 'read_1');
    assert.match(tool?.content ?? '', /# Fixture workspace/);
    const sent = fake.requests.at(-1)?.body as { tools?: { function: { name: string } }[] };
    assert.deepEqual(
      sent.tools?.map((entry) => entry.function.name).sort(),
      ['ask_user', 'edit_file', 'list_files', 'read_file', 'run_in_terminal', 'search_text', 'write_file'],
    );
  });

  it('an invalid tool call from the model gets a precise error as its result, and nothing runs', async () => {
    fake.script([
      { toolCalls: [{ id: 'bad_1', name: 'write_file', arguments: '{"path": "x.txt"' }, { id: 'bad_2', name: 'format_disk', arguments: '{}' }] },
      { text: 'Sorry.' },
    ]);
    const result = await vscode.commands.executeCommand<TaskResult>('toolgate.runTask', 'Break things');
    const results = result.transcript.filter((message) => message.role === 'tool');
    assert.match(results[0]?.content ?? '', /^Error: write_file: the arguments are not valid JSON/);
    assert.match(results[1]?.content ?? '', /^Error: unknown tool 'format_disk'/);
  });

  it('an unreachable endpoint ends the task with a clear error', async () => {
    await config().update('model.baseUrl', 'http://127.0.0.1:9/v1', vscode.ConfigurationTarget.Workspace);
    try {
      const result = await vscode.commands.executeCommand<TaskResult>('toolgate.runTask', 'Hello');
      assert.equal(result.reason, 'error');
      assert.match(result.error ?? '', /127\.0\.0\.1:9/);
    } finally {
      await config().update('model.baseUrl', fake.baseUrl, vscode.ConfigurationTarget.Workspace);
    }
  });

  it("the vscode-lm provider says so when VS Code offers no language model", async () => {
    await config().update('model.provider', 'vscode-lm', vscode.ConfigurationTarget.Workspace);
    try {
      const result = await vscode.commands.executeCommand<TaskResult>('toolgate.runTask', 'Hello');
      assert.equal(result.reason, 'error');
      assert.match(result.error ?? '', /VS Code offers no language models/);
    } finally {
      await config().update('model.provider', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});
