/**
 * The narrow fix for a command the filtering proxy refused: the toolgate.sandbox.allowedDomains entries that would let
 * exactly those connections through, offered on its card before "Run without sandbox". Read from what the proxy
 * recorded (./domainProxy's refusals), never from the command's output, and checked as the setting checks an entry.
 * Pure: the card's buttons and what they do are the tool service's.
 */
import { isIP } from 'node:net';
import { parseAuthority, type Refusal } from './domainProxy';
import { addressKind, canonicalAddress, defaultPorts, entryFor, normaliseHost, parseDomainEntry } from './domains';

/** At most this many entries are offered on one card (a command refused more is not fixed by one click). */
export const maxOfferedEntries = 5;

/**
 * The entry that allows one refused connection, or undefined where none is offered: only a destination that was not
 * listed. A listed name that resolved to a private or metadata address is not offered (that needs an entry naming the
 * address, which the person writes deliberately in the setting), nor is a metadata or unspecified address asked for
 * by number, nor a service of this machine below port 1024 (the bridge cannot listen there).
 */
export function entryForRefusal(refusal: Refusal): string | undefined {
  if (refusal.why !== 'not-listed') {
    return undefined;
  }
  const target = parseAuthority(refusal.destination);
  if (target === undefined) {
    return undefined;
  }
  const host = canonicalAddress(normaliseHost(target.host));
  let entry: string | undefined;
  if (host === 'localhost' || host === '127.0.0.1' || host === '::1') {
    // A service of this machine, however the command named it: `localhost:PORT` reaches it at 127.0.0.1 and ::1.
    entry = `localhost:${target.port}`;
  } else if (isIP(host) !== 0) {
    const kind = addressKind(host);
    entry = kind === 'metadata' || kind === 'unspecified' ? undefined : entryFor(host, target.port);
  } else {
    entry = defaultPorts.includes(target.port) ? host : `${host}:${target.port}`;
  }
  // The setting's own check: what it would refuse is never offered.
  return entry === undefined || 'problem' in parseDomainEntry(entry) ? undefined : entry;
}

/** The entries that allow what the proxy refused, each once, in the order refused, at most `maxOfferedEntries`. */
export function entriesToAllow(refusals: readonly Refusal[]): string[] {
  const entries = refusals.map(entryForRefusal).filter((entry): entry is string => entry !== undefined);
  return [...new Set(entries)].slice(0, maxOfferedEntries);
}
