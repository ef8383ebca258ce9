/**
 * toolgate.sandbox.allowedDomains: the only places a sandboxed command may connect to, through Toolgate's filtering
 * proxy. An entry is a host name (`registry.npmjs.org`), its subdomains (`*.pythonhosted.org`, not the name itself),
 * `localhost` or an IP address, each optionally with a port (`localhost:8080`, `[::1]:5432`); without a port it
 * allows the web's ports 80 and 443. Pure: the proxy resolves names and asks `destinationAllowed`, `addressKind` and
 * `addressAllowed`.
 */
import { BlockList, isIP } from 'node:net';

export interface DomainRule {
  /** As the person wrote it, for messages. */
  entry: string;
  /** Lower case, no trailing dot; for a wildcard the part after `*.`. An IPv6 address without brackets. */
  host: string;
  /** `*.host`: any name ending in `.host` (not `host` itself). */
  subdomains: boolean;
  /** Undefined: 80 and 443. */
  port?: number;
  /**
   * The entry names this machine's own side of the network (`localhost`, a loopback or link-local address): only
   * then may the destination be one, so a listed name that resolves to 127.0.0.1 (or the cloud metadata address)
   * cannot reach the host's own services.
   */
  namesLocal: boolean;
}

export const defaultPorts: readonly number[] = [80, 443];

const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

function validName(name: string): boolean {
  return name.length <= 253 && name.split('.').every((part) => label.test(part));
}

/** One entry as a rule, or why it is not one (in words that say what to write instead). */
export function parseDomainEntry(raw: string): DomainRule | { problem: string } {
  const entry = raw.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry)) {
    return { problem: `"${raw}" is a URL: write the host only, such as ${hostOfUrl(entry) ?? 'registry.npmjs.org'}` };
  }
  if (entry.includes('/')) {
    return { problem: `"${raw}" has a path: write the host only (a command may reach any path of an allowed host)` };
  }
  let host = entry;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    host = bracketed[1] ?? '';
    portText = bracketed[2];
  } else if ((entry.match(/:/g) ?? []).length === 1) {
    [host, portText] = entry.split(':') as [string, string];
  }
  let port: number | undefined;
  if (portText !== undefined) {
    port = Number(portText);
    if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65535) {
      return { problem: `"${raw}" has no valid port (1 to 65535)` };
    }
  }
  host = host.toLowerCase().replace(/\.$/, '');
  if (isIP(host) !== 0) {
    host = canonicalAddress(host);
    return localNeedsPort(raw, { entry, host, subdomains: false, ...(port !== undefined ? { port } : {}), namesLocal: isLocalAddress(host) });
  }
  const subdomains = host.startsWith('*.');
  const name = subdomains ? host.slice(2) : host;
  if (!validName(name)) {
    return { problem: `"${raw}" is not a host name, a *.name wildcard or an IP address` };
  }
  if (subdomains && !name.includes('.')) {
    return { problem: `"${raw}" would allow a whole top-level domain: name the domain (*.example.com)` };
  }
  return localNeedsPort(raw, { entry, host: name, subdomains, ...(port !== undefined ? { port } : {}), namesLocal: name === 'localhost' });
}

/** Lowest port the sandbox's bridge can listen on for a local service (it has no privilege to bind below). */
export const lowestForwardedPort = 1024;

/**
 * A service of this machine is reached at its own port from inside the sandbox (the bridge listens there and
 * forwards to it), so its entry names the port, and one the bridge may listen on.
 */
function localNeedsPort(raw: string, rule: DomainRule): DomainRule | { problem: string } {
  if (rule.namesLocal && (rule.port === undefined || rule.port < lowestForwardedPort)) {
    return { problem: `"${raw}" names this machine: give the port of the service (such as ${rule.host.includes(':') ? `[${rule.host}]` : rule.host}:5432, ${lowestForwardedPort} or above)` };
  }
  return rule;
}

/**
 * The listed services of this machine, as the sandbox's bridge forwards them: it listens at the same address and port
 * on the sandbox's own loopback (`localhost`: both 127.0.0.1 and ::1) and tunnels each connection to `target`
 * through the proxy, so a database client or a dev server's client reaches them without knowing about proxies.
 */
export interface LocalForward {
  listen: string[];
  port: number;
  /** `host:port` for the proxy's CONNECT: the entry as listed, so its rule matches. */
  target: string;
}

export function localForwards(rules: readonly DomainRule[]): LocalForward[] {
  const taken = new Set<string>();
  return rules.flatMap((rule) => {
    if (!rule.namesLocal || rule.port === undefined) {
      return [];
    }
    const port = rule.port;
    const wanted = rule.host === 'localhost' ? ['127.0.0.1', '::1'] : rule.host.startsWith('127.') || rule.host === '::1' ? [rule.host] : ['127.0.0.1'];
    // Two entries for one address and port (localhost:5432 and 127.0.0.1:5432): the first one listens.
    const listen = wanted.filter((address) => !taken.has(`${address} ${port}`));
    listen.forEach((address) => taken.add(`${address} ${port}`));
    return listen.length === 0 ? [] : [{ listen, port, target: `${rule.host.includes(':') ? `[${rule.host}]` : rule.host}:${port}` }];
  });
}

function hostOfUrl(url: string): string | undefined {
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}

/**
 * toolgate.sandbox.allowedDomains with `entries` added (the person chose them on a refused command's card): entries
 * already listed are not added twice, and the list as the person wrote it is kept, malformed or not, so that the
 * setting's own check still decides. Undefined when there is nothing to add.
 */
export function withDomainsAdded(current: unknown, entries: readonly string[]): string[] | undefined {
  const listed = Array.isArray(current) ? current.filter((entry): entry is string => typeof entry === 'string') : [];
  const added = entries.filter((entry, index) => !listed.includes(entry) && entries.indexOf(entry) === index);
  return added.length > 0 ? [...listed, ...added] : undefined;
}

export function parseAllowedDomains(entries: readonly string[]): { rules: DomainRule[]; problems: string[] } {
  const rules: DomainRule[] = [];
  const problems: string[] = [];
  for (const entry of entries) {
    const parsed = parseDomainEntry(entry);
    if ('problem' in parsed) {
      problems.push(parsed.problem);
    } else {
      rules.push(parsed);
    }
  }
  return { rules, problems };
}

/** Lower case, no trailing dot, no IPv6 brackets: how a destination is compared with the rules. */
export function normaliseHost(host: string): string {
  const bare = /^\[(.*)\]$/.exec(host)?.[1] ?? host;
  return bare.toLowerCase().replace(/\.$/, '');
}

/** The rule that lets a connection to `host`:`port` through, or undefined (refused). */
export function destinationAllowed(rules: readonly DomainRule[], host: string, port: number): DomainRule | undefined {
  // An address in one spelling (entries are stored so), so `[fd00:0::0001]` is the entry `[fd00::1]`.
  const name = canonicalAddress(host);
  return rules.find((rule) => {
    const hostMatches = rule.subdomains ? name.endsWith(`.${rule.host}`) : name === rule.host;
    return hostMatches && portAllowed(rule, port);
  });
}

/**
 * Why an address is not the public internet, and so refused unless an entry names it: a name an attacker's DNS answers
 * for (`*.example.com`) must not reach the host's own services, its LAN, a VPC's neighbours or a cloud's metadata.
 * Loopback, unspecified and link-local are "this machine's own side" (`isLocalAddress`: its services reach the
 * sandbox through the bridge); the rest are reached through the proxy like any listed address.
 */
export type AddressKind = 'metadata' | 'loopback' | 'unspecified' | 'link-local' | 'private' | 'shared' | 'unique-local' | 'this-machine';

/** What the refusal says of each kind. */
export const addressKindText: Readonly<Record<AddressKind, string>> = {
  metadata: 'a cloud metadata service',
  loopback: "this machine's loopback",
  unspecified: 'the unspecified address, which reaches this machine',
  'link-local': 'a link-local address',
  private: 'a private network (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16)',
  shared: 'carrier-grade NAT space (100.64.0.0/10)',
  'unique-local': 'a unique-local IPv6 network (fc00::/7)',
  'this-machine': "one of this machine's own addresses",
};

// Node's own address matcher rather than hand-written prefix arithmetic. First match wins: metadata before the
// ranges that hold it, so the refusal says which it is.
function blockList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) {
      list.addAddress(address, family);
    } else {
      list.addSubnet(address, Number(prefix), family);
    }
  }
  return list;
}

/**
 * The special address ranges, built on the first address checked rather than when Toolgate's bundle loads (node:net's
 * BlockList costs ~3 ms to fill, paid before the first gate decision otherwise).
 */
let kindLists: readonly { kind: AddressKind; list: BlockList }[] | undefined;
const kinds = (): readonly { kind: AddressKind; list: BlockList }[] => (kindLists ??= [
  // AWS, GCP, Azure, Oracle and most others; AWS ECS task credentials; AWS's and GCP's IPv6 metadata; Alibaba Cloud's;
  // Azure's WireServer (a public-range address every Azure VM reaches).
  { kind: 'metadata', list: blockList(['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', 'fd20:ce::254', '100.100.100.200', '168.63.129.16']) },
  { kind: 'loopback', list: blockList(['127.0.0.0/8', '::1']) },
  // "This host": 0.0.0.0 reaches the loopback on Linux; ::/96 holds :: and the deprecated IPv4-compatible forms.
  { kind: 'unspecified', list: blockList(['0.0.0.0/8', '::/96']) },
  { kind: 'link-local', list: blockList(['169.254.0.0/16', 'fe80::/10']) },
  // RFC 1918, and NAT64's local-use prefix (RFC 8215), which translates to whatever the local network decides.
  { kind: 'private', list: blockList(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '64:ff9b:1::/48']) },
  { kind: 'shared', list: blockList(['100.64.0.0/10']) },
  { kind: 'unique-local', list: blockList(['fc00::/7']) },
]);

/** An IP address in one spelling: IPv6 compressed and lower case, an IPv4-mapped IPv6 address as its IPv4 address. */
export function canonicalAddress(address: string): string {
  const bare = normaliseHost(address);
  if (isIP(bare) !== 6) {
    return bare;
  }
  // The URL parser is the platform's IPv6 canonicaliser (hex groups, one `::`, dotted quads turned into hex).
  const canonical = new URL(`http://[${bare}]`).hostname.slice(1, -1);
  const groups = ipv6Groups(canonical);
  return groups.slice(0, 6).join(',') === '0,0,0,0,0,65535' ? ipv4Of(groups[6] ?? 0, groups[7] ?? 0) : canonical;
}

/** The eight 16-bit groups of a canonical IPv6 address (Node has no parser that gives them). */
function ipv6Groups(canonical: string): number[] {
  const [head = '', tail] = canonical.split('::');
  const part = (text: string): number[] => (text === '' ? [] : text.split(':').map((group) => parseInt(group, 16)));
  const [before, after] = [part(head), part(tail ?? '')];
  return tail === undefined ? before : [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
}

function ipv4Of(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * The IPv4 address an IPv6 address carries to the IPv4 network: NAT64's well-known prefix (64:ff9b::/96, where a
 * DNS64 resolver puts every IPv4-only name) and 6to4 (2002::/16). Judged as that IPv4 address, so 64:ff9b::a00:1 is
 * the private 10.0.0.1 while an IPv6-only network still reaches public IPv4 names.
 */
function embeddedIPv4(canonical: string): string | undefined {
  if (isIP(canonical) !== 6) {
    return undefined;
  }
  const groups = ipv6Groups(canonical);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0)) {
    return ipv4Of(groups[6] ?? 0, groups[7] ?? 0);
  }
  return groups[0] === 0x2002 ? ipv4Of(groups[1] ?? 0, groups[2] ?? 0) : undefined;
}

/** Every kind an IP address (in canonical form) is, most telling first. */
function kindsOf(ip: string): AddressKind[] {
  return kinds().filter(({ list }) => list.check(ip, isIP(ip) === 4 ? 'ipv4' : 'ipv6')).map(({ kind }) => kind);
}

/**
 * What kind of not-public address this is (undefined: the public internet), judged on the address and on any IPv4
 * address it embeds. `own`: this machine's interface addresses (its LAN address, or a public one a server listens on).
 */
export function addressKind(address: string, own: readonly string[] = []): AddressKind | undefined {
  const canonical = canonicalAddress(address);
  if (isIP(canonical) === 0) {
    return undefined;
  }
  const embedded = embeddedIPv4(canonical);
  const kind = kindsOf(canonical)[0] ?? (embedded === undefined ? undefined : kindsOf(embedded)[0]);
  if (kind !== undefined) {
    return kind;
  }
  const mine = new Set(own.map(canonicalAddress));
  return mine.has(canonical) || (embedded !== undefined && mine.has(embedded)) ? 'this-machine' : undefined;
}

/** An address of this machine's own side: loopback, unspecified, link-local (IPv4-mapped forms included). */
export function isLocalAddress(address: string): boolean {
  const canonical = canonicalAddress(address);
  return isIP(canonical) !== 0 && kindsOf(canonical).some((kind) => kind === 'loopback' || kind === 'unspecified' || kind === 'link-local');
}

/**
 * Whether a connection to `address`:`port`, judged `kind`, may go through for the entry `rule` matched: only an IP
 * entry naming that very address (at that port) does, wherever it is in the list, or a `localhost` entry for the
 * loopback. A name entry never does, so listing `*.example.com` does not hand its DNS the private network.
 */
export function addressAllowed(rules: readonly DomainRule[], rule: DomainRule, address: string, port: number, kind: AddressKind | undefined): boolean {
  if (kind === undefined || (rule.host === 'localhost' && kind === 'loopback')) {
    return true;
  }
  const canonical = canonicalAddress(address);
  return rules.some((entry) => isIP(entry.host) !== 0 && canonicalAddress(entry.host) === canonical && portAllowed(entry, port));
}

function portAllowed(rule: DomainRule, port: number): boolean {
  return rule.port === undefined ? defaultPorts.includes(port) : rule.port === port;
}

/** The entry the person would add to reach `address`:`port`, or undefined where none can (a local port below 1024). */
export function entryFor(address: string, port: number): string | undefined {
  const canonical = canonicalAddress(address);
  const host = canonical.includes(':') ? `[${canonical}]` : canonical;
  const candidates = defaultPorts.includes(port) ? [canonical, `${host}:${port}`] : [`${host}:${port}`];
  return candidates.find((candidate) => !('problem' in parseDomainEntry(candidate)));
}

/** Whether the entry `ceiling` covers every destination `entry` reaches (the same host and ports, or a subdomain of a wildcard). */
function domainCovered(entry: DomainRule, ceiling: DomainRule): boolean {
  const ports = ceiling.port === undefined ? entry.port === undefined || defaultPorts.includes(entry.port) : entry.port === ceiling.port;
  if (!ports) {
    return false;
  }
  if (!ceiling.subdomains) {
    return !entry.subdomains && entry.host === ceiling.host;
  }
  return entry.host.endsWith(`.${ceiling.host}`);
}

/**
 * Allowed-domain entries under a ceiling (a managed settings file's `sandbox.allowedDomains`): an entry stays only if an
 * entry of the ceiling covers it; one that does not parse is cut. No ceiling: all stay.
 */
export function domainsUnderCeiling(entries: readonly string[], ceiling: readonly string[] | undefined): { kept: string[]; cut: string[] } {
  if (ceiling === undefined) {
    return { kept: [...entries], cut: [] };
  }
  const rules = ceiling.map((entry) => parseDomainEntry(entry)).filter((rule): rule is DomainRule => !('problem' in rule));
  const kept: string[] = [];
  const cut: string[] = [];
  for (const entry of entries) {
    const rule = parseDomainEntry(entry);
    ('problem' in rule || !rules.some((limit) => domainCovered(rule, limit)) ? cut : kept).push(entry);
  }
  return { kept, cut };
}
