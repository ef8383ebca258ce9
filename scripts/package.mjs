// Packages the extension as a .vsix with @vscode/vsce (its vscode:prepublish runs the production build) and
// reports the size. Output: out/toolgate-<version>.vsix. Prints the path on the last line.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const out = path.join(root, 'out', `toolgate-${version}.vsix`);
mkdirSync(path.dirname(out), { recursive: true });
execFileSync(
  process.execPath,
  [path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--no-rewrite-relative-links', '-o', out],
  { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] },
);
const kib = (statSync(out).size / 1024).toFixed(1);
console.log(`toolgate: packaged ${path.relative(root, out)} (${kib} KiB)`);
console.log(out);
