/**
 * The sandbox's end of the filtering proxy. A sandboxed command has only its own loopback, and the tools people run
 * (npm, pip, cargo, git, curl) take an HTTP proxy as `host:port`, not as a Unix socket; so the command is started by
 * a small Node program inside the sandbox that listens on the sandbox's own 127.0.0.1, passes each connection to the
 * proxy's socket (bound into the sandbox at `proxySocketInSandbox`), points the proxy variables at itself and only
 * then starts the command, so no connection can come before it listens. There is no NO_PROXY for loopback: curl, pip,
 * Python's urllib and Node's fetch (NODE_USE_ENV_PROXY) send `http://127.0.0.1:PORT` and `localhost:PORT` to the bridge
 * too, which reads the request's target (CONNECT host:port, or an absolute http:// URL) and connects to it on the
 * sandbox's own loopback first (a dev server the command started keeps working); only when nothing listens there does
 * the proxy get it, which judges `localhost:PORT` like any destination and records what it refused, so a refused
 * local service is known, not guessed from the command's output. Listed services of this machine
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
// What a proxy client asked for, from its request's head: CONNECT host:port, or an absolute http:// URL.
function requested(head) {
  const line = /^(\S+) (\S+) HTTP\/1\.[01]\r\n/.exec(head.toString('latin1'));
  if (!line) return undefined;
  if (line[1] === 'CONNECT') {
    const authority = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(line[2]);
    return authority ? { tunnel: true, host: authority[1] || authority[2], port: Number(authority[3]) } : undefined;
  }
  let url;
  try { url = new URL(line[2]); } catch { return undefined; }
  if (url.protocol !== 'http:') return undefined;
  return { tunnel: false, method: line[1], host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port ? Number(url.port) : 80, path: url.pathname + url.search };
}
// The sandbox's own loopback: a service the command started itself is reached there first.
function loopback(host) {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost') return ['127.0.0.1', '::1'];
  if (name === '0.0.0.0') return ['127.0.0.1'];
  return /^127(\.\d{1,3}){3}$/.test(name) || name === '::1' ? [name] : [];
}
function connectLocal(addresses, port) {
  return new Promise((resolve) => {
    const next = (index) => {
      if (index >= addresses.length) return resolve(undefined);
      const socket = net.connect({ host: addresses[index], port });
      socket.once('connect', () => { socket.removeAllListeners('error'); resolve(socket); });
      socket.once('error', () => next(index + 1));
    };
    next(0);
  });
}
// The request as an origin server reads it: its path, without the proxy's headers, one request per connection.
function originHead(head, target) {
  const lines = head.toString('latin1').split('\r\n').slice(1).filter((line) => line !== '' && !/^(proxy-connection|proxy-authorization|connection|keep-alive):/i.test(line));
  return Buffer.from([target.method + ' ' + target.path + ' HTTP/1.1', ...lines, 'Connection: close', '', ''].join('\r\n'), 'latin1');
}
// One connection to the bridge's proxy port: to a service on the sandbox's own loopback if one listens there, else to
// the host's proxy, which judges it (a service of this machine is refused unless listed) and records what it refused.
function serveProxy(client) {
  let head = Buffer.alloc(0);
  const onData = async (chunk) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0 && head.length < 65536) return;
    client.off('data', onData);
    client.pause();
    const target = end < 0 ? undefined : requested(head);
    const local = target ? await connectLocal(loopback(target.host), target.port) : undefined;
    if (local && target) {
      const rest = head.subarray(end + 4);
      if (target.tunnel) {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (rest.length > 0) local.write(rest);
      } else {
        local.write(Buffer.concat([originHead(head.subarray(0, end), target), rest]));
      }
      join(client, local);
    } else {
      const upstream = net.connect(socketPath);
      upstream.write(head);
      join(client, upstream);
    }
    client.resume();
  };
  client.on('data', onData);
  client.on('error', () => client.destroy());
}
(async () => {
  const proxy = net.createServer(serveProxy);
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
  // No exception for loopback: a proxy-aware client's connection to 127.0.0.1 comes to the bridge, which reaches the
  // command's own service there or, when none listens, lets the proxy judge (and record) it.
  delete env.NO_PROXY; delete env.no_proxy;
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
 * The same bridge for Python 3, preferred where the system has one: it starts in a third of Node's time, and it can do
 * better than stay the command's parent. It binds every listener first, forks one process that serves them (it
 * ignores the stop signals; the sandbox ends it with the command), and then becomes the command itself with exec, so
 * exit codes and signals are the command's own. argv: `<socket> <forwards as JSON> -- <program> ...args`.
 */
export const pythonBridgeSource = String.raw`import json, os, re, signal, socket, sys, threading
sock_path, forwards_json, separator, *command = sys.argv[1:]
if separator != '--' or not command:
    sys.stderr.write('toolgate: the network bridge was started without a command\n')
    sys.exit(125)
def listener(address, port):
    family = socket.AF_INET6 if ':' in address else socket.AF_INET
    server = socket.socket(family, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((address, port))
    server.listen(128)
    return server
def pump(source, sink):
    # One direction: its end is passed on as a half close; an error ends both.
    try:
        while True:
            data = source.recv(65536)
            if not data:
                sink.shutdown(socket.SHUT_WR)
                return
            sink.sendall(data)
    except OSError:
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
def join(client, upstream):
    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join()
    client.close()
    upstream.close()
def serve(server, target):
    while True:
        client, _ = server.accept()
        threading.Thread(target=handle, args=(client, target), daemon=True).start()
def requested(head):
    # What a proxy client asked for, from its request's head: CONNECT host:port, or an absolute http:// URL.
    line = re.match(rb'(\S+) (\S+) HTTP/1\.[01]\r\n', head)
    if line is None:
        return None
    method, where = line.group(1).decode('latin-1'), line.group(2).decode('latin-1')
    if method == 'CONNECT':
        authority = re.fullmatch(r'(?:\[([^\]]+)\]|([^:\[\]]+)):(\d{1,5})', where)
        return None if authority is None else {'tunnel': True, 'host': authority.group(1) or authority.group(2), 'port': int(authority.group(3))}
    url = re.fullmatch(r'http://(?:\[([^\]]+)\]|([^:/?#\[\]]+))(?::(\d{1,5}))?([/?][^#]*)?(#.*)?', where, re.I)
    if url is None:
        return None
    path = url.group(4) or '/'
    return {'tunnel': False, 'method': method, 'host': url.group(1) or url.group(2), 'port': int(url.group(3) or 80), 'path': path if path.startswith('/') else '/' + path}
def loopback(host):
    # The sandbox's own loopback: a service the command started itself is reached there first.
    name = host.lower().rstrip('.')
    if name == 'localhost':
        return ['127.0.0.1', '::1']
    if name == '0.0.0.0':
        return ['127.0.0.1']
    return [name] if re.fullmatch(r'127(\.\d{1,3}){3}', name) or name == '::1' else []
def connect_local(addresses, port):
    for address in addresses:
        local = socket.socket(socket.AF_INET6 if ':' in address else socket.AF_INET, socket.SOCK_STREAM)
        try:
            local.connect((address, port))
            return local
        except OSError:
            local.close()
    return None
def origin_head(head, target):
    # The request as an origin server reads it: its path, without the proxy's headers, one request per connection.
    lines = [line for line in head.decode('latin-1').split('\r\n')[1:] if line != '' and not re.match(r'(proxy-connection|proxy-authorization|connection|keep-alive):', line, re.I)]
    return '\r\n'.join(['%s %s HTTP/1.1' % (target['method'], target['path'])] + lines + ['Connection: close', '', '']).encode('latin-1')
def serve_proxy(client):
    # One connection to the bridge's proxy port: to a service on the sandbox's own loopback if one listens there, else
    # to the host's proxy, which judges it (a service of this machine is refused unless listed) and records the refusal.
    head = b''
    try:
        while b'\r\n\r\n' not in head and len(head) < 65536:
            chunk = client.recv(65536)
            if not chunk:
                client.close()
                return
            head += chunk
    except OSError:
        client.close()
        return
    end = head.find(b'\r\n\r\n')
    target = requested(head) if end >= 0 else None
    local = connect_local(loopback(target['host']), target['port']) if target is not None else None
    if local is not None:
        rest = head[end + 4:]
        try:
            if target['tunnel']:
                client.sendall(b'HTTP/1.1 200 Connection Established\r\n\r\n')
                if rest:
                    local.sendall(rest)
            else:
                local.sendall(origin_head(head[:end], target) + rest)
        except OSError:
            client.close()
            local.close()
            return
        join(client, local)
        return
    through_proxy(client, lambda upstream: upstream.sendall(head))
def through_proxy(client, start):
    # A connection handed to the host's proxy: start sends what comes first; an error ends both.
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(sock_path)
        start(upstream)
    except OSError:
        client.close()
        upstream.close()
        return
    join(client, upstream)
def open_tunnel(upstream, client, target):
    upstream.sendall(('CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n' % (target, target)).encode('latin-1'))
    answer = b''
    while b'\r\n\r\n' not in answer:
        chunk = upstream.recv(4096)
        if not chunk:
            raise OSError('the proxy closed the tunnel')
        answer += chunk
    head, rest = answer.split(b'\r\n\r\n', 1)
    if not (head.startswith(b'HTTP/1.1 200') or head.startswith(b'HTTP/1.0 200')):
        raise OSError('refused')
    if rest:
        client.sendall(rest)
def handle(client, target):
    if target is None:
        serve_proxy(client)
    else:
        through_proxy(client, lambda upstream: open_tunnel(upstream, client, target))
proxy = listener('127.0.0.1', 0)
servers = [(proxy, None)]
for entry in json.loads(forwards_json):
    for address in entry['listen']:
        try:
            servers.append((listener(address, entry['port']), entry['target']))
        except OSError as error:
            # ::1 is missing where IPv6 is off: 127.0.0.1 is enough then.
            if address != '::1':
                sys.stderr.write('toolgate: %s:%d (allowed) cannot be forwarded into the sandbox: %s\n' % (address, entry['port'], error))
url = 'http://127.0.0.1:%d' % proxy.getsockname()[1]
if os.fork() == 0:
    for name in ('SIGINT', 'SIGTERM', 'SIGHUP'):
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    # It holds none of the command's output open.
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(quiet, fd)
    for server, target in servers[1:]:
        threading.Thread(target=serve, args=(server, target), daemon=True).start()
    try:
        serve(proxy, None)
    finally:
        os._exit(0)
for server, _ in servers:
    server.close()
env = dict(os.environ)
for name in ('HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy'):
    env[name] = url
# No exception for loopback, as in the Node bridge.
env.pop('NO_PROXY', None)
env.pop('no_proxy', None)
env['NODE_USE_ENV_PROXY'] = '1'
try:
    os.execvpe(command[0], command, env)
except OSError as error:
    sys.stderr.write('toolgate: %s could not be started: %s\n' % (command[0], error))
    sys.exit(127)
`;

/** What the bridge runs on: the system's Python 3 where there is one, else Node (the extension host's own binary). */
export interface BridgeRuntime {
  kind: 'python' | 'node';
  path: string;
  /** Set for the bridge (VS Code's Electron runs as Node with ELECTRON_RUN_AS_NODE, which the bridge removes). */
  env: Record<string, string>;
}

/** The words after bwrap's `--` that start the bridge, to which the runner appends `-- bash ...`. */
export function bridgeCommand(runtime: Pick<BridgeRuntime, 'kind'>, program: string, forwards: readonly LocalForward[]): string[] {
  const forwarded = JSON.stringify(forwards);
  return runtime.kind === 'python'
    ? // -I: no user site, no PYTHON* variables, no script folder on the path; -S: no site module (faster).
      [program, '-I', '-S', '-c', pythonBridgeSource, proxySocketInSandbox, forwarded]
    : [program, '-e', bridgeSource, '--', proxySocketInSandbox, forwarded];
}
