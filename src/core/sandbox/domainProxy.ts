/**
 * The filtering proxy between a sandboxed command and the network. The command has no network of its own (an empty
 * network namespace); a bridge inside the sandbox (./bridge) hands its connections to this proxy over a Unix socket,
 * and the proxy lets through only destinations toolgate.sandbox.allowedDomains names: HTTPS and anything else
 * tunnelled by `CONNECT host:port`, plain HTTP by absolute URL. The proxy resolves names itself and connects to the
 * address it checked (no second lookup a rebinding DNS could answer differently), and a listed name that resolves to
 * an address that is not the public internet (this machine's, its LAN's, a private or CGNAT network's, a cloud's
 * metadata service) is refused unless an IP entry names that address (or `localhost` its loopback).
 *
 * Written by hand: the forward proxies on npm (`proxy`, `http-proxy`) offer no hook to refuse by destination before
 * they connect, and this is the part that must be exact. One proxy per command, so what it refused is that command's.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { addressAllowed, addressKind, addressKindText, destinationAllowed, entryFor, normaliseHost, type AddressKind, type DomainRule } from './domains';

export interface Refusal {
  /** `host:port` as the command asked for it. */
  destination: string;
  why: 'not-listed' | 'restricted-address' | 'unresolved' | 'malformed';
  /** For `restricted-address`: the address the name resolved to, and what it is. */
  address?: { ip: string; kind: AddressKind };
}

/** One line per refusal, for the person and the model. */
export function describeRefusal(refusal: Refusal): string {
  switch (refusal.why) {
    case 'not-listed':
      return `${refusal.destination} (not in toolgate.sandbox.allowedDomains)`;
    case 'restricted-address': {
      const { ip, kind } = refusal.address ?? { ip: 'an address', kind: 'this-machine' };
      const entry = entryFor(ip, Number(/:(\d+)$/.exec(refusal.destination)?.[1]));
      const allow = entry === undefined ? 'no entry can allow it at this port' : `only an entry naming that address allows it: "${entry}"`;
      return `${refusal.destination} (it resolves to ${ip}, ${addressKindText[kind]}; ${allow})`;
    }
    case 'unresolved':
      return `${refusal.destination} (the name did not resolve)`;
    case 'malformed':
      return `${refusal.destination} (not a request a proxy can forward)`;
  }
}

/** How every refusal the proxy answers a command with begins (the command may print it as its own result). */
export const refusalWords = "Toolgate's sandbox refused";

export type Lookup = (host: string) => Promise<{ address: string; family: number }[]>;

export interface DomainProxyOptions {
  rules: readonly DomainRule[];
  /** Name resolution (default: the system's, every address). */
  lookup?: Lookup;
  /** Where the socket's private folder is made (default: the OS temporary folder). */
  parent?: string;
  /** Cap on refusals kept (the first ones are kept). */
  maxRefusals?: number;
  /** How long connecting to a destination may take. */
  connectTimeoutMs?: number;
  /**
   * What a resolved address is, where it is not the public internet (default: `addressKind` with this machine's
   * interface addresses as they are when the proxy starts); tests stand in a test network.
   */
  addressKind?: (address: string) => AddressKind | undefined;
  /**
   * Listen on a port of the loopback (127.0.0.1) rather than a Unix socket: for Seatbelt (macOS), whose profile lets a
   * command connect to one loopback port and nothing else, there being no network namespace to bind a socket into.
   */
  loopback?: boolean;
}

const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

export class DomainProxy {
  private readonly refusalList: Refusal[] = [];
  private readonly sockets = new Set<Duplex>();
  private connections = 0;
  /** This machine's interface addresses (its LAN's, or a public one its servers listen on), read once per command. */
  private readonly ownAddresses = Object.values(os.networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address));

  private constructor(
    private readonly server: http.Server,
    private readonly folder: string,
    readonly socketPath: string,
    private readonly options: DomainProxyOptions,
  ) {}

  static async start(options: DomainProxyOptions): Promise<DomainProxy> {
    // A private folder (0700): only this account can reach the socket.
    const folder = await fs.mkdtemp(path.join(options.parent ?? os.tmpdir(), 'toolgate-net-'));
    const socketPath = path.join(folder, 'proxy.sock');
    const server = http.createServer();
    const proxy = new DomainProxy(server, folder, socketPath, options);
    server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => void proxy.forward(request, response));
    server.on('connect', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => void proxy.tunnel(request, socket, head));
    server.on('connection', (socket: net.Socket) => proxy.track(socket));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        const done = (): void => {
          server.off('error', reject);
          resolve();
        };
        if (options.loopback === true) {
          server.listen(0, '127.0.0.1', done);
        } else {
          server.listen(socketPath, done);
        }
      });
    } catch (error) {
      await fs.rm(folder, { recursive: true, force: true });
      throw error;
    }
    return proxy;
  }

  /** What was refused so far, oldest first. */
  get refusals(): readonly Refusal[] {
    return this.refusalList;
  }

  /** The loopback port it listens on (a proxy started with `loopback`), else undefined. */
  get port(): number | undefined {
    const address = this.server.address();
    return typeof address === 'object' && address !== null ? address.port : undefined;
  }

  /** How many connections were let through. */
  get allowed(): number {
    return this.connections;
  }

  /** Stops listening, ends every open connection and removes the socket's folder. */
  async close(): Promise<void> {
    for (const socket of this.sockets) {
      socket.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await fs.rm(this.folder, { recursive: true, force: true });
  }

  private kindOf(address: string): AddressKind | undefined {
    return this.options.addressKind ? this.options.addressKind(address) : addressKind(address, this.ownAddresses);
  }

  private track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private refuse(destination: string, why: Refusal['why'], address?: Refusal['address']): Refusal {
    const refusal: Refusal = { destination, why, ...(address ? { address } : {}) };
    if (this.refusalList.length < (this.options.maxRefusals ?? 50) && !this.refusalList.some((seen) => seen.destination === destination && seen.why === why)) {
      this.refusalList.push(refusal);
    }
    return refusal;
  }

  /** The address to connect to for an allowed destination, or the refusal. */
  private async resolve(host: string, port: number): Promise<{ addresses: string[] } | { refusal: Refusal }> {
    const destination = `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
    const rule = destinationAllowed(this.options.rules, host, port);
    if (rule === undefined) {
      return { refusal: this.refuse(destination, 'not-listed') };
    }
    const name = normaliseHost(host);
    let addresses: { address: string }[];
    try {
      addresses = net.isIP(name) !== 0 ? [{ address: name }] : await (this.options.lookup ?? systemLookup)(name);
    } catch {
      return { refusal: this.refuse(destination, 'unresolved') };
    }
    const judged = addresses.map(({ address }) => ({ address, kind: this.kindOf(address) }));
    // Judged on each address the proxy will connect to, so a name with one public and one private address uses the public.
    const usable = judged.filter(({ address, kind }) => addressAllowed(this.options.rules, rule, address, port, kind));
    const first = judged[0];
    if (usable.length === 0) {
      return { refusal: first?.kind === undefined ? this.refuse(destination, 'unresolved') : this.refuse(destination, 'restricted-address', { ip: first.address, kind: first.kind }) };
    }
    return { addresses: usable.map(({ address }) => address) };
  }

  /** The first of the checked addresses that answers (`localhost` may be ::1 and 127.0.0.1, a service on one). */
  private async connect(addresses: readonly string[], port: number): Promise<net.Socket> {
    let last: unknown;
    for (const address of addresses) {
      try {
        return await this.connectTo(address, port);
      } catch (error) {
        last = error;
      }
    }
    throw last instanceof Error ? last : new Error('no address to connect to');
  }

  private connectTo(address: string, port: number): Promise<net.Socket> {
    return new Promise((resolve, reject) => {
      const upstream = net.connect({ host: address, port });
      upstream.setTimeout(this.options.connectTimeoutMs ?? 30_000, () => upstream.destroy(new Error('connection timed out')));
      upstream.once('connect', () => {
        upstream.setTimeout(0);
        upstream.off('error', reject);
        resolve(upstream);
      });
      upstream.once('error', reject);
    });
  }

  /** `CONNECT host:port`: a tunnel (HTTPS, git over SSH-less HTTPS, anything TCP). */
  private async tunnel(request: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const target = parseAuthority(request.url ?? '');
    if (target === undefined) {
      this.refuse(request.url ?? '', 'malformed');
      client.end(refusalResponse(400, 'Toolgate: CONNECT needs host:port'));
      return;
    }
    const resolved = await this.resolve(target.host, target.port);
    if ('refusal' in resolved) {
      client.end(refusalResponse(403, `${refusalWords} ${describeRefusal(resolved.refusal)}`));
      return;
    }
    let upstream: net.Socket;
    try {
      upstream = await this.connect(resolved.addresses, target.port);
    } catch (error) {
      client.end(refusalResponse(502, `Toolgate: could not connect to ${target.host}:${target.port}: ${error instanceof Error ? error.message : String(error)}`));
      return;
    }
    this.connections += 1;
    this.track(upstream);
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) {
      upstream.write(head);
    }
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', end);
    client.on('error', end);
    upstream.on('close', end);
    client.on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** A plain HTTP request by absolute URL (`GET http://host/path`). */
  private async forward(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    let url: URL | undefined;
    try {
      url = new URL(request.url ?? '');
    } catch {
      url = undefined;
    }
    if (url === undefined || url.protocol !== 'http:') {
      this.refuse(request.url ?? '', 'malformed');
      sendRefusal(response, 400, 'Toolgate: a proxy request needs an absolute http:// URL (HTTPS goes through CONNECT)');
      return;
    }
    const port = url.port === '' ? 80 : Number(url.port);
    const resolved = await this.resolve(url.hostname, port);
    if ('refusal' in resolved) {
      sendRefusal(response, 403, `${refusalWords} ${describeRefusal(resolved.refusal)}`);
      return;
    }
    // Hop-by-hop headers stay with the proxy (a Proxy-Authorization is not the destination's business).
    const hopByHop = new Set(['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive']);
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !hopByHop.has(name)));
    headers['host'] = url.host;
    let socket: net.Socket;
    try {
      socket = await this.connect(resolved.addresses, port);
    } catch (error) {
      sendRefusal(response, 502, `Toolgate: could not reach ${url.host}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.connections += 1;
    this.track(socket);
    const upstream = http.request(
      { createConnection: () => socket, method: request.method, path: `${url.pathname}${url.search}`, headers, setHost: false },
      (answer) => {
        // The destination's connection headers are about its connection with the proxy, not the client's.
        const headersBack = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !hopByHop.has(name) && name !== 'transfer-encoding'));
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, headersBack);
        answer.pipe(response);
      },
    );
    upstream.on('error', (error) => {
      if (!response.headersSent) {
        sendRefusal(response, 502, `Toolgate: could not reach ${url.host}: ${error.message}`);
      } else {
        response.destroy();
      }
    });
    request.pipe(upstream);
  }
}

/** `host:port` or `[v6]:port`; the port is required. */
export function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(authority);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  return host === undefined || !(port >= 1 && port <= 65535) ? undefined : { host, port };
}

function refusalResponse(status: number, message: string): string {
  const body = `${message}\n`;
  return `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

function sendRefusal(response: http.ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
  response.end(`${message}\n`);
}
