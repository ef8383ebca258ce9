/**
 * toolgate.sandbox.allowedDomains: the entries, the filtering proxy over its Unix socket, and a command in the real
 * bubblewrap sandbox reaching what is listed (through the bridge and HTTP_PROXY, with curl as people use it) and
 * nothing else.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { CommandSandbox } from '../../src/core/sandbox/commandSandbox';
import { DomainProxy, describeRefusal, parseAuthority, type Lookup } from '../../src/core/sandbox/domainProxy';
import { addressAllowed, addressKind, destinationAllowed, isLocalAddress, localForwards, parseAllowedDomains, parseDomainEntry, withDomainsAdded, type AddressKind } from '../../src/core/sandbox/domains';
import { sandboxFailure } from '../../src/core/sandbox/failures';
import type { SandboxInputs } from '../../src/core/sandbox/gather';
import type { BridgeRuntime } from '../../src/core/sandbox/networkBridge';
import { bridgeRuntime, probeSandbox } from '../../src/core/sandbox/sandbox';
import { parseSetting } from '../../src/core/settings';
import { goneWithin } from '../fixtures/processes';
import { runBash, type CommandResult } from '../../src/core/terminal/bashRunner';
import { scratchFolder } from '../fixtures/scratch';

describe('allowed domains: the entries', () => {
  const valid: [string, string, boolean, number | undefined][] = [
    ['registry.npmjs.org', 'registry.npmjs.org', false, undefined],
    ['Registry.NPMJS.org.', 'registry.npmjs.org', false, undefined],
    ['*.pythonhosted.org', 'pythonhosted.org', true, undefined],
    ['git.example.com:8443', 'git.example.com', false, 8443],
    ['localhost:5432', 'localhost', false, 5432],
    ['127.0.0.1:8080', '127.0.0.1', false, 8080],
    ['[::1]:6379', '::1', false, 6379],
    ['10.1.2.3', '10.1.2.3', false, undefined],
    ['[FD00:0::0001]:8080', 'fd00::1', false, 8080],
    ['[::ffff:7f00:1]:5432', '127.0.0.1', false, 5432],
  ];
  for (const [entry, host, subdomains, port] of valid) {
    it(`reads ${entry}`, () => {
      const rule = parseDomainEntry(entry);
      assert.ok(!('problem' in rule), JSON.stringify(rule));
      assert.deepEqual([rule.host, rule.subdomains, rule.port], [host, subdomains, port]);
    });
  }
  const invalid: [string, RegExp][] = [
    ['https://registry.npmjs.org/', /is a URL: write the host only, such as registry\.npmjs\.org/],
    ['github.com/org', /has a path/],
    ['*', /not a host name/],
    ['*.com', /whole top-level domain/],
    ['exa mple.com', /not a host name/],
    ['example.com:0', /no valid port/],
    ['example.com:99999', /no valid port/],
    ['localhost', /names this machine: give the port of the service \(such as localhost:5432/],
    ['127.0.0.1:80', /1024 or above/],
    ['-bad.example.com', /not a host name/],
  ];
  for (const [entry, problem] of invalid) {
    it(`refuses ${JSON.stringify(entry)} and says what to write`, () => {
      const parsed = parseDomainEntry(entry);
      assert.ok('problem' in parsed);
      assert.match(parsed.problem, problem);
    });
  }

  it('one bad entry makes the whole setting fall back to no network, with a warning', () => {
    const parsed = parseSetting('sandbox.allowedDomains', ['registry.npmjs.org', 'https://pypi.org']);
    assert.deepEqual(parsed.value, []);
    assert.match(parsed.problem ?? '', /toolgate\.sandbox\.allowedDomains is invalid \("https:\/\/pypi\.org" is a URL/);
    assert.deepEqual(parseSetting('sandbox.allowedDomains', ['registry.npmjs.org']).value, ['registry.npmjs.org']);
  });

  const { rules } = parseAllowedDomains(['registry.npmjs.org', '*.pythonhosted.org', 'git.example.com:8443', 'localhost:5432']);
  const destinations: [string, number, string | undefined][] = [
    ['registry.npmjs.org', 443, 'registry.npmjs.org'],
    ['REGISTRY.npmjs.org.', 80, 'registry.npmjs.org'],
    ['registry.npmjs.org', 22, undefined],
    ['evil-registry.npmjs.org', 443, undefined],
    ['registry.npmjs.org.evil.com', 443, undefined],
    ['files.pythonhosted.org', 443, '*.pythonhosted.org'],
    ['pythonhosted.org', 443, undefined],
    ['git.example.com', 8443, 'git.example.com:8443'],
    ['git.example.com', 443, undefined],
    ['localhost', 5432, 'localhost:5432'],
    ['localhost', 5433, undefined],
    ['127.0.0.1', 5432, undefined],
  ];
  for (const [host, port, entry] of destinations) {
    it(`${host}:${port} is ${entry === undefined ? 'refused' : `allowed by ${entry}`}`, () => {
      assert.equal(destinationAllowed(rules, host, port)?.entry, entry);
    });
  }

  const addresses: [string, boolean][] = [
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['0.0.0.0', true],
    ['169.254.169.254', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['[::1]', true],
    ['fe80::1', true],
    ['10.0.0.5', false],
    ['93.184.216.34', false],
    ['2606:4700::1111', false],
  ];
  for (const [address, local] of addresses) {
    it(`${address} is ${local ? '' : 'not '}this machine's own side (its services reach the sandbox through the bridge)`, () => assert.equal(isLocalAddress(address), local));
  }

  // Every class of address that is not the public internet, in each spelling a resolver or a CONNECT line can give it.
  const own = ['192.0.2.7', '2001:db8::7'];
  const kinds: [string, AddressKind | undefined][] = [
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['fd20:ce::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['::10.0.0.1', 'unspecified'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['[::FFFF:192.168.0.1]', 'private'],
    ['0:0:0:0:0:ffff:ac10:0001', 'private'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::c0a8:101', 'private'],
    ['64:ff9b:1::1', 'private'],
    ['2002:a00:1::1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.254', 'shared'],
    ['::ffff:100.64.0.1', 'shared'],
    ['fd00::1', 'unique-local'],
    ['fc00::1', 'unique-local'],
    ['FD12:3456::1', 'unique-local'],
    ['192.0.2.7', 'this-machine'],
    ['::ffff:192.0.2.7', 'this-machine'],
    ['2001:DB8:0::7', 'this-machine'],
    ['64:ff9b::192.0.2.7', 'this-machine'],
    ['93.184.216.34', undefined],
    ['172.32.0.1', undefined],
    ['172.15.255.255', undefined],
    ['100.128.0.1', undefined],
    ['192.169.0.1', undefined],
    ['11.0.0.1', undefined],
    ['2606:4700::1111', undefined],
    ['::ffff:93.184.216.34', undefined],
    ['64:ff9b::93.184.216.34', undefined],
    ['2002:5db8:d822::1', undefined],
    ['fe00::1', undefined],
    ['registry.npmjs.org', undefined],
  ];
  for (const [address, kind] of kinds) {
    it(`${address} is ${kind ?? 'the public internet'}`, () => assert.equal(addressKind(address, own), kind));
  }

  // Which entries let a connection to a restricted address through: only one naming that address (at that port).
  const reaching: [string[], string, string, number, boolean][] = [
    [['*.example.com'], 'evil.example.com', '10.0.0.1', 443, false],
    [['*.example.com', '10.0.0.1'], 'evil.example.com', '10.0.0.1', 443, true],
    [['*.example.com', '10.0.0.1'], 'evil.example.com', '::ffff:10.0.0.1', 443, true],
    [['*.example.com', '10.0.0.1:8443'], 'evil.example.com', '10.0.0.1', 443, false],
    [['*.example.com', '10.0.0.2'], 'evil.example.com', '10.0.0.1', 443, false],
    [['10.0.0.1'], '10.0.0.1', '10.0.0.1', 80, true],
    [['[fd00::1]'], 'fd00::1', 'fd00::1', 443, true],
    [['[FD00:0::0001]'], 'fd00::1', 'fd00::1', 443, true],
    [['169.254.169.254:8080'], '169.254.169.254', '169.254.169.254', 8080, true],
    [['metadata.google.internal'], 'metadata.google.internal', '169.254.169.254', 80, false],
    [['internal.example.com'], 'internal.example.com', '192.168.1.10', 443, false],
    [['localhost:5432'], 'localhost', '127.0.0.1', 5432, true],
    [['localhost:5432'], 'localhost', '::1', 5432, true],
    [['localhost:5432'], 'localhost', '10.0.0.1', 5432, false],
    [['*.example.com', 'localhost:5432'], 'evil.example.com', '127.0.0.1', 443, false],
    [['*.example.com'], 'www.example.com', '93.184.216.34', 443, true],
  ];
  for (const [entries, host, address, port, allowed] of reaching) {
    it(`with ${entries.join(', ')}, ${host}:${port} resolving to ${address} is ${allowed ? 'allowed' : 'refused'}`, () => {
      const { rules } = parseAllowedDomains(entries);
      const rule = destinationAllowed(rules, host, port);
      assert.ok(rule, 'the name itself is listed');
      assert.equal(addressAllowed(rules, rule, address, port, addressKind(address)), allowed);
    });
  }

  const refusalTexts: [string, string, AddressKind, string][] = [
    ['evil.example.com:443', '10.0.0.1', 'private', 'evil.example.com:443 (it resolves to 10.0.0.1, a private network (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16); only an entry naming that address allows it: "10.0.0.1")'],
    ['evil.example.com:8443', 'fd00::1', 'unique-local', 'evil.example.com:8443 (it resolves to fd00::1, a unique-local IPv6 network (fc00::/7); only an entry naming that address allows it: "[fd00::1]:8443")'],
    ['evil.example.com:80', '169.254.169.254', 'metadata', 'evil.example.com:80 (it resolves to 169.254.169.254, a cloud metadata service; no entry can allow it at this port)'],
    ['evil.example.com:443', '100.64.0.1', 'shared', 'evil.example.com:443 (it resolves to 100.64.0.1, carrier-grade NAT space (100.64.0.0/10); only an entry naming that address allows it: "100.64.0.1")'],
  ];
  for (const [destination, ip, kind, text] of refusalTexts) {
    it(`a refusal of ${destination} names the host, the address, why, and the entry that would allow it`, () => {
      assert.equal(describeRefusal({ destination, why: 'restricted-address', address: { ip, kind } }), text);
    });
  }

  it('forwards each listed local service once, at its own address and port', () => {
    const forwarded = localForwards(parseAllowedDomains(['localhost:5432', '127.0.0.1:5432', '[::1]:6379', 'registry.npmjs.org', '127.0.0.2:8080']).rules);
    assert.deepEqual(forwarded, [
      { listen: ['127.0.0.1', '::1'], port: 5432, target: 'localhost:5432' },
      { listen: ['::1'], port: 6379, target: '[::1]:6379' },
      { listen: ['127.0.0.2'], port: 8080, target: '127.0.0.2:8080' },
    ]);
  });

  it('reads CONNECT authorities', () => {
    assert.deepEqual(parseAuthority('example.com:443'), { host: 'example.com', port: 443 });
    assert.deepEqual(parseAuthority('[::1]:8080'), { host: '::1', port: 8080 });
    assert.equal(parseAuthority('example.com'), undefined);
    assert.equal(parseAuthority('example.com:0'), undefined);
    assert.equal(parseAuthority('a:b:443'), undefined);
  });
});

/** A server on the host's loopback that answers HTTP with what it was asked, and raw TCP clients with a canary. */
async function servers(): Promise<{ webPort: number; rawPort: number; slowPort: number; close: () => Promise<void> }> {
  const web = http.createServer((request, response) => response.end(`HOST-WEB ${request.method} ${request.headers.host} ${request.url}\n`));
  const raw = net.createServer((socket) => socket.end('CANARY-RAW\n'));
  const held = new Set<net.Socket>();
  const slow = net.createServer((socket) => {
    held.add(socket);
    socket.on('error', () => undefined);
  });
  const port = async (server: net.Server): Promise<number> => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as net.AddressInfo).port;
  };
  const [webPort, rawPort, slowPort] = [await port(web), await port(raw), await port(slow)];
  const close = async (): Promise<void> => {
    web.closeAllConnections();
    held.forEach((socket) => socket.destroy());
    await Promise.all([web, raw, slow].map((server) => new Promise((resolve) => server.close(resolve))));
  };
  return { webPort, rawPort, slowPort, close };
}

/** Sends raw bytes to the proxy's socket and reads until it closes (or `until` is seen). */
function talk(socketPath: string, bytes: string, until?: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath, () => socket.write(bytes));
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString();
      if (until?.test(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
  });
}

describe("allowed domains: the person's Allow on this machine", () => {
  const rows: { name: string; current: unknown; entries: string[]; after: string[] | undefined }[] = [
    { name: 'added after what is listed', current: ['a.example'], entries: ['b.example'], after: ['a.example', 'b.example'] },
    { name: 'nothing listed yet', current: undefined, entries: ['b.example:8443'], after: ['b.example:8443'] },
    { name: 'an entry already listed is not added twice', current: ['a.example'], entries: ['a.example', 'b.example', 'b.example'], after: ['a.example', 'b.example'] },
    { name: 'nothing new: nothing written', current: ['a.example'], entries: ['a.example'], after: undefined },
    { name: "the person's entries kept as written, malformed ones too (the setting's check decides)", current: ['not a domain!', 7, 'a.example'], entries: ['c.example'], after: ['not a domain!', 'a.example', 'c.example'] },
    { name: 'a value that is not a list is replaced by the entries', current: 'a.example', entries: ['c.example'], after: ['c.example'] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(withDomainsAdded(row.current, row.entries), row.after);
    });
  }
});

describe('the filtering proxy', () => {
  let host: Awaited<ReturnType<typeof servers>>;
  before(async () => {
    host = await servers();
  });
  after(() => host.close());

  // A test network: these names resolve to the host's loopback, and the loopback counts as the network.
  const lookup: Lookup = (name) => Promise.resolve(name.endsWith('.test') || name === 'localhost' ? [{ address: '127.0.0.1', family: 4 }] : []);

  it('tunnels CONNECT to a listed destination, refuses the rest with 403 and keeps what it refused', async () => {
    const proxy = await DomainProxy.start({ rules: parseAllowedDomains([`registry.test:${host.rawPort}`]).rules, lookup, addressKind: () => undefined });
    try {
      const allowed = await talk(proxy.socketPath, `CONNECT registry.test:${host.rawPort} HTTP/1.1\r\nHost: registry.test\r\n\r\n`);
      assert.match(allowed, /^HTTP\/1\.1 200 Connection Established\r\n\r\nCANARY-RAW\n$/);
      const refused = await talk(proxy.socketPath, `CONNECT other.test:${host.rawPort} HTTP/1.1\r\n\r\n`);
      assert.match(refused, /^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*Toolgate's sandbox refused other\.test:\d+ \(not in toolgate\.sandbox\.allowedDomains\)\n$/);
      assert.doesNotMatch(refused, /CANARY/);
      const malformed = await talk(proxy.socketPath, 'CONNECT nowhere HTTP/1.1\r\n\r\n');
      assert.match(malformed, /^HTTP\/1\.1 400/);
      assert.deepEqual(proxy.refusals.map(describeRefusal), [`other.test:${host.rawPort} (not in toolgate.sandbox.allowedDomains)`, 'nowhere (not a request a proxy can forward)']);
      assert.equal(proxy.allowed, 1);
    } finally {
      await proxy.close();
    }
  });

  it('forwards plain HTTP by absolute URL with the Host the client asked for', async () => {
    const proxy = await DomainProxy.start({ rules: parseAllowedDomains([`registry.test:${host.webPort}`]).rules, lookup, addressKind: () => undefined });
    try {
      const answer = await talk(proxy.socketPath, `GET http://registry.test:${host.webPort}/pkg?v=1 HTTP/1.1\r\nHost: registry.test:${host.webPort}\r\nProxy-Authorization: x\r\nConnection: close\r\n\r\n`, /HOST-WEB.*\n/);
      assert.match(answer, new RegExp(`^HTTP/1\\.1 200 OK[\\s\\S]*HOST-WEB GET registry\\.test:${host.webPort} /pkg\\?v=1\\n`));
      const https = await talk(proxy.socketPath, `GET https://registry.test:${host.webPort}/ HTTP/1.1\r\nHost: x\r\n\r\n`, /\n\n?$/);
      assert.match(https, /^HTTP\/1\.1 400[\s\S]*needs an absolute http:\/\/ URL/);
    } finally {
      await proxy.close();
    }
  });

  it('judges every request of a kept-alive connection: a second, pipelined request to an unlisted host is refused', async () => {
    const proxy = await DomainProxy.start({ rules: parseAllowedDomains([`registry.test:${host.webPort}`]).rules, lookup, addressKind: () => undefined });
    try {
      const both = await talk(
        proxy.socketPath,
        `GET http://registry.test:${host.webPort}/first HTTP/1.1\r\nHost: registry.test\r\n\r\nGET http://evil.test:${host.webPort}/second HTTP/1.1\r\nHost: registry.test\r\nConnection: close\r\n\r\n`,
      );
      assert.match(both, /HOST-WEB GET registry\.test:\d+ \/first/);
      assert.doesNotMatch(both, /\/second/);
      assert.match(both, /403 Forbidden[\s\S]*refused evil\.test:\d+ \(not in toolgate\.sandbox\.allowedDomains\)/);
    } finally {
      await proxy.close();
    }
  });

  it('refuses a listed name that resolves to this machine (DNS pointing at the loopback), but lets an entry naming it through', async () => {
    const proxy = await DomainProxy.start({ rules: parseAllowedDomains(['rebind.test', `localhost:${host.rawPort}`]).rules, lookup: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]) });
    try {
      const refused = await talk(proxy.socketPath, 'CONNECT rebind.test:443 HTTP/1.1\r\n\r\n');
      assert.match(refused, /403[\s\S]*rebind\.test:443 \(it resolves to 127\.0\.0\.1, this machine's loopback; no entry can allow it at this port\)/);
      const named = await talk(proxy.socketPath, `CONNECT localhost:${host.rawPort} HTTP/1.1\r\n\r\n`);
      assert.match(named, /200 Connection Established\r\n\r\nCANARY-RAW/);
    } finally {
      await proxy.close();
    }
  });

  it('refuses a listed wildcard whose DNS answers with a private, CGNAT, metadata or unique-local address, and lets a public one through', async () => {
    const answers: Record<string, string> = {
      'lan.evil.test': '10.1.2.3',
      'cgnat.evil.test': '100.64.0.9',
      'meta.evil.test': '169.254.169.254',
      'ula.evil.test': 'fd00::1',
      'mapped.evil.test': '::ffff:192.168.0.1',
      'nat64.evil.test': '64:ff9b::a00:1',
      'public.evil.test': '93.184.216.34',
    };
    const lookup: Lookup = (name) => {
      const address = answers[name];
      return Promise.resolve(address === undefined ? [] : [{ address, family: net.isIP(address) }]);
    };
    const proxy = await DomainProxy.start({ rules: parseAllowedDomains(['*.evil.test']).rules, lookup, connectTimeoutMs: 500 });
    try {
      const refused: [string, string][] = [
        ['lan.evil.test', '10.1.2.3, a private network'],
        ['cgnat.evil.test', '100.64.0.9, carrier-grade NAT space'],
        ['meta.evil.test', '169.254.169.254, a cloud metadata service'],
        ['ula.evil.test', 'fd00::1, a unique-local IPv6 network'],
        ['mapped.evil.test', '::ffff:192.168.0.1, a private network'],
        ['nat64.evil.test', '64:ff9b::a00:1, a private network'],
      ];
      for (const [name, said] of refused) {
        const answer = await talk(proxy.socketPath, `CONNECT ${name}:443 HTTP/1.1\r\n\r\n`);
        assert.match(answer, /^HTTP\/1\.1 403 Forbidden/, name);
        assert.ok(answer.includes(`refused ${name}:443 (it resolves to ${said}`), answer);
      }
      // Past the check the proxy connects (and, with no route out here, says it could not): no refusal for it.
      const publicAnswer = await talk(proxy.socketPath, 'CONNECT public.evil.test:443 HTTP/1.1\r\n\r\n', /\r\n\r\n/);
      assert.match(publicAnswer, /^HTTP\/1\.1 (200|502)/);
      assert.deepEqual(proxy.refusals.map((refusal) => refusal.destination), refused.map(([name]) => `${name}:443`));
      assert.deepEqual(proxy.refusals.map((refusal) => refusal.why), refused.map(() => 'restricted-address'));
    } finally {
      await proxy.close();
    }
  });

  it('listens in a private folder that close removes, and ends open tunnels', async () => {
    const proxy = await DomainProxy.start({ rules: parseAllowedDomains([`127.0.0.1:${host.slowPort}`]).rules, lookup });
    const folder = path.dirname(proxy.socketPath);
    assert.equal(statSync(folder).mode & 0o777, 0o700);
    // A tunnel to a server that never answers nor closes: only the proxy's close ends it.
    const tunnel = net.connect(proxy.socketPath, () => tunnel.write(`CONNECT 127.0.0.1:${host.slowPort} HTTP/1.1\r\n\r\n`));
    await new Promise<void>((resolve) => tunnel.once('data', () => resolve()));
    const ended = new Promise<void>((resolve) => tunnel.once('close', () => resolve()));
    await proxy.close();
    await ended;
    assert.equal(existsSync(folder), false);
  });
});

it('the bridge runs on the system\'s Python 3 where there is one, else on the extension host\'s Node', () => {
  assert.deepEqual(bridgeRuntime((file) => file === '/usr/local/bin/python3'), { kind: 'python', path: '/usr/local/bin/python3', env: {} });
  assert.deepEqual(bridgeRuntime(() => false), { kind: 'node', path: process.execPath, env: {} });
});

const runtimes: BridgeRuntime[] = [
  { kind: 'python', path: '/usr/bin/python3', env: {} },
  { kind: 'node', path: process.execPath, env: {} },
];
for (const runtime of runtimes) {describe(`a command reaching allowed domains from the real sandbox, through the ${runtime.kind} bridge`, function () {
  this.timeout(30_000);
  let host: Awaited<ReturnType<typeof servers>>;
  let base: string;
  let workspace: string;
  before(async () => {
    host = await servers();
    // Not under /tmp, which the sandbox replaces with its own.
    base = scratchFolder('toolgate-net-');
    workspace = path.join(base, 'ws');
    mkdirSync(workspace);
  });
  after(async () => {
    await host.close();
    rmSync(base, { recursive: true, force: true });
  });

  const lookup: Lookup = (name) => Promise.resolve(name.endsWith('.test') || name === 'localhost' ? [{ address: '127.0.0.1', family: 4 }] : []);

  async function run(
    command: string,
    allowedDomains: string[],
    timeoutMs = 15_000,
    node?: { path: string; hidden: string },
  ): Promise<CommandResult & { refused: string[]; proxyFolder: string | undefined }> {
    const inputs: SandboxInputs = {
      workspaceFolders: [workspace],
      protectedGlobs: [],
      extraHidden: node ? [node.hidden] : [],
      extraWritable: [],
      ownStorage: [],
      network: 'none',
      allowedDomains,
      cacheRoot: path.join(base, 'cache'),
    };
    const sandbox = new CommandSandbox({
      probe: () => probeSandbox(),
      inputs: () => inputs,
      log: () => undefined,
      proxyOptions: { lookup, addressKind: () => undefined },
      bridgeRuntime: node ? { kind: 'node', path: node.path, env: {} } : runtime,
    });
    const prepared = await sandbox.launch(workspace);
    assert.ok('launch' in prepared, `the sandbox starts here: ${'unavailable' in prepared ? prepared.unavailable : ''}`);
    const proxy = prepared.launch.proxy;
    try {
      const result = await runBash(command, { cwd: workspace, timeoutMs, wrap: prepared.launch, graceMs: 500, drainMs: 300 });
      const refused = proxy?.refusals.map(describeRefusal) ?? [];
      const refusals = [...(proxy?.refusals ?? [])];
      return { ...result, refused, ...(refused.length > 0 ? { refusedConnections: refused, refusals } : {}), proxyFolder: proxy ? path.dirname(proxy.socketPath) : undefined };
    } finally {
      await proxy?.close();
    }
  }

  it('without allowed domains nothing is reached, and the proxy knows what was refused (not a guess from the output)', async () => {
    const result = await run(`curl -sSf --max-time 5 http://registry.test:${host.webPort}/`, []);
    assert.ok(result.proxyFolder !== undefined, 'an empty list still has a proxy, which records what it refused');
    assert.doesNotMatch(result.output, /HOST-WEB/);
    assert.notEqual(result.exitCode, 0);
    assert.deepEqual(result.refused, [`registry.test:${host.webPort} (not in toolgate.sandbox.allowedDomains)`]);
    assert.deepEqual(result.refusals?.map((refusal) => [refusal.destination, refusal.why]), [[`registry.test:${host.webPort}`, 'not-listed']]);
  });

  // A service of this machine: the sandbox's loopback is its own, so proxy-aware clients are sent to the bridge, which
  // tries the sandbox's loopback first (a server the command started) and then lets the proxy judge and record it.
  // Node's fetch with NODE_USE_ENV_PROXY (Node 24) tunnels http:// with CONNECT, as `curl --proxytunnel` does here
  // (the Node on this PATH predates NODE_USE_ENV_PROXY).
  const loopbackClients: [string, (url: string) => string][] = [
    ['curl', (url) => `curl -sS --max-time 5 ${url}`],
    ['curl through a CONNECT tunnel', (url) => `curl -sS --max-time 5 --proxytunnel ${url}`],
    ['python urllib', (url) => `python3 -I -c "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen('${url}', timeout=5).read().decode())"`],
  ];
  for (const [client, request] of loopbackClients) {
    it(`${client}: a service of this machine that is not listed is refused and named as localhost:PORT or 127.0.0.1:PORT`, async () => {
      const result = await run(`${request(`http://127.0.0.1:${host.webPort}/x`)}; ${request(`http://localhost:${host.webPort}/y`)}`, []);
      assert.doesNotMatch(result.output, /HOST-WEB/);
      assert.deepEqual(result.refusals?.map((refusal) => refusal.destination), [`127.0.0.1:${host.webPort}`, `localhost:${host.webPort}`], result.output);
    });

    it(`${client}: the command's own server on the sandbox's loopback is reached first, through the bridge`, async () => {
      const port = host.webPort; // The same port as the host's service: the sandbox's own wins, the host's is not reached.
      const server = `python3 -I -c "import http.server as h
class H(h.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ('OWN-SERVER %s %s\\n' % (self.path, self.headers.get('Proxy-Connection', '-'))).encode()
        self.send_response(200); self.send_header('Content-Length', str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *a): pass
h.HTTPServer(('127.0.0.1', ${port}), H).serve_forever()" &
for i in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && break; sleep 0.1; done`;
      const result = await run(`${server}\n${request(`http://127.0.0.1:${port}/own`)}; ${request(`http://localhost:${port}/again`)}`, []);
      assert.equal(result.output, 'OWN-SERVER /own -\nOWN-SERVER /again -\n');
      assert.deepEqual(result.refusals ?? [], []);
    });
  }

  it('a service of this machine that is listed is reached through the bridge by a proxy-aware client too', async () => {
    const result = await run(`curl -sS --max-time 5 http://localhost:${host.webPort}/l && curl -sS --max-time 5 --proxytunnel http://127.0.0.1:${host.webPort}/t`, [`localhost:${host.webPort}`]);
    assert.equal(result.exitCode, 0, result.output);
    assert.equal(result.output, `HOST-WEB GET localhost:${host.webPort} /l\nHOST-WEB GET 127.0.0.1:${host.webPort} /t\n`);
  });

  it('curl reaches a listed domain over plain HTTP and through a CONNECT tunnel (as HTTPS goes)', async () => {
    const result = await run(`curl -sS --max-time 5 http://registry.test:${host.webPort}/a && curl -sS --max-time 5 --proxytunnel http://registry.test:${host.webPort}/b`, [`registry.test:${host.webPort}`]);
    assert.equal(result.exitCode, 0, result.output);
    assert.equal(result.output, `HOST-WEB GET registry.test:${host.webPort} /a\nHOST-WEB GET registry.test:${host.webPort} /b\n`);
    assert.deepEqual(result.refused, []);
  });

  it('a domain not listed is refused, said to the model as the sandbox\'s refusal, and nothing reaches it', async () => {
    const result = await run(`curl -sSf --max-time 5 --proxytunnel http://other.test:${host.webPort}/`, [`registry.test:${host.webPort}`]);
    assert.notEqual(result.exitCode, 0);
    assert.deepEqual(result.refused, [`other.test:${host.webPort} (not in toolgate.sandbox.allowedDomains)`]);
    assert.equal(sandboxFailure(result), `the sandbox refused connections to other.test:${host.webPort} (not in toolgate.sandbox.allowedDomains)`);
  });

  it('going around the proxy finds no network', async () => {
    const result = await run(`curl -sS --max-time 5 --noproxy '*' http://registry.test:${host.webPort}/; exec 3<>/dev/tcp/127.0.0.1/${host.rawPort} && cat <&3`, [`registry.test:${host.webPort}`]);
    assert.doesNotMatch(result.output, /HOST-WEB|CANARY/);
    assert.notEqual(result.exitCode, 0);
  });

  it('a listed service of this machine is reached at its own address and port; an unlisted one is not', async () => {
    const listed = await run(`exec 3<>/dev/tcp/127.0.0.1/${host.rawPort} && cat <&3`, [`127.0.0.1:${host.rawPort}`]);
    assert.equal(listed.output, 'CANARY-RAW\n');
    const unlisted = await run(`exec 3<>/dev/tcp/127.0.0.1/${host.webPort} && cat <&3`, [`127.0.0.1:${host.rawPort}`]);
    assert.doesNotMatch(unlisted.output, /HOST-WEB/);
    assert.notEqual(unlisted.exitCode, 0);
  });

  it('keeps the command\'s exit code and its environment (no NO_PROXY: loopback goes through the bridge; no ELECTRON_RUN_AS_NODE)', async () => {
    const result = await run('echo "$HTTPS_PROXY ${NO_PROXY-none} ${no_proxy-none} ${ELECTRON_RUN_AS_NODE:-unset}"; exit 5', ['registry.test']);
    assert.equal(result.exitCode, 5);
    assert.match(result.output, /^http:\/\/127\.0\.0\.1:\d+ none none unset\n$/);
  });

  if (runtime.kind === 'node') {it('a Node binary the sandbox cannot see (in a hidden folder) is shown to it alone, and the bridge runs on it', async () => {
    const hidden = path.join(base, 'hidden-node');
    mkdirSync(hidden);
    const node = path.join(hidden, 'node');
    copyFileSync(process.execPath, node);
    chmodSync(node, 0o755);
    const result = await run(`ls ${hidden} 2>&1; curl -sS --max-time 5 http://registry.test:${host.webPort}/n`, [`registry.test:${host.webPort}`], 15_000, { path: node, hidden });
    assert.equal(result.exitCode, 0, result.output);
    assert.equal(result.output, `HOST-WEB GET registry.test:${host.webPort} /n\n`, 'the hidden folder looks empty, and the request went through');
  });}

  it('a timeout still ends the command and everything it started, the bridge included; the proxy\'s folder is gone', async () => {
    const tag = `toolgate-net-timeout-${process.pid}`;
    const result = await run(`(exec -a ${tag} sleep 60 &); exec -a ${tag} sleep 60`, ['registry.test'], 500);
    assert.equal(result.timedOut, true);
    assert.equal(await goneWithin(tag), '');
    assert.ok(result.proxyFolder !== undefined && !existsSync(result.proxyFolder));
  });
});}

