/**
 * toolgate.sandbox.allowedDomains: the only places a sandboxed command may connect to, through Toolgate's filtering
 * proxy. An entry is a host name (`registry.npmjs.org`), its subdomains (`*.pythonhosted.org`, not the name itself),
 * `localhost` or an IP address, each optionally with a port (`localhost:8080`, `[::1]:5432`); without a port it
 * allows the web's ports 80 and 443. Pure: the proxy resolves names and asks `destinationAllowed` and `isLocalAddress`.
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
  const name = normaliseHost(host);
  return rules.find((rule) => {
    const hostMatches = rule.subdomains ? name.endsWith(`.${rule.host}`) : name === rule.host;
    return hostMatches && (rule.port === undefined ? defaultPorts.includes(port) : rule.port === port);
  });
}

// Node's own address matcher rather than hand-written prefix arithmetic.
const local = new BlockList();
local.addSubnet('127.0.0.0', 8, 'ipv4'); // loopback
local.addSubnet('0.0.0.0', 8, 'ipv4'); // "this host" (0.0.0.0 reaches the loopback on Linux)
local.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local: cloud metadata services (169.254.169.254)
local.addAddress('::1', 'ipv6');
local.addAddress('::', 'ipv6');
local.addSubnet('fe80::', 10, 'ipv6');
local.addSubnet('fd00:ec2::', 32, 'ipv6'); // AWS's IPv6 metadata service

/** An address of this machine's own side: loopback, unspecified, link-local (IPv4-mapped forms included). */
export function isLocalAddress(address: string): boolean {
  const bare = normaliseHost(address);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare)?.[1];
  const family = isIP(mapped ?? bare);
  if (family === 0) {
    return false;
  }
  return local.check(mapped ?? bare, family === 4 ? 'ipv4' : 'ipv6');
}
