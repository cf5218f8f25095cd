// Build hook (run by scripts/build.mjs before schema compilation): turns the built-in CRDs in
// schemas/** (Metal3, Flux, airshipit.org, Hardware Classification), the core Kubernetes kinds
// and the hand-written schemas (schemas/kubernetes, schemas/baremetal-krm) into one JSON schema
// per kind, checked by src/validate/validator.ts, packed into generated/packed/ (see below), plus
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

const bundled = await esbuild.build({
  stdin: {
    contents: "export * from './crd.ts'; export { checkSchema, packedDefinitions, packedSchema } from './validator.ts';",
    resolveDir: here,
    loader: 'ts',
  },
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'node',
});
const { crdSchemas, OBJECT_META, checkedSchema, checkSchema, packedDefinitions, packedSchema } = await import(
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

// Cold start: every byte of a bundle is read and scanned at every start. So what
// intent-validate needs only sometimes is packed outside it, one file each in
// generated/packed/ (the build copies them to dist/lazy/validate/), read on first use: the
// built-in schemas (one JSON file per kind, with the definitions it refers to: validator.ts walks
// them; a Deployment's is 35 KB, where ajv's generated code for it was 420 KB and its code cache
// 159 KB), and the functionConfig validator, minified CommonJS
// that packed.ts compiles (CRDs found in the input are walked too: schema.ts). A run pays only for the kinds in its input.
const HELPERS = new Set(['ajv/dist/runtime/ucs2length', 'ajv/dist/runtime/equal']);
const AJV_OPTIONS = { allErrors: true, strict: false, validateFormats: false };
const minify = (cjs) => esbuild.transformSync(cjs, { minify: true, format: 'cjs', target: 'node20', legalComments: 'none' }).code;
const packed = {};
const packedSchemas = {};
let raw = 0;
const pack = (name, code) => {
  raw += code.length;
  packed[name] = code;
};
/** JSON with every non-ASCII character escaped: install files are read as latin1 (packed.ts). */
const asciiJson = (v) => JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
/** One kind's schema and the definitions it refers to; refused if it holds a keyword validator.ts does not check. */
const packSchema = (name, schema, definitions) => {
  const packed = definitions
    ? { schema: packedSchema(schema), definitions: packedDefinitions(definitions) }
    : { schema: packedSchema(schema) };
  try {
    checkSchema(packed.schema, packed.definitions);
  } catch (e) {
    throw new Error(`prebuild: ${name}: ${e.message}`);
  }
  const text = asciiJson(packed);
  raw += text.length;
  packedSchemas[name] = text;
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
  packSchema(name, schemas.get(k));
}

// Core Kubernetes kinds (schemas/kubernetes/core.json, written by scripts/k8s-core-schemas.mjs):
// each with the definitions it reaches (PodSpec for Pod, Deployment, StatefulSet, DaemonSet,
// ReplicaSet, Job and CronJob), named k8s_<kind>.
{
  const core = JSON.parse(readFileSync(join(root, 'schemas/kubernetes/core.json'), 'utf8'), (_k, v) =>
    v && typeof v === 'object' && v.$objectMeta === true ? OBJECT_META : v,
  );
  /** The definitions `schema` refers to, directly or through others, in core.json's order. */
  const reachable = (schema) => {
    const seen = new Set();
    const walkRefs = (s) => {
      if (Array.isArray(s)) return s.forEach(walkRefs);
      if (!s || typeof s !== 'object') return;
      for (const [k, v] of Object.entries(s)) {
        if (k !== '$ref') walkRefs(v);
        else if (typeof v === 'string' && v.startsWith('#/definitions/')) {
          const d = v.slice('#/definitions/'.length);
          if (seen.has(d)) continue;
          if (!Object.hasOwn(core.definitions, d)) throw new Error(`prebuild: core.json: $ref ${v} has no definition`);
          seen.add(d);
          walkRefs(core.definitions[d]);
        }
      }
    };
    walkRefs(schema);
    return Object.fromEntries(
      Object.keys(core.definitions)
        .filter((d) => seen.has(d))
        .map((d) => [d, core.definitions[d]]),
    );
  };
  let n = 0;
  for (const [k, s] of Object.entries(core.kinds)) {
    if (schemas.has(k)) continue; // hand-written (Secret, ConfigMap, Namespace) win
    const name = `k8s_${k.replace(/[^A-Za-z0-9]/g, '_')}`;
    keys[k] = name;
    packSchema(name, s, reachable(s));
    n++;
  }
  console.log(
    `intent-validate: ${n} core Kubernetes kinds from schemas/kubernetes/core.json (${core.added.length} newer fields topped up from kubernetes-models 5)`,
  );
}
pack('spec', standalone(JSON.parse(readFileSync(join(here, 'spec.schema.json'), 'utf8')), 'spec.schema.json'));
const write = (f, text) => {
  const p = join(out, f);
  if (!existsSync(p) || readFileSync(p, 'utf8') !== text) writeFileSync(p, text);
};
// one file per module; stale ones (a kind no longer built in) removed
const packedDir = join(out, 'packed');
mkdirSync(packedDir, { recursive: true });
const packedFiles = new Set([...Object.keys(packed).map((n) => `${n}.cjs`), ...Object.keys(packedSchemas).map((n) => `${n}.json`)]);
for (const f of readdirSync(packedDir)) if (!packedFiles.has(f)) rmSync(join(packedDir, f));
for (const [name, code] of Object.entries(packed)) write(join('packed', `${name}.cjs`), code);
for (const [name, text] of Object.entries(packedSchemas)) write(join('packed', `${name}.json`), text);
const names = Object.keys(packed).sort();
write(
  'packed.js',
  `// generated by prebuild.mjs: the packed modules, CommonJS sources in generated/packed/<name>.cjs (dist/lazy/validate/ in a build), compiled by packed.ts on first use, and the built-in schemas, <name>.json beside them\nexport const PACKED_NAMES = ${JSON.stringify(names, null, 1)};\nexport const PACKED_SCHEMAS = ${JSON.stringify(Object.keys(packedSchemas).sort(), null, 1)};\n`,
);
write('packed.d.ts', 'export declare const PACKED_NAMES: readonly string[];\nexport declare const PACKED_SCHEMAS: readonly string[];\n');
const sortedKeys = Object.fromEntries(Object.entries(keys).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
write('builtin-keys.js', `export const BUILTIN_KEYS = ${JSON.stringify(sortedKeys, null, 1)};\n`);
write('builtin-keys.d.ts', 'export declare const BUILTIN_KEYS: Record<string, string | undefined>;\n');
for (const old of ['builtin.validate.js', 'builtin.validate.d.ts']) if (existsSync(join(out, old))) rmSync(join(out, old));
console.log(
  `intent-validate: ${Object.keys(keys).length} built-in schema(s) and spec -> generated/packed/ (${names.length} modules, ${Object.keys(packedSchemas).length} schemas, ${(raw / 1024).toFixed(0)} KiB)`,
);
