// Build step (scripts/build.mjs): V8's code cache for a function bundle, made by one run of it.
//
//   node scripts/code-cache.cjs dist/<fn>.cjs dist/lib/<fn>.cache [args...] < scripts/warm-up.yaml
//
// Compiles dist/lib/<fn>.js as the launcher dist/<fn>.cjs does, runs the function on the input
// (output discarded by the caller) and, at exit, writes the code of every function compiled so
// far (and of the packed modules it compiled, beside them): what a start of the bundle then loads
// instead of compiling. Only for the node binary and V8 flags it was made with (V8 rejects it
// otherwise, and the code is compiled as usual).
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { basename, dirname, join } = require('node:path');
const { Script } = require('node:vm');

const [launcher, out, ...args] = process.argv.slice(2);
const dir = dirname(launcher);
const file = join(dir, 'lib', `${basename(launcher, '.cjs')}.js`);
// the launcher's name for it (a script from the cache keeps the name it was made with)
const script = new Script(readFileSync(file, 'utf8'), { filename: `dist/lib/${basename(file)}` });
process.argv = [process.argv[0], launcher, ...args];
// modules the function compiles on first use (src/validate/packed.ts) register here: their caches too
const more = new Map();
globalThis[Symbol.for('baremetal-krm.code-cache-run')] = more;
process.on('exit', () => {
  writeFileSync(out, script.createCachedData());
  for (const [path, compiled] of more) writeFileSync(path, compiled.createCachedData());
});
script.runInThisContext()(exports, require, module, launcher, dir);
