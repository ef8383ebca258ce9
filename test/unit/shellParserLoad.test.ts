/**
 * When the shell parser loads: only when asked (initShellParser), never for what only waits for it
 * (whenShellParserLoaded). The terminal rules' warning once loaded it as Toolgate started, so tree-sitter compiled
 * and instantiated inside the first gate decision. Run in a fresh process: every other test shares a loaded parser.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const parserModule = path.resolve(import.meta.dirname, '../../src/core/shell/parser.ts');

const script = `
const { initShellParser, shellParserState, whenShellParserLoaded } = require(${JSON.stringify(parserModule)});
(async () => {
  const seen = [shellParserState()];
  let heard = false;
  const waiting = whenShellParserLoaded().then(() => { heard = true; });
  seen.push(shellParserState());
  const loading = initShellParser();
  seen.push(shellParserState(), heard);
  await loading;
  await waiting;
  seen.push(shellParserState(), heard);
  console.log(JSON.stringify(seen));
})();
`;

describe('the shell parser loads when asked, not for what waits for it', () => {
  it('whenShellParserLoaded starts no load, and resolves once initShellParser has loaded it', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script], { timeout: 30_000 });
    assert.deepEqual(JSON.parse(stdout), ['idle', 'idle', 'loading', false, 'loaded', true]);
  });
});
