import * as assert from 'node:assert/strict';
import { callHash, canonicalJson } from '../../src/core/approval/hash';
import { nested } from '../fixtures/badCalls';

describe('the hash a decision is bound to (core/approval/hash)', () => {
  const rows: { name: string; value: unknown; json: string }[] = [
    { name: 'keys sorted at every level', value: { b: 1, a: { d: [3, { z: 0, y: 1 }], c: null } }, json: '{"a":{"c":null,"d":[3,{"y":1,"z":0}]},"b":1}' },
    // What JSON.stringify wrote for the object the old recursive version built: kept grants still match.
    { name: 'index keys first, in numeric order, as JSON.stringify writes them', value: { b: 1, 10: 'ten', 9: 'nine', a: 2 }, json: '{"9":"nine","10":"ten","a":2,"b":1}' },
    { name: 'an undefined property left out', value: { a: undefined, b: 'x' }, json: '{"b":"x"}' },
    { name: 'strings escaped as JSON escapes them', value: ['a"b\\c\n', '\u2028', '\ud800'], json: '["a\\"b\\\\c\\n","\u2028","\\ud800"]' },
    { name: 'a value shared by two keys (not a cycle)', value: ((shared) => ({ a: shared, b: shared }))({ x: 1 }), json: '{"a":{"x":1},"b":{"x":1}}' },
    { name: 'the empty containers', value: { a: {}, b: [] }, json: '{"a":{},"b":[]}' },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.equal(canonicalJson(row.value), row.json);
    });
  }

  for (const key of ['__proto__', 'constructor', 'prototype']) {
    it(`keeps a \`${key}\` key: { id: 1, ${key}: {…} } and { id: 1 } hash differently`, () => {
      const args = JSON.parse(`{"id":1,"${key}":{"x":1}}`) as unknown;
      assert.equal(canonicalJson(args), key < 'id' ? `{"${key}":{"x":1},"id":1}` : `{"id":1,"${key}":{"x":1}}`);
      assert.notEqual(callHash('my_tool', args), callHash('my_tool', { id: 1 }));
      assert.notEqual(callHash('my_tool', args), callHash('my_tool', { id: 1, [key]: { x: 2 } }));
    });
  }

  it('hashes a 10,000-deep value without overflowing the stack', () => {
    const json = canonicalJson(nested(10_000));
    assert.equal(json.length, '{"a":'.length * 10_000 + 1 + 10_000);
    assert.match(callHash('t', nested(10_000)), /^[0-9a-f]{64}$/);
  });

  const refused: { name: string; value: unknown; error: RegExp }[] = [
    { name: 'a cycle', value: ((loop: Record<string, unknown>) => ((loop['self'] = loop), loop))({}), error: /cannot hash a cyclic value/ },
    { name: 'NaN', value: { n: Number.NaN }, error: /cannot hash the non-finite number NaN/ },
    { name: 'a function', value: [() => 1], error: /cannot hash a value of type function/ },
    { name: 'undefined in an array', value: [undefined], error: /cannot hash a value of type undefined/ },
  ];
  for (const row of refused) {
    it(`refuses ${row.name} with a TypeError that says so`, () => {
      assert.throws(() => canonicalJson(row.value), row.error);
    });
  }
});
