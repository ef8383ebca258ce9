/** What a card offers to allow after the filtering proxy refused a command's connections: table-driven. */
import * as assert from 'node:assert/strict';
import type { Refusal } from '../../src/core/sandbox/domainProxy';
import { entriesToAllow, entryForRefusal, maxOfferedEntries } from '../../src/core/sandbox/networkRemedies';

describe('network remedies: the allow-list entry offered for a refused connection', () => {
  const rows: [string, Refusal, string | undefined][] = [
    ['a name on a web port is offered as the name (80 and 443)', { destination: 'example.com:443', why: 'not-listed' }, 'example.com'],
    ['plain HTTP likewise', { destination: 'Example.COM.:80', why: 'not-listed' }, 'example.com'],
    ['a name on another port keeps its port', { destination: 'git.example.com:8443', why: 'not-listed' }, 'git.example.com:8443'],
    ['a service of this machine by 127.0.0.1 is offered as localhost:PORT', { destination: '127.0.0.1:5173', why: 'not-listed' }, 'localhost:5173'],
    ['by localhost', { destination: 'localhost:3000', why: 'not-listed' }, 'localhost:3000'],
    ['by ::1', { destination: '[::1]:8080', why: 'not-listed' }, 'localhost:8080'],
    ['by another loopback address, that address', { destination: '127.0.0.2:8080', why: 'not-listed' }, '127.0.0.2:8080'],
    ['a service of this machine below 1024: none (the bridge cannot listen there)', { destination: '127.0.0.1:80', why: 'not-listed' }, undefined],
    ['a public address by number', { destination: '93.184.216.34:443', why: 'not-listed' }, '93.184.216.34'],
    ['a private address by number, naming it', { destination: '10.0.0.5:8443', why: 'not-listed' }, '10.0.0.5:8443'],
    ['never a cloud metadata service', { destination: '169.254.169.254:80', why: 'not-listed' }, undefined],
    ['never a metadata service in IPv4-mapped form', { destination: '[::ffff:a9fe:a9fe]:80', why: 'not-listed' }, undefined],
    ['never the unspecified address', { destination: '0.0.0.0:8080', why: 'not-listed' }, undefined],
    ['not a listed name that resolved to a private address (the person names that address in the setting)', { destination: 'lan.example.com:443', why: 'restricted-address', address: { ip: '10.1.2.3', kind: 'private' } }, undefined],
    ['not a name that did not resolve', { destination: 'nowhere.example:443', why: 'unresolved' }, undefined],
    ['not a malformed request', { destination: 'nowhere', why: 'malformed' }, undefined],
  ];
  for (const [what, refusal, offered] of rows) {
    it(what, () => assert.equal(entryForRefusal(refusal), offered));
  }

  it('offers each entry once, in the order refused, and at most a few', () => {
    const refused = (destination: string): Refusal => ({ destination, why: 'not-listed' });
    assert.deepEqual(entriesToAllow([refused('127.0.0.1:3000'), refused('localhost:3000'), refused('a.example:443'), refused('a.example:80'), refused('169.254.169.254:80')]), ['localhost:3000', 'a.example']);
    const many = Array.from({ length: 9 }, (_, index) => refused(`h${index}.example:443`));
    assert.equal(entriesToAllow(many).length, maxOfferedEntries);
  });
});
