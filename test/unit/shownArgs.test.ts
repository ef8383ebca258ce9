import * as assert from 'node:assert/strict';
import { canonicalJson } from '../../src/core/approval/hash';
import { argsInlineChars, shownArgs } from '../../src/core/views/pendingCall';

/** What the card showed before shownArgs became one pass: canonical JSON, parsed, pretty-printed, long values cut. */
function reference(args: unknown): { argsJson: string; argsCut?: number } {
  const value: unknown = JSON.parse(canonicalJson(args));
  const json = JSON.stringify(value, null, 2);
  if (json.length <= argsInlineChars) {
    return { argsJson: json };
  }
  const cut = JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'string' && item.length > 2_000 ? `${item.slice(0, 200)}… (${(item.length - 200).toLocaleString('en-US')} more characters)` : item, 2);
  return { argsJson: cut, argsCut: json.length };
}

const withProto = JSON.parse('{"b":1,"__proto__":{"x":[1,2]},"constructor":"c","a":{"z":1,"y":{"__proto__":null}}}') as unknown;

describe('the arguments a card shows', () => {
  const rows: { name: string; args: unknown }[] = [
    { name: 'a small call', args: { path: 'src/a.ts', content: 'export const a = 1;\n' } },
    { name: 'keys out of order, nested, with index keys', args: { z: 1, a: { d: [3, { c: 1, b: 2 }], '10': 'x', '2': 'y' }, m: null } },
    { name: '__proto__, constructor and prototype kept as data', args: withProto },
    { name: 'quotes, escapes and Unicode', args: { text: 'a "quoted" \\ line\nnext\ttab \u2028 é 😀', empty: '' } },
    { name: 'one value just over the cut, the whole under the limit', args: { content: 'x'.repeat(2_001) } },
    { name: 'values to escape just over the cut, the whole under the limit', args: { content: '"\n'.repeat(1_500) } },
    { name: 'a 10,000-line file', args: { path: 'big.ts', content: Array.from({ length: 10_000 }, (_, i) => `export const value${i} = ${i}; // "${i}"`).join('\n') } },
    { name: 'many short values over the limit, none cut', args: { items: Array.from({ length: 2_000 }, (_, i) => `item ${i}`) } },
    { name: 'long values in an array and nested', args: { edits: [{ old: 'o'.repeat(30_000), new: 'n\n'.repeat(20_000) }, { old: 'a', new: 'b' }] } },
    { name: 'the whole exactly at the limit', args: { content: 'x'.repeat(argsInlineChars - 19) } },
    { name: 'the whole one over the limit', args: { content: 'x'.repeat(argsInlineChars - 18) } },
  ];
  for (const row of rows) {
    it(`${row.name}: as before, in one pass`, () => {
      assert.deepEqual(shownArgs(row.args), reference(row.args));
    });
  }

  it('the limit rows sit on each side of it', () => {
    assert.equal(reference({ content: 'x'.repeat(argsInlineChars - 19) }).argsCut, undefined);
    assert.equal(reference({ content: 'x'.repeat(argsInlineChars - 18) }).argsCut, argsInlineChars + 1);
  });
});
