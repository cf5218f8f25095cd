#!/usr/bin/env node
// Build: precompile JSON schemas (ajv standalone), type-check, and bundle every function in
// functions/<name>/main.ts (and every CLI in src/bin/<name>.ts) into dist/<name>.cjs, an
// executable that needs no node_modules, only dist/lib/ and dist/lazy/ beside it.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
// flags: --no-typecheck, --generate-only, --only=<bundle>,<bundle>
const t0 = Date.now();

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir)) {
    if (e === 'node_modules' || e === 'testdata' || e.startsWith('.')) continue;
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

// 1. pre-build hooks (src/**/prebuild.mjs, functions/*/prebuild.mjs) (e.g. turning CRDs into *.schema.json)
const functionsDir = join(root, 'functions');
const functions = existsSync(functionsDir)
  ? readdirSync(functionsDir)
      .filter((f) => existsSync(join(functionsDir, f, 'main.ts')))
      .sort()
  : [];
for (const hook of [...walk(join(root, 'src')), ...walk(functionsDir)].filter((f) => basename(f) === 'prebuild.mjs').sort()) {
  execFileSync(process.execPath, [hook], { stdio: 'inherit', cwd: root });
}

/**
 * ajv's standalone ESM output still `require()`s its small runtime helpers (ucs2length for
 * minLength, equal for enum/const...): turn those into imports so the module loads as ESM
 * (vitest, tsx) and bundles (esbuild). `__cjs` gives the CommonJS exports object either way.
 */
function esmRuntimeImports(code) {
  const names = new Map();
  const body = code.replace(/require\("(ajv\/dist\/runtime\/[a-z0-9_/]+)"\)/gi, (_, spec) => {
    if (!names.has(spec)) names.set(spec, `__ajv_rt${names.size}`);
    return `__cjs(${names.get(spec)})`;
  });
  if (names.size === 0) return code;
  const imports = [...names].map(([spec, id]) => `import * as ${id} from "${spec}.js";`).join('\n');
  const helper = 'const __cjs = (m) => (m && m.default && m.default.default !== undefined ? m.default : m);';
  return body.replace(/^"use strict";/, `"use strict";${imports}\n${helper}\n`);
}

// 2. X.schema.json -> generated/X.validate.js (+ .d.ts): no schema compilation at start-up
let schemas = 0;
for (const file of [...walk(join(root, 'src')), ...walk(functionsDir), ...walk(join(root, 'test/identity'))]) {
  if (!file.endsWith('.schema.json')) continue;
  const schema = JSON.parse(readFileSync(file, 'utf8'));
  const ajv = new Ajv({ allErrors: true, strict: false, code: { source: true, esm: true }, validateFormats: false });
  const validate = ajv.compile(schema);
  const outDir = join(dirname(file), 'generated');
  mkdirSync(outDir, { recursive: true });
  const name = basename(file, '.schema.json');
  const code = esmRuntimeImports(standaloneCode(ajv, validate));
  const target = join(outDir, `${name}.validate.js`);
  if (!existsSync(target) || readFileSync(target, 'utf8') !== code) writeFileSync(target, code);
  const dts = `import type { CompiledValidator } from '${relative(outDir, join(root, 'src/krm/index.js')).replace(/\\/g, '/')}';\ndeclare const validate: CompiledValidator;\nexport default validate;\n`;
  writeFileSync(join(outDir, `${name}.validate.d.ts`), dts.replace("from 'src", "from './src"));
  schemas++;
}

// --generate-only: what type-checking needs on a clean clone (generated validators), nothing more
if (args.has('--generate-only')) {
  console.log(`build: ${schemas} schema(s) generated in ${Date.now() - t0} ms`);
  process.exit(0);
}

// 3. type-check the whole project
if (!args.has('--no-typecheck')) {
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], {
    stdio: 'inherit',
  });
}

// 4. bundle
/**
 * Big packages only some runs need (age-encryption: SOPS encryption only; yaml: the careful reader
 * and new items) are not in the bundles: each is built once into dist/lazy/<package>.cjs, which a
 * bundle requires (beside itself) on first use. Every byte of a bundle is read and scanned at every
 * start, even a string or a comment, so what a run may not need stays out of it. Whatever ships
 * dist/ ships dist/lazy/ too (package.json `files`, the Dockerfile).
 */
const LAZY_PACKAGES = ['yaml', 'age-encryption'];
const lazyDir = join(root, 'dist', 'lazy');
const lazyBuilt = new Map();
/** dist/lazy/<pkg>.cjs, built on first need (the same file for every bundle). */
async function buildLazyPackage(pkg) {
  if (!lazyBuilt.has(pkg))
    lazyBuilt.set(
      pkg,
      esbuild.build({
        stdin: { contents: `module.exports = require(${JSON.stringify(pkg)});`, resolveDir: root },
        outfile: join(lazyDir, `${pkg}.cjs`),
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        minify: true,
        legalComments: 'none',
        logLevel: 'error',
      }),
    );
  await lazyBuilt.get(pkg);
}
const lazyPackagePlugin = {
  name: 'lazy-package',
  setup(build) {
    const filter = new RegExp(`^(${LAZY_PACKAGES.join('|')})$`);
    build.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'lazy-package' }));
    build.onLoad({ filter: /.*/, namespace: 'lazy-package' }, async (args) => {
      await buildLazyPackage(args.path);
      // evaluated on the first require('<pkg>') (esbuild wraps a CommonJS module in a lazy init)
      return {
        contents: `module.exports = require(require('node:path').join(__dirname, 'lazy', ${JSON.stringify(`${args.path}.cjs`)}));\n`,
        loader: 'js',
      };
    });
  },
};

/**
 * intent-validate's packed modules (src/validate/prebuild.mjs writes one CommonJS source per
 * built-in validator, the functionConfig validator and ajv into generated/packed/) go to
 * dist/lazy/validate/, where src/validate/packed.ts reads the one a run needs.
 */
function copyPackedModules() {
  const from = join(root, 'src/validate/generated/packed');
  if (!existsSync(from)) return;
  const to = join(lazyDir, 'validate');
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  for (const f of readdirSync(from).sort()) {
    const bytes = readFileSync(join(from, f));
    assertAscii(join(from, f), bytes.toString('latin1'));
    writeFileSync(join(to, f), bytes);
  }
}

/** The launcher and packed.ts read our code as latin1 (one byte a character, no UTF-8 decoding): it must be ASCII. */
function assertAscii(file, text) {
  const at = text.search(/[^\x00-\x7f]/);
  if (at >= 0) throw new Error(`build: ${relative(root, file)} has a non-ASCII byte at ${at}: emit ASCII (esbuild charset: 'ascii')`);
}

/**
 * CLIs with a launcher and a code cache like the functions', made by the run named here (the
 * pre-commit and CI command): `baremetal-krm validate` on the warm-up package compiled ~1,200
 * page faults more than intent-validate on every start. The simulator starts once per test run.
 */
const CACHED_CLIS = {
  'baremetal-krm': { cached: true, warmUpArgs: ['validate', '--quiet', join(root, 'scripts/warm-up.yaml')] },
};
const entries = functions.map((fn) => ({ name: fn, entry: join(functionsDir, fn, 'main.ts'), cached: true }));
const binDir = join(root, 'src/bin');
if (existsSync(binDir))
  for (const f of readdirSync(binDir)
    .filter((f) => f.endsWith('.ts'))
    .sort())
    entries.push({ name: basename(f, '.ts'), entry: join(binDir, f), ...CACHED_CLIS[basename(f, '.ts')] });
// the runtime's test-only identity function (losslessness check, benchmark)
entries.push({ name: 'test-identity', entry: join(root, 'test/identity/main.ts'), cached: true });
// --only=a,b: just those bundles (the container build compiles only the functions)
const only = [...args]
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
if (only) {
  const unknown = only.filter((n) => !entries.some((e) => e.name === n));
  if (unknown.length) throw new Error(`build: --only names no bundle: ${unknown.join(', ')}`);
  entries.splice(0, entries.length, ...entries.filter((e) => only.includes(e.name)));
}
/**
 * A function bundle is a launcher, dist/<fn>.cjs, and its code, dist/lib/<fn>.js (the bundle
 * wrapped as a CommonJS module function), with V8's code cache for it, dist/lib/<fn>.cache, made
 * by one run of the function at build time (scripts/code-cache.cjs on scripts/warm-up.yaml).
 * A start then loads compiled code instead of compiling (and, for a small run, collects no
 * garbage). The cache holds only for the node binary and V8 flags that made it: V8 rejects it
 * otherwise and the launcher compiles the code as usual. It is not byte-reproducible (V8 seeds
 * its hashes at random); everything else in dist/ is.
 */
const launcher = (name) => `#!/usr/bin/env node
// ${name}: the code is lib/${name}.js beside this file; lib/${name}.cache is V8's compiled code for it
// (scripts/build.mjs). V8 rejects a cache made by another node or other flags; the code is then compiled.
'use strict';
const { closeSync, fstatSync, openSync, readSync } = require('node:fs');
const { join } = require('node:path');
const { Script } = require('node:vm');
// Our install files (this code, its cache, intent-validate's packed validators) are read into one
// buffer, reused: memory touched for the first time costs a page fault, on some VMs ~20 us a page,
// and a start reads ~1 MiB of them. A view returned is valid until the next read.
let scratch;
function readInstallFile(path) {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (scratch === undefined || scratch.length < size) scratch = Buffer.allocUnsafeSlow(Math.max(size, 1 << 20));
    let n = 0;
    for (let r; n < size && (r = readSync(fd, scratch, n, size - n, n)) > 0; ) n += r;
    return scratch.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}
globalThis[Symbol.for('baremetal-krm.read-install-file')] = readInstallFile;
// A large block, never touched, dropped: when a GC frees it, glibc raises its thresholds and stops
// giving freed memory back to the system after every free (the compiler's and GC's memory is then
// reused, not faulted in again: ~1,000 page faults fewer on 2k objects; no cost to a short run).
Buffer.allocUnsafeSlow(8 << 20);
const file = join(__dirname, 'lib', ${JSON.stringify(`${name}.js`)});
let source;
let cachedData;
try {
  // the build writes ASCII only (esbuild charset: ascii): latin1 is the text
  source = readInstallFile(file).toString('latin1');
} catch (e) {
  process.stderr.write(\`${name}: \${file}: \${e.code ?? e.message}: install dist/ whole (${name}.cjs needs lib/ and lazy/ beside it)\\n\`);
  process.exit(2);
}
try {
  cachedData = readInstallFile(join(__dirname, 'lib', ${JSON.stringify(`${name}.cache`)}));
} catch {
  // no cache: compile
}
// a name that does not depend on where dist/ is: a script from the cache keeps the name it was made with
// (V8 reads cachedData here, before the buffer is reused)
const script = new Script(source, { filename: ${JSON.stringify(`dist/lib/${name}.js`)}, cachedData });
if (process.env.BAREMETAL_KRM_CODE_CACHE === 'report')
  process.stderr.write(\`${name}: code cache \${cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'used'}\\n\`);
script.runInThisContext()(exports, require, module, __filename, __dirname);
`;

/** dist/lib/<fn>.cache: one run of the function on scripts/warm-up.yaml (see launcher). */
function makeCodeCache(name, warmUpArgs = []) {
  const out = join(root, 'dist', 'lib', `${name}.cache`);
  rmSync(out, { force: true });
  const env = { ...process.env };
  delete env.NODE_OPTIONS; // the cache holds for the flags it was made with: none
  const r = spawnSync(process.execPath, [join(root, 'scripts/code-cache.cjs'), join(root, 'dist', `${name}.cjs`), out, ...warmUpArgs], {
    input: readFileSync(join(root, 'scripts/warm-up.yaml')),
    env,
    encoding: 'utf8',
  });
  if ((r.status !== 0 && r.status !== 1) || !existsSync(out))
    throw new Error(`build: code cache of ${name}: exit ${r.status}\n${r.stderr}`);
  return statSync(out).size;
}

mkdirSync(join(root, 'dist', 'lib'), { recursive: true });
copyPackedModules();
const sizes = [];
for (const { name, entry, cached, warmUpArgs } of entries) {
  const outfile = join(root, 'dist', `${name}.cjs`);
  const built = await esbuild.build({
    entryPoints: [entry],
    outfile,
    write: false,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    charset: 'ascii',
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    // src/krm/lazy.ts, src/validate/packed.ts: import.meta.url ('' here) is only used outside a bundle
    define: { 'import.meta.url': '""' },
    plugins: [lazyPackagePlugin],
    logLevel: 'warning',
  });
  const code = built.outputFiles[0].text;
  if (cached) {
    const lib = join(root, 'dist', 'lib', `${name}.js`);
    assertAscii(lib, code);
    writeFileSync(lib, `(function (exports, require, module, __filename, __dirname) {${code}\n})`);
    writeFileSync(outfile, launcher(name));
    chmodSync(outfile, 0o755);
    const cache = makeCodeCache(name, warmUpArgs);
    sizes.push(`${name} ${(statSync(lib).size / 1024).toFixed(0)} KiB (cache ${(cache / 1024).toFixed(0)} KiB)`);
  } else {
    writeFileSync(outfile, `#!/usr/bin/env node\n${code}`);
    chmodSync(outfile, 0o755);
    sizes.push(`${name}.cjs ${(statSync(outfile).size / 1024).toFixed(0)} KiB`);
  }
}
console.log(`build: ${schemas} schema(s), ${entries.length} bundle(s) [${sizes.join(', ')}] in ${Date.now() - t0} ms`);
