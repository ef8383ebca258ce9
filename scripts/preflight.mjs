// Runs first in `npm start`, `npm test`, `npm run test:e2e` and `npm run bench`: checks that this machine can run
// them, before anything slow starts.
//   - Node: the version running npm must satisfy package.json `engines.node`.
//   - Platform: Linux x64 (the Node 24 and code-server packages installed from npm are built for it).
//   - Debian packages: those scripts/system-packages.txt lists for this script. When some are missing, they are
//     installed if this runs as root (as on a fresh CI machine); otherwise it stops with the one command to run.
// Usage: node scripts/preflight.mjs <start|check|test>. Written for old Node versions too, so that an unsupported
// one gets this message rather than a syntax error.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const purposes = ['start', 'check', 'test'];
const purpose = process.argv[2];

/** Stops with one line. */
function stop(message) {
  console.error(`toolgate: ${message}`);
  process.exit(1);
}

if (!purposes.includes(purpose)) {
  stop(`preflight: say what runs next (${purposes.join(', ')}), not ${JSON.stringify(purpose)}`);
}

const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const wanted = manifest.engines.node;
let semver;
try {
  semver = createRequire(path.join(root, 'package.json'))('semver');
} catch {
  stop('the dependencies are not installed: run `npm install` first');
}
if (!semver.satisfies(process.versions.node, wanted)) {
  stop(`Node ${process.versions.node} cannot run this project's scripts: they need Node ${wanted} (package.json engines.node). Install one of those and run again.`);
}
if (process.platform !== 'linux' || process.arch !== 'x64') {
  stop(`this project runs its real VS Code (code-server from npm) on Linux x64 only, not ${process.platform} ${process.arch}`);
}

/** The packages of scripts/system-packages.txt that `purpose` needs, in file order. */
function neededPackages() {
  const text = readFileSync(path.join(root, 'scripts', 'system-packages.txt'), 'utf8');
  return text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim().split(/\s+/))
    .filter((words) => words[0] !== '' && words.slice(1).includes(purpose))
    .map((words) => words[0]);
}

/** Which of `packages` dpkg does not list as installed; undefined when this is not a Debian system. */
function missingPackages(packages) {
  const query = spawnSync('dpkg-query', ['-W', '-f=${Package} ${Status}\\n', ...packages], { encoding: 'utf8' });
  if (query.error) {
    return undefined;
  }
  const installed = new Set(
    query.stdout
      .split('\n')
      .filter((line) => line.endsWith(' install ok installed'))
      .map((line) => line.split(' ')[0].split(':')[0]),
  );
  return packages.filter((name) => !installed.has(name));
}

const packages = neededPackages();
const missing = missingPackages(packages);
if (missing === undefined) {
  console.error(`toolgate: not a Debian system (no dpkg-query): make sure the equivalents of ${packages.join(', ')} are installed`);
} else if (missing.length > 0) {
  const install = ['apt-get', 'install', '-y', '--no-install-recommends', ...missing];
  if (process.getuid?.() !== 0) {
    stop(`missing Debian packages ${missing.join(', ')}: run \`sudo ${install.join(' ')}\` and try again`);
  }
  console.error(`toolgate: installing the missing Debian packages ${missing.join(', ')} (running as root)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    execFileSync(install[0], [...install.slice(1), '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  } catch {
    stop(`installing ${missing.join(', ')} failed (see apt-get's messages above)`);
  }
  const still = missingPackages(missing) ?? [];
  if (still.length > 0) {
    stop(`apt-get finished but ${still.join(', ')} is still not installed`);
  }
}
