/** The webview protocol's schemas as the host reaches them: the contract's own modules, built once, on first use. */
import * as assert from 'node:assert/strict';
import * as approvals from '../../src/shared/approvals';
import * as messages from '../../src/shared/messages';
import { approvalSchemas, messageSchemas } from '../../src/core/protocolSchemas';

describe('the protocol schemas the host builds on first use', () => {
  const rows = [
    { name: 'messages', get: messageSchemas, module: messages, check: () => messageSchemas().ResultRef.safeParse('a-1').success },
    { name: 'approvals', get: approvalSchemas, module: approvals, check: () => approvalSchemas().DiffMode.safeParse('split').success },
  ];
  for (const { name, get, module, check } of rows) {
    it(`${name}: the contract's module itself, the same on every call`, () => {
      assert.equal(get(), get());
      assert.deepEqual(Object.keys(get()).sort(), Object.keys(module).sort());
      assert.equal(check(), true);
    });
  }
});
