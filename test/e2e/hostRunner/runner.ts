/**
 * A helper extension installed beside Toolgate by the e2e bench. When TOOLGATE_HOST_TESTS_RESULT names a file, it
 * runs the integration tests (bundled as hostTests.js next to it) with mocha inside this real extension host, where
 * `vscode` is the real API, and writes the results there as JSON for the harness to read.
 */
import { Session } from 'node:inspector';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type Mocha from 'mocha';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as vscode from 'vscode';

interface HostTestResult {
  passes: string[];
  failures: { title: string; error: string }[];
  pending: string[];
  durationMs: number;
}

export function activate(context: vscode.ExtensionContext): void {
  const controlFile = process.env['TOOLGATE_HOST_CONTROL'];
  if (controlFile) {
    void startControl(controlFile, context);
    return;
  }
  const benchFile = process.env['TOOLGATE_HOST_BENCH_RESULT'];
  if (benchFile) {
    void measureActivation(benchFile);
    return;
  }
  const resultFile = process.env['TOOLGATE_HOST_TESTS_RESULT'];
  const repoRoot = process.env['TOOLGATE_REPO_ROOT'];
  if (!resultFile || !repoRoot) {
    return;
  }
  const started = Date.now();
  const result: HostTestResult = { passes: [], failures: [], pending: [], durationMs: 0 };
  const write = (): void => {
    result.durationMs = Date.now() - started;
    writeFileSync(`${resultFile}.tmp`, JSON.stringify(result, null, 2));
    renameSync(`${resultFile}.tmp`, resultFile);
  };
  try {
    // mocha comes from the repository's own node_modules; the extension folder holds only the bundles.
    const requireFromRepo = createRequire(path.join(repoRoot, 'package.json'));
    const MochaCtor = requireFromRepo('mocha') as typeof Mocha;
    const mocha = new MochaCtor({ ui: 'bdd', timeout: 60_000, color: false });
    mocha.suite.emit('pre-require', globalThis, 'hostTests.js', mocha);
    createRequire(__filename)(path.join(__dirname, 'hostTests.js'));
    const runner = mocha.run(() => write());
    runner.on('pass', (test) => result.passes.push(test.fullTitle()));
    runner.on('fail', (test, error: unknown) =>
      result.failures.push({
        title: test.fullTitle(),
        error: error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error),
      }),
    );
    runner.on('pending', (test) => result.pending.push(test.fullTitle()));
  } catch (error) {
    result.failures.push({ title: '(host test runner)', error: error instanceof Error ? error.stack ?? error.message : String(error) });
    write();
  }
}

/**
 * Cold activation, measured where it happens: loading the bundle and running activate() in this extension host.
 * The empty baseline extension is measured the same way first, so the figure can be read as a ratio.
 */
async function measureActivation(resultFile: string): Promise<void> {
  // Let the window finish starting (built-in extensions activating, the workbench restoring) before timing anything.
  // This and the pause after each activation below are the benchmark's settle times, not stand-ins for an event:
  // nothing says when an extension host has gone quiet.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const timings: Record<string, number | string> = {};
  const ids = ['toolgate-bench.empty', 'toolgate.toolgate'];
  for (const id of process.env['TOOLGATE_HOST_BENCH_ORDER'] === 'toolgate-first' ? ids.reverse() : ids) {
    const extension = vscode.extensions.getExtension(id);
    if (!extension) {
      timings[id] = 'not installed';
      continue;
    }
    if (extension.isActive) {
      timings[id] = 'already active';
      continue;
    }
    const started = performance.now();
    await extension.activate();
    timings[id] = performance.now() - started;
    // What the host does once an extension is active must not be counted against the next one.
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  // What activation leaves for later must not make the first answers slow: the first gate decision, then the first
  // command analysis (which loads the shell parser), then a second one for comparison.
  const toolgate = vscode.extensions.getExtension<ToolgateApi>('toolgate.toolgate');
  if (toolgate?.isActive === true) {
    const timed = async (name: string, call: { tool: string; args: unknown }): Promise<void> => {
      const started = performance.now();
      await toolgate.exports.evaluate(call);
      timings[name] = performance.now() - started;
    };
    // TOOLGATE_BENCH_PROFILE=<folder>: a CPU profile of this extension host while it answers the first gate decision.
    const profileDir = process.env['TOOLGATE_HOST_BENCH_PROFILE'];
    if (profileDir !== undefined) {
      await profile({ action: 'start' });
    }
    await timed('first gate decision', { tool: 'write_file', args: { path: 'bench.txt', content: 'x' } });
    if (profileDir !== undefined) {
      await profile({ action: 'stop', file: path.join(profileDir, `first-gate-decision-${Date.now()}.cpuprofile`) });
    }
    await timed('first command analysis', { tool: 'run_in_terminal', args: { command: 'git status && ls -la | wc -l' } });
    await timed('next command analysis', { tool: 'run_in_terminal', args: { command: 'npm test -- --grep x; echo done' } });
  }
  // Written whole, then renamed: the harness polls for the file and must never read half of it.
  writeFileSync(`${resultFile}.tmp`, JSON.stringify(timings));
  renameSync(`${resultFile}.tmp`, resultFile);
}

interface ToolgateApi {
  invokeTool(call: { tool: string; args: unknown; source?: string }): Promise<unknown>;
  requestApproval(call: { tool: string; args: unknown; source?: string }): Promise<unknown>;
  evaluate(call: { tool: string; args: unknown; source?: string }): Promise<unknown>;
  mcpEndpoint(): Promise<{ url: string; headers: Record<string, string> }>;
}

async function body(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/**
 * Control mode for the e2e suite: Toolgate's exported API and a few editor actions over HTTP on a loopback port
 * (written to `controlFile`), so a test in the browser can start a call and then answer it in the real panel.
 */
async function startControl(controlFile: string, context: vscode.ExtensionContext): Promise<void> {
  const extension = vscode.extensions.getExtension<ToolgateApi>('toolgate.toolgate');
  if (!extension) {
    throw new Error('toolgate.toolgate is not installed');
  }
  const api = await extension.activate();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  // The extension host's event-loop delay, for the burst bench: started, then read (max and p99, in ms).
  let lag: ReturnType<typeof monitorEventLoopDelay> | undefined;
  let gcs: PerformanceObserver | undefined;
  let gcPauses: number[] = [];
  const routes: Record<string, (input: Record<string, unknown>) => Promise<unknown>> = {
    '/lag': (input) => {
      if (input['action'] === 'start') {
        lag?.disable();
        gcs?.disconnect();
        lag = monitorEventLoopDelay({ resolution: 10 });
        lag.enable();
        // Garbage collection pauses meanwhile, to tell our own work from the collector's in the delay.
        gcPauses = [];
        gcs = new PerformanceObserver((list) => gcPauses.push(...list.getEntries().map((entry) => entry.duration)));
        gcs.observe({ entryTypes: ['gc'] });
        return Promise.resolve(null);
      }
      lag?.disable();
      gcs?.disconnect();
      const read = lag
        ? { maxMs: lag.max / 1e6, p99Ms: lag.percentile(99) / 1e6, gcMaxMs: Math.max(0, ...gcPauses), gcTotalMs: gcPauses.reduce((sum, ms) => sum + ms, 0), heapMb: process.memoryUsage().heapUsed / 2 ** 20 }
        : null;
      lag = undefined;
      gcs = undefined;
      return Promise.resolve(read);
    },
    // A CPU profile of this extension host (Toolgate included), for finding where a bench's time goes: started, then
    // written as a .cpuprofile to the file named (Chrome DevTools opens it).
    '/profile': (input) => profile(input),
    '/invoke': (input) => api.invokeTool(input as { tool: string; args: unknown }),
    '/approval': (input) => api.requestApproval(input as { tool: string; args: unknown }),
    '/evaluate': (input) => api.evaluate(input as { tool: string; args: unknown }),
    // Another extension's mistakes: each input of the table (null, a function, a cycle, a 10,000-deep value…, built
    // here, as none of them crosses JSON) handed to the API's three methods; how each settled, and its answer.
    '/badCalls': async () => {
      const { badCalls } = await import('../../fixtures/badCalls');
      const answers: { name: string; method: string; settled: 'resolved' | 'rejected'; answer: unknown; expected: string }[] = [];
      for (const row of badCalls()) {
        for (const method of ['evaluate', 'requestApproval', 'invokeTool'] as const) {
          try {
            answers.push({ name: row.name, method, settled: 'resolved', answer: await api[method](row.input as { tool: string; args: unknown }), expected: row.error.source });
          } catch (error) {
            answers.push({ name: row.name, method, settled: 'rejected', answer: error instanceof Error ? `${error.name}: ${error.message}` : String(error), expected: row.error.source });
          }
        }
      }
      return answers;
    },
    // Where MCP clients reach the gate (the API's mcpEndpoint(): URL and header).
    '/mcpEndpoint': () => api.mcpEndpoint(),
    // Another extension using VS Code's language-model tool API, as Copilot agent mode does: the tools it sees, and a call.
    // Toolgate's own (`toolgate_…`), or with `all`, every tool VS Code offers (MCP servers' included).
    '/lmTools': (input) => Promise.resolve(vscode.lm.tools.filter((tool) => input['all'] === true || tool.name.startsWith('toolgate_')).map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema ?? null, tags: tool.tags }))),
    '/lmInvoke': async (input) => {
      const source = new vscode.CancellationTokenSource();
      const cancelAfterMs = Number(input['cancelAfterMs'] ?? 0);
      const timer = cancelAfterMs > 0 ? setTimeout(() => source.cancel(), cancelAfterMs) : undefined;
      try {
        const result = await vscode.lm.invokeTool(String(input['name']), { input: input['input'] as object, toolInvocationToken: undefined }, source.token);
        return { text: result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('') };
      } finally {
        clearTimeout(timer);
        source.dispose();
      }
    },
    '/command': async (input) =>
      (await vscode.commands.executeCommand(String(input['command']), ...((input['args'] as unknown[] | undefined) ?? []))) ?? null,
    // Types into an open editor without saving, to test that edits of dirty documents stay in the buffer.
    '/typeUnsaved': async (input) => {
      if (!folder) {
        throw new Error('no workspace folder');
      }
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder, String(input['path'])));
      await vscode.window.showTextDocument(doc, { preview: false });
      const edit = new vscode.WorkspaceEdit();
      edit.insert(doc.uri, new vscode.Position(0, 0), String(input['text']));
      await vscode.workspace.applyEdit(edit);
      return { dirty: doc.isDirty, text: doc.getText() };
    },
    '/documentText': async (input) => {
      if (!folder) {
        throw new Error('no workspace folder');
      }
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder, String(input['path'])));
      return { dirty: doc.isDirty, text: doc.getText() };
    },
    // The active editor's document: what a command opened for the person (a call's whole arguments).
    '/activeEditor': () => {
      const document = vscode.window.activeTextEditor?.document;
      return Promise.resolve(document ? { uri: document.uri.toString(), text: document.getText(), language: document.languageId } : null);
    },
    // The names of the open terminals, to count Toolgate's terminals per chat.
    '/terminals': () => Promise.resolve(vscode.window.terminals.map((terminal) => terminal.name)),
    // What VS Code itself takes from an extension's post to a webview's next frame, for the paint bench's floor.
    '/webviewFloor': (input) => webviewFloor(Number(input['runs'] ?? 5), Number(input['rows'] ?? 0)),
    '/undo': async () => {
      await vscode.commands.executeCommand('undo');
      return null;
    },
  };
  const server = createServer((request, response) => {
    const route = routes[request.url ?? ''];
    if (!route || request.method !== 'POST') {
      response.writeHead(404).end();
      return;
    }
    body(request)
      .then((input) => route(input))
      .then(
        (result) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result: result ?? null })),
        (error: unknown) =>
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error: String(error) })),
      );
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address && typeof address === 'object') {
      writeFileSync(`${controlFile}.tmp`, String(address.port));
      renameSync(`${controlFile}.tmp`, controlFile);
    }
  });
  context.subscriptions.push({ dispose: () => server.close() });
}

export function deactivate(): void {}

let profiler: Session | undefined;

function post(session: Session, method: string, params?: object): Promise<unknown> {
  return new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
}

async function profile(input: Record<string, unknown>): Promise<unknown> {
  if (input['action'] === 'start') {
    profiler?.disconnect();
    profiler = new Session();
    profiler.connect();
    await post(profiler, 'Profiler.enable');
    await post(profiler, 'Profiler.setSamplingInterval', { interval: 200 });
    await post(profiler, 'Profiler.start');
    return null;
  }
  if (!profiler) {
    return null;
  }
  const { profile: result } = (await post(profiler, 'Profiler.stop')) as { profile: unknown };
  profiler.disconnect();
  profiler = undefined;
  writeFileSync(String(input['file']), JSON.stringify(result));
  return null;
}

/**
 * The floor under any webview's paint here: a page that only writes a number is sent it `runs` times (after one to
 * warm up), each timed as Toolgate's panel times a state (host post -> message handler -> the frame after); medians.
 * `rows`: the message also carries that many diff rows (as Toolgate's do), which the page does not draw.
 */
async function webviewFloor(runs: number, rows: number): Promise<{ transportMs: number; paintMs: number }> {
  const panel = vscode.window.createWebviewPanel('toolgateBenchFloor', 'Floor', vscode.ViewColumn.Active, { enableScripts: true });
  panel.webview.html = `<!DOCTYPE html><html><body><main id="probe">0</main><script>
    const vscode = acquireVsCodeApi();
    const probe = document.getElementById('probe');
    window.addEventListener('message', (event) => {
      const receivedAt = Date.now();
      const { n, sentAt } = event.data;
      probe.textContent = String(n);
      requestAnimationFrame(() => setTimeout(() => vscode.postMessage({ n, transportMs: receivedAt - sentAt, paintMs: Date.now() - sentAt }), 0));
    });
    vscode.postMessage({ ready: true });
  </script></body></html>`;
  const replies: { n?: number; ready?: boolean; transportMs?: number; paintMs?: number }[] = [];
  let wake: (() => void) | undefined;
  const listener = panel.webview.onDidReceiveMessage((message: (typeof replies)[number]) => {
    replies.push(message);
    wake?.();
  });
  const next = async (match: (reply: (typeof replies)[number]) => boolean): Promise<(typeof replies)[number]> => {
    for (;;) {
      const found = replies.find(match);
      if (found) {
        return found;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  try {
    await next((reply) => reply.ready === true);
    const samples: { transportMs: number; paintMs: number }[] = [];
    for (let n = 0; n <= runs; n++) {
      const payload = Array.from({ length: rows }, (_, row) => ['c', row + 1, row + 1, `  const line${row} = compute(value${row}, ${row});`]);
      void panel.webview.postMessage({ n, sentAt: Date.now(), payload });
      const reply = await next((found) => found.n === n);
      if (n > 0) {
        samples.push({ transportMs: reply.transportMs ?? 0, paintMs: reply.paintMs ?? 0 });
      }
    }
    const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    return { transportMs: median(samples.map((s) => s.transportMs)), paintMs: median(samples.map((s) => s.paintMs)) };
  } finally {
    listener.dispose();
    panel.dispose();
  }
}
