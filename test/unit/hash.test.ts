import * as assert from 'node:assert/strict';
import { callHash, canonicalJson, sha256 } from '../../src/core/approval/hash';
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

  // Kept grants hold hashes made as sha256(canonicalJson({ tool, args, base })): callHash must keep making exactly those.
  const hashed: { name: string; tool: string; args: unknown; base?: string }[] = [
    { name: 'arguments and no base', tool: 'mcp__fixture__echo', args: { text: 'call 1', a: [1, { z: null, b: true }] } },
    { name: 'a base content hash', tool: 'edit_file', args: { path: 'a.ts', old: 'x', new: 'y' }, base: 'f'.repeat(64) },
    { name: 'no arguments at all', tool: 'list_files', args: undefined },
    { name: 'a tool name JSON escapes', tool: 'odd"tool\\', args: [] },
  ];
  for (const row of hashed) {
    it(`callHash is the hash of the canonical { tool, args, base }: ${row.name}`, () => {
      assert.equal(callHash(row.tool, row.args, row.base), sha256(canonicalJson({ tool: row.tool, args: row.args, base: row.base ?? null })));
    });
  }

  // Up to 64 deep the text is written by recursion, deeper by the walk: both write the same text, at and past the seam.
  for (const depth of [63, 64, 65, 66, 300]) {
    it(`writes a ${depth}-deep value (objects and arrays, unsorted keys, a hole) as a key-sorting JSON.stringify does`, () => {
      const withHole: unknown[] = [1];
      withHole[2] = 'x';
      let value: unknown = { z: withHole, a: null };
      for (let i = 0; i < depth; i++) {
        value = i % 2 === 0 ? { b: value, 10: true, a: undefined, 9: -0.5 } : [value, {}];
      }
      const sorted = (item: unknown): unknown =>
        Array.isArray(item) ? Array.from(item, (entry: unknown) => sorted(entry ?? null)) : item !== null && typeof item === 'object' ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, entry]) => [key, sorted(entry)])) : item;
      assert.equal(canonicalJson(value), JSON.stringify(sorted(value)));
    });
  }

  it('names a cycle first met deeper than the recursion writes', () => {
    const deep = nested(100) as Record<string, unknown>;
    let inner = deep;
    for (let i = 0; i < 99; i++) {
      inner = inner['a'] as Record<string, unknown>;
    }
    inner['loop'] = deep;
    assert.throws(() => canonicalJson(deep), /cannot hash a cyclic value/);
  });

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
