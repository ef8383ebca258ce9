import * as assert from 'node:assert/strict';
import { builtinToolSpecs } from '../../src/core/tools/specs';

describe('the built-in tools described to the model', () => {
  it('are the same each turn, and a caller that tries to change one changes nothing the next turn sees', () => {
    const [first] = builtinToolSpecs(['write_file']);
    assert.ok(first);
    assert.equal(first.name, 'write_file');
    const properties = (first.parameters as { properties?: Record<string, unknown> }).properties;
    assert.ok(properties && 'path' in properties, JSON.stringify(first.parameters));
    // Reflect.set answers whether the change took, the same in strict and sloppy code (a bundle may be either).
    assert.equal(Reflect.set(first, 'name', 'run_in_terminal'), false);
    assert.equal(Reflect.set(properties, 'path', {}), false);
    assert.equal(Reflect.set(properties, 'added', {}), false);
    const [again] = builtinToolSpecs(['write_file']);
    assert.deepEqual(again, first);
    assert.equal(again.name, 'write_file');
    assert.equal('added' in ((again.parameters as { properties?: object }).properties ?? {}), false);
  });

  it('a new list each call: adding to it adds nothing to the next', () => {
    const list = builtinToolSpecs();
    const count = list.length;
    list.push({ name: 'extra', description: '', parameters: {} });
    assert.equal(builtinToolSpecs().length, count);
  });
});
