// Build hook (run by scripts/build.mjs before schema compilation): turns the built-in CRDs in
// schemas/** (Metal3, Flux, airshipit.org, Hardware Classification) and the hand-written
// schemas (schemas/kubernetes, schemas/baremetal-krm) into precompiled ajv standalone
// validators, one per kind, packed into generated/packed/ (see below), plus
// generated/builtin-keys.js (apiVersion/kind -> name).
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import * as esbuild from 'esbuild';
import { parseAllDocuments } from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const out = join(here, 'generated');
mkdirSync(out, { recursive: true });

const bundled = await esbuild.build({ entryPoints: [join(here, 'crd.ts')], bundle: true, write: false, format: 'esm', platform: 'node' });
const { crdSchemas, OBJECT_META, checkedSchema } = await import(
  'data:text/javascript;base64,' + Buffer.from(bundled.outputFiles[0].text).toString('base64')
);

function walk(dir, acc = []) {
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walk(p, acc);
    else acc.push(p);
  }
  return acc;
}

const schemas = new Map(); // key -> schema
for (const file of walk(join(root, 'schemas'))) {
  if (file.endsWith('.yaml')) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const d = doc.toJS();
      if (d?.kind !== 'CustomResourceDefinition') continue;
      // airshipctl's kinds: without `required`, with the fields airshipctl reads (crd.ts checkedSchema)
      for (const s of crdSchemas(d)) schemas.set(`${s.group}/${s.version}/${s.kind}`, checkedSchema(s));
    }
  } else if (file.endsWith('.json')) {
    const m = /(?:([a-z0-9.-]+)_)?(v[0-9a-z]+)_([A-Za-z]+)\.json$/.exec(file);
    if (!m) continue;
    const s = JSON.parse(readFileSync(file, 'utf8'));
    s.properties.metadata = OBJECT_META;
    delete s.description;
    schemas.set(`${m[1] ? m[1] + '/' : ''}${m[2]}/${m[3]}`, s);
  }
}

// Cold start: every byte of a bundle is read and scanned at every start. So the code
// intent-validate needs only sometimes is packed outside it: the built-in validators (one ajv
// standalone validator per kind), the functionConfig validator and ajv itself (for CRDs in the
// input) are minified CommonJS sources, one file each in generated/packed/<name>.cjs (the build
// copies them to dist/lazy/validate/). packed.ts reads and compiles each on first use, so a run
// pays only for the kinds in its input.
const HELPERS = new Set(['ajv/dist/runtime/ucs2length', 'ajv/dist/runtime/equal']);
const AJV_OPTIONS = { allErrors: true, strict: false, validateFormats: false };
const minify = (cjs) => esbuild.transformSync(cjs, { minify: true, format: 'cjs', target: 'node20', legalComments: 'none' }).code;
const packed = {};
let raw = 0;
const pack = (name, code) => {
  raw += code.length;
  packed[name] = code;
};
const standalone = (schema, what) => {
  const ajv = new Ajv({ ...AJV_OPTIONS, code: { source: true, esm: false, optimize: true } });
  const cjs = standaloneCode(ajv, ajv.compile(schema));
  for (const m of cjs.matchAll(/require\("([^"]+)"\)/g))
    if (!HELPERS.has(m[1])) throw new Error(`prebuild: ${what} needs ${m[1]}, which packed.ts does not provide`);
  return minify(cjs);
};
const keys = {};
for (const [i, k] of [...schemas.keys()].sort().entries()) {
  const name = 'v' + i + '_' + k.replace(/[^A-Za-z0-9]/g, '_');
  keys[k] = name;
  pack(name, standalone(schemas.get(k), k));
}
/** Kinds with a pod template, and PersistentVolume (they share PodSpec or the volume sources: packed together). */
const POD_KINDS = new Set(['PersistentVolume', 'Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob']);

// Core Kubernetes kinds (schemas/kubernetes/core.json, written by scripts/k8s-core-schemas.mjs): two modules whose validators share their definitions
// (PodSpec once for Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job and CronJob in
// `k8s_pod`; the other kinds in `k8s`, so a run with a Service or a Role does not compile the
// pod template), exported per kind; BUILTIN_KEYS names them `module#export`.
{
  const core = JSON.parse(readFileSync(join(root, 'schemas/kubernetes/core.json'), 'utf8'), (_k, v) =>
    v && typeof v === 'object' && v.$objectMeta === true ? OBJECT_META : v,
  );
  const modules = { k8s: {}, k8s_pod: {} };
  for (const [k, s] of Object.entries(core.kinds)) {
    if (schemas.has(k)) continue; // hand-written (Secret, ConfigMap, Namespace) win
    const name = k.replace(/[^A-Za-z0-9]/g, '_');
    const mod = POD_KINDS.has(k.split('/').pop()) ? 'k8s_pod' : 'k8s';
    modules[mod][name] = s;
    keys[k] = `${mod}#${name}`;
  }
  for (const [mod, kinds] of Object.entries(modules)) {
    // inlineRefs: false: every definition is one function, called wherever it is used (less code
    // than inlining the small ones, no slower at run time); ajv emits only the definitions used
    const ajv = new Ajv({ ...AJV_OPTIONS, inlineRefs: false, code: { source: true, esm: false, optimize: true } });
    const definitions = { ...core.definitions };
    const exports = {};
    for (const [name, s] of Object.entries(kinds)) {
      definitions['kind.' + name] = s;
      exports[name] = `${mod}#/definitions/kind.${name}`;
    }
    ajv.addSchema({ $id: mod, definitions });
    const cjs = standaloneCode(ajv, exports);
    for (const m of cjs.matchAll(/require\("([^"]+)"\)/g))
      if (!HELPERS.has(m[1])) throw new Error(`prebuild: core kinds need ${m[1]}, which packed.ts does not provide`);
    pack(mod, minify(cjs));
  }
  console.log(
    `intent-validate: ${Object.keys(modules.k8s).length + Object.keys(modules.k8s_pod).length} core Kubernetes kinds from schemas/kubernetes/core.json (${core.added.length} newer fields topped up from kubernetes-models 5)`,
  );
}
pack('spec', standalone(JSON.parse(readFileSync(join(here, 'spec.schema.json'), 'utf8')), 'spec.schema.json'));
const ajvBundle = await esbuild.build({
  stdin: { contents: 'module.exports = require("ajv");', resolveDir: root },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  write: false,
  minify: true,
  legalComments: 'none',
});
pack('ajv', ajvBundle.outputFiles[0].text);

const write = (f, text) => {
  const p = join(out, f);
  if (!existsSync(p) || readFileSync(p, 'utf8') !== text) writeFileSync(p, text);
};
// one file per module; stale ones (a kind no longer built in) removed
const packedDir = join(out, 'packed');
mkdirSync(packedDir, { recursive: true });
for (const f of readdirSync(packedDir)) if (!Object.hasOwn(packed, f.replace(/\.cjs$/, ''))) rmSync(join(packedDir, f));
for (const [name, code] of Object.entries(packed)) write(join('packed', `${name}.cjs`), code);
const names = Object.keys(packed).sort();
write(
  'packed.js',
  `// generated by prebuild.mjs: the packed modules, CommonJS sources in generated/packed/<name>.cjs (dist/lazy/validate/ in a build), compiled by packed.ts on first use\nexport const PACKED_NAMES = ${JSON.stringify(names, null, 1)};\n`,
);
write('packed.d.ts', 'export declare const PACKED_NAMES: readonly string[];\n');
const sortedKeys = Object.fromEntries(Object.entries(keys).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
write('builtin-keys.js', `export const BUILTIN_KEYS = ${JSON.stringify(sortedKeys, null, 1)};\n`);
write('builtin-keys.d.ts', 'export declare const BUILTIN_KEYS: Record<string, string | undefined>;\n');
for (const old of ['builtin.validate.js', 'builtin.validate.d.ts']) if (existsSync(join(out, old))) rmSync(join(out, old));
console.log(
  `intent-validate: ${Object.keys(keys).length} built-in schema(s), spec and ajv -> generated/packed/ (${names.length} modules, ${(raw / 1024).toFixed(0)} KiB)`,
);
