import * as assert from 'node:assert/strict';
import { demoServer, demoTurns } from '../../test/fixtures/demoScript';
import { startFakeOpenAI, type FakeOpenAI } from '../../test/fixtures/fakeOpenAI';

describe('the offline demo model of npm start', () => {
  let server: FakeOpenAI | undefined;
  afterEach(async () => {
    await server?.close();
  });

  /** The first tool call's name of the reply to a request ending with a message of `role`. */
  const step = async (role: 'user' | 'tool'): Promise<string> => {
    const messages = role === 'user' ? [{ role: 'user', content: 'go' }] : [{ role: 'user', content: 'go' }, { role: 'tool', tool_call_id: 'x', content: 'ok' }];
    const response = await fetch(`${server?.baseUrl ?? ''}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: demoServer.models[0], messages }),
    });
    const body = (await response.json()) as { choices: { message: { tool_calls?: { function: { name: string } }[]; content: string | null } }[] };
    const message = body.choices[0]?.message;
    return message?.tool_calls?.map((call) => call.function.name).join('+') ?? `text: ${message?.content ?? ''}`;
  };

  it('continues its script after a tool result, and starts it over for a new task (after Stop)', async () => {
    server = await startFakeOpenAI(demoServer);
    assert.deepEqual([await step('user'), await step('tool'), await step('user'), await step('tool'), await step('tool')], [
      'write_file',
      'edit_file+write_file',
      'write_file',
      'edit_file+write_file',
      'run_in_terminal',
    ]);
  });

  it('shows a batch of two calls, whose edit applies to what its write wrote, whatever an earlier run left', () => {
    const [write, batch] = demoTurns();
    const written = JSON.parse(write?.toolCalls?.[0]?.arguments ?? '{}') as { path: string; content: string };
    assert.equal(batch?.toolCalls?.length, 2);
    const edit = JSON.parse(batch.toolCalls[0]?.arguments ?? '{}') as { path: string; edits: { old: string; new: string }[] };
    assert.equal(edit.path, written.path);
    for (const { old } of edit.edits) {
      assert.equal(written.content.split(old).length, 2, `"${old}" occurs once in what the write wrote`);
    }
  });
});
