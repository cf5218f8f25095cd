// Build hook (run by scripts/build.mjs before schema compilation): turns the built-in CRDs in
// schemas/** (Metal3, Flux, airshipit.org, Hardware Classification) and the hand-written
// schemas (schemas/kubernetes, schemas/baremetal-krm) into one precompiled ajv standalone
// module, generated/builtin.validate.js, plus generated/builtin-keys.js (apiVersion/kind ->
// export). The module is imported lazily, only when an item of a built-in kind appears.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
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
const { crdSchemas, OBJECT_META, withoutRequired } = await import('data:text/javascript;base64,' + Buffer.from(bundled.outputFiles[0].text).toString('base64'));

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
      // airshipctl's CRDs come from Go structs: fields without omitempty are "required" even where
      // airshipctl's own documents leave them out (ReplacementTransformer target vs targets)
      for (const s of crdSchemas(d)) schemas.set(`${s.group}/${s.version}/${s.kind}`, s.group === 'airshipit.org' ? withoutRequired(s.schema) : s.schema);
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

const ajv = new Ajv({ allErrors: true, strict: false, code: { source: true, esm: true }, validateFormats: false });
const keys = {};
const exportsMap = {};
[...schemas.keys()].sort().forEach((k, i) => {
  const name = 'v' + i + '_' + k.replace(/[^A-Za-z0-9]/g, '_');
  ajv.addSchema(schemas.get(k), name);
  keys[k] = name;
  exportsMap[name] = name;
});
const code = standaloneCode(ajv, exportsMap);
const write = (f, text) => {
  const p = join(out, f);
  if (!existsSync(p) || readFileSync(p, 'utf8') !== text) writeFileSync(p, text);
};
write('builtin.validate.js', code);
write('builtin.validate.d.ts', 'declare const validators: Record<string, unknown>;\nexport = validators;\n');
write('builtin-keys.js', `export const BUILTIN_KEYS = ${JSON.stringify(keys, null, 1)};\n`);
write('builtin-keys.d.ts', 'export declare const BUILTIN_KEYS: Record<string, string | undefined>;\n');
console.log(`intent-validate: ${schemas.size} built-in schema(s) -> generated/builtin.validate.js (${(code.length / 1024).toFixed(0)} KiB)`);
