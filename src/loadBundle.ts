/**
 * Loads one of Toolgate's CommonJS bundles as `require` would, but compiled with V8's code cache, kept per bundle and
 * per V8 version in a folder of the extension's own storage (which no sandboxed command can read or write): what
 * compiling `dist/toolgate.js` costs on every window's first use (about 50 ms of 600 KB) is paid once.
 *
 * Written here because no library does it for one file: Node's `module.enableCompileCache()` and `v8-compile-cache`
 * turn it on for every module the process loads, and the extension host is shared with every other extension.
 * Anything that goes wrong with the cache (missing, stale, rejected by V8, a folder that cannot be written) costs only
 * the speed: the bundle is compiled from its source as usual.
 */
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Module } from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';

/** What became of the code cache: used, made for the first time, refused by V8 (remade), or not kept at all. */
export type CodeCacheUse = 'used' | 'made' | 'rejected' | 'off';

export interface LoadedBundle {
  exports: unknown;
  cache: CodeCacheUse;
  /**
   * Writes the code cache of what has been compiled so far (the bundle's top level and every function run since), when
   * there was none or V8 refused it. Called once the bundle has done its first work, so that work is cached too.
   */
  keepCodeCache(): void;
}

/** The `module` object Node's loader makes, with the members this loader sets (absent from @types/node's class). */
interface NodeModule {
  exports: unknown;
  filename: string;
  paths: string[];
  loaded: boolean;
  require(id: string): unknown;
}
type ModuleClass = (new (id: string, parent?: unknown) => NodeModule) & { wrap(source: string): string; _nodeModulePaths(from: string): string[] };

const cachePrefix = 'code-';

/** The cache file of one bundle's source for this V8: V8 itself checks only the source's length, so its hash is in the name. */
export function codeCacheFile(cacheDir: string, bundle: string, source: string | Buffer): string {
  // The bytes as read: hashing the decoded text encoded all 600 KB of it again first (twice as slow).
  const digest = createHash('sha256').update(`${process.versions.v8}\0`).update(source).digest('hex').slice(0, 32);
  return path.join(cacheDir, `${cachePrefix}${path.basename(bundle, '.js')}-${digest}.bin`);
}

/**
 * Loads `bundle` (an absolute path) once, as Node's `require` would: its own `require` resolves from its folder, so
 * `vscode` and its lazy parts load as they always did. Without `cacheDir` it is compiled from source.
 */
export function loadBundle(bundle: string, cacheDir: string | undefined, parent?: unknown): LoadedBundle {
  const bytes = readFileSync(bundle);
  // The bundle is ASCII (the build checks it): read as one-byte text, which is ~6x faster than decoding UTF-8 and
  // keeps V8's string of it one byte a character. Anything else is decoded as UTF-8, as require would.
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  const cacheFile = cacheDir === undefined ? undefined : codeCacheFile(cacheDir, bundle, bytes);
  let cachedData: Buffer | undefined;
  if (cacheFile !== undefined) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
  }
  const NodeModuleClass = Module as unknown as ModuleClass;
  const script = new Script(NodeModuleClass.wrap(source), { filename: bundle, ...(cachedData !== undefined ? { cachedData } : {}) });
  const loaded = new NodeModuleClass(bundle, parent);
  loaded.filename = bundle;
  loaded.paths = NodeModuleClass._nodeModulePaths(path.dirname(bundle));
  const wrapper = script.runInThisContext() as (exports: unknown, require: (id: string) => unknown, module: NodeModule, filename: string, dirname: string) => void;
  wrapper.call(loaded.exports, loaded.exports, (id) => loaded.require(id), loaded, bundle, path.dirname(bundle));
  loaded.loaded = true;
  const cache: CodeCacheUse = cacheFile === undefined ? 'off' : cachedData === undefined ? 'made' : script.cachedDataRejected === true ? 'rejected' : 'used';
  let kept = cache === 'used' || cache === 'off';
  return {
    exports: loaded.exports,
    cache,
    keepCodeCache: () => {
      if (kept || cacheDir === undefined || cacheFile === undefined) {
        return;
      }
      kept = true;
      writeCodeCache(cacheDir, cacheFile, script.createCachedData());
    },
  };
}

/** Writes the cache whole (a temporary file renamed), then removes the caches of this bundle's other versions. */
function writeCodeCache(cacheDir: string, cacheFile: string, data: Buffer): void {
  try {
    mkdirSync(cacheDir, { recursive: true });
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(temporary, data);
    renameSync(temporary, cacheFile);
    const bundlePrefix = path.basename(cacheFile).replace(/-[0-9a-f]+\.bin$/, '-');
    for (const name of readdirSync(cacheDir)) {
      if (name.startsWith(bundlePrefix) && name !== path.basename(cacheFile)) {
        rmSync(path.join(cacheDir, name), { force: true });
      }
    }
  } catch {
    // Only the next start's speed is lost.
  }
}
