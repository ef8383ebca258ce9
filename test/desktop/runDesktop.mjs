// `npm run test:desktop`: the integration tests in a downloaded desktop VS Code, for machines that can download it
// (@vscode/test-electron). Not run in CI here: this machine kind reaches no VS Code download. The same tests run in
// CI inside code-server through test/e2e/extensionHost.e2e.ts.
import { runTests } from '@vscode/test-electron';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');
try {
  await runTests({
    version: process.env.TOOLGATE_VSCODE_VERSION ?? '1.139.1',
    extensionDevelopmentPath: root,
    extensionTestsPath: path.join(root, 'dist-test', 'hostRunner', 'desktopIndex.js'),
    launchArgs: [path.join(root, 'test', 'fixtures', 'workspaces', 'basic'), '--disable-extensions'],
  });
} catch (error) {
  console.error('desktop tests failed:', error);
  process.exit(1);
}
