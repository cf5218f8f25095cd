/**
 * intent-validate at fleet scale (issue 16): the seeded realistic mix (test/fleet-mix.ts: per 10
 * objects 3 BareMetalHosts, 3 SOPS Secrets, 1 Flux Kustomization with dependsOn, 1 Deployment,
 * 2 ConfigMaps), every rule on, whole processes: `baremetal-krm validate FILE` and the function
 * bundle fed a ResourceList, at 2k, 20k and 100k objects. Prints objects/s, µs/object, the
 * 100k/20k per-object ratio, peak RSS against 3x input + 100 MiB, and the start on 10 objects next
 * to `node -e 0` (NODE_EXTRA_CA_CERTS unset, then set).
 *
 * Next to each size, the floors no rule can go below: node's start alone and the runtime's
 * pass-through (test-identity) on the same input.
 *
 * Goals: >= 20,000 objects/s at every size; per-object time at 100k <= 1.2x that at 20k; peak RSS
 * <= 3x input + 100 MiB at 100k; start <= 1.3x node.
 *
 * Also thousands of findings on one item (a ConfigMap of N values `yes`: two findings each), block
 * and flow style: positioning them once walked the whole item per finding (5k: 8 s, 20k: 188 s).
 * Goal: per-finding time at 20k <= 1.2x that at 5k.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resourceList } from '../test/golden.js';
import { fleetMix, fleetMixStream } from '../test/fleet-mix.js';
import { builtinDisagreements } from '../test/schema-fuzz.js';
import { envWithout, fmt, startTimes } from './_util.js';

const root = join(import.meta.dirname, '..');
const bundle = join(root, 'dist/intent-validate.cjs');
const cli = join(root, 'dist/baremetal-krm.cjs');
const SIZES = [2_000, 20_000, 100_000];

interface Run {
  wallMs: number;
  cpuS: number;
  rssMiB: number;
  status: number | null;
}

/** One whole-process run under GNU time: wall, CPU and peak RSS of the child. */
function timed(args: string[], input: Buffer | undefined, env: NodeJS.ProcessEnv): Run {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M %U %S', process.execPath, ...args], { input, env, maxBuffer: 1 << 30 });
  const m = /([\d.]+) (\d+) ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr.toString());
  if (!m) throw new Error(`intent-validate bench: no timing for node ${args.join(' ')}: ${r.stderr.toString().slice(-500)}`);
  return { wallMs: Number(m[1]) * 1000, rssMiB: Number(m[2]) / 1024, cpuS: Number(m[3]) + Number(m[4]), status: r.status };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<void> {
  if (!existsSync(bundle) || !existsSync(cli)) throw new Error('intent-validate bench: run npm run build first');
  const env = envWithout('NODE_EXTRA_CA_CERTS');
  const dir = mkdtempSync(join(tmpdir(), 'iv-bench-'));
  console.log('whole process, every rule on; wall min / median of the runs, µs/object from the median (machine shared: CPU time too)');
  const perObject: Record<string, Record<number, number>> = { cli: {}, bundle: {} };
  const perObjectCpu: Record<string, Record<number, number>> = { cli: {}, bundle: {} };
  const peakRss: Record<string, Record<number, number>> = { cli: {}, bundle: {} };
  try {
    for (const n of SIZES) {
      const stream = Buffer.from(fleetMixStream(n));
      const file = join(dir, `mix-${n}.yaml`);
      writeFileSync(file, stream);
      const list = Buffer.from(resourceList(fleetMix(n)));
      const runs = n >= 100_000 ? 3 : 5;
      for (const [what, args, input, bytes] of [
        ['cli', [cli, 'validate', '--quiet', file], undefined, stream.length],
        ['bundle', [bundle], list, list.length],
      ] as const) {
        const rs = Array.from({ length: runs }, () => timed([...args], input, env));
        const wall = median(rs.map((r) => r.wallMs));
        const cpu = median(rs.map((r) => r.cpuS));
        const us = (wall * 1000) / n;
        perObject[what]![n] = us;
        perObjectCpu[what]![n] = (cpu * 1e6) / n;
        const budget = (3 * bytes) / 2 ** 20 + 100;
        const rss = Math.max(...rs.map((r) => r.rssMiB));
        peakRss[what]![n] = rss;
        console.log(
          `  ${what.padEnd(6)} ${fmt(n).padStart(7)} objects (${(bytes / 2 ** 20).toFixed(1)} MiB): ` +
            `wall ${fmt(Math.min(...rs.map((r) => r.wallMs)))} / ${fmt(wall)} ms -> ${fmt((n / wall) * 1000)} objects/s, ${us.toFixed(1)} µs/object; ` +
            `CPU min ${Math.min(...rs.map((r) => r.cpuS)).toFixed(2)} / median ${cpu.toFixed(2)} s -> ${fmt(n / cpu)} objects/s of CPU; peak RSS ${rss.toFixed(0)} MiB (${((rss / budget) * 100).toFixed(0)}% of 3x input + 100 MiB = ${budget.toFixed(0)}); exit ${rs[0]!.status}`,
        );
      }
      floors(n, list, runs, env);
    }
    for (const what of ['cli', 'bundle'])
      console.log(
        `  ${what}: per-object time at 100k / at 20k = ${(perObject[what]![100_000]! / perObject[what]![20_000]!).toFixed(2)}x wall, ${(perObjectCpu[what]![100_000]! / perObjectCpu[what]![20_000]!).toFixed(2)}x CPU (goal <= 1.2x); ` +
          `${((peakRss[what]![100_000]! - peakRss[what]![20_000]!) / 8).toFixed(1)} MiB of peak RSS per 10k objects (20k -> 100k)`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  startOnTen();
  realSite();
  walkerAgainstAjv();
  manyFindingsOneItem();
}

/** The built-in schemas' walker against ajv (test/schema-fuzz.ts), longer than in `npm test`: 2,000 documents per kind. */
export function walkerAgainstAjv(): void {
  const seed = Number(process.env.BENCH_SEED ?? 7);
  const t = performance.now();
  const r = builtinDisagreements(2_000, seed);
  console.log(
    `  schema walker against ajv: ${fmt(r.documents)} generated documents of ${r.kinds} built-in kinds (seed ${seed}; ${fmt(r.invalid)} invalid), ` +
      `${r.failing.length} kind(s) disagreeing, ${fmt((performance.now() - t) / 1000, 1)} s${r.failing.length ? `\n    ${r.failing.join('\n    ')}` : ''}`,
  );
}

/**
 * A real tree: airshipctl's manifests (../shared/fixtures, 183 files, 19 CRDs written by
 * controller-gen), validated whole by the CLI. CRDs once cost ~30 ms each (read by yaml for their
 * multi-line descriptions, compiled by ajv); printed next to node's start.
 */
export function realSite(): void {
  const tree = join(root, '..', 'shared', 'fixtures', 'airship', 'airshipctl', 'manifests');
  if (!existsSync(tree)) {
    console.log(`  real site: ${tree} not here, skipped`);
    return;
  }
  const env = envWithout('NODE_EXTRA_CA_CERTS');
  const rs = Array.from({ length: 5 }, () => timed([cli, 'validate', '--quiet', tree], undefined, env));
  const node = Array.from({ length: 5 }, () => timed(['-e', '0'], undefined, env));
  console.log(
    `  real site (airshipctl manifests, 183 files, 19 CRDs; \`baremetal-krm validate\`, median of 5): wall ${fmt(median(rs.map((r) => r.wallMs)))} ms, ` +
      `CPU ${median(rs.map((r) => r.cpuS)).toFixed(2)} s, peak RSS ${Math.max(...rs.map((r) => r.rssMiB)).toFixed(0)} MiB; node -e 0 ${fmt(median(node.map((r) => r.wallMs)))} ms; exit ${rs[0]!.status}`,
  );
}

/** One ConfigMap of `n` keys valued `yes`, block or flow style: 2n findings on one item. */
export function manyFindingsOneItem(): void {
  const env = envWithout('NODE_EXTRA_CA_CERTS');
  console.log('one item with many findings (bundle, wall min / median of 3): per finding, 20k against 5k (goal <= 1.2x)');
  // values `yes` (two findings each, block and flow), and labels written as numbers (a header
  // problem each: once a parse of the item and a scan of its problems per problem)
  const shapes: [string, (n: number) => string, number][] = [
    ['block ', (n) => `data:\n${Array.from({ length: n }, (_, i) => `  k${i}: yes\n`).join('')}`, 2],
    ['flow  ', (n) => `data: {${Array.from({ length: n }, (_, i) => `k${i}: yes`).join(', ')}}\n`, 2],
    ['labels', (n) => `  labels:\n${Array.from({ length: n }, (_, i) => `    l${i}: ${i}\n`).join('')}`, 1],
  ];
  for (const [shape, make, perKey] of shapes) {
    const perFinding: Record<number, number> = {};
    for (const n of [5_000, 20_000]) {
      const input = Buffer.from(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n${make(n)}`);
      const rs = Array.from({ length: 3 }, () => timed([bundle], input, env));
      const wall = median(rs.map((r) => r.wallMs));
      perFinding[n] = wall / (perKey * n);
      console.log(
        `  ${shape} ${fmt(n).padStart(6)} keys: wall ${fmt(Math.min(...rs.map((r) => r.wallMs)))} / ${fmt(wall)} ms, ${(perFinding[n]! * 1000).toFixed(1)} µs/finding; exit ${rs[0]!.status}`,
      );
    }
    console.log(`  ${shape}: per-finding time at 20k / at 5k = ${(perFinding[20_000]! / perFinding[5_000]!).toFixed(2)}x`);
  }
}

/**
 * What the goal of 20,000 objects/s leaves at `n` objects (a whole process in n / 20 ms) next to
 * what a process that does no validation takes on the same input: `node -e 0` (node's start
 * alone) and the runtime's pass-through (test-identity: read, write back). Below these no
 * rule can go; at 2k node's start alone is most of the budget on a slow machine.
 */
function floors(n: number, list: Buffer, runs: number, env: NodeJS.ProcessEnv): void {
  const identity = join(root, 'dist/test-identity.cjs');
  const budget = n / 20;
  const node = median(Array.from({ length: runs }, () => timed(['-e', '0'], list, env).wallMs));
  const passThrough = existsSync(identity) ? median(Array.from({ length: runs }, () => timed([identity], list, env).wallMs)) : NaN;
  console.log(
    `  floors at ${fmt(n)} objects: the goal allows ${fmt(budget)} ms; node -e 0 takes ${fmt(node)} ms (${((node / budget) * 100).toFixed(0)}% of it, no work done), ` +
      `the runtime's pass-through (test-identity) ${fmt(passThrough)} ms (${fmt((n / passThrough) * 1000)} objects/s)`,
  );
}

/** Start on 10 objects of the mix (the function and the CLI), interleaved with `node -e 0`, with and without NODE_EXTRA_CA_CERTS. */
function startOnTen(): void {
  const list = resourceList(fleetMix(10));
  const ca = process.env.NODE_EXTRA_CA_CERTS ?? '/etc/ssl/certs/ca-certificates.crt';
  for (const [label, env] of [
    ['NODE_EXTRA_CA_CERTS unset', envWithout('NODE_EXTRA_CA_CERTS')],
    [`NODE_EXTRA_CA_CERTS=${ca}`, { ...process.env, NODE_EXTRA_CA_CERTS: ca }],
  ] as const) {
    // the CLI too: `baremetal-krm validate` is what pre-commit starts on every commit
    const t = startTimes({ node: ['-e', '0'], bundle: [bundle], cli: [cli, 'validate', '--quiet', '-'] }, list, env, 21);
    console.log(
      `  start on 10 objects (${label}, median of 21 interleaved): node -e 0 ${t.node!.toFixed(0)} ms, intent-validate ${t.bundle!.toFixed(0)} ms = ${(t.bundle! / t.node!).toFixed(2)}x (goal <= 1.3x); ` +
        `baremetal-krm validate ${t.cli!.toFixed(0)} ms = ${(t.cli! / t.node!).toFixed(2)}x`,
    );
  }
}

if (process.argv[1]?.endsWith('intent-validate.ts')) void run();
