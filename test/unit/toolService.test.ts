import * as assert from 'node:assert/strict';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { initShellParser } from '../../src/core/shell/analysis';
import type { McpModelTool } from '../../src/core/mcp/tools';
import type { McpBridge } from '../../src/core/tools/ports';
import type { ToolCallRequest, ToolCallResult } from '../../src/core/tools/service';
import { createMemoryGate, locateUnder } from '../fixtures/memoryGate';
import type { Gate } from '../../src/core/approval/gate';
import { commandResult, MemoryFiles, memoryToolService, waitFor } from '../fixtures/memoryFiles';
import { pendingViews } from '../../src/core/views/pendingCall';
import type { StagingStatus } from '../../src/core/sandbox/commandSandbox';

type Overrides = Parameters<typeof createMemoryGate>[0];

function setup(overrides: Overrides = {}, files = new MemoryFiles({ '/ws/a.txt': 'one\ntwo\n' }), mcp?: McpBridge) {
  const { gate, entries, audit } = createMemoryGate({ locate: locateUnder('/ws'), ...overrides });
  const { service, runner, log } = memoryToolService(gate, files, { home: '/home/someone', ...(mcp ? { mcp } : {}) });
  /** Runs one request as the agent would; `answer` settles it once it waits (if it does). */
  const run = async (request: ToolCallRequest, answer?: Parameters<typeof gate.settle>[1]): Promise<ToolCallResult> => {
    const promise = service.runBatch([request], { chatId: 'chat' });
    if (answer) {
      const waiting = await waitFor(() => pendingViews(gate)[0]);
      assert.equal(gate.settle(waiting, answer).ok, true);
    }
    const [result] = await promise;
    assert.ok(result);
    return result;
  };
  return { gate, entries, audit, runner, log, files, service, run };
}

const write = (path: string, content: string): ToolCallRequest => ({ tool: 'write_file', args: JSON.stringify({ path, content }) });

describe('the tool service (core, over in-memory ports)', () => {
  before(() => initShellParser());

  describe('refuses what cannot reach the gate, and nothing is asked or run', () => {
    const rows: { name: string; request: ToolCallRequest; output: RegExp }[] = [
      { name: 'malformed JSON', request: { tool: 'write_file', args: '{"path": "a.txt",' }, output: /^Error: .*write_file.*Nothing was run\.$/s },
      { name: 'a missing argument', request: { tool: 'write_file', args: '{"path":"a.txt"}' }, output: /content/ },
      { name: 'an unknown tool from the agent', request: { tool: 'format_disk', args: '{}' }, output: /unknown tool/ },
      { name: 'an edit whose old text is not there', request: { tool: 'edit_file', args: JSON.stringify({ path: 'a.txt', edits: [{ old: 'zzz', new: 'y' }] }) }, output: /^Error: edit_file: .*`old` was not found in a\.txt.*Nothing was run\.$/s },
      { name: 'an edit of a missing file', request: { tool: 'edit_file', args: JSON.stringify({ path: 'b.txt', edits: [{ old: 'a', new: 'b' }] }) }, output: /does not exist; use write_file/ },
      { name: 'an unknown MCP tool', request: { tool: 'mcp__none__x', args: '{}' }, output: /unknown MCP tool 'mcp__none__x'/ },
    ];
    for (const row of rows) {
      it(row.name, async () => {
        const { run, entries, audit, runner, files } = setup();
        const result = await run(row.request);
        assert.equal(result.ok, false);
        assert.match(result.output, row.output);
        assert.equal(result.decision, undefined);
        await audit.flush();
        assert.deepEqual(entries, []);
        assert.deepEqual(runner.ran, []);
        assert.equal(files.applied, 0);
      });
    }
  });

  it('writes exactly the proposal when a setting allows it, keeping the file line endings', async () => {
    const { run, files } = setup({ gatedTools: { write_file: false } }, new MemoryFiles({ '/ws/a.txt': 'x\r\ny\r\n' }));
    const result = await run(write('a.txt', 'one\ntwo\n'));
    assert.equal(result.ok, true);
    assert.equal(result.output, 'Updated a.txt.');
    assert.equal(files.files.get('/ws/a.txt'), 'one\r\ntwo\r\n');
  });

  it('holds the proposal while the call waits, for the diff editor, and forgets it once decided', async () => {
    const { service, gate, files } = setup();
    const promise = service.runBatch([write('new.txt', 'hello')], { chatId: 'chat' });
    const waiting = await waitFor(() => pendingViews(gate)[0]);
    assert.equal(service.proposal(waiting.callId)?.newText, 'hello');
    assert.equal(waiting.preview.kind === 'diff' && waiting.preview.isNewFile, true);
    gate.settle(waiting, { action: 'allow-once' });
    const [result] = await promise;
    assert.equal(result?.output, 'Created new.txt.');
    assert.equal(files.files.get('/ws/new.txt'), 'hello');
    assert.equal(service.proposal(waiting.callId), undefined);
  });

  it('forgets the proposal when the wait ends without a decision (the task was stopped)', async () => {
    const { service, gate, files } = setup();
    const promise = service.runBatch([write('new.txt', 'hello')], { chatId: 'chat' });
    const waiting = await waitFor(() => pendingViews(gate)[0]);
    gate.cancel('the task was stopped', 'chat');
    const [result] = await promise;
    assert.equal(result?.output, 'The call was not run: the task was stopped. Nothing was changed.');
    assert.equal(service.proposal(waiting.callId), undefined);
    assert.equal(files.files.has('/ws/new.txt'), false);
  });

  const decisions: { name: string; answer: Parameters<ReturnType<typeof setup>['gate']['settle']>[1]; file: string | undefined; output: RegExp }[] = [
    { name: 'allowed once', answer: { action: 'allow-once' }, file: 'hello', output: /^Created new\.txt\.$/ },
    { name: 'denied with a reason', answer: { action: 'deny', reason: 'use docs/' }, file: undefined, output: /^The person denied this call and said: "use docs\/"\. Nothing was changed\.$/ },
    { name: 'denied without a reason', answer: { action: 'deny' }, file: undefined, output: /^The person denied this call\. Nothing was changed\.$/ },
    { name: 'edited, then allowed', answer: { action: 'allow-edited', edited: 'HELLO' }, file: 'HELLO', output: /edited the content before allowing it\. Wrote their version to new\.txt; it now reads:\nHELLO$/ },
  ];
  for (const row of decisions) {
    it(`a waiting write ${row.name}: the file holds exactly what was allowed, and the model is told`, async () => {
      const { run, files } = setup();
      const result = await run(write('new.txt', 'hello'), row.answer);
      assert.match(result.output, row.output);
      assert.equal(files.files.get('/ws/new.txt'), row.file);
    });
  }

  it('writes nothing when the file changed after its diff was shown, and asks again with a fresh diff', async () => {
    const { service, gate, files, log } = setup();
    files.beforeApply = (absolute) => {
      files.files.set(absolute, 'one\ntwo\nthree by the person\n');
      files.beforeApply = undefined;
    };
    const promise = service.runBatch([{ tool: 'edit_file', args: JSON.stringify({ path: 'a.txt', edits: [{ old: 'two', new: 'TWO' }] }) }], { chatId: 'chat' });
    const first = await waitFor(() => pendingViews(gate)[0]);
    gate.settle(first, { action: 'allow-once' });
    const again = await waitFor(() => pendingViews(gate).find((view) => view.callId !== first.callId));
    assert.match(again.warnings[0] ?? '', /^Asked again: a\.txt changed after the diff was shown, so nothing was written/);
    assert.equal(files.files.get('/ws/a.txt'), 'one\ntwo\nthree by the person\n');
    assert.match(log.lines.join('\n'), /nothing was written, asking again with a fresh diff/);
    gate.settle(again, { action: 'allow-once' });
    const [result] = await promise;
    assert.equal(result?.output, 'Updated a.txt.');
    assert.equal(files.files.get('/ws/a.txt'), 'one\nTWO\nthree by the person\n');
  });

  it('tells the model when the changed file no longer fits the edit, and writes nothing', async () => {
    const { service, gate, files } = setup();
    files.beforeApply = (absolute) => files.files.set(absolute, 'rewritten\n');
    const promise = service.runBatch([{ tool: 'edit_file', args: JSON.stringify({ path: 'a.txt', edits: [{ old: 'two', new: 'TWO' }] }) }], { chatId: 'chat' });
    gate.settle(await waitFor(() => pendingViews(gate)[0]), { action: 'allow-once' });
    const [result] = await promise;
    assert.match(result?.output ?? '', /^Error: a\.txt changed after the diff was shown, and the call no longer applies: edit_file: .*Nothing was written\.$/s);
    assert.equal(files.files.get('/ws/a.txt'), 'rewritten\n');
    assert.equal(files.applied, 0);
  });

  it('gives up after the file changed under it again and again', async () => {
    const { service, gate, files } = setup();
    let round = 0;
    files.beforeApply = (absolute) => files.files.set(absolute, `round ${round++}\n`);
    const promise = service.runBatch([write('a.txt', 'mine')], { chatId: 'chat' });
    const seen = new Set<string>();
    let result: ToolCallResult | undefined;
    void promise.then(([value]) => (result = value));
    while (result === undefined) {
      const waiting = pendingViews(gate).find((view) => !seen.has(view.callId));
      if (waiting) {
        seen.add(waiting.callId);
        gate.settle(waiting, { action: 'allow-once' });
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    assert.equal(seen.size, 4);
    assert.match(result.output, /again and again; nothing was written/);
    assert.equal(files.applied, 0);
  });

  it('runs an allowed command exactly as judged (or as edited), in its folder, and reports how it ended', async () => {
    const { run, runner } = setup({ terminalRules: { 'npm test': true } });
    const allowed = await run({ tool: 'run_in_terminal', args: JSON.stringify({ command: 'npm test', cwd: 'pkg' }) });
    assert.equal(allowed.ok, true);
    assert.match(allowed.output, /Exit code: 0\nOutput:\nok/);
    const edited = await run({ tool: 'run_in_terminal', args: JSON.stringify({ command: 'rm -rf build' }) }, { action: 'allow-edited', edited: 'rm -rf build/cache' });
    assert.match(edited.output, /^The person edited the command before allowing it\. What ran was: rm -rf build\/cache/);
    assert.deepEqual(runner.ran, [
      { command: 'npm test', cwd: '/ws/pkg', timeoutSeconds: 60 },
      { command: 'rm -rf build/cache', cwd: '/ws', timeoutSeconds: 60 },
    ]);
  });

  describe('whether a command\'s changes are reviewed is decided before its card, said on it, held at launch and told to the model', () => {
    const rows: { name: string; status: StagingStatus; card: string | undefined; report: string | undefined }[] = [
      { name: 'staged: nothing said, and it must run staged', status: { staged: true }, card: undefined, report: undefined },
      {
        name: 'review turned off: the card says so and names the setting; the model is told its changes were not reviewed',
        status: { staged: false, why: 'setting-off', reason: 'toolgate.sandbox.reviewCommandChanges is off' },
        card: 'Its changes will land in the workspace without review: toolgate.sandbox.reviewCommandChanges is off. Turn it on to review them.',
        report: 'Its changes were not reviewed: they went straight to the workspace (toolgate.sandbox.reviewCommandChanges is off).',
      },
    ];
    for (const row of rows) {
      it(row.name, async () => {
        const { service, gate, runner } = setup();
        runner.stagingStatus = () => Promise.resolve(row.status);
        const promise = service.runBatch([{ tool: 'run_in_terminal', args: JSON.stringify({ command: 'make build' }) }], { chatId: 'chat' });
        const waiting = await waitFor(() => pendingViews(gate)[0]);
        assert.deepEqual(waiting.warnings.filter((line) => /review/.test(line)), row.card === undefined ? [] : [row.card]);
        assert.equal(gate.settle(waiting, { action: 'allow-once' }).ok, true);
        const [result] = await promise;
        assert.deepEqual(runner.ran.map((ran) => ran.staged), [row.status.staged]);
        const said = (result?.output ?? '').split('\n').filter((line) => /reviewed/.test(line));
        assert.deepEqual(said, row.report === undefined ? [] : [row.report]);
      });
    }
  });

  describe('a command that fails because of the sandbox', () => {
    const blocked = () => commandResult({ exitCode: 1, output: 'npm error code EAI_AGAIN\n' });
    const rows: { name: string; answer: Parameters<Gate['settle']>[1]; ran: boolean; output: RegExp }[] = [
      {
        name: 'Run without sandbox on the second card runs it once more without the sandbox, and the model is told',
        answer: { action: 'allow-unconfined' },
        ran: true,
        output: /^It failed in the sandbox \(the network is off in the sandbox\); the person let it run once more without the sandbox, and this is that run\.\nExit code: 0/,
      },
      {
        name: 'Deny keeps the sandboxed result, and the model is told why it failed',
        answer: { action: 'deny', reason: 'no' },
        ran: false,
        output: /^It failed in the sandbox, probably because the network is off in the sandbox\. The person chose not to run it without the sandbox;[\s\S]*Exit code: 1\nOutput:\nnpm error code EAI_AGAIN/,
      },
    ];
    for (const row of rows) {
      it(row.name, async () => {
        const { service, gate, runner } = setup({ terminalRules: { 'npm install': true } });
        runner.next.push(blocked(), commandResult({ output: 'added 3 packages\n', sandboxed: false }));
        const promise = service.runBatch([{ tool: 'run_in_terminal', args: JSON.stringify({ command: 'npm install' }) }], { chatId: 'chat' });
        // The rule allowed the first run; the second asks, on a card that names what happened, and offers no grant.
        const waiting = await waitFor(() => pendingViews(gate)[0]);
        assert.match(waiting.warnings.join(' '), /It ran in the sandbox and failed: the network is off in the sandbox\. "Run without sandbox" runs it once more, with all your access\./);
        assert.match(waiting.reason, /^Runs WITHOUT the sandbox/);
        assert.equal(waiting.grantable, false);
        assert.deepEqual(waiting.grantOptions, []);
        assert.equal(waiting.unconfined, true);
        // A careless Allow once (the button every other card has, Allow all, a key, a notification) does not lift it.
        assert.deepEqual(gate.settle(waiting, { action: 'allow-once' }), {
          ok: false,
          error: `call ${waiting.callId}: it would run without the sandbox; only its "Run without sandbox" button allows that`,
        });
        assert.equal(gate.settleAll([waiting], { allow: true }).decided, 0);
        assert.equal(gate.settle(waiting, row.answer).ok, true);
        const [result] = await promise;
        assert.match(result?.output ?? '', row.output);
        assert.deepEqual(runner.ran.map((ran) => ran.unconfined === true), row.ran ? [false, true] : [false]);
      });
    }

    describe('a connection the proxy refused: the narrow fix is offered first', () => {
      const refused = (destination: string) => commandResult({
        exitCode: 7,
        output: `curl: (56) CONNECT tunnel failed, response 403\n`,
        refusedConnections: [`${destination} (not in toolgate.sandbox.allowedDomains)`],
        refusals: [{ destination, why: 'not-listed' }],
      });
      const rows: { name: string; destination: string; remedy: string; entry: string; saved: string[][]; output: RegExp }[] = [
        {
          name: 'Allow … on this machine adds the entry to the allow-list and runs it again in the sandbox with it',
          destination: 'example.com:443',
          remedy: 'allow-hosts',
          entry: 'example.com',
          saved: [['example.com']],
          output: /^The sandbox refused connections it needed; the person allowed example\.com \(added to toolgate\.sandbox\.allowedDomains\), and this is the run again in the sandbox with it\.\nExit code: 0/,
        },
        {
          name: 'Allow once for this command runs it again in the sandbox with the host for that run only',
          destination: '127.0.0.1:5173',
          remedy: 'allow-hosts-once',
          entry: 'localhost:5173',
          saved: [],
          output: /^The sandbox refused connections it needed; the person allowed localhost:5173 \(for this command only\), and this is the run again in the sandbox with it\.\nExit code: 0/,
        },
      ];
      for (const row of rows) {
        it(row.name, async () => {
          const saved: string[][] = [];
          const { gate, entries, audit } = createMemoryGate({ locate: locateUnder('/ws'), terminalRules: { curl: true } });
          const { service, runner } = memoryToolService(gate, new MemoryFiles({}), { allowDomains: (added) => Promise.resolve(void saved.push([...added])) });
          runner.next.push(refused(row.destination), commandResult({ output: 'fetched\n' }));
          const promise = service.runBatch([{ tool: 'run_in_terminal', args: JSON.stringify({ command: 'curl -sS https://x' }) }], { chatId: 'chat' });
          const waiting = await waitFor(() => pendingViews(gate)[0]);
          // The card names what was refused, offers the narrow fixes first, and still the wide one as its own button.
          assert.match(waiting.reason, new RegExp(row.destination.replace(/[.[\]]/g, '\\$&')));
          assert.deepEqual(waiting.remedies?.map((remedy) => [remedy.id, remedy.label]), [['allow-hosts', `Allow ${row.entry} on this machine`], ['allow-hosts-once', 'Allow once for this command']]);
          assert.equal(waiting.unconfined, true);
          // A remedy the card did not offer is refused; so is one named without its action.
          assert.equal(gate.settle(waiting, { action: 'allow-remedy', remedy: 'allow-everything' }).ok, false);
          assert.equal(gate.settle(waiting, { action: 'allow-remedy', remedy: row.remedy }).ok, true);
          const [result] = await promise;
          assert.match(result?.output ?? '', row.output);
          assert.deepEqual(saved, row.saved);
          assert.deepEqual(runner.ran.map((ran) => [ran.unconfined === true, ran.allowDomains]), [[false, undefined], [false, [row.entry]]]);
          await audit.flush();
          assert.ok(entries.some((entry) => /allowed by the person: Allow/.test(JSON.stringify(entry))));
        });
      }

      it('a refusal no entry may fix (a cloud metadata address) offers only the wide fix', async () => {
        const { service, gate, runner } = setup({ terminalRules: { curl: true } });
        runner.next.push(refused('169.254.169.254:80'));
        const promise = service.runBatch([{ tool: 'run_in_terminal', args: JSON.stringify({ command: 'curl -sS http://169.254.169.254/' }) }], { chatId: 'chat' });
        const waiting = await waitFor(() => pendingViews(gate)[0]);
        assert.equal(waiting.remedies, undefined);
        gate.settle(waiting, { action: 'deny' });
        await promise;
      });
    });

    it('a failure of its own (a failing test) is just reported', async () => {
      const { run, runner } = setup({ terminalRules: { 'npm test': true } });
      runner.next.push(commandResult({ exitCode: 1, output: 'AssertionError\n' }));
      const result = await run({ tool: 'run_in_terminal', args: JSON.stringify({ command: 'npm test' }) });
      assert.match(result.output, /^Exit code: 1\nOutput:\nAssertionError/);
      assert.equal(runner.ran.length, 1);
    });
  });

  it('answers the read-only tools from the files port', async () => {
    const files = new MemoryFiles({ '/ws/a.txt': 'one\ntwo\n', '/ws/src/b.ts': 'const two = 2;\n' });
    const { run } = setup({}, files);
    assert.equal((await run({ tool: 'read_file', args: '{"path":"a.txt"}' })).output, 'one\ntwo\n');
    assert.equal((await run({ tool: 'list_files', args: '{}' })).output, 'a.txt\nsrc/');
    assert.equal((await run({ tool: 'search_text', args: '{"query":"two"}' })).output, 'a.txt:2: two\nsrc/b.ts:1: const two = 2;');
    assert.match((await run({ tool: 'read_file', args: '{"path":"none.txt"}' })).output, /^Error: read_file failed: none\.txt does not exist$/);
    assert.match((await run({ tool: 'list_files', args: '{"path":"a.txt"}' })).output, /a\.txt is a file, not a folder/);
  });

  it('evaluates without asking, running or logging anything', async () => {
    const { service, entries, audit, runner, gate } = setup();
    const verdict = await service.evaluate({ tool: 'run_in_terminal', args: { command: 'curl x | sh' } });
    assert.equal(verdict.verdict, 'ask');
    assert.equal((await service.evaluate({ tool: 'write_file', args: { path: 'a.txt' } })).verdict, 'deny');
    await audit.flush();
    assert.deepEqual([entries.length, runner.ran.length, gate.waitingCount], [0, 0, 0]);
  });

  it("gates another extension's own tool with its exact arguments, and refuses that tool from the agent", async () => {
    const { service, gate } = setup();
    const api = service.requestApproval({ tool: 'deploy', args: { env: 'prod' }, source: 'other.extension' }, { chatId: 'api' });
    const waiting = await waitFor(() => pendingViews(gate)[0]);
    assert.equal(waiting.tool, 'deploy');
    assert.equal(waiting.argsJson, '{\n  "env": "prod"\n}');
    gate.settle(waiting, { action: 'deny', reason: 'not today' });
    assert.equal((await api).reason, 'denied by the person: not today');
  });

  describe('MCP calls', () => {
    const echo: McpModelTool = {
      modelName: 'mcp__fx__echo',
      server: 'fx',
      gated: true,
      tool: { name: 'echo', description: 'Echoes', inputSchema: { type: 'object' }, definitionHash: 'd'.repeat(64) },
    };
    const bridge = (result: CallToolResult | Error) => {
      const calls: { server: string; tool: string; args: Record<string, unknown> }[] = [];
      return {
        calls,
        resolve: (name: string) => (name === 'mcp__fx__echo' ? echo : undefined),
        call: (server: string, tool: string, args: Record<string, unknown>) => {
          calls.push({ server, tool, args });
          return result instanceof Error ? Promise.reject(result) : Promise.resolve(result);
        },
      };
    };
    const rows: { name: string; args: unknown; result: CallToolResult | Error; ok: boolean; output: RegExp; called: boolean }[] = [
      { name: 'arguments that are not JSON', args: '{', result: { content: [] }, ok: false, output: /the arguments are not valid JSON/, called: false },
      { name: 'arguments that are not an object', args: '[1]', result: { content: [] }, ok: false, output: /the arguments must be a JSON object/, called: false },
      { name: 'a text result', args: '{"text":"hi"}', result: { content: [{ type: 'text', text: 'hi' }] }, ok: true, output: /^hi$/, called: true },
      { name: 'an error result', args: '{}', result: { content: [{ type: 'text', text: 'boom' }], isError: true }, ok: false, output: /^The MCP tool reported an error: boom$/, called: true },
      { name: 'a crashed server', args: '{}', result: new Error('the server exited'), ok: false, output: /^Error: the server exited$/, called: true },
      { name: 'an image', args: '{}', result: { content: [{ type: 'image', data: '', mimeType: 'image/png' }] }, ok: true, output: /^\[image content\]$/, called: true },
    ];
    it('calls of one turn run independently: a hung server does not hold up another call of the same turn', async () => {
      const other: McpModelTool = { ...echo, modelName: 'mcp__other__echo', server: 'other' };
      let releaseHung: (() => void) | undefined;
      const finished: string[] = [];
      const mcp: McpBridge = {
        resolve: (name) => (name === echo.modelName ? echo : name === other.modelName ? other : undefined),
        call: async (server) => {
          if (server === 'fx') {
            await new Promise<void>((resolve) => (releaseHung = resolve));
          }
          finished.push(server);
          return { content: [{ type: 'text', text: `from ${server}` }] };
        },
      };
      const { gate, service } = setup({ gatedTools: {} }, undefined, mcp);
      const batch = service.runBatch(
        [
          { tool: echo.modelName, args: '{}' },
          { tool: other.modelName, args: '{}' },
        ],
        { chatId: 'chat' },
      );
      await waitFor(() => (pendingViews(gate).length === 2 ? true : undefined));
      gate.settleAll(pendingViews(gate), { allow: true });
      await waitFor(() => (finished.includes('other') ? true : undefined));
      assert.deepEqual(finished, ['other'], 'the second server answered while the first still hangs');
      releaseHung?.();
      const results = await batch;
      assert.deepEqual(results.map((result) => result.output), ['from fx', 'from other'], 'results stay in call order');
    });

    it('a result of exactly the cap reaches the model whole; one character more is cut, saying so', async () => {
      const { boundedForModel } = await import('../../src/core/tools/results');
      const { maxOutputChars } = await import('../../src/core/terminal/output');
      const whole = 'y'.repeat(maxOutputChars);
      assert.deepEqual(boundedForModel(whole), { text: whole, cut: false });
      const over = boundedForModel(`${whole}z`);
      assert.equal(over.cut, true);
      assert.match(over.text, /^\(The result is 30,001 characters; its middle is left out here\. The person can open it whole\.\)\n/);
      assert.match(over.text, /\[… 1 characters of output left out …\]/);
    });

    it('an MCP call with no preview to make reaches the gate in the turn it is run: no turn of the event loop spent preparing it', () => {
      const { gate, service } = setup({}, undefined, bridge({ content: [] }));
      const batch = service.runBatch([{ tool: echo.modelName, args: '{"text":"hi"}' }], { chatId: 'chat' });
      assert.equal(gate.waitingCount, 1, 'waiting before runBatch returned');
      gate.cancel('done');
      return batch;
    });

    it('a 5 MB result reaches the model as head and tail with its size; the person keeps it whole', async () => {
      const huge = `HEAD\n${'x'.repeat(5 * 1024 * 1024)}\nTAIL`;
      const kept: string[] = [];
      const { gate } = createMemoryGate({ locate: locateUnder('/ws') });
      const results = {
        keep: (text: string) => {
          kept.push(text);
          return Promise.resolve('ref-1');
        },
      };
      const { service } = memoryToolService(gate, new MemoryFiles(), { mcp: bridge({ content: [{ type: 'text', text: huge }] }), results });
      const batch = service.runBatch([{ tool: echo.modelName, args: '{}' }], { chatId: 'chat' });
      gate.settle(await waitFor(() => pendingViews(gate)[0]), { action: 'allow-once' });
      const [result] = await batch;
      assert.ok(result);
      assert.ok(result.output.length < 31_000, `the model gets ${result.output.length} characters`);
      assert.match(result.output, /^\(The result is 5,242,890 characters; its middle is left out here\. The person can open it whole\.\)\nHEAD\n/);
      assert.match(result.output, /\[… \d+ characters of output left out …\]/);
      assert.match(result.output, /\nTAIL$/);
      assert.deepEqual(result.kept, { ref: 'ref-1', chars: huge.length });
      assert.deepEqual(kept, [huge]);
    });

    for (const row of rows) {
      it(row.name, async () => {
        const mcp = bridge(row.result);
        const { run } = setup({}, undefined, mcp);
        const result = await run({ tool: 'mcp__fx__echo', args: row.args }, row.called ? { action: 'allow-once' } : undefined);
        assert.equal(result.ok, row.ok);
        assert.match(result.output, row.output);
        assert.equal(mcp.calls.length, row.called ? 1 : 0);
      });
    }
  });
});

describe('per-hunk decisions through the tool service and the gate', () => {
  const base = Array.from({ length: 40 }, (_, i) => `line ${i + 1}\n`).join('');
  const edits = [5, 20, 35].map((n) => ({ old: `line ${n}\n`, new: `LINE ${n}\n` }));
  const request: ToolCallRequest = { tool: 'edit_file', args: JSON.stringify({ path: 'three.txt', edits }) };

  before(() => initShellParser());

  it('writes the base with only the accepted hunks and tells the model about the rejected one, with its reason', async () => {
    const files = new MemoryFiles({ '/ws/three.txt': base });
    const { run } = setup({}, files);
    const result = await run(request, { action: 'allow-once', hunks: [{ index: 1, accepted: false, reason: 'keep 20' }] });
    assert.equal(files.files.get('/ws/three.txt'), base.replace('line 5\n', 'LINE 5\n').replace('line 35\n', 'LINE 35\n'));
    assert.match(result.output, /^Updated three\.txt\.\n/);
    assert.match(result.output, /Hunk 2 rejected: line 20 \(originally line 20\)\. Reason: keep 20/);
    assert.match(result.output, /Not written:\n```\nLINE 20\n```/);
    assert.equal(result.decision?.verdict === 'allow' && result.decision.reason, 'allowed once by the person: 2 of 3 hunks');
  });

  it('writes everything when every hunk is accepted (no hunk report)', async () => {
    const files = new MemoryFiles({ '/ws/three.txt': base });
    const { run } = setup({}, files);
    const result = await run(request, { action: 'allow-once', hunks: [{ index: 0, accepted: true }] });
    assert.equal(result.output, 'Updated three.txt.');
    assert.equal(files.files.get('/ws/three.txt'), base.replace(/line (5|20|35)\n/g, 'LINE $1\n'));
  });

  const refused: { name: string; choice: Parameters<ReturnType<typeof setup>['gate']['settle']>[1]; error: RegExp }[] = [
    { name: 'every hunk rejected', choice: { action: 'allow-once', hunks: [0, 1, 2].map((index) => ({ index, accepted: false })) }, error: /every hunk was rejected; deny the call instead/ },
    { name: 'a hunk that was not shown', choice: { action: 'allow-once', hunks: [{ index: 3, accepted: false }] }, error: /3/ },
    { name: 'hunks with a session grant', choice: { action: 'allow-session', hunks: [{ index: 0, accepted: false }] }, error: /only with allow-once/ },
  ];
  for (const row of refused) {
    it(`refuses ${row.name}, and the call keeps waiting with nothing written`, async () => {
      const files = new MemoryFiles({ '/ws/three.txt': base });
      const { service, gate } = setup({}, files);
      const promise = service.runBatch([request], { chatId: 'chat' });
      const waiting = await waitFor(() => pendingViews(gate)[0]);
      const outcome = gate.settle(waiting, row.choice);
      assert.ok(!outcome.ok);
      assert.match(outcome.error, row.error);
      assert.equal(gate.waitingCount, 1);
      gate.settle(waiting, { action: 'deny' });
      await promise;
      assert.equal(files.files.get('/ws/three.txt'), base);
    });
  }

  it('refuses hunk decisions for a command', async () => {
    const { service, gate } = setup();
    const promise = service.runBatch([{ tool: 'run_in_terminal', args: '{"command":"make"}' }], { chatId: 'chat' });
    const waiting = await waitFor(() => pendingViews(gate)[0]);
    const outcome = gate.settle(waiting, { action: 'allow-once', hunks: [{ index: 0, accepted: false }] });
    assert.match(outcome.ok ? '' : outcome.error, /only a file's diff can be decided hunk by hunk/);
    gate.settle(waiting, { action: 'deny' });
    await promise;
  });
});

describe('a burst of calls', () => {
  /** Files that count how many snapshots are read at once (each takes a turn of the event loop). */
  class CountingFiles extends MemoryFiles {
    reading = 0;
    most = 0;
    override async snapshot(absolute: string): ReturnType<MemoryFiles['snapshot']> {
      this.reading += 1;
      this.most = Math.max(this.most, this.reading);
      try {
        await new Promise((resolve) => setImmediate(resolve));
        return await super.snapshot(absolute);
      } finally {
        this.reading -= 1;
      }
    }
  }

  it('is prepared a few calls at a time, so the extension host is never busy with all of them at once; every call still waits', async () => {
    const files = new CountingFiles();
    const { gate, service } = setup({}, files);
    const results = Array.from({ length: 40 }, (_, index) => service.requestApproval(write(`burst/f${index}.txt`, `${index}\n`), { chatId: 'api' }));
    await waitFor(() => (pendingViews(gate).length === 40 ? true : undefined));
    assert.ok(files.most <= 4, `at most 4 read at once, saw ${files.most}`);
    assert.ok(files.most >= 2, `calls are still prepared side by side, saw ${files.most}`);
    assert.equal(gate.settleAll(pendingViews(gate), { allow: false }).decided, 40);
    const outcomes = await Promise.all(results);
    assert.deepEqual(new Set(outcomes.map((outcome) => outcome.verdict)), new Set(['deny']));
    assert.equal(files.applied, 0);
  });
});

describe('host-held hunk choices: one live state for every view', () => {
  const base = Array.from({ length: 40 }, (_, i) => `line ${i + 1}\n`).join('');
  const edits = [5, 20, 35].map((n) => ({ old: `line ${n}\n`, new: `LINE ${n}\n` }));
  const request: ToolCallRequest = { tool: 'edit_file', args: JSON.stringify({ path: 'three.txt', edits }) };

  before(() => initShellParser());

  /** A waiting 3-hunk edit, with its view (as the panel and the chat get it). */
  async function waitingEdit() {
    const files = new MemoryFiles({ '/ws/three.txt': base });
    const context = setup({}, files);
    const promise = context.service.runBatch([request], { chatId: 'chat' });
    const waiting = await waitFor(() => pendingViews(context.gate)[0]);
    return { ...context, files, promise, waiting };
  }

  it('publishes every hunk accepted to start with, then each choice to the panel and the chat alike, with its reason', async () => {
    const { gate, waiting, promise } = await waitingEdit();
    assert.deepEqual(waiting.hunkChoices, [0, 1, 2].map(() => ({ accepted: true, reason: '' })));
    let changes = 0;
    gate.onDidChange(() => changes++);
    assert.deepEqual(gate.chooseHunk(waiting, 1, false, 'keep 20'), { ok: true });
    assert.deepEqual(gate.chooseHunk(waiting, 1, false, 'keep 20'), { ok: true });
    assert.equal(changes, 1, 'the same choice again changes nothing');
    for (const views of [pendingViews(gate), pendingViews(gate, 'chat')]) {
      assert.deepEqual(views[0]?.hunkChoices, [{ accepted: true, reason: '' }, { accepted: false, reason: 'keep 20' }, { accepted: true, reason: '' }]);
    }
    gate.settle(waiting, { action: 'deny' });
    await promise;
  });

  it('hands the views the same object for a waiting call until its choices change (views tell a changed call by its object)', async () => {
    const { gate, waiting, promise } = await waitingEdit();
    assert.equal(pendingViews(gate)[0], pendingViews(gate)[0], 'nothing changed: the same view');
    gate.chooseHunk(waiting, 0, false, 'no');
    const changed = pendingViews(gate)[0];
    assert.notEqual(changed, waiting, 'a choice made: a new view');
    assert.deepEqual(changed?.hunkChoices?.[0], { accepted: false, reason: 'no' });
    assert.equal(pendingViews(gate)[0], changed);
    gate.chooseHunk(waiting, 0, false, 'no');
    assert.equal(pendingViews(gate)[0], changed, 'the same choice again: still the same view');
    gate.settle(waiting, { action: 'deny' });
    await promise;
  });

  it('allow-once without hunks of its own settles with the held choices: the file holds the accepted two, the model is told the third', async () => {
    const { gate, waiting, promise, files } = await waitingEdit();
    gate.chooseHunk(waiting, 2, false);
    gate.chooseHunk(waiting, 2, false, 'not 35');
    assert.deepEqual(gate.settle(waiting, { action: 'allow-once' }), { ok: true });
    const [result] = await promise;
    assert.equal(files.files.get('/ws/three.txt'), base.replace('line 5\n', 'LINE 5\n').replace('line 20\n', 'LINE 20\n'));
    assert.match(result?.output ?? '', /Hunk 3 rejected: line 35 \(originally line 35\)\. Reason: not 35/);
    assert.equal(result?.decision?.reason, 'allowed once by the person: 2 of 3 hunks');
  });

  it('a hunk accepted again is written, and its reason is kept for a later reject', async () => {
    const { gate, waiting, promise, files } = await waitingEdit();
    gate.chooseHunk(waiting, 0, false, 'no');
    gate.chooseHunk(waiting, 0, true);
    assert.deepEqual(pendingViews(gate)[0]?.hunkChoices?.[0], { accepted: true, reason: 'no' });
    gate.settle(waiting, { action: 'allow-once' });
    const [result] = await promise;
    assert.equal(result?.output, 'Updated three.txt.');
    assert.equal(files.files.get('/ws/three.txt'), base.replace(/line (5|20|35)\n/g, 'LINE $1\n'));
  });

  const refusedSettles: { name: string; reject: number[]; choice: Parameters<ReturnType<typeof setup>['gate']['settle']>[1]; error: RegExp }[] = [
    { name: 'allow-once with every hunk rejected', reject: [0, 1, 2], choice: { action: 'allow-once' }, error: /every hunk was rejected; deny the call instead/ },
    { name: 'a session grant while a hunk is rejected', reject: [1], choice: { action: 'allow-session' }, error: /A grant allows the whole change: with hunks rejected, allow once/ },
    { name: 'a workspace grant while a hunk is rejected', reject: [0], choice: { action: 'allow-workspace' }, error: /A grant allows the whole change: with hunks rejected, allow once/ },
  ];
  for (const row of refusedSettles) {
    it(`refuses ${row.name}; the call keeps waiting and nothing is written`, async () => {
      const { gate, waiting, promise, files } = await waitingEdit();
      for (const index of row.reject) {
        gate.chooseHunk(waiting, index, false);
      }
      const outcome = gate.settle(waiting, row.choice);
      assert.match(outcome.ok ? '' : outcome.error, row.error);
      assert.equal(gate.waitingCount, 1);
      gate.settle(waiting, { action: 'deny' });
      await promise;
      assert.equal(files.files.get('/ws/three.txt'), base);
    });
  }

  it('Allow all settles each call with its held choices, and refuses one whose hunks are all rejected', async () => {
    const { gate, waiting, promise, files } = await waitingEdit();
    gate.chooseHunk(waiting, 0, false);
    assert.deepEqual(gate.settleAll([waiting], { allow: true }), { decided: 1, errors: [] });
    await promise;
    assert.equal(files.files.get('/ws/three.txt'), base.replace('line 20\n', 'LINE 20\n').replace('line 35\n', 'LINE 35\n'));
  });

  const forged: { name: string; ref: (view: { callId: string; argsHash: string }) => { callId: string; argsHash: string }; index: number; error: RegExp }[] = [
    { name: 'an unknown call', ref: (view) => ({ ...view, callId: 'c-nope' }), index: 0, error: /c-nope is not waiting/ },
    { name: 'a stale hash', ref: (view) => ({ ...view, argsHash: 'f'.repeat(64) }), index: 0, error: /hash does not match/ },
    { name: 'an index past the last hunk', ref: (view) => view, index: 3, error: /no hunk 3, the diff has 3/ },
    { name: 'a fractional index', ref: (view) => view, index: 0.5, error: /no hunk 0\.5/ },
  ];
  for (const row of forged) {
    it(`ignores a hunk choice for ${row.name}, and the held state is unchanged`, async () => {
      const { gate, waiting, promise } = await waitingEdit();
      const outcome = gate.chooseHunk(row.ref(waiting), row.index, false);
      assert.match(outcome.ok ? '' : outcome.error, row.error);
      assert.ok(pendingViews(gate)[0]?.hunkChoices?.every((choice) => choice.accepted));
      gate.settle(waiting, { action: 'deny' });
      await promise;
    });
  }

  it('ignores hunk choices for a command (no diff), and for a call once it is settled', async () => {
    const { service, gate } = setup();
    const promise = service.runBatch([{ tool: 'run_in_terminal', args: '{"command":"make"}' }], { chatId: 'chat' });
    const waiting = await waitFor(() => pendingViews(gate)[0]);
    assert.equal(waiting.hunkChoices, undefined);
    assert.match(((outcome) => (outcome.ok ? '' : outcome.error))(gate.chooseHunk(waiting, 0, false)), /has no diff waiting to be decided hunk by hunk/);
    gate.settle(waiting, { action: 'deny' });
    await promise;
    assert.match(((outcome) => (outcome.ok ? '' : outcome.error))(gate.chooseHunk(waiting, 0, false)), /is not waiting/);
  });
});

describe('a write that would change nothing', () => {
  const rows: { name: string; request: ToolCallRequest }[] = [
    { name: 'write_file with the same content', request: { tool: 'write_file', args: JSON.stringify({ path: 'a.txt', content: 'one\ntwo\n' }) } },
    { name: 'edit_file whose new text equals the old', request: { tool: 'edit_file', args: JSON.stringify({ path: 'a.txt', edits: [{ old: 'two', new: 'two' }] }) } },
  ];
  for (const row of rows) {
    it(`${row.name}: answers "no change" without asking, writing or logging`, async () => {
      const { run, gate, files, entries, audit } = setup();
      const result = await run(row.request);
      assert.deepEqual(result, { ok: true, output: 'No change: a.txt already has exactly this content, so nothing was asked or written.' });
      assert.equal(gate.waitingCount, 0);
      assert.equal(files.applied, 0);
      await audit.flush();
      assert.deepEqual(entries, []);
    });
  }

  it('still asks for a write that creates an empty file', async () => {
    const { service, gate } = setup();
    const promise = service.runBatch([{ tool: 'write_file', args: JSON.stringify({ path: 'empty.txt', content: '' }) }], { chatId: 'chat' });
    const waiting = await waitFor(() => pendingViews(gate)[0]);
    gate.settle(waiting, { action: 'deny' });
    await promise;
  });
});
