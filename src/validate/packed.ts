/**
 * What the build packs (prebuild.mjs: one file per module in generated/packed/, which the build
 * copies to dist/lazy/validate/ beside the bundles), read on first use: the built-in schemas
 * (JSON, walked by validator.ts) and, compiled, the functionConfig validator. A run reads
 * only what its input needs, so the bundle's start stays close to node's own. The files are our
 * own build output, never input.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { type CompiledValidator, loadInstalled } from '../krm/index.js';
import { PACKED_NAMES, PACKED_SCHEMAS } from './generated/packed.js';
import { deepEqual, ucs2length } from './validator.js';

const packedNames = new Set(PACKED_NAMES);
const packedSchemas = new Set(PACKED_SCHEMAS);

/** Set by the build's code-cache run (scripts/code-cache.cjs): the scripts compiled, by the path of their cache. */
const CODE_CACHE_RUN = Symbol.for('baremetal-krm.code-cache-run');
/** Set by a bundle's launcher (scripts/build.mjs): its reader of install files. */
const READ_INSTALL_FILE = Symbol.for('baremetal-krm.read-install-file');

type ModuleFunction = (module: { exports: unknown }, exports: unknown, require: (id: string) => unknown) => void;

/**
 * Compiles a packed module with V8's code cache beside it (<name>.cjs.cache, made by the build's
 * code-cache run for the kinds it met) when there is one; V8 rejects a cache another node made,
 * and the source is then compiled as usual.
 */
function compileModule(path: string): ModuleFunction {
  // the source first: the cache's bytes are in the shared buffer until the next read
  const text = loadInstalled(() => readInstallFile(path).toString('latin1'));
  let cachedData: Buffer | undefined;
  try {
    cachedData = readInstallFile(`${path}.cache`);
  } catch {
    // no cache: compile
  }
  // V8 reads cachedData while compiling, before the next read reuses the launcher's buffer
  const script = new Script(`(function (module, exports, require) {${text}\n})`, {
    filename: `dist/lazy/validate/${basename(path)}`,
    cachedData,
  });
  (globalThis as { [CODE_CACHE_RUN]?: Map<string, Script> })[CODE_CACHE_RUN]?.set(`${path}.cache`, script);
  if (process.env.BAREMETAL_KRM_CODE_CACHE === 'report')
    process.stderr.write(
      `${basename(path)}: code cache ${cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'used'}\n`,
    );
  return script.runInThisContext() as ModuleFunction;
}

/**
 * The launcher's reader of install files (scripts/build.mjs): one buffer reused for every read, as
 * fresh memory costs a page fault per page; outside a bundle (tests), a plain read. The sources
 * are ASCII (esbuild writes them so), read as latin1.
 */
function readInstallFile(path: string): Buffer {
  const shared = (globalThis as { [READ_INSTALL_FILE]?: (path: string) => Buffer })[READ_INSTALL_FILE];
  return shared ? shared(path) : readFileSync(path);
}

/** Where the sources are: dist/lazy/validate beside a bundle (import.meta.url is '' there), else generated/packed. */
function packedPath(name: string, ext = '.cjs'): string {
  return import.meta.url
    ? fileURLToPath(new URL(`./generated/packed/${name}${ext}`, import.meta.url))
    : join(__dirname, 'lazy', 'validate', `${name}${ext}`);
}

/** ajv's runtime helpers that standalone validators `require` (prebuild.mjs checks the list). */
const HELPERS: Record<string, unknown> = {
  'ajv/dist/runtime/ucs2length': Object.assign(ucs2length, { default: ucs2length }),
  'ajv/dist/runtime/equal': Object.assign(deepEqual, { default: deepEqual }),
};

const cache = new Map<string, unknown>();

/** The module.exports of packed module `name` (compiled once), or undefined when there is none. */
export function unpack(name: string): unknown {
  if (cache.has(name)) return cache.get(name);
  if (!packedNames.has(name)) return undefined;
  const moduleFunction = compileModule(packedPath(name));
  const module = { exports: {} as unknown };
  const req = (id: string): unknown => {
    if (id in HELPERS) return HELPERS[id];
    throw new Error(`intent-validate: packed module ${name} needs ${id}`);
  };
  moduleFunction(module, module.exports, req);
  cache.set(name, module.exports);
  return module.exports;
}

/** A built-in kind's schema and the definitions its `$ref`s point to (validator.ts), or undefined when there is none. */
export function unpackSchema(name: string): { schema: unknown; definitions?: Record<string, unknown> } | undefined {
  if (!packedSchemas.has(name)) return undefined;
  // ASCII JSON (prebuild.mjs escapes the rest), read fresh: the parse is the only copy kept
  return JSON.parse(loadInstalled(() => readInstallFile(packedPath(name, '.json')).toString('latin1')));
}

/** The functionConfig validator, compiled on the first functionConfig with a spec. */
export const validateSpec: CompiledValidator = Object.assign(
  (data: unknown): boolean => {
    // no spec (the common case): valid, the schema has no required top-level field
    if (data !== null && typeof data === 'object' && !Array.isArray(data) && Object.keys(data).length === 0) {
      validateSpec.errors = null;
      return true;
    }
    const v = unpack('spec') as CompiledValidator;
    const ok = v(data);
    validateSpec.errors = v.errors;
    return ok;
  },
  { errors: null as CompiledValidator['errors'] },
);
