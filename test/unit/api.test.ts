import * as assert from 'node:assert/strict';
import { pendingViews } from '../../src/core/views/pendingCall';
import { createApi } from '../../src/vscode/otherAgents/api';
import { badCalls } from '../fixtures/badCalls';
import { waitFor } from '../fixtures/memoryFiles';
import { echo, watchedToolService } from '../fixtures/watchedToolService';

/** The API of the public contract over the real tool service and gate (in memory). */
function setup() {
  const watched = watchedToolService();
  return { ...watched, api: createApi(watched.service, { info: () => Promise.resolve({ url: 'http://127.0.0.1:1/mcp', headers: {} }) }) };
}

/** The error of an in-band answer, without what each method wraps it in. */
const errorOf = {
  evaluate: (answer: { verdict: string; reason: string; warnings: string[] }): string => {
    assert.equal(answer.verdict, 'deny');
    assert.deepEqual(answer.warnings, []);
    assert.match(answer.reason, /^denied: /);
    return answer.reason.slice('denied: '.length);
  },
  requestApproval: (answer: { approved: boolean; decidedBy: string; reason: string }): string => {
    assert.deepEqual([answer.approved, answer.decidedBy], [false, 'policy']);
    assert.match(answer.reason, /^denied: /);
    return answer.reason.slice('denied: '.length);
  },
  invokeTool: (answer: { ok: boolean; output: string }): string => {
    assert.equal(answer.ok, false);
    const match = /^Error: (.*)\. Nothing was run\.$/s.exec(answer.output);
    assert.ok(match?.[1] !== undefined, answer.output);
    return match[1];
  },
};

describe('the API for other extensions answers every input in-band, and what is not a call reaches no gate', () => {
  for (const row of badCalls()) {
    it(`${row.name}: evaluate, requestApproval and invokeTool each say what is wrong`, async () => {
      const { api, nothingHappened } = setup();
      // Typed for callers; another extension's JavaScript passes anything.
      const input = row.input as Parameters<typeof api.evaluate>[0];
      assert.match(errorOf.evaluate(await api.evaluate(input)), row.error);
      assert.match(errorOf.requestApproval(await api.requestApproval(input)), row.error);
      assert.match(errorOf.invokeTool(await api.invokeTool(input)), row.error);
      await nothingHappened();
    });
  }

  const notRunnable: { name: string; tool: string; error: RegExp }[] = [
    { name: "a tool that is neither built in nor an MCP server's", tool: 'deploy', error: /^unknown tool 'deploy'\. Known tools: read_file, / },
    { name: 'an MCP tool of no running server', tool: 'mcp__none__x', error: /^unknown MCP tool 'mcp__none__x': its server is not running or does not offer it$/ },
    { name: 'ask_user (answered in the chat)', tool: 'ask_user', error: /^ask_user: it is answered in Toolgate's chat, and cannot be run from outside$/ },
  ];
  for (const row of notRunnable) {
    it(`invokeTool runs only what Toolgate can run: ${row.name} is refused before any card`, async () => {
      const { api, nothingHappened } = setup();
      assert.match(errorOf.invokeTool(await api.invokeTool({ tool: row.tool, args: { question: 'q', options: ['a'] }, source: 'my.extension' })), row.error);
      await nothingHappened();
    });
  }

  it("requestApproval still asks about the caller's own tool, with its exact arguments, and runs nothing", async () => {
    const { api, gate } = setup();
    const answer = api.requestApproval({ tool: 'my_tool', args: { id: 42 }, source: 'my.extension' });
    const card = await waitFor(() => pendingViews(gate)[0]);
    assert.deepEqual([card.tool, card.source, card.argsJson], ['my_tool', 'my.extension', '{\n  "id": 42\n}']);
    assert.equal((await api.evaluate({ tool: 'my_tool', args: { id: 42 } })).verdict, 'ask');
    gate.settle(card, { action: 'allow-once' });
    assert.deepEqual(await answer, { approved: true, reason: 'allowed once by the person', decidedBy: 'person' });
  });

  for (const key of ['__proto__', 'constructor', 'prototype']) {
    it(`a \`${key}\` argument is on the card and in its hash (requestApproval), and refused by a built-in tool's schema (invokeTool)`, async () => {
      const { api, gate } = setup();
      const withKey = api.requestApproval({ tool: 'my_tool', args: JSON.parse(`{"id":1,"${key}":{"x":1}}`) as unknown, source: 'my.extension' });
      const without = api.requestApproval({ tool: 'my_tool', args: { id: 1 }, source: 'my.extension' });
      const [first, second] = await waitFor(() => (pendingViews(gate).length === 2 ? pendingViews(gate) : undefined));
      assert.ok(first && second);
      assert.deepEqual(JSON.parse(first.argsJson), JSON.parse(`{"id":1,"${key}":{"x":1}}`));
      assert.match(first.argsJson, new RegExp(`"${key}": \\{`));
      assert.notEqual(first.argsHash, second.argsHash);
      gate.settle(first, { action: 'deny' });
      gate.settle(second, { action: 'deny' });
      assert.equal((await withKey).approved, false);
      assert.equal((await without).approved, false);

      const fresh = setup();
      const refused = await fresh.api.invokeTool({ tool: 'write_file', args: JSON.parse(`{"path":"b.txt","content":"x","${key}":{"x":1}}`) as unknown });
      assert.equal(errorOf.invokeTool(refused), `write_file: invalid arguments: arguments: Unrecognized key: "${key}"`);
      await fresh.nothingHappened();
    });
  }

  it("a `__proto__` argument of an MCP tool reaches the server as given", async () => {
    const { api, gate, mcpCalls } = setup();
    const result = api.invokeTool({ tool: echo.modelName, args: JSON.parse('{"text":"hi","__proto__":{"x":1}}') as unknown });
    const card = await waitFor(() => pendingViews(gate)[0]);
    assert.match(card.argsJson, /"__proto__": \{/);
    gate.settle(card, { action: 'allow-once' });
    assert.deepEqual(await result, { ok: true, output: 'echoed', decision: (await result).decision });
    assert.equal(JSON.stringify(mcpCalls), '[{"text":"hi","__proto__":{"x":1}}]');
  });

  it('a failure inside Toolgate is answered in-band too, never thrown', async () => {
    const { api, gate, log } = setup();
    // The policy failing, wherever the gate reads it: judging one call, and deciding a batch.
    gate.evaluate = () => {
      throw new TypeError('the policy broke');
    };
    gate.decide = () => {
      throw new TypeError('the policy broke');
    };
    const call = { tool: 'write_file', args: { path: 'a.txt', content: 'two\n' } };
    assert.deepEqual(await api.evaluate(call), { verdict: 'deny', reason: 'denied: Toolgate could not handle this call (the policy broke)', warnings: [] });
    assert.deepEqual(await api.requestApproval(call), { approved: false, reason: 'denied: Toolgate could not handle this call (the policy broke)', decidedBy: 'policy' });
    assert.deepEqual(await api.invokeTool(call), { ok: false, output: 'Error: write_file: Toolgate could not handle this call (the policy broke)' });
    assert.ok(log.lines.some((line) => line.startsWith('error: evaluate failed: TypeError: the policy broke')));
  });
});
