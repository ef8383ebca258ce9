// Two bundles from one base: the extension host (node, cjs, `vscode` external) and the webviews (browser, esm).
// Type-checking is separate (`npm run check-types`). Flags: --watch, --production.
import * as esbuild from 'esbuild';
import { cp, mkdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {esbuild.BuildOptions} */
const base = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'info',
  define: { 'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development') },
};

/**
 * What activation does not need is loaded later, each part as its own bundle reached only through `import()`, so that
 * activation neither parses nor runs it (the build fails if something imports one statically):
 *   dist/extension.js         activation: registers the commands, returns the API
 *   dist/toolgate.js          the rest of Toolgate (src/vscode/toolgate.ts), loaded on first use by src/loadBundle.ts
 *                             (with V8's code cache), never imported
 *   dist/lazy/openai.js       the model client's package, on the first model request
 *   dist/lazy/mcp-sdk.js      the MCP SDK (with ajv and the protocol's schemas), when the first MCP server or the
 *                             MCP endpoint starts
 *   dist/lazy/tree-sitter.js  tree-sitter's runtime, when the first terminal command is analysed
 *   dist/lazy/iconv.js        iconv-lite's encodings, when the first file that is not UTF-8 is read or written
 *   dist/lazy/seatbelt.js     @anthropic-ai/sandbox-runtime's Seatbelt profile builder (src/core/sandbox/seatbelt.ts),
 *                             when the macOS sandbox is first probed or the sandbox policy is shown
 *   dist/lazy/otlp.js         the OpenTelemetry SDK and OTLP exporters (src/core/audit/export/otlpSdk.ts), only once an
 *                             audit export is configured
 */
const splitPoints = [
  { out: 'toolgate', specifier: './vscode/toolgate', importer: /src[\\/]extension\.ts$/, entry: 'src/vscode/toolgate.ts' },
  { out: 'lazy/openai', specifier: 'openai', entry: 'openai' },
  { out: 'lazy/mcp-sdk', specifier: /^(\.\/|\.\.\/mcp\/)sdk$/, importer: /src[\\/]core[\\/](mcp[\\/]connection|endpoint[\\/]mcpEndpoint)\.ts$/, entry: 'src/core/mcp/sdk.ts' },
  { out: 'lazy/tree-sitter', specifier: '@vscode/tree-sitter-wasm', entry: '@vscode/tree-sitter-wasm' },
  { out: 'lazy/iconv', specifier: 'iconv-lite', entry: 'iconv-lite' },
  { out: 'lazy/seatbelt', specifier: '@anthropic-ai/sandbox-runtime/dist/sandbox/macos-sandbox-utils.js', entry: '@anthropic-ai/sandbox-runtime/dist/sandbox/macos-sandbox-utils.js' },
  { out: 'lazy/otlp', specifier: './otlpSdk', importer: /src[\\/]core[\\/]audit[\\/]export[\\/]auditExport\.ts$/, entry: 'src/core/audit/export/otlpSdk.ts' },
];
// Only the bundles directly in dist/ import others, so every path is relative to dist/.
const splitPath = (point) => `./${point.out}.js`;

/** @type {esbuild.Plugin} */
const splitImports = {
  name: 'split-points',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') {
        return undefined;
      }
      const point = splitPoints.find(
        (candidate) =>
          (typeof candidate.specifier === 'string' ? candidate.specifier === args.path : candidate.specifier.test(args.path)) &&
          (candidate.importer === undefined || candidate.importer.test(args.importer)),
      );
      return point === undefined ? undefined : { path: splitPath(point), external: true };
    });
  },
};

const node = {
  ...base,
  outdir: 'dist',
  platform: 'node',
  format: 'cjs',
  // The extension host of VS Code 1.101+ (engines.vscode) runs Node 22 or newer, which openai 7 needs.
  target: 'node22',
  external: ['vscode'],
  mainFields: ['module', 'main'],
};

/**
 * One copy of a much-imported external module per bundle. esbuild gives every file that imports `vscode` (or
 * `node:path`, `node:os`) as a namespace or a default its own copy of the module object, a getter per export: 39 copies
 * of VS Code's API (and 50 of node:path) made ~5 ms of Toolgate's first start. Each import of these is resolved to one
 * module per bundle that re-exports the real one once; what the sources say (`import * as vscode from 'vscode'`) is
 * unchanged.
 */
/** @type {esbuild.Plugin} */
const sharedExternals = {
  name: 'shared-externals',
  setup(build) {
    build.onResolve({ filter: /^(vscode|node:path|node:os)$/ }, (args) =>
      args.namespace === 'shared-external' ? { path: args.path, external: true } : { path: args.path, namespace: 'shared-external' },
    );
    build.onLoad({ filter: /.*/, namespace: 'shared-external' }, (args) => {
      const name = JSON.stringify(args.path);
      // VS Code's API has no default export; node's modules are imported by their default too (`import path from`).
      return { contents: args.path === 'vscode' ? `export * from ${name};` : `import module from ${name}; export default module; export * from ${name};`, loader: 'js' };
    });
  },
};

/** Toolgate's own bundles: the entry and the host, each importing the next parts with import(). */
/** @type {esbuild.BuildOptions} */
const host = {
  ...node,
  entryPoints: Object.fromEntries([['extension', 'src/extension.ts'], ...splitPoints.filter((point) => point.out === 'toolgate').map((point) => [point.out, point.entry])]),
  plugins: [splitImports, sharedExternals],
  // `import()` of another bundle becomes a deferred require(), as for bundled modules: one module system throughout.
  supported: { 'dynamic-import': false },
  metafile: true,
};

/** The packages loaded on first use, each bundled whole; their own import() stays native (tree-sitter needs it). */
/** @type {esbuild.BuildOptions} */
const lazy = {
  ...node,
  entryPoints: {
    ...Object.fromEntries(splitPoints.filter((point) => point.out !== 'toolgate').map((point) => [point.out, point.entry])),
    // What stdio MCP servers are started through (src/core/mcp/watchdog.ts): a process of its own, never imported.
    mcpWatchdog: 'src/core/mcp/watchdog.ts',
  },
};

/**
 * Modules of the host bundle built at their first `require()` rather than as it loads (src/core/protocolSchemas.ts
 * says why); they may import each other.
 */
const builtOnFirstUse = ['src/shared/messages.ts', 'src/shared/approvals.ts', 'src/shared/suggestions.ts', 'src/shared/modelSetup.ts'];

/**
 * What is loaded later must be reached only the later way: a split point by `import()`, a module built on first use by
 * `require()`. Any other import would load it with its importer, so the build fails, naming each one.
 */
function checkLaterImports(result) {
  const later = [
    { reached: (item) => splitPoints.some((point) => splitPath(point) === item.path), way: 'dynamic-import', fix: 'Use import() where it is needed.' },
    { reached: (item, file) => builtOnFirstUse.includes(item.path) && !builtOnFirstUse.includes(file), way: 'require-call', fix: 'Reach it through src/core/protocolSchemas.ts, or import only its types.' },
  ];
  const eager = Object.entries(result.metafile?.inputs ?? {}).flatMap(([file, input]) =>
    later.flatMap(({ reached, way, fix }) =>
      input.imports.filter((item) => reached(item, file) && item.kind !== way).map((item) => `${file} imports ${item.path} (${item.kind}). ${fix}`),
    ),
  );
  if (eager.length > 0) {
    console.error(`A bundle would load at once what it should load later: ${eager.join('; ')}`);
    process.exit(1);
  }
}

/**
 * Toolgate's bundle is ASCII, so src/loadBundle.ts reads it as one-byte text (decoding 600 KB of UTF-8 cost ~1.5 ms of
 * each first start). esbuild escapes what is not ASCII in strings but not in a regular expression's literal.
 */
async function checkAscii(file) {
  const bytes = await readFile(file);
  const at = bytes.findIndex((byte) => byte > 0x7f);
  if (at !== -1) {
    console.error(`${file} holds a character that is not ASCII, near: ${JSON.stringify(bytes.subarray(Math.max(0, at - 40), at + 8).toString('utf8'))}. Write it as a \\u escape in the source.`);
    process.exit(1);
  }
}

/** @type {esbuild.BuildOptions} */
const webview = {
  ...base,
  entryPoints: { chat: 'webview/chat/main.ts', approvals: 'webview/approvals/main.ts', suggestions: 'webview/suggestions/main.ts' },
  outdir: 'dist/webview',
  platform: 'browser',
  format: 'esm',
  target: 'es2022',
  metafile: true,
};

/** The e2e bench's helper extension that runs mocha inside the real extension host. */
/** @type {esbuild.BuildOptions} */
const hostTests = {
  ...base,
  minify: false,
  entryPoints: {
    runner: 'test/e2e/hostRunner/runner.ts',
    hostTests: 'test/e2e/host/index.ts',
    desktopIndex: 'test/e2e/hostRunner/desktopIndex.ts',
  },
  outdir: 'dist-test/hostRunner',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode', 'mocha'],
};

/** Codicons ship as a stylesheet plus a font; copy both next to the webview bundle (node_modules is not packaged). */
async function copyStaticAssets() {
  const codicons = path.dirname(require.resolve('@vscode/codicons/dist/codicon.css'));
  await mkdir('dist/media/codicons', { recursive: true });
  await cp(path.join(codicons, 'codicon.css'), 'dist/media/codicons/codicon.css');
  await cp(path.join(codicons, 'codicon.ttf'), 'dist/media/codicons/codicon.ttf');
  // The shell parser (src/core/shell/parser.ts): tree-sitter's runtime and the bash grammar, next to extension.js.
  const treeSitter = path.dirname(require.resolve('@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm'));
  await cp(path.join(treeSitter, 'tree-sitter.wasm'), 'dist/tree-sitter.wasm');
  await cp(path.join(treeSitter, 'tree-sitter-bash.wasm'), 'dist/tree-sitter-bash.wasm');
}

await rm('dist', { recursive: true, force: true });
await rm('dist-test', { recursive: true, force: true });
await mkdir('dist-test/hostRunner', { recursive: true });
await cp('test/e2e/hostRunner/package.json', 'dist-test/hostRunner/package.json');
await copyStaticAssets();
const configs = [host, lazy, webview, hostTests];
if (watch) {
  const contexts = await Promise.all(configs.map((c) => esbuild.context(c)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('[watch] watching for changes');
} else {
  const [hostResult] = await Promise.all(configs.map((c) => esbuild.build(c)));
  checkLaterImports(hostResult);
  if (production) {
    // Only what ships: a build that is not minified keeps the comments of the sources and packages, which need not be.
    await checkAscii('dist/toolgate.js');
  }
}
