// Flat config, zero warnings allowed (`npm run lint` passes --max-warnings 0).
// It also enforces the house's import direction:
//   src/core and src/shared never import `vscode` or src/vscode; webview/ imports only src/shared (and npm packages,
//   and zod through src/zod.ts, as everything does); within the core, only src/core/views (and the modules listed
//   below) import the webview contract.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Toolgate's schemas use zod as src/zod.ts gives it: zod's small build with its English messages (the full build is four
// times the code, and it makes every schema slower to build; src/zod.ts says why). The MCP SDK's fixture server keeps
// the full build, which the SDK's own API takes.
const zodImport = {
  selector: "ImportDeclaration[source.value=/^zod(\\u002F|$)/]",
  message: 'Import zod from src/zod.ts (`import * as z from \'../zod\'`), which configures its messages.',
};
const zodNamespace = {
  selector: "ImportDeclaration[source.value=/(^|\\u002F)zod$/] > ImportSpecifier[imported.name='z']",
  message: "Use `import * as z from '../zod'`: the named `z` object defeats tree-shaking (all of zod in every bundle).",
};

// Loaded on first use, never at activation (esbuild.mjs bundles each as its own file): only `import type` or `import()`.
const lazyMessage = 'Activation must not load this: use `import type`, and `import()` where it is needed (see esbuild.mjs).';
const lazyPackages = {
  paths: [
    { name: 'openai', allowTypeImports: true, message: lazyMessage },
    { name: '@vscode/tree-sitter-wasm', allowTypeImports: true, message: lazyMessage },
  ],
  patterns: [
    {
      group: ['@modelcontextprotocol/sdk/*'],
      allowTypeImports: true,
      message: `${lazyMessage} The MCP SDK's values come from src/core/mcp/sdk.ts.`,
    },
    {
      group: ['@opentelemetry/*'],
      allowTypeImports: true,
      message: `${lazyMessage} The OpenTelemetry packages' values come from src/core/audit/export/otlpSdk.ts.`,
    },
  ],
};
const coreImports = {
  paths: [{ name: 'vscode', message: 'src/core and src/shared must not import vscode.' }],
  patterns: [{ group: ['**/vscode/**', '**/vscode', '../extension', '**/webview/**'], message: 'src/core and src/shared must not import src/vscode, the extension entry or the webview.' }],
};

// The webview contract (src/shared/approvals.ts: PendingCallView, GrantView, …) is spoken by src/core/views, which
// builds the views from the gate's waiting calls and grants; the rest of the core keeps its own types (src/core/views/
// contract.ts checks at compile time that they are the contract's). Modules that speak a contract on purpose:
//   src/core/views/**             the views of waiting calls, grants and notices (approvals, messages' ViewKind)
//   src/core/agent/agent.ts       a tool's decision note, which the chat's entry carries as it is (AllowedByView, GrantView)
//   src/core/agent/{session,chats,transcript}.ts   the chat transcript is the contract's ChatEntry (messages)
//   src/core/suggestions/view.ts  the suggestions view (shared/suggestions)
//   src/core/protocolSchemas.ts   the contract's schemas themselves, built on first use for the host
const contractSpeakers = ['src/core/views/**', 'src/core/agent/agent.ts', 'src/core/protocolSchemas.ts'];
const contractImports = {
  group: ['**/shared/approvals'],
  message: 'Only src/core/views builds the webview contract\'s views: use the core\'s own types (see src/core/views/contract.ts).',
};
// The gate, the policy and the grants speak no contract at all, and know nothing of the views drawn from them (who asks
// is src/core/callers.ts: made by the entry points, read by the grants, named for the cards by the views).
const approvalImports = {
  group: ['**/shared/*', '**/views/*'],
  message: 'src/core/approval speaks no webview contract and knows no view: its views are built in src/core/views.',
};
// The agent decides what is typed in the chat from the gate's waiting calls, never from the views of them.
const agentImports = {
  group: ['**/views/*'],
  message: "src/core/agent reads the gate's own state, not the views (src/core/views) built from it.",
};

// webview/ imports only src/shared (and npm packages, and src/zod.ts), and runs in a browser.
const webviewImports = {
  paths: [{ name: 'vscode', message: 'The webview cannot import vscode.' }],
  patterns: [
    {
      regex: '^(\\.\\./)+src/(?!shared/|zod$)',
      message: 'webview/ may import only src/shared (and zod as src/zod.ts configures it).',
    },
    { group: ['node:*'], message: 'The webview runs in a browser.' },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'dist-test/**', 'out/**', 'node_modules/**', 'artifacts/**', '.tmp/**', 'test/fixtures/workspaces/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.json', './webview/tsconfig.json', './test/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-restricted-exports': ['error', { restrictDefaultExports: { direct: true, named: true, defaultFrom: true, namedFrom: true, namespaceFrom: true } }],
      'no-restricted-syntax': ['error', zodImport, zodNamespace],
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      eqeqeq: ['error', 'always'],
      curly: ['error', 'all'],
    },
  },
  {
    files: ['src/vscode/**/*.ts', 'src/extension.ts'],
    rules: { 'no-restricted-imports': ['error', lazyPackages] },
  },
  {
    // src/vscode is wiring only: a file that grows past this holds a decision (it belongs in src/core) or a second idea
    // (it belongs in a file of its own). Every line counts, comments and blank lines too.
    files: ['src/vscode/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 250, skipBlankLines: false, skipComments: false }] },
  },
  {
    files: ['src/core/**/*.ts', 'src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [...coreImports.paths, ...lazyPackages.paths], patterns: [...coreImports.patterns, ...lazyPackages.patterns] },
      ],
    },
  },
  {
    // The one place the MCP SDK's values are imported statically; connection.ts imports this module with import().
    files: ['src/core/mcp/sdk.ts', 'src/core/audit/export/otlpSdk.ts'],
    rules: { 'no-restricted-imports': ['error', coreImports] },
  },
  {
    files: ['src/core/**/*.ts'],
    ignores: [...contractSpeakers, 'src/core/mcp/sdk.ts', 'src/core/audit/export/otlpSdk.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [...coreImports.paths, ...lazyPackages.paths], patterns: [...coreImports.patterns, ...lazyPackages.patterns, contractImports] },
      ],
    },
  },
  {
    files: ['src/core/approval/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [...coreImports.paths, ...lazyPackages.paths], patterns: [...coreImports.patterns, ...lazyPackages.patterns, contractImports, approvalImports] },
      ],
    },
  },
  {
    files: ['src/core/agent/**/*.ts'],
    ignores: contractSpeakers,
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [...coreImports.paths, ...lazyPackages.paths], patterns: [...coreImports.patterns, ...lazyPackages.patterns, contractImports, agentImports] },
      ],
    },
  },
  {
    files: ['src/core/agent/agent.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [...coreImports.paths, ...lazyPackages.paths], patterns: [...coreImports.patterns, ...lazyPackages.patterns, agentImports] }],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'src/shared must not import vscode.' }],
          // src/zod.ts is zod as every layer uses it, a leaf that imports nothing of Toolgate.
          patterns: [{ group: ['../*', '!./*', '!../zod'], message: 'src/shared is self-contained: it is bundled into the webview too.' }],
        },
      ],
    },
  },
  {
    files: ['webview/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', webviewImports] },
  },
  {
    // What both views show depends on neither view: no folder cycle between webview/shared and the views.
    files: ['webview/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...webviewImports,
          patterns: [
            ...webviewImports.patterns,
            { regex: '^\\.\\./(approvals|chat|suggestions)(/|$)', message: 'webview/shared imports no view: move what both views use into webview/shared.' },
          ],
        },
      ],
    },
  },
  {
    // The one import of zod itself; and the MCP SDK's fixture server, whose tools the SDK takes as zod's full build.
    files: ['src/zod.ts', 'test/fixtures/mcp/fixtureServer.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly', exports: 'writable', module: 'writable', require: 'readonly' },
    },
    // Tool configs (eslint, esbuild) are loaded through their default export.
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      'no-restricted-exports': 'off',
    },
  },
  {
    // CommonJS by necessity (a mocha reporter, a fixture extension).
    files: ['**/*.cjs', 'test/fixtures/**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
);
