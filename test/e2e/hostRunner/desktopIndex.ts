/**
 * Entry for @vscode/test-electron (`npm run test:desktop`): it calls run() inside the desktop extension host.
 * The same host tests as the code-server bench, with mocha from the repository.
 */
import Mocha from 'mocha';
import path from 'node:path';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: true });
  mocha.addFile(path.join(__dirname, 'hostTests.js'));
  return new Promise((resolve, reject) => {
    mocha.run((failures) => {
      if (failures > 0) {
        reject(new Error(`${failures} host test(s) failed`));
      } else {
        resolve();
      }
    });
  });
}
