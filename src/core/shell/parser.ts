/**
 * Loads the bash grammar (tree-sitter-bash, as shipped in `@vscode/tree-sitter-wasm`) once; after
 * `initShellParser()` resolves, `parseShell()` is synchronous. The two .wasm files (`tree-sitter.wasm`, the runtime,
 * and `tree-sitter-bash.wasm`, the grammar) are read from `wasmDir`: the extension passes its dist folder (esbuild
 * copies them there); tests and scripts default to the package in node_modules.
 */
import * as path from 'node:path';
import type * as TreeSitter from '@vscode/tree-sitter-wasm';

export type ShellNode = TreeSitter.Node;

let parser: TreeSitter.Parser | undefined;
let loading: Promise<void> | undefined;
let announceLoaded: () => void = () => undefined;
const parserLoaded = new Promise<void>((resolve) => {
  announceLoaded = resolve;
});

/** The folder holding `tree-sitter.wasm` and `tree-sitter-bash.wasm` inside node_modules. */
export function defaultWasmDir(): string {
  // Not a literal: bundlers must not try to resolve it (a bundled extension passes its own folder instead).
  const grammar: string = ['@vscode', 'tree-sitter-wasm', 'wasm', 'tree-sitter-bash.wasm'].join('/');
  return path.dirname(require.resolve(grammar));
}

/**
 * Loads the parser once; every analysis awaits this first, so an early caller waits instead of getting an answer the
 * parser would not give. Safe to call many times; a failed load can be retried.
 */
export function initShellParser(wasmDir?: string): Promise<void> {
  if (parser) {
    return Promise.resolve();
  }
  loading ??= (async () => {
    const dir = wasmDir ?? defaultWasmDir();
    // Loaded here, not at import: the extension bundles it as its own file (esbuild.mjs), so activation never loads it.
    // The package is CommonJS that Node's import() exposes only as `default` (the bundle has the names as well).
    const loaded: typeof TreeSitter & { default?: typeof TreeSitter } = await import('@vscode/tree-sitter-wasm');
    const { Parser, Language } = loaded.default ?? loaded;
    await Parser.init({ locateFile: (file: string) => path.join(dir, file) });
    const bash = await Language.load(path.join(dir, 'tree-sitter-bash.wasm'));
    const created = new Parser();
    created.setLanguage(bash);
    parser = created;
    announceLoaded();
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/**
 * Resolves once the parser has loaded, whoever loaded it. Unlike `initShellParser` it never starts the load: what can
 * wait for the parser (a warning about the settings) must not load it while the first gate decision is answered.
 */
export function whenShellParserLoaded(): Promise<void> {
  return parserLoaded;
}

/** Whether the parser is loaded, loading, or neither (for tests: the load is module state). */
export function shellParserState(): 'idle' | 'loading' | 'loaded' {
  return parser !== undefined ? 'loaded' : loading !== undefined ? 'loading' : 'idle';
}

/**
 * Parses `source` and hands the root node to `visit`; the tree is freed afterwards (it lives in WASM memory).
 * Throws when the parser is not initialised.
 */
export function withShellTree<T>(source: string, visit: (root: ShellNode) => T): T {
  if (!parser) {
    throw new Error('the shell parser is not initialised (call initShellParser first)');
  }
  const tree = parser.parse(source);
  if (!tree) {
    throw new Error('the shell parser returned no tree');
  }
  try {
    return visit(tree.rootNode);
  } finally {
    tree.delete();
  }
}
