#!/usr/bin/env node
// Build: precompile JSON schemas (ajv standalone), type-check, and bundle every function in
// functions/<name>/main.ts (and every CLI in src/bin/<name>.ts) into dist/<name>.cjs, an
// executable that needs no node_modules beside it.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
 * Big packages only some runs need (age-encryption: SOPS encryption only; yaml) go into the bundle as a string
 * that is evaluated on first require. V8 then scans a string instead of parsing ~700 KB of
 * code at every start, and the bundle stays one file (containers ship only dist/<fn>.cjs).
 */
const LAZY_STRING_PACKAGES = ['yaml', 'age-encryption'];
/** Modules made of parts of a package (none at present): name -> the source that requires the parts. */
const LAZY_STRING_SOURCES = {};
const lazyStringCache = new Map();
const lazyStringPlugin = {
  name: 'lazy-string',
  setup(build) {
    const filter = new RegExp(`^(${LAZY_STRING_PACKAGES.join('|')})$`);
    build.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'lazy-string' }));
    build.onLoad({ filter: /.*/, namespace: 'lazy-string' }, async (args) => {
      if (!lazyStringCache.has(args.path)) {
        const r = await esbuild.build({
          stdin: {
            contents: LAZY_STRING_SOURCES[args.path] ?? `module.exports = require(${JSON.stringify(args.path)});`,
            resolveDir: root,
          },
          bundle: true,
          platform: 'node',
          format: 'cjs',
          target: 'node20',
          write: false,
          minify: true,
          legalComments: 'none',
          logLevel: 'error',
        });
        lazyStringCache.set(args.path, r.outputFiles[0].text);
      }
      const src = JSON.stringify(lazyStringCache.get(args.path));
      return {
        contents: `const m = { exports: {} };\nnew Function('module', 'exports', 'require', '__filename', '__dirname', ${src})(m, m.exports, require, __filename, __dirname);\nmodule.exports = m.exports;\n`,
        loader: 'js',
      };
    });
  },
};

const entries = functions.map((fn) => ({ name: fn, entry: join(functionsDir, fn, 'main.ts') }));
const binDir = join(root, 'src/bin');
if (existsSync(binDir))
  for (const f of readdirSync(binDir)
    .filter((f) => f.endsWith('.ts'))
    .sort())
    entries.push({ name: basename(f, '.ts'), entry: join(binDir, f) });
// the runtime's test-only identity function (losslessness check, benchmark)
entries.push({ name: 'test-identity', entry: join(root, 'test/identity/main.ts') });
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
mkdirSync(join(root, 'dist'), { recursive: true });
const sizes = [];
for (const { name, entry } of entries) {
  const outfile = join(root, 'dist', `${name}.cjs`);
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    banner: { js: '#!/usr/bin/env node' },
    // src/krm/lazy.ts: import.meta.url is only used outside the bundle
    define: { 'import.meta.url': '""' },
    plugins: [lazyStringPlugin],
    logLevel: 'warning',
  });
  chmodSync(outfile, 0o755);
  sizes.push(`${name}.cjs ${(statSync(outfile).size / 1024).toFixed(0)} KiB`);
}
console.log(`build: ${schemas} schema(s), ${entries.length} bundle(s) [${sizes.join(', ')}] in ${Date.now() - t0} ms`);
