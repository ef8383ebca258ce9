import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { lmInvocationMessage, lmToolName, lmToolSources } from '../../src/core/tools/lmToolNames';
import { lmToolContributions, lmToolSource, runLmTool } from '../../src/core/tools/lmTools';
import { builtinToolSpecs } from '../../src/core/tools/specs';
import { pendingViews } from '../../src/core/views/pendingCall';
import { nested } from '../fixtures/badCalls';
import { waitFor } from '../fixtures/memoryFiles';
import { watchedToolService } from '../fixtures/watchedToolService';

describe("Toolgate's language-model tools", () => {
  it('package.json contributes exactly what the zod schemas give (node --import tsx scripts/languageModelTools.ts writes it)', () => {
    const manifest = JSON.parse(readFileSync(path.join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { contributes: { languageModelTools?: unknown } };
    assert.deepEqual(manifest.contributes.languageModelTools, lmToolContributions());
  });

  it('are named by the public contract, with the built-in arguments, and map back to their tools', () => {
    assert.deepEqual(lmToolSources.map(lmToolName), ['toolgate_write_file', 'toolgate_edit_file', 'toolgate_run_in_terminal', 'toolgate_read_file', 'toolgate_list_files', 'toolgate_search_text']);
    const specs = new Map(builtinToolSpecs().map((spec) => [spec.name, spec.parameters]));
    for (const contribution of lmToolContributions()) {
      const tool = lmToolSource(String(contribution['name']));
      assert.ok(tool, String(contribution['name']));
      assert.deepEqual(contribution['inputSchema'], specs.get(tool));
    }
    assert.equal(lmToolSource('toolgate_ask_user'), undefined, 'ask_user is not offered');
    assert.equal(lmToolSource('write_file'), undefined);
  });

  const rows: [Parameters<typeof lmInvocationMessage>[0], unknown, string][] = [
    ['write_file', { path: 'src/a.ts', content: 'x' }, 'Toolgate: Writing src/a.ts (it waits for approval where the rules say so)'],
    ['run_in_terminal', { command: 'npm   test\n-- --watch' }, 'Toolgate: Running npm test -- --watch (it waits for approval where the rules say so)'],
    ['search_text', { query: 'TODO' }, 'Toolgate: Searching for TODO (it waits for approval where the rules say so)'],
    ['list_files', 'not an object', 'Toolgate: Listing (it waits for approval where the rules say so)'],
    ['read_file', { path: 'x'.repeat(100) }, `Toolgate: Reading ${'x'.repeat(79)}… (it waits for approval where the rules say so)`],
  ];
  for (const [tool, input, message] of rows) {
    it(`says what runs: ${tool} ${JSON.stringify(input).slice(0, 30)}`, () => {
      assert.equal(lmInvocationMessage(tool, input), message);
    });
  }

  describe('a call by another agent: its input is checked before anything else, and answered', () => {
    const rows: { name: string; tool: Parameters<typeof runLmTool>[1]; input: unknown; output: RegExp }[] = [
      { name: 'null', tool: 'write_file', input: null, output: /^Error: write_file: invalid arguments: arguments: Invalid input: expected object, received null\. Nothing was run\.$/ },
      { name: 'a string that is not JSON', tool: 'read_file', input: 'README.md', output: /^Error: read_file: the arguments are not valid JSON/ },
      { name: 'a function', tool: 'read_file', input: () => 'README.md', output: /^Error: invalid call: args: a function, not a JSON value\. Nothing was run\.$/ },
      { name: 'a Date in the arguments', tool: 'write_file', input: { path: 'a.txt', content: new Date(0) }, output: /^Error: invalid call: args\.content: a Date, not a JSON value/ },
      { name: 'a bigint in the arguments', tool: 'search_text', input: { query: 1n }, output: /^Error: invalid call: args\.query: a bigint, not a JSON value/ },
      { name: 'a 10,000-deep value', tool: 'edit_file', input: { path: 'a.txt', edits: nested(10_000) }, output: /^Error: invalid call: args\.edits\.a\.a\.a\.a\.a\.a\.a…: nested deeper than 64 levels\. Nothing was run\.$/ },
      { name: 'content over the size bound', tool: 'write_file', input: { path: 'a.txt', content: 'x'.repeat(8 * 2 ** 20) }, output: /^Error: invalid call: args\.content: larger than 8 MiB of JSON text\. Nothing was run\.$/ },
      { name: 'a `__proto__` argument (the schema is strict)', tool: 'write_file', input: JSON.parse('{"path":"a.txt","content":"x","__proto__":{"x":1}}') as unknown, output: /^Error: write_file: invalid arguments: arguments: Unrecognized key: "__proto__"\. Nothing was run\.$/ },
    ];
    for (const row of rows) {
      it(`${row.name}: an error that says what is wrong, and nothing reaches the gate`, async () => {
        const { service, nothingHappened } = watchedToolService();
        const result = await runLmTool(service, row.tool, row.input, { chatId: 'lm' });
        assert.equal(result.ok, false);
        assert.match(result.output, row.output);
        await nothingHappened();
      });
    }

    it('a good call reaches the gate as a VS Code tool call (another agent)', async () => {
      const { service, gate } = watchedToolService();
      const result = runLmTool(service, 'write_file', { path: 'b.txt', content: 'x\n' }, { chatId: 'lm' });
      const card = await waitFor(() => pendingViews(gate)[0]);
      assert.deepEqual([card.tool, card.source], ['write_file', 'vscode-lm-tool']);
      gate.settle(card, { action: 'deny' });
      assert.match((await result).output, /^The person denied this call/);
    });
  });
});
