import * as assert from 'node:assert/strict';
import { startCodeServer, type CodeServer } from './harness/codeServer';
import { hostTestRunner, waitForHostTests } from './harness/hostTests';
import { Workbench } from './harness/workbench';

describe('integration tests inside the real extension host', () => {
  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;

  after(async () => {
    await workbench?.close();
    await server?.stop();
  });

  it('run with mocha in the extension host and all pass', async () => {
    const runner = hostTestRunner();
    server = await startCodeServer({ env: runner.env, extraExtensions: [runner.vsix] });
    workbench = await Workbench.open(server);
    const result = await waitForHostTests(runner.resultFile, 90_000);
    for (const title of result.passes) {
      console.log(`      ✓ (host) ${title}`);
    }
    for (const failure of result.failures) {
      console.log(`      ✗ (host) ${failure.title}\n${failure.error}`);
    }
    assert.deepEqual(result.failures, []);
    assert.deepEqual(result.pending, [], 'no host test may be skipped');
    assert.ok(result.passes.length >= 13, `only ${result.passes.length} host tests ran`);
  });
});
