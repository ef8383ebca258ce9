/**
 * src/zod.ts gives every schema zod's English messages: zod's small build has none of its own ("Invalid input" for
 * everything), and what a schema says reaches the model (malformed tool arguments), the log and the person. Run in a
 * fresh process: the MCP SDK, which other tests load, imports zod's full build, which sets the same messages for the
 * whole process and would hide their absence here.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const zodModule = path.resolve(import.meta.dirname, '../../src/zod.ts');

const cases: { name: string; schema: string; input: unknown; message: string }[] = [
  { name: 'a wrong type', schema: 'z.string()', input: 5, message: 'Invalid input: expected string, received number' },
  { name: 'too short', schema: 'z.string().check(z.minLength(2))', input: 'a', message: 'Too small: expected string to have >=2 characters' },
  { name: 'too long an array', schema: 'z.array(z.string()).check(z.maxLength(1))', input: ['a', 'b'], message: 'Too big: expected array to have <=1 items' },
  { name: 'not an integer', schema: 'z.int()', input: 1.5, message: 'Invalid input: expected int, received number' },
  { name: 'below a minimum', schema: 'z.int().check(z.gte(1))', input: 0, message: 'Too small: expected number to be >=1' },
  { name: 'a key a strict object does not know', schema: 'z.strictObject({})', input: { extra: 1 }, message: 'Unrecognized key: "extra"' },
  { name: 'an option not in an enum', schema: "z.enum(['a', 'b'])", input: 'c', message: 'Invalid option: expected one of "a"|"b"' },
  { name: 'a pattern', schema: 'z.string().check(z.regex(/^x$/))', input: 'y', message: 'Invalid string: must match pattern /^x$/' },
  { name: 'a message of our own', schema: "z.string({ error: 'must be a name' })", input: 1, message: 'must be a name' },
];

const script = `
const z = require(${JSON.stringify(zodModule)});
const cases = JSON.parse(process.argv[1]);
console.log(JSON.stringify(cases.map(({ schema, input }) => (0, eval)('(z) => ' + schema)(z).safeParse(input).error?.issues[0]?.message)));
`;

describe('zod as src/zod.ts gives it: English messages', () => {
  it('every case is worded as zod words it in English, in a process that loaded only src/zod.ts', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script, JSON.stringify(cases)], { timeout: 30_000 });
    const messages = JSON.parse(stdout) as unknown[];
    assert.deepEqual(
      cases.map(({ name }, index) => [name, messages[index]]),
      cases.map(({ name, message }) => [name, message]),
    );
  });
});
