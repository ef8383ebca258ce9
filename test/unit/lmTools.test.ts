import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { lmInvocationMessage, lmToolName, lmToolSources } from '../../src/core/tools/lmToolNames';
import { lmToolContributions, lmToolSource } from '../../src/core/tools/lmTools';
import { builtinToolSpecs } from '../../src/core/tools/specs';

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
});
