// Runs the sandbox's unit specs again as an ordinary user, when the suite runs as root (the last step of
// `npm run test:unit`; as any other user it does nothing).
//
// Why: bubblewrap behaves differently for uid 0 (it keeps every capability unless told to drop them) and for everyone
// else (it drops them by itself, and nested user namespaces are the user's own), so a sandbox test that passes as one
// can fail as the other. CI runs as root, and people run VS Code both ways: every sandbox spec must pass as both.
//
// What it does: makes a dedicated system user if there is none (useradd), checks that this checkout, its
// node_modules and Node itself are readable by that user (if a folder on the way is not searchable by others, it is
// opened with o+x for the run and closed again after, and says so; anything still unreadable fails the run, loudly),
// then runs with runuser the specs that start the real sandbox (found by what they import) with a clean environment
// and a home of its own. Its reporter prints "unit as <user>: N passed, N failed, N skipped".
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const user = 'toolgate-sandbox-test';
/**
 * A spec that starts the real sandbox (it builds bwrap's arguments, probes, or launches through CommandSandbox or the
 * staged-run fixture) or lands what a command wrote (by descriptor, where a user's permissions decide what it may do), or
 * reads the managed settings file (honoured only when the user running it cannot change it).
 */
const startsTheSandbox = /probeSandbox|probeStaging|stagedLaunch|bwrapArgs\(|new CommandSandbox\(|runStaged\(|landChanges\(|new Beneath|applyWrite\(|readManagedFile\(/;

if (process.getuid?.() !== 0) {
  process.exit(0);
}
const root = process.cwd();
/** Ends the run loudly; thrown, so that what was opened for the run is closed again first. */
class Failure extends Error {}
const fail = (message) => {
  throw new Failure(message);
};

const run = (program, args, options = {}) => spawnSync(program, args, { encoding: 'utf8', ...options });

const opened = [];
let home;
let status;
try {
  if (run('id', ['-u', user]).status !== 0) {
    const made = run('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', user]);
    if (made.status !== 0) {
      fail(`could not create the user ${user} to run the sandbox specs as (${(made.stderr || made.error?.message || '').trim()}); the sandbox is tested as root only, which is not enough`);
    }
    console.log(`sandboxTestsAsUser: created the system user ${user}`);
  }
  const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());

  const specs = readdirSync(path.join(root, 'test', 'unit'))
    .filter((name) => name.endsWith('.test.ts') && startsTheSandbox.test(readFileSync(path.join(root, 'test', 'unit', name), 'utf8')))
    .map((name) => path.join('test', 'unit', name));
  if (specs.length === 0) {
    fail('found no sandbox spec in test/unit: the pattern that finds them is out of date');
  }

  // What the user must read: the checkout, the packages the specs load (node_modules may be a link elsewhere), Node.
  const node = process.execPath;
  const needed = [root, path.join(root, 'package.json'), path.join(root, 'test', 'unit'), path.join(root, 'node_modules', 'mocha', 'package.json'), path.join(root, 'node_modules', 'tsx', 'package.json'), node];
  const environment = { PATH: `${path.dirname(node)}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`, LANG: 'C.UTF-8' };
  const unreadable = () => {
    const checked = run('runuser', ['-u', user, '--', node, '-e', `for (const file of ${JSON.stringify(needed)}) { try { require('fs').accessSync(file, require('fs').constants.R_OK) } catch { console.log(file); process.exit(1) } }`], { env: environment });
    if (checked.error !== undefined) {
      fail(`runuser could not be started (${checked.error.message}): install util-linux`);
    }
    return checked.status === 0 ? undefined : checked.stdout.trim() || checked.stderr.trim() || 'Node itself';
  };

  /** Folders on the way to `file` that others cannot search, outermost first. */
  const closedFolders = (file) => {
    const found = [];
    for (let folder = path.dirname(path.resolve(file)); ; folder = path.dirname(folder)) {
      if ((statSync(folder).mode & 0o001) === 0) {
        found.unshift(folder);
      }
      if (folder === path.dirname(folder)) {
        return found;
      }
    }
  };

  home = mkdtempSync('/var/tmp/toolgate-sandbox-test-home-');
  chownSync(home, uid, gid);
  let missing = unreadable();
  if (missing !== undefined) {
    for (const folder of [...new Set(needed.flatMap((file) => closedFolders(realpathSync(file))))]) {
      const mode = statSync(folder).mode & 0o7777;
      chmodSync(folder, mode | 0o001);
      opened.push([folder, mode]);
    }
    if (opened.length > 0) {
      console.log(`sandboxTestsAsUser: opened ${opened.map(([folder]) => folder).join(', ')} to others (o+x) for this run, so ${user} can reach the checkout`);
    }
    missing = unreadable();
  }
  if (missing !== undefined) {
    fail(`${user} cannot read ${missing}: run the suite from a checkout every user can read (say under /var/tmp or /work), or make it readable; the sandbox specs were not run as an ordinary user`);
  }
  const config = JSON.parse(readFileSync(path.join(root, '.mocharc.unit.json'), 'utf8'));
  const ownConfig = path.join(home, 'mocharc.json');
  writeFileSync(ownConfig, JSON.stringify({ ...config, spec: specs, 'reporter-option': [`label=unit as ${user}`] }));
  console.log(`sandboxTestsAsUser: running ${specs.length} sandbox specs again as ${user} (uid ${uid})`);
  const result = run('runuser', ['-u', user, '--', node, path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--config', ownConfig], {
    cwd: root,
    env: { ...environment, HOME: home, USER: user, LOGNAME: user },
    stdio: 'inherit',
  });
  status = result.status ?? 1;
} catch (error) {
  console.error(`sandboxTestsAsUser: ${error instanceof Failure ? error.message : String(error)}`);
  status = 1;
} finally {
  for (const [folder, mode] of opened.reverse()) {
    chmodSync(folder, mode);
  }
  if (home !== undefined) {
    rmSync(home, { recursive: true, force: true });
  }
}
process.exit(status ?? 1);
