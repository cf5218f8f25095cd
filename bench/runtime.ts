/**
 * The runtime: time per object for both input forms (ResourceList, plain stream) and both
 * reading paths (fast: what the fast reader reads; careful: items it hands to `yaml`), by item
 * count (1k, 10k, 100k) and by keys in one document (10k, 50k, 100k), each curve with its
 * 100k/1k ratio (goal <= 1.5: linear); the careful path next to the `yaml` Document API (goal
 * >= 5x); peak RSS of each bundle and the CLI as a multiple of the input (goal <= 6x + 150 MiB;
 * pass-through at 100k objects <= 3x + 100 MiB, with MiB per 10k objects); each bundle's start
 * on 10 objects next to `node -e 0` (goal <= 1.3x); and the differential fuzzer, longer than in
 * `npm test`. BENCH_QUICK=1 stops the curves at 10k; BENCH_PARTS=items,keys,yaml,memory,start,fuzz
 * runs only the parts named.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { readInput, runFunction } from '../src/krm/index.js';
import { resourceList } from '../test/golden.js';
import { bmh } from '../test/hosts.js';
import { identity } from '../test/identity/function.js';
import { fuzz } from '../test/input-fuzz/check.js';
import { corpus as fuzzCorpus } from '../test/input-fuzz/corpus.js';
import { envWithout, fmt, peakRssMiB, startTimeStats, timeAsync, timeIt } from './_util.js';

/**
 * The same host for the careful path: a folded block scalar in its spec (the fast reader hands
 * such items to `yaml` when they are read whole; their header stays on the fast path).
 */
export function bmhCareful(i: number): string {
  return bmh(i).replace(/^spec:\n/m, 'spec:\n  description: >\n    rack host, folded\n    over two lines\n');
}

/** One ConfigMap with `keys` entries; `careful`: the first value a folded block scalar (the whole document goes to `yaml`). */
function bigConfigMap(keys: number, careful: boolean): string {
  let s = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n';
  for (let i = 0; i < keys; i++) s += careful && i === 0 ? `  key-${i}: >\n    folded\n` : `  key-${i}: value ${i}\n`;
  return s;
}

const READ_ALL = 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nspec:\n  readAll: true\n';
const QUICK = process.env.BENCH_QUICK === '1';
const MIB = 1024 * 1024;

type Form = 'list' | 'stream';
function input(docs: string[], form: Form, config?: string): string {
  return form === 'list' ? resourceList(docs, config) : docs.join('---\n');
}

/**
 * µs per object of a pass-through (header only) and of reading every object whole, on `n`
 * objects made by `make`. Only the input text is alive while timing, as in a function's process
 * (the generated documents it was joined from are dropped: they once stayed alive beside it,
 * 100 MB at 100k objects that every major GC of the timed runs marked).
 */
async function perObject(n: number, make: (i: number) => string, form: Form): Promise<{ pass: number; read: number }> {
  // medians of several runs (GC and the JIT make single small runs noisy); an odd count, so that
  // the median is a run (of two, timeAsync took the slower); reading 100k careful items whole
  // takes ~50 s a run: two there
  const runs = n >= 100_000 ? 3 : n >= 10_000 ? 5 : 15;
  const pass = input(
    Array.from({ length: n }, (_, i) => make(i)),
    form,
  );
  const tPass = await timeAsync(() => runFunction(identity, pass), runs, 0);
  // (of two runs timeIt and timeAsync take the slower: three where a run takes seconds, two where it takes ~50 s)
  const tRead = timeIt(() => readWhole(pass), n >= 100_000 ? (make === bmh ? 3 : 2) : runs, 0);
  return { pass: (tPass * 1000) / n, read: (tRead * 1000) / n };
}

/**
 * Reads every item of an input whole, as a function that reads everything does (intent-validate's
 * analysis): each tree read with readData, looked at and dropped. (`o.data` keeps every tree: at
 * 100k hosts ~1 GB alive, which each major GC marks again; the curve then measured the heap.)
 */
function readWhole(text: string): void {
  for (const o of readInput(text).items) void o.readData();
}

async function itemCurves(): Promise<void> {
  const sizes = QUICK ? [1_000, 10_000] : [1_000, 10_000, 100_000];
  console.log('\ntime per object (µs) by item count: pass-through (header only) | read whole');
  console.log('path     form    ' + sizes.map((n) => `${fmt(n).padStart(17)}`).join('') + '   100k/1k (goal <= 1.5)');
  for (const [path, make] of [
    ['fast', bmh],
    ['careful', bmhCareful],
  ] as const) {
    for (const form of ['list', 'stream'] as const) {
      const cols: { pass: number; read: number }[] = [];
      for (const n of sizes) cols.push(await perObject(n, make, form));
      const last = cols[cols.length - 1]!;
      const first = cols[0]!;
      console.log(
        `${path.padEnd(9)}${form.padEnd(8)}${cols.map((c) => `${fmt(c.pass, 1).padStart(8)} |${fmt(c.read, 1).padStart(7)}`).join('')}   ${fmt(last.pass / first.pass, 2)} | ${fmt(last.read / first.read, 2)}`,
      );
    }
  }
}

/**
 * Per-key time of one document with 10k-100k keys. The sizes are run interleaved, one of each
 * per round after a warm-up of each (run one size after another, the first was timed in a fresh
 * small heap and the last in one grown by the others: the curve then measured the order of the
 * runs, 1.4-1.9x from run to run); each point is the median (and the min) of its rounds. Beside
 * it, the engine's own curve for the same mapping: a plain object given that many keys one by one
 * (what any reader building the tree pays: V8 keeps such an object as a hash table, rehashed as it
 * grows, and its entries and strings outlive young-generation collections), and JSON.parse.
 */
async function keyCurves(): Promise<void> {
  const sizes = QUICK ? [10_000, 50_000] : [10_000, 50_000, 100_000];
  const rounds = 15;
  console.log(`\ntime per key (µs) reading one document whole, by keys in it: median (min) of ${rounds} interleaved rounds`);
  console.log('path     form    ' + sizes.map((n) => `${fmt(n).padStart(15)}`).join('') + '   last/first median (min) (goal <= 1.5)');
  const curve = (runs: (() => unknown)[]): { median: number[]; min: number[] } => {
    for (const run of runs) run(); // warm-up
    const times = sizes.map((): number[] => []);
    for (let r = 0; r < rounds; r++)
      runs.forEach((run, i) => {
        const t = performance.now();
        run();
        times[i]!.push(((performance.now() - t) * 1000) / sizes[i]!);
      });
    for (const t of times) t.sort((a, b) => a - b);
    return { median: times.map((t) => t[Math.floor(t.length / 2)]!), min: times.map((t) => t[0]!) };
  };
  const row = (label: string, c: { median: number[]; min: number[] }): string => {
    const last = c.median.length - 1;
    return `${label}${c.median.map((m, i) => `${fmt(m, 2)} (${fmt(c.min[i]!, 2)})`.padStart(15)).join('')}   ${fmt(c.median[last]! / c.median[0]!, 2)} (${fmt(c.min[last]! / c.min[0]!, 2)})`;
  };
  for (const careful of [false, true]) {
    for (const form of ['list', 'stream'] as const) {
      const runs = sizes.map((keys) => {
        const text = input([bigConfigMap(keys, careful)], form);
        return () => readWhole(text);
      });
      console.log(row(`${(careful ? 'careful' : 'fast').padEnd(9)}${form.padEnd(8)}`, curve(runs)));
    }
  }
  console.log("the engine's own curve for a mapping that size:");
  // keys cut from one text, as a reader cuts them (fresh strings each run, not yet internalised)
  const byKey = sizes.map((keys) => {
    const text = Array.from({ length: keys }, (_, i) => `key-${i}`).join('\n');
    return () => {
      const o: Record<string, string> = {};
      let at = 0;
      for (let i = 0; i < keys; i++) {
        const end = text.indexOf('\n', at);
        o[text.slice(at, end < 0 ? text.length : end)] = 'value';
        at = end + 1;
      }
      return o;
    };
  });
  console.log(row('  object, by key '.padEnd(17), curve(byKey)));
  const json = sizes.map((keys) => {
    const data: Record<string, string> = {};
    for (let i = 0; i < keys; i++) data[`key-${i}`] = `value ${i}`;
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data });
    return () => JSON.parse(text);
  });
  console.log(row('  JSON.parse'.padEnd(17), curve(json)));
}

async function againstYaml(): Promise<void> {
  const n = 10_000;
  console.log(`\nat ${fmt(n)} objects, a ResourceList, objects/s (the runtime, then the yaml Document API: parse and write back)`);
  for (const [path, make] of [
    ['fast', bmh],
    ['careful', bmhCareful],
  ] as const) {
    const list = resourceList(Array.from({ length: n }, (_, i) => make(i)));
    const tOurs = await timeAsync(() => runFunction(identity, list), 2, 0);
    const tRead = await timeAsync(
      () =>
        runFunction(
          identity,
          resourceList(
            Array.from({ length: n }, (_, i) => make(i)),
            READ_ALL,
          ),
        ),
      2,
      0,
    );
    const tYaml = timeIt(() => parseDocument(list, { version: '1.1' }).toString(), 1, 0);
    const ops = (t: number): string => fmt((n / t) * 1000).padStart(9);
    console.log(
      `  ${path.padEnd(8)} pass-through ${ops(tOurs)}  read whole ${ops(tRead)}  yaml Document ${ops(tYaml)}   pass-through ${fmt(tYaml / tOurs, 1)}x yaml (goal >= 5x), read whole ${fmt(tYaml / tRead, 1)}x`,
    );
  }
}

const dist = join(import.meta.dirname, '..', 'dist');

/** Peak RSS (MiB) of a bundle fed `text` on stdin, and as a multiple of the input. */
function rss(bundle: string, args: string[], text: string): { mib: number; ratio: number } {
  const mib = peakRssMiB([join(dist, bundle), ...args], text, envWithout('NODE_EXTRA_CA_CERTS')) ?? Number.NaN;
  return { mib, ratio: mib / (Buffer.byteLength(text) / MIB) };
}

async function memory(): Promise<void> {
  const { NO_CHANGE } = await import('../test/input-fuzz/check.js');
  const big = QUICK ? 20_000 : 100_000;
  console.log(`
peak RSS, pass-through (test-identity bundle) of BareMetalHosts (goal at ${fmt(big)}: <= 3x input + 100 MiB)`);
  for (const form of ['list', 'stream'] as const) {
    const small = input(
      Array.from({ length: 10_000 }, (_, i) => bmh(i)),
      form,
    );
    const large = input(
      Array.from({ length: big }, (_, i) => bmh(i)),
      form,
    );
    const a = rss('test-identity.cjs', [], small);
    const b = rss('test-identity.cjs', [], large);
    const inMiB = Buffer.byteLength(large) / MIB;
    const perTenK = (b.mib - a.mib) / ((big - 10_000) / 10_000);
    console.log(
      `  ${form.padEnd(7)} ${fmt(big)} objects: input ${fmt(inMiB)} MiB, peak ${fmt(b.mib)} MiB = ${fmt(b.ratio, 2)}x input (limit ${fmt(3 * inMiB + 100)} MiB: ${b.mib <= 3 * inMiB + 100 ? 'met' : 'NOT met'}); ${fmt(perTenK, 1)} MiB per 10k objects`,
    );
  }
  const n = 20_000;
  const docs = Array.from({ length: n }, (_, i) => bmh(i));
  console.log(
    `peak RSS of each function configured to change nothing, and the CLI, on ${fmt(n)} BareMetalHosts (goal: <= 6x input + 150 MiB)`,
  );
  const rows: [string, { mib: number; ratio: number }, number][] = [];
  for (const { def, config } of NO_CHANGE) {
    const bundle = def.name === 'test-identity' ? 'test-identity.cjs' : `${def.name}.cjs`;
    if (!existsSync(join(dist, bundle))) continue;
    const text = resourceList(docs, config);
    rows.push([def.name, rss(bundle, [], text), Buffer.byteLength(text) / MIB]);
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-cli-'));
  const file = join(dir, 'hosts.yaml');
  const stream = docs.join('---\n');
  writeFileSync(file, stream);
  const cli =
    peakRssMiB([join(dist, 'baremetal-krm.cjs'), 'validate', '--quiet', file], '', envWithout('NODE_EXTRA_CA_CERTS')) ?? Number.NaN;
  rows.push(['baremetal-krm validate', { mib: cli, ratio: cli / (Buffer.byteLength(stream) / MIB) }, Buffer.byteLength(stream) / MIB]);
  for (const [name, r, inMiB] of rows)
    console.log(
      `  ${name.padEnd(24)} ${fmt(r.mib).padStart(5)} MiB = ${fmt(r.ratio, 1).padStart(5)}x input (${fmt(inMiB, 1)} MiB; limit ${fmt(6 * inMiB + 150)} MiB: ${r.mib <= 6 * inMiB + 150 ? 'met' : 'NOT met'})`,
    );
}

/** `, code cache rejected` when a function bundle's V8 code cache is not used by this node (scripts/build.mjs). */
function codeCache(bundle: string, env: NodeJS.ProcessEnv): string {
  const r = spawnSync(process.execPath, [bundle, '--help'], { env: { ...env, BAREMETAL_KRM_CODE_CACHE: 'report' }, encoding: 'utf8' });
  const m = / code cache (\w+)\n/.exec(r.stderr ?? '');
  return m && m[1] !== 'used' ? `, code cache ${m[1]}` : '';
}

async function startup(): Promise<void> {
  const bundles = existsSync(dist)
    ? readdirSync(dist)
        .filter((f) => f.endsWith('.cjs'))
        .sort()
    : [];
  const ten = resourceList(Array.from({ length: 10 }, (_, i) => bmh(i)));
  for (const [label, env] of [
    ['NODE_EXTRA_CA_CERTS unset', envWithout('NODE_EXTRA_CA_CERTS')],
    [`NODE_EXTRA_CA_CERTS=${process.env.NODE_EXTRA_CA_CERTS ?? '(unset)'}`, process.env],
  ] as const) {
    const commands: Record<string, string[]> = { 'node -e 0': ['-e', '0'] };
    for (const b of bundles) {
      if (['redfish-sim.cjs', 'baremetal-krm.cjs', 'baremetal-krm-report.cjs'].includes(b)) continue;
      commands[b] = [join(dist, b)];
    }
    const t = startTimeStats(commands, ten, env);
    const base = t['node -e 0']!;
    console.log(
      `\nstart on a 10-BareMetalHost ResourceList, 21 interleaved runs (${label}): node -e 0 = ${fmt(base.median, 1)} ms median, ${fmt(base.min, 1)} ms min (goal <= 1.3x)`,
    );
    for (const [k, v] of Object.entries(t)) {
      if (k === 'node -e 0') continue;
      const ratios = `${fmt(v.median / base.median, 2)}x node -e 0; min ${fmt(v.min, 1)} ms, ${fmt(v.min / base.min, 2)}x`;
      console.log(`  ${k.padEnd(28)} ${fmt(v.median, 1).padStart(7)} ms  (${ratios})${codeCache(join(dist, k), env)}`);
    }
  }
  // intent-validate's figure split: the bundle's own load (an empty ResourceList) and the run on the ten hosts
  const iv = join(dist, 'intent-validate.cjs');
  if (existsSync(iv)) {
    const empty = startTimeStats({ 'node -e 0': ['-e', '0'], iv: [iv] }, resourceList([]), envWithout('NODE_EXTRA_CA_CERTS'));
    const [node, load] = [empty['node -e 0']!, empty.iv!];
    console.log(
      `  intent-validate.cjs on an empty ResourceList (its own load; NODE_EXTRA_CA_CERTS unset): ${fmt(load.median, 1)} ms = ${fmt(load.median / node.median, 2)}x node -e 0 (${fmt(node.median, 1)} ms); the rest of its figure above is the run on 10 hosts (20 findings)`,
    );
  }
  const compiles = Object.fromEntries(
    bundles.filter((b) => !['redfish-sim.cjs', 'baremetal-krm.cjs'].includes(b)).map((b) => [b, optimisedIn(join(dist, b), ten)]),
  );
  console.log(`  functions V8 optimised in that start (--trace-opt; a short run should have none): ${JSON.stringify(compiles)}`);
}

/**
 * The functions V8 marks for its optimising compiler in one run of a bundle on `input`: in a
 * short run such a compile costs more than the code it speeds up (a small helper called for
 * every line, ~66 KB of its bytecode run, was ~230 page faults and ~10 ms of CPU on 10 objects).
 */
function optimisedIn(bundle: string, input: string): string[] {
  const r = spawnSync(process.execPath, ['--trace-opt', bundle], { input, env: envWithout('NODE_EXTRA_CA_CERTS'), encoding: 'utf8' });
  return [...new Set([...(r.stdout ?? '').matchAll(/^\[marking \S+ <JSFunction (\S*)/gm)].map((m) => m[1] || '(anonymous)'))];
}

async function fuzzLonger(): Promise<void> {
  const n = Number(process.env.FUZZ_RUNS ?? (QUICK ? 100 : 400));
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 100_000);
  const t = performance.now();
  const failing = await fuzz(fuzzCorpus(), n, seed);
  console.log(`\ndifferential fuzzer: ${n} cases (seed ${seed}), ${failing.length} failing, ${fmt((performance.now() - t) / 1000, 1)} s`);
  for (const f of failing.slice(0, 5)) console.log(`  ${f.problems.join('; ').slice(0, 300)}`);
}

/** The parts, in order; BENCH_PARTS=keys,start runs only those. */
const PARTS: Record<string, () => Promise<void>> = {
  items: itemCurves,
  keys: keyCurves,
  yaml: againstYaml,
  memory,
  start: startup,
  fuzz: fuzzLonger,
};

export async function run(): Promise<void> {
  console.log('the machine is shared: figures are ratios from one run; read them as such');
  const only = process.env.BENCH_PARTS?.split(',');
  const unknown = only?.filter((p) => !(p in PARTS)) ?? [];
  if (unknown.length) throw new Error(`BENCH_PARTS: no part ${unknown.join(', ')} (parts: ${Object.keys(PARTS).join(', ')})`);
  for (const [name, part] of Object.entries(PARTS)) if (!only || only.includes(name)) await part();
}
