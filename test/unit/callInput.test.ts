import * as assert from 'node:assert/strict';
import { checkJsonValue, maxArgsChars, maxArgsDepth, readCall } from '../../src/core/tools/callInput';
import { badCalls, nested } from '../fixtures/badCalls';

describe('what a call from outside is (core/tools/callInput)', () => {
  for (const row of badCalls()) {
    it(`refuses ${row.name}, saying what is wrong`, () => {
      const read = readCall(row.input);
      assert.equal(read.ok, false);
      assert.match(read.error, row.error);
    });
  }

  it('takes a call as given, as a copy; absent args are {}, an undefined property is left out (as JSON does)', () => {
    const args = { path: 'a.txt', content: 'x', list: [1, 'two', null, true, { deep: -0.5 }], gone: undefined };
    const read = readCall({ tool: 'write_file', args, source: 'my.extension' });
    assert.ok(read.ok);
    assert.deepEqual(read.call, { tool: 'write_file', args: { path: 'a.txt', content: 'x', list: [1, 'two', null, true, { deep: -0.5 }] }, source: 'my.extension' });
    assert.notEqual(read.call.args, args, 'a copy: the caller changing its object later changes nothing here');
    args.list.push(2);
    assert.equal((read.call.args as { list: unknown[] }).list.length, 5);
    const bare = readCall({ tool: 'list_files' });
    assert.deepEqual(bare.ok && bare.call, { tool: 'list_files', args: {} });
    assert.deepEqual(readCall({ tool: 't', args: 'a JSON string' }).ok, true);
    assert.deepEqual(readCall({ tool: 't', args: Object.create(null) as object }).ok, true);
  });

  it(`takes arguments ${maxArgsDepth} levels deep, and up to the size bound`, () => {
    assert.equal(checkJsonValue(nested(maxArgsDepth)).ok, true);
    assert.equal(checkJsonValue(nested(maxArgsDepth + 1)).ok, false);
    const big = { path: 'big.txt', content: 'x'.repeat(maxArgsChars - 40) };
    assert.ok(JSON.stringify(big).length <= maxArgsChars);
    assert.equal(checkJsonValue(big).ok, true);
    assert.equal(checkJsonValue({ ...big, content: `${big.content}${'y'.repeat(40)}` }).ok, false);
    // To the character: a value whose JSON text is exactly the bound passes, one more character (an escape) does not.
    const exact = { path: 'big.txt', list: [true, null, 1.5], content: 'x'.repeat(maxArgsChars - JSON.stringify({ path: 'big.txt', list: [true, null, 1.5], content: '' }).length) };
    assert.equal(JSON.stringify(exact).length, maxArgsChars);
    assert.equal(checkJsonValue(exact).ok, true);
    assert.equal(checkJsonValue({ ...exact, content: `${exact.content.slice(1)}\n` }).ok, false);
  });

  for (const key of ['__proto__', 'constructor', 'prototype']) {
    it(`keeps a \`${key}\` key as data, an own property of the copy`, () => {
      const args = JSON.parse(`{"id":1,"${key}":{"x":1}}`) as Record<string, unknown>;
      const read = readCall({ tool: 'my_tool', args });
      assert.ok(read.ok);
      const copy = read.call.args as Record<string, unknown>;
      assert.deepEqual(Object.keys(copy), ['id', key]);
      assert.equal(Object.getPrototypeOf(copy), Object.prototype);
      assert.equal(JSON.stringify(copy), `{"id":1,"${key}":{"x":1}}`);
    });
  }
});
