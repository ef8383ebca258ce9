/**
 * What the decide bench runs, bundled by esbuild with the extension's own options (bench/gate.ts): judge() is measured
 * as it ships, not through tsx's module wrappers (a getter per imported call, a name set on every closure it makes).
 */
export { callHash } from '../src/core/approval/hash';
export { PathResolver } from '../src/core/approval/paths';
export { judge } from '../src/core/approval/policy';
export { defaultGatedTools, defaultProtectedPaths } from '../src/core/settings';
export { initShellParser } from '../src/core/shell/analysis';
export { gateCall } from '../src/core/tools/gateCall';
export { locateUnder } from '../test/fixtures/memoryGate';
