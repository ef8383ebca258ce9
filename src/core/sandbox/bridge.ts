/**
 * The sandbox's end of the filtering proxy. A sandboxed command has only its own loopback, and the tools people run
 * (npm, pip, cargo, git, curl) take an HTTP proxy as `host:port`, not as a Unix socket; so the command is started by
 * a small Node program inside the sandbox that listens on the sandbox's own 127.0.0.1, passes each connection to the
 * proxy's socket (bound into the sandbox at `proxySocketInSandbox`), points the proxy variables at itself and only
 * then starts the command, so no connection can come before it listens. Listed services of this machine
 * (`localhost:5432`) are forwarded at their own address and port, through the proxy's CONNECT, for clients that know
 * nothing of proxies. The bridge stays the command's parent: the signals the runner sends to the process group reach
 * the command directly, the bridge ignores them and ends with the command's own exit code or signal. The program is
 * passed with `node -e`, so nothing has to be readable on disk.
 */
import type { LocalForward } from './domains';

/** Where the proxy's socket appears inside the sandbox (its private /tmp). */
export const proxySocketInSandbox = '/tmp/.toolgate-proxy.sock';

/** Plain CommonJS for `node -e`: argv is `<socket> <forwards as JSON> -- <program> ...args`. */
export const bridgeSource = String.raw`'use strict';
const net = require('net');
const { spawn } = require('child_process');
const [socketPath, forwardsJson, separator, program, ...args] = process.argv.slice(1);
if (separator !== '--' || !program) {
  process.stderr.write('toolgate: the network bridge was started without a command\n');
  process.exit(125);
}
const forwards = JSON.parse(forwardsJson);
function join(client, upstream) {
  const end = () => { client.destroy(); upstream.destroy(); };
  client.on('error', end); upstream.on('error', end);
  client.on('close', end); upstream.on('close', end);
  client.pipe(upstream); upstream.pipe(client);
}
function listen(server, port, address) {
  return new Promise((resolve) => {
    server.once('error', (error) => resolve(error));
    server.listen(port, address, () => resolve(undefined));
  });
}
// A listed service of this machine: a tunnel through the proxy, opened with CONNECT.
function forward(target) {
  return net.createServer((client) => {
    client.pause();
    const upstream = net.connect(socketPath, () => upstream.write('CONNECT ' + target + ' HTTP/1.1\r\nHost: ' + target + '\r\n\r\n'));
    let answer = Buffer.alloc(0);
    const onData = (chunk) => {
      answer = Buffer.concat([answer, chunk]);
      const end = answer.indexOf('\r\n\r\n');
      if (end < 0) return;
      upstream.off('data', onData);
      if (!/^HTTP\/1\.[01] 200/.test(answer.toString('latin1', 0, end))) {
        client.destroy(); upstream.destroy();
        return;
      }
      const rest = answer.subarray(end + 4);
      if (rest.length > 0) client.write(rest);
      join(client, upstream);
      client.resume();
    };
    upstream.on('data', onData);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
}
(async () => {
  const proxy = net.createServer((client) => join(client, net.connect(socketPath)));
  const failed = await listen(proxy, 0, '127.0.0.1');
  if (failed) {
    process.stderr.write('toolgate: the network bridge could not listen: ' + failed.message + '\n');
    process.exit(125);
  }
  for (const entry of forwards) {
    for (const address of entry.listen) {
      const error = await listen(forward(entry.target), entry.port, address);
      // ::1 is missing where IPv6 is off: 127.0.0.1 is enough then.
      if (error && address !== '::1') {
        process.stderr.write('toolgate: ' + address + ':' + entry.port + ' (allowed) cannot be forwarded into the sandbox: ' + error.message + '\n');
      }
    }
  }
  const url = 'http://127.0.0.1:' + proxy.address().port;
  const env = Object.assign({}, process.env);
  delete env.ELECTRON_RUN_AS_NODE;
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy']) env[name] = url;
  // The sandbox's own loopback is the command's (its dev server, its test database, the forwarded services).
  env.NO_PROXY = env.no_proxy = 'localhost,127.0.0.1,::1';
  // Node 24 and later follow the proxy variables in fetch and http only when asked.
  env.NODE_USE_ENV_PROXY = '1';
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => undefined);
  const child = spawn(program, args, { stdio: 'inherit', env });
  child.on('error', (error) => {
    process.stderr.write('toolgate: ' + program + ' could not be started: ' + error.message + '\n');
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code === null ? 1 : code);
  });
})();
`;

/**
 * The words after bwrap's `--` that start the bridge, to which the runner appends `-- bash ...`. `node`: a Node
 * binary readable inside the sandbox (the extension host's own: VS Code's Electron needs ELECTRON_RUN_AS_NODE, which
 * the bridge removes before the command starts).
 */
export function bridgeCommand(node: string, forwards: readonly LocalForward[]): string[] {
  return [node, '-e', bridgeSource, '--', proxySocketInSandbox, JSON.stringify(forwards)];
}
