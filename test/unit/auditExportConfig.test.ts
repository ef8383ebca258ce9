import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { logsUrl, parseExportConfig, parseHeadersFile } from '../../src/core/audit/export/otlpConfig';
import { parseSetting } from '../../src/core/settings';

describe('audit export: its configuration', () => {
  const rows: { name: string; raw: unknown; config?: unknown; problem?: RegExp }[] = [
    { name: 'absent: off', raw: undefined },
    { name: 'null: off', raw: null },
    { name: 'an endpoint alone: protobuf', raw: { endpoint: 'http://127.0.0.1:4318' }, config: { endpoint: 'http://127.0.0.1:4318', protocol: 'http/protobuf' } },
    { name: 'JSON on request', raw: { endpoint: 'https://otel.example.com', protocol: 'http/json' }, config: { endpoint: 'https://otel.example.com', protocol: 'http/json' } },
    { name: 'a headers file', raw: { endpoint: 'http://c:4318', headersFile: '/etc/toolgate/otlp-headers' }, config: { endpoint: 'http://c:4318', protocol: 'http/protobuf', headersFile: '/etc/toolgate/otlp-headers' } },
    { name: 'a relative headers file: off', raw: { endpoint: 'http://c:4318', headersFile: 'headers.txt' }, problem: /headersFile: headersFile must be an absolute path/ },
    { name: 'not http(s): off', raw: { endpoint: 'ftp://c:4318' }, problem: /endpoint: endpoint must be an http\(s\) URL/ },
    { name: 'not a URL: off', raw: { endpoint: 'collector' }, problem: /endpoint/ },
    { name: 'gRPC is not offered: off', raw: { endpoint: 'http://c:4317', protocol: 'grpc' }, problem: /protocol/ },
    { name: 'an unknown key: off', raw: { endpoint: 'http://c:4318', insecure: true }, problem: /insecure/ },
    { name: 'not an object: off', raw: 'http://c:4318', problem: /object/ },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const parsed = parseExportConfig(row.raw);
      assert.deepEqual(parsed.config, row.config);
      if (row.problem === undefined) {
        assert.equal(parsed.problem, undefined);
      } else {
        assert.match(parsed.problem ?? '', row.problem);
      }
    });
  }

  const urls: [string, string][] = [
    ['http://127.0.0.1:4318', 'http://127.0.0.1:4318/v1/logs'],
    ['http://127.0.0.1:4318/', 'http://127.0.0.1:4318/v1/logs'],
    ['https://otel.example.com/team/a', 'https://otel.example.com/team/a/v1/logs'],
    ['https://otel.example.com/v1/logs', 'https://otel.example.com/v1/logs'],
    ['https://otel.example.com/v1/logs/', 'https://otel.example.com/v1/logs'],
  ];
  for (const [endpoint, url] of urls) {
    it(`posts to ${url} for ${endpoint}`, () => assert.equal(logsUrl(endpoint), url));
  }

  const files: { name: string; text: string; headers: Record<string, string>; problems: RegExp[] }[] = [
    { name: 'one header', text: 'Authorization: Bearer abc\n', headers: { Authorization: 'Bearer abc' }, problems: [] },
    { name: 'comments, blank lines, CRLF, a colon in the value', text: '# team token\r\n\r\nX-Scope: team:a\r\nX-Org:  7 \r\n', headers: { 'X-Scope': 'team:a', 'X-Org': '7' }, problems: [] },
    { name: 'a line without a colon is left out, by number only', text: 'Authorization: ok\nBearer sk-secret\n', headers: { Authorization: 'ok' }, problems: [/^line 2 is not/] },
    { name: 'an empty value', text: 'X-Empty:\n', headers: {}, problems: [/line 1 \(X-Empty\)/] },
    { name: 'a name with a space', text: 'Bad Name: v\n', headers: {}, problems: [/line 1 is not/] },
  ];
  for (const row of files) {
    it(`headers file: ${row.name}`, () => {
      const parsed = parseHeadersFile(row.text);
      assert.deepEqual(parsed.headers, row.headers);
      assert.equal(parsed.problems.length, row.problems.length);
      row.problems.forEach((problem, index) => assert.match(parsed.problems[index] ?? '', problem));
      assert.ok(parsed.problems.every((problem) => !problem.includes('sk-secret')));
    });
  }

  it('the setting toolgate.audit.otlp is machine-scoped (a workspace cannot set it) and off by default', () => {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { configuration: { properties: Record<string, { scope?: string; default?: unknown }> } } };
    const declared = manifest.contributes.configuration.properties['toolgate.audit.otlp'];
    assert.equal(declared?.scope, 'machine');
    assert.equal(declared.default, null);
    assert.equal(parseSetting('audit.otlp', undefined).value, null);
    assert.deepEqual(parseSetting('audit.otlp', { endpoint: 'http://127.0.0.1:4318' }).value, { endpoint: 'http://127.0.0.1:4318', protocol: 'http/protobuf' });
    const bad = parseSetting('audit.otlp', { endpoint: 'file:///etc/passwd' });
    assert.equal(bad.value, null, 'a bad value turns the export off, with a warning');
    assert.match(bad.problem ?? '', /toolgate\.audit\.otlp is invalid/);
  });
});
