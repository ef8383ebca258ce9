import * as assert from 'node:assert/strict';
import { OpenAICompatibleModel } from '../../src/core/llm/client';
import { checkAddress, keyFor, parseStoredKey, serializeKey, testConnection, type ConnectionTest, type ModelProbe } from '../../src/core/llm/setup';
import { presetOf, providerOf, providerPresets } from '../../src/shared/modelProviders';
import type { ConnectionCheck } from '../../src/shared/modelSetup';
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fakeOpenAI';

describe('the model setup', () => {
  describe('an address as typed in the form', () => {
    const rows: [string, string, string | RegExp][] = [
      ['an Ollama address', 'http://127.0.0.1:11434/v1', 'http://127.0.0.1:11434/v1'],
      ['a trailing slash and spaces dropped', '  https://api.openai.com/v1/ ', 'https://api.openai.com/v1'],
      ['nothing', '   ', /Enter the endpoint's address/],
      ['a host without a scheme', '127.0.0.1:11434/v1', /is not an http or https address|is not an address/],
      ['a word', 'ollama', /is not an address/],
      ['a file URL', 'file:///etc/passwd', /is not an http or https address/],
      ['a key in the address', 'https://user:sk-secret@api.openai.com/v1', /Leave the key out of the address/],
      ['a query', 'https://api.openai.com/v1?key=sk', /has a query or fragment/],
    ];
    for (const [label, input, expected] of rows) {
      it(label, () => {
        const checked = checkAddress(input);
        if (typeof expected === 'string') {
          assert.deepEqual(checked, { ok: true, baseUrl: expected });
        } else {
          assert.ok(!checked.ok, `'${input}' was taken`);
          assert.match(checked.problem, expected);
        }
      });
    }
  });

  describe('which address a stored key is sent to', () => {
    const openai = 'https://api.openai.com/v1';
    const router = 'https://openrouter.ai/api/v1';
    const rows: [string, string | undefined, string, string, string | undefined][] = [
      ['a key set for OpenAI goes to OpenAI', serializeKey('sk-1', 'https://api.openai.com'), openai, router, 'sk-1'],
      ['it does not go to OpenRouter, whatever the settings say', serializeKey('sk-1', 'https://api.openai.com'), router, router, undefined],
      ['nor to the same host over http', serializeKey('sk-1', 'https://api.openai.com'), 'http://api.openai.com/v1', openai, undefined],
      ['nor to another port', serializeKey('sk-1', 'http://127.0.0.1:8000'), 'http://127.0.0.1:8001/v1', 'http://127.0.0.1:8000/v1', undefined],
      ['an older key (a bare string) goes to the configured address', 'sk-old', openai, openai, 'sk-old'],
      ['an older key does not go to an address typed in the form', 'sk-old', router, openai, undefined],
      ['a bare key that starts with { is still a key', '{not-json', openai, openai, '{not-json'],
      ['no key stored', undefined, openai, openai, undefined],
      ['not an address', serializeKey('sk-1', 'https://api.openai.com'), 'api.openai.com', openai, undefined],
    ];
    for (const [label, stored, address, configured, expected] of rows) {
      it(label, () => {
        assert.equal(keyFor(parseStoredKey(stored), address, configured), expected);
      });
    }
  });

  describe('the providers', () => {
    it('each preset with an address is recognised from it, and anything else is "Other OpenAI-compatible"', () => {
      for (const preset of providerPresets.filter((candidate) => candidate.baseUrl !== '')) {
        assert.equal(providerOf('openai-compatible', `${preset.baseUrl}/`), preset.id);
      }
      assert.equal(providerOf('openai-compatible', 'https://example.invalid/v1'), 'custom');
      assert.equal(providerOf('vscode-lm', 'http://127.0.0.1:11434/v1'), 'vscode-lm');
      assert.equal(presetOf('openai').key, 'required');
    });
  });

  describe('Test connection', () => {
    const run = async (probe: Partial<ModelProbe>, test: Partial<ConnectionTest> = {}): Promise<{ checks: ConnectionCheck[]; progress: number }> => {
      let progress = 0;
      const checks = await testConnection(
        {
          listModels: probe.listModels ?? (() => Promise.resolve(['m'])),
          requestWithTool: probe.requestWithTool ?? (() => Promise.resolve({ calledTool: true })),
        },
        { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', key: { sent: false }, keyNeed: 'none', signal: new AbortController().signal, onProgress: () => void (progress += 1), now: () => 0, ...test },
      );
      return { checks, progress };
    };
    const lines = (checks: ConnectionCheck[]): string[] => checks.map((check) => `${check.kind}:${check.result}`);

    it('a provider that needs a key, with none for this address, fails before anything is sent', async () => {
      let sent = 0;
      const { checks } = await run(
        { listModels: () => ((sent += 1), Promise.resolve([])), requestWithTool: () => ((sent += 1), Promise.resolve({ calledTool: true })) },
        { keyNeed: 'required', key: { sent: false, heldFor: 'https://api.openai.com' }, baseUrl: 'https://openrouter.ai/api/v1' },
      );
      assert.equal(sent, 0);
      assert.deepEqual(lines(checks), ['address:skip', 'key:fail', 'model:skip', 'tools:skip']);
      assert.match(checks[1]?.text ?? '', /The stored API key is for https:\/\/api\.openai\.com, so it is not sent here\. This provider needs one: Set API Key\./);
    });

    it('a key that would cross the network over plain http is warned about', async () => {
      const { checks } = await run({}, { baseUrl: 'http://10.0.0.5:8000/v1', key: { sent: true } });
      assert.deepEqual(lines(checks), ['address:warn', 'key:pass', 'model:pass', 'tools:pass']);
    });
  });

  describe('Test connection against an OpenAI-compatible server (the real client over HTTP)', () => {
    let open: FakeOpenAI;
    let keyed: FakeOpenAI;
    before(async () => {
      open = await startFakeOpenAI({ models: ['toolgate-test-model', 'other-model'] });
      keyed = await startFakeOpenAI({ apiKey: 'sk-right' });
    });
    after(async () => {
      await open.close();
      await keyed.close();
    });

    const probeFor = (baseUrl: string, model: string, apiKey?: string): ModelProbe => {
      const client = new OpenAICompatibleModel({ baseUrl, model, maxRetries: 0, ...(apiKey === undefined ? {} : { apiKey }) });
      return {
        listModels: (signal) => client.listModels(signal),
        requestWithTool: async (tool, signal) => {
          const turn = await client.complete([{ role: 'user', content: 'Call the tool.' }], [tool], { signal });
          return { calledTool: turn.toolCalls.some((call) => call.name === tool.name) };
        },
      };
    };
    const test = (baseUrl: string, model: string, extra: Partial<ConnectionTest> = {}): ConnectionTest => ({
      baseUrl, model, key: { sent: false }, keyNeed: 'optional', signal: AbortSignal.timeout(10_000), onProgress: () => undefined, ...extra,
    });

    const rows: { label: string; server: () => FakeOpenAI; model: string; key?: string; script?: () => void; lines: string[]; says: RegExp }[] = [
      {
        label: 'all works: listed, served, the tool called',
        server: () => open, model: 'toolgate-test-model',
        script: () => open.script([{ toolCalls: [{ name: 'toolgate_connection_test', arguments: '{}' }] }]),
        lines: ['address:pass', 'key:pass', 'model:pass', 'tools:pass'], says: /called it, in \d+\.\d s/,
      },
      {
        label: 'the model answers in text instead of calling the tool',
        server: () => open, model: 'toolgate-test-model', script: () => open.script([{ text: 'OK' }]),
        lines: ['address:pass', 'key:pass', 'model:pass', 'tools:warn'], says: /answered in text instead of calling it/,
      },
      {
        label: 'a model the endpoint does not list',
        server: () => open, model: 'gpt-5',
        lines: ['address:pass', 'key:pass', 'model:fail', 'tools:skip'], says: /It does not list gpt-5\. Pick one of its 2 models \(other-model, toolgate-test-model\)|It does not list gpt-5\. Pick one of its 2 models \(toolgate-test-model, other-model\)/,
      },
      {
        label: 'the endpoint says the model has no tools',
        server: () => open, model: 'toolgate-test-model',
        script: () => open.script([{ error: { status: 400, message: 'registry.ollama.ai/library/gemma:2b does not support tools' } }]),
        lines: ['address:pass', 'key:pass', 'model:pass', 'tools:fail'], says: /does not support tool calls.*pick a model that supports them/,
      },
      {
        label: 'no key for an endpoint that wants one',
        server: () => keyed, model: 'toolgate-test-model',
        lines: ['address:pass', 'key:fail', 'model:skip', 'tools:skip'], says: /The endpoint needs an API key \(401\)\. Set API Key to store one for http:\/\/127\.0\.0\.1:\d+\./,
      },
      {
        label: 'a wrong key',
        server: () => keyed, model: 'toolgate-test-model', key: 'sk-wrong',
        lines: ['address:pass', 'key:fail', 'model:skip', 'tools:skip'], says: /The endpoint refused the API key \(401\)/,
      },
      {
        label: 'the right key',
        server: () => keyed, model: 'toolgate-test-model', key: 'sk-right',
        script: () => keyed.script([{ toolCalls: [{ name: 'toolgate_connection_test', arguments: '{}' }] }]),
        lines: ['address:pass', 'key:pass', 'model:pass', 'tools:pass'], says: /The API key was accepted/,
      },
    ];
    for (const row of rows) {
      it(row.label, async () => {
        row.script?.();
        const server = row.server();
        const checks = await testConnection(probeFor(server.baseUrl, row.model, row.key), test(server.baseUrl, row.model, { key: row.key === undefined ? { sent: false } : { sent: true } }));
        assert.deepEqual(checks.map((check) => `${check.kind}:${check.result}`), row.lines, JSON.stringify(checks));
        assert.match(checks.map((check) => check.text).join('\n'), row.says);
        assert.equal(server.remaining(), 0, 'every scripted turn was used');
      });
    }

    it('an address where nothing listens fails at the address, and the rest is not checked', async () => {
      const closed = await startFakeOpenAI();
      const baseUrl = closed.baseUrl;
      await closed.close();
      const checks = await testConnection(probeFor(baseUrl, 'm'), test(baseUrl, 'm'));
      assert.deepEqual(checks.map((check) => `${check.kind}:${check.result}`), ['address:fail', 'key:skip', 'model:skip', 'tools:skip']);
      assert.match(checks[0]?.text ?? '', /could not be reached: .*ECONNREFUSED.*Is the server running, and is this its address\?/);
    });

    it('an address without /v1 (no list, and the request 404s) says so', async () => {
      const baseUrl = open.baseUrl.replace(/\/v1$/, '');
      const checks = await testConnection(probeFor(baseUrl, 'toolgate-test-model'), test(baseUrl, 'toolgate-test-model'));
      assert.deepEqual(checks.map((check) => `${check.kind}:${check.result}`), ['address:warn', 'key:skip', 'model:skip', 'tools:fail']);
      assert.match(checks.map((check) => check.text).join('\n'), /404.*it usually ends in \/v1|usually ends in \/v1/);
    });
  });
});
