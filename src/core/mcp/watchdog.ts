/**
 * The process a stdio MCP server is started through (POSIX), so that no server outlives the extension host, however
 * the host ends: `node mcpWatchdog.js -- <command> <args…>`. It starts the server in a process group of its own, with
 * the server's stdout and stderr going straight to the host, and passes the host's stdin through. When that stdin
 * ends (the host closed the connection, or died: the pipe closes with it), when it is told to stop (SIGTERM, SIGINT,
 * SIGHUP), or when its parent changes, it ends the server's stdin, waits a grace period, then SIGTERMs and at last
 * SIGKILLs the whole group (`npx` and what it started too). When the server exits, the rest of its group is killed and
 * the watchdog exits with its code.
 *
 * Written by hand: no package does "kill this process group when my parent's pipe closes" (Node has no PDEATHSIG),
 * and this is a few lines. Its own process is tiny and has no dependencies beyond Node.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/**
 * From stdin's end to SIGTERM, and again from SIGTERM to SIGKILL: together shorter than the MCP SDK's own close (2 s,
 * SIGTERM, 2 s, SIGKILL of this process), so the group is killed before this process could be.
 */
const graceMs = 1_500;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) {
    return;
  }
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone
  }
}

function main(argv: readonly string[]): void {
  const separator = argv.indexOf('--');
  const [command, ...args] = separator >= 0 ? argv.slice(separator + 1) : [];
  if (command === undefined) {
    process.stderr.write('mcpWatchdog: usage: mcpWatchdog -- <command> [args…]\n');
    process.exit(2);
  }
  const env = { ...process.env };
  // Set only so that an Electron host's binary runs this file as Node; the server must not inherit it.
  delete env['ELECTRON_RUN_AS_NODE'];
  const child = spawn(command, args, { stdio: ['pipe', 'inherit', 'inherit'], detached: true, env });
  const parent = process.ppid;
  let stopping = false;
  const stop = (): void => {
    if (stopping) {
      return;
    }
    stopping = true;
    child.stdin.end();
    setTimeout(() => {
      killGroup(child, 'SIGTERM');
      setTimeout(() => {
        killGroup(child, 'SIGKILL');
        process.exit(1);
      }, graceMs).unref();
    }, graceMs).unref();
  };
  child.on('error', (error) => {
    process.stderr.write(`mcpWatchdog: could not start ${command}: ${error.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    // What the server started and left behind goes with it.
    killGroup(child, 'SIGKILL');
    process.exit(code ?? (signal !== null ? 128 + 15 : 1));
  });
  child.stdin.on('error', () => undefined);
  process.stdin.pipe(child.stdin);
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, stop);
  }
  // A parent that died without closing the pipe (it was inherited by someone else): reparented, so stop.
  setInterval(() => {
    if (process.ppid !== parent) {
      stop();
    }
  }, 500).unref();
}

main(process.argv.slice(2));
