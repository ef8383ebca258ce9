/**
 * What a stdio MCP server is started through (POSIX), so that no server outlives the extension host, however the host
 * ends: `node mcpWatchdog.js -- <command> <args…>`.
 *
 * Two processes, because a host can end by taking its whole process group with it (code-server killed with its group):
 * - the bridge (this process as started, in the host's group) starts the guard in a process group of its own and
 *   passes the host's stdin to it; the server's stdout and stderr go straight to the host;
 * - the guard (`--guard`, leader of its own group) starts the server in that group and passes its stdin on. When its
 *   stdin ends (the host closed the connection, or the host or the bridge died: the pipe closes with them), when it is
 *   told to stop, or when its parent changes, it ends the server's stdin, waits a grace period, then SIGTERMs and at
 *   last SIGKILLs its whole group: the server and everything it started (`npx` and its child too).
 * When the server exits, the guard kills what is left of the group; the bridge exits when the guard does.
 *
 * Written by hand: no package does "kill this process group when my parent's pipe closes" (Node has no PDEATHSIG), and
 * it is a few lines with no dependencies beyond Node.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/**
 * From stdin's end to SIGTERM, and again from SIGTERM to SIGKILL: together shorter than the MCP SDK's own close (2 s,
 * SIGTERM, 2 s, SIGKILL of the bridge), so the group is killed before the bridge could be.
 */
const graceMs = 1_500;

function killGroup(signal: NodeJS.Signals): void {
  try {
    process.kill(-process.pid, signal);
  } catch {
    // the group is gone
  }
}

/** Pipes this process's stdin into `child`, and ends when the child ends, with its code. */
function follow(child: ChildProcess, what: string): void {
  child.on('error', (error) => {
    process.stderr.write(`mcpWatchdog: could not start ${what}: ${error.message}\n`);
    process.exit(127);
  });
  if (child.stdin) {
    child.stdin.on('error', () => undefined);
    process.stdin.pipe(child.stdin);
  }
}

/** The guard: leader of its own process group, which the server joins. */
function guard(command: string, args: string[]): void {
  const server = spawn(command, args, { stdio: ['pipe', 'inherit', 'inherit'] });
  follow(server, command);
  const parent = process.ppid;
  let stopping = false;
  const stop = (): void => {
    if (stopping) {
      return;
    }
    stopping = true;
    server.stdin.end();
    setTimeout(() => {
      killGroup('SIGTERM');
      setTimeout(() => killGroup('SIGKILL'), graceMs);
    }, graceMs);
  };
  server.on('exit', (code) => {
    // What the server started and left behind goes with it, and this process with them: the bridge is told the
    // server's exit code first, over their IPC channel.
    const end = (): void => killGroup('SIGKILL');
    if (process.send) {
      process.send({ exitCode: code ?? 1 }, end);
    } else {
      end();
    }
  });
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, stop);
  }
  // Reparented: whoever started it is gone without closing the pipe (it was inherited by someone else).
  setInterval(() => {
    if (process.ppid !== parent) {
      stop();
    }
  }, 500).unref();
}

/** The bridge: starts the guard outside the host's process group, and stays as the host's end of the pipe. */
function bridge(argv: readonly string[]): void {
  const self = process.argv[1] ?? '';
  const guardProcess = spawn(process.execPath, [...process.execArgv, self, '--guard', ...argv], {
    stdio: ['pipe', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  follow(guardProcess, 'the MCP server guard');
  let reported: number | undefined;
  guardProcess.on('message', (message: unknown) => {
    if (typeof message === 'object' && message !== null && 'exitCode' in message && typeof message.exitCode === 'number') {
      reported = message.exitCode;
    }
  });
  // The server's code when the guard told it (the guard then goes with the group), else the guard's own.
  guardProcess.on('exit', (code) => process.exit(reported ?? code ?? 1));
  // The host's end closes (close or death): the guard's stdin ends with it, and it stops the server.
  process.stdin.on('end', () => guardProcess.stdin?.end());
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => guardProcess.kill('SIGTERM'));
  }
}

function main(argv: readonly string[]): void {
  const guarding = argv[0] === '--guard';
  const rest = guarding ? argv.slice(1) : argv;
  const separator = rest.indexOf('--');
  const [command, ...args] = separator >= 0 ? rest.slice(separator + 1) : [];
  if (command === undefined) {
    process.stderr.write('mcpWatchdog: usage: mcpWatchdog -- <command> [args…]\n');
    process.exit(2);
  }
  if (guarding) {
    // Set only so that an Electron host's binary runs this file as Node: the server must not inherit it.
    delete process.env['ELECTRON_RUN_AS_NODE'];
    guard(command, args);
  } else {
    bridge(rest);
  }
}

main(process.argv.slice(2));
