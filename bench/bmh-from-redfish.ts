/**
 * Discovery of simulated BMCs: 1,000 at 20 ms per response (several settings), 500 at 20 ms,
 * 1,000 at 50 ms and 10,000 at 20 ms: wall time next to the lower bound ceil(N / concurrency) x
 * requests-per-System x latency, the function's CPU per Redfish request, requests per second and
 * peak memory.
 *
 * The simulator (dist/redfish-sim.cjs) runs in its own process, so that it does not share an
 * event loop with the client; the function (dist/bmh-from-redfish.cjs) runs in another, fed a
 * YAML ResourceList as kpt feeds it, under GNU time for its max RSS. The simulator's counters
 * (read with SIGUSR2) give the requests it served, the peak number in flight (= the BMCs really
 * crawled at once) and the discovery phase: first request received to last answer sent.
 */
import { execFileSync, spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Readable } from 'node:stream';
import os from 'node:os';
import { join } from 'node:path';
import { startTimes } from './_util.js';

const root = join(import.meta.dirname, '..');
const N = 1000;
const LATENCY = 20;
const CONCURRENCY = 100;
const RUNS = 3;

type Sim = ChildProcessByStdio<null, Readable, null>;

function nextLine(sim: Sim): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      sim.stdout.off('data', onData);
      sim.off('exit', onExit);
      resolve(buf.slice(0, nl));
    };
    const onExit = (c: number | null) => reject(new Error(`simulator exited ${c}`));
    sim.stdout.on('data', onData);
    sim.on('exit', onExit);
  });
}

/** The functionConfig as YAML, the way kpt hands it over. */
function resourceListYaml(bmcs: { url: string }[], requestsPerBmc: number | undefined, expand: boolean, caFile?: string): string {
  const lines = [
    'apiVersion: config.kubernetes.io/v1',
    'kind: ResourceList',
    'items: []',
    'functionConfig:',
    '  apiVersion: baremetal-krm.dev/v1alpha1',
    '  kind: BMHFromRedfish',
    '  metadata:',
    '    name: bench',
    '  spec:',
    '    mode: discover',
    `    concurrency: ${CONCURRENCY}`,
    ...(requestsPerBmc ? [`    requestsPerBmc: ${requestsPerBmc}`] : []),
    ...(expand ? ['    expand: true'] : []),
    '    bmcs:',
    ...bmcs.flatMap((b, i) => [`    - address: ${b.url}`, `      name: node-${i}`, ...(caFile ? [`      caFile: ${caFile}`] : [])]),
  ];
  return lines.join('\n') + '\n';
}

interface Run {
  wallMs: number;
  activeMs: number;
  /** process start to the first request, last answer to process exit */
  headMs: number;
  tailMs: number;
  peakInFlight: number;
  served: number;
  connections: number;
  rssMiB: number;
  /** CPU time of the function process (user + system), ms */
  cpuMs: number;
  /** of which system time, ms (on loopback it includes the TCP receive work each write does for the simulator's end) */
  sysMs: number;
  /** CPU time of the simulator process over the same run, ms */
  simCpuMs: number;
  /** minor page faults of the function process (fresh memory touched; each one is kernel time, dear in a VM) */
  faults: number;
  perSystem: number;
  systems: number;
  /** the function's output (a ResourceList with the inventories): the input of a re-discovery */
  output: string;
}

async function once(sim: Sim, input: string, bmcCount = N): Promise<Run> {
  const t0 = process.hrtime.bigint();
  const start = performance.timeOrigin + performance.now();
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', 'MAXRSS_KB=%M CPU=%U+%S FAULTS=%R', process.execPath, join(root, 'dist/bmh-from-redfish.cjs')],
    {
      input,
      env: { PATH: process.env.PATH ?? '', BMC_USERNAME: 'admin', BMC_PASSWORD: 'password' },
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    },
  );
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const end = performance.timeOrigin + performance.now();
  const counters = nextLine(sim);
  sim.kill('SIGUSR2');
  const c = JSON.parse(await counters) as {
    requests: number;
    connections: number;
    peakInFlight: number;
    activeMs: number;
    firstAt: number;
    lastAt: number;
    cpuMs: number;
  };
  const m = /discovered (\d+) System\(s\) from (\d+) of (\d+) BMC\(s\), ([\d.]+) Redfish requests per System/.exec(r.stdout);
  if (!m || m[2] !== String(bmcCount)) throw new Error(`no complete discovery (exit ${r.status}): ${(m?.[0] ?? r.stderr).slice(0, 500)}`);
  return {
    wallMs,
    activeMs: c.activeMs,
    headMs: c.firstAt - start,
    tailMs: end - c.lastAt,
    peakInFlight: c.peakInFlight,
    served: c.requests,
    connections: c.connections,
    rssMiB: Number(/MAXRSS_KB=(\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024,
    cpuMs: cpuOf(r.stderr),
    sysMs: Number(/CPU=[\d.]+\+([\d.]+)/.exec(r.stderr)?.[1] ?? NaN) * 1000,
    simCpuMs: c.cpuMs,
    faults: Number(/FAULTS=(\d+)/.exec(r.stderr)?.[1] ?? NaN),
    perSystem: Number(m[4]),
    systems: Number(m[1]),
    output: r.stdout,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cpuOf = (stderr: string) => {
  const m = /CPU=([\d.]+)\+([\d.]+)/.exec(stderr);
  return m ? (Number(m[1]) + Number(m[2])) * 1000 : NaN;
};
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function startSim(extra: string[] = [], count = N, latency = LATENCY): Sim {
  return spawn(
    process.execPath,
    [
      join(root, 'dist/redfish-sim.cjs'),
      '--count',
      String(count),
      '--tree',
      'dmtf-public-rackmount1',
      '--latency',
      String(latency),
      '--json',
      ...extra,
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
}

/**
 * A line of CPU figures: per Redfish request (user + system time of the function process, start to
 * exit: its start, config, crawl, output), the simulator's own per request (its process, measured
 * apart), requests per second (served / wall).
 */
function cpuLine(runs: Run[], wallOf = (r: Run) => r.wallMs): string {
  const perRequest = runs.map((r) => r.cpuMs / r.served);
  const sys = runs.map((r) => r.sysMs / r.served);
  const sim = runs.map((r) => r.simCpuMs / r.served);
  const rate = runs.map((r) => r.served / (wallOf(r) / 1000));
  const faults = runs.map((r) => r.faults / r.served);
  return `CPU per Redfish request ${Math.min(...perRequest).toFixed(3)} ms min, ${median(perRequest).toFixed(3)} ms median (function process, user + system, start to exit, of which system ${median(sys).toFixed(3)} ms: on loopback a write's system time includes the TCP receive work for the simulator's end; ${median(faults).toFixed(1)} minor page faults per request; the simulator's process apart: ${median(sim).toFixed(3)} ms); ${median(rate).toFixed(0)} requests/s`;
}

/** The one-BMC floor and the 1,000-BMC settings (the bound's model, expand, the default), each several runs. */
async function thousandAt20(sim: Sim, bmcs: { url: string }[]): Promise<void> {
  console.log(
    `bmh-from-redfish discover: ${N} simulated BMCs (DMTF public-rackmount1, ${LATENCY} ms per response, simulator in its own process), concurrency ${CONCURRENCY} BMCs`,
  );
  // the floor this simulator allows: one BMC alone, its sequential requests (its 20 ms timers fire a little late)
  const lone: Run[] = [];
  for (let i = 0; i < RUNS; i++) lone.push(await once(sim, resourceListYaml(bmcs.slice(0, 1), 1, false), 1));
  const loneMs = median(lone.map((r) => r.activeMs));
  console.log(
    `  one BMC alone: ${loneMs} ms for ${lone[0]!.served} sequential requests = ${(loneMs / lone[0]!.served).toFixed(1)} ms per request (${LATENCY} ms asked)`,
  );
  const configs = [
    { label: "the bound's model: 1 request in flight per BMC (a sequential crawl)", rpb: 1, expand: false, runs: RUNS, again: true },
    { label: 'the same with expand: true ($expand as the service root advertises it)', rpb: 1, expand: true, runs: RUNS, again: false },
    {
      label: "default requestsPerBmc (4): up to 4 connections per BMC, the crawl's branches overlap",
      rpb: undefined,
      expand: false,
      runs: 1,
      again: false,
    },
  ];
  for (const c of configs) {
    const input = resourceListYaml(bmcs, c.rpb, c.expand);
    const runs: Run[] = [];
    for (let i = 0; i < c.runs; i++) runs.push(await once(sim, input));
    report(c.label, runs, N, CONCURRENCY, LATENCY);
    if (c.again) {
      // re-discovery of unchanged hardware: the inventories are already in the package, nothing is rewritten
      // the output carries no functionConfig (the runtime drops it): the configuration is given again, as kpt does
      const r = await once(sim, runs[0]!.output + input.slice(input.indexOf('functionConfig:')));
      const bound = Math.ceil(N / CONCURRENCY) * r.perSystem * LATENCY;
      console.log(
        `    re-discovery (the ${N} inventories already in the package, unchanged): wall ${s(r.wallMs)} -> ${(r.wallMs / bound).toFixed(2)}x; discovery phase ${s(r.activeMs)}, before it ${s(r.headMs)}, after it ${s(r.tailMs)}; peak memory ${r.rssMiB.toFixed(0)} MiB`,
      );
    }
  }
}

function report(label: string, runs: Run[], n: number, concurrency: number, latency: number): void {
  const perSystem = runs[0]!.perSystem;
  const bound = Math.ceil(n / concurrency) * perSystem * latency;
  const wall = median(runs.map((r) => r.wallMs));
  const active = median(runs.map((r) => r.activeMs));
  const ratios = runs.map((r) => r.wallMs / bound);
  console.log(`  ${label}${runs.length > 1 ? `, ${runs.length} runs` : ''}:`);
  console.log(
    `    requests per System: ${perSystem} (the simulator served ${runs[0]!.served} for ${runs[0]!.systems} Systems over ${runs[0]!.connections} keep-alive connections); peak requests in flight at the simulator: ${Math.max(...runs.map((r) => r.peakInFlight))}`,
  );
  console.log(
    `    lower bound ceil(${n}/${concurrency}) x ${perSystem} x ${latency} ms = ${s(bound)} (with 1 request in flight per BMC every request of a System is on its critical path)`,
  );
  console.log(
    `    wall time, process start to exit: median ${s(wall)} -> ${(wall / bound).toFixed(2)}x the bound (min ${Math.min(...ratios).toFixed(2)}x${runs.length > 1 ? `; runs: ${runs.map((r) => s(r.wallMs)).join(', ')}` : ''})`,
  );
  console.log(
    `    discovery phase (first request to last answer, at the simulator): ${s(active)} -> ${(active / bound).toFixed(2)}x; before it ${s(median(runs.map((r) => r.headMs)))} (process start, reading the config), after it ${s(median(runs.map((r) => r.tailMs)))} (writing ${n} new inventories, exit)`,
  );
  console.log(`    ${cpuLine(runs)}`);
  console.log(`    peak memory (max RSS of the function process): ${median(runs.map((r) => r.rssMiB)).toFixed(0)} MiB`);
  // on a shared machine the two processes get what the others leave: the CPU they used next to the wall it took
  const both = runs.map((r) => (r.cpuMs + r.simCpuMs) / r.wallMs);
  console.log(
    `    CPU of function + simulator per wall second: ${median(both).toFixed(2)} of ${os.cpus().length} cores (load average ${os.loadavg()[0]!.toFixed(1)})`,
  );
}

/** HTTPS, the certificate verified against a CA file: one TLS handshake per BMC (keep-alive), one connector for all. */
async function https(): Promise<void> {
  const tmp = mkdtempSync(join(os.tmpdir(), 'bmh-bench-tls-'));
  let sim: Sim | undefined;
  try {
    // an EC P-256 key: with RSA-2048 the simulator's 1,000 private-key signatures (one per handshake) dominate the figure
    const subject = ['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'];
    const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(tmp, 'key.pem')];
    execFileSync('openssl', ['req', '-x509', ...key, '-out', join(tmp, 'cert.pem'), '-days', '1', ...subject], { stdio: 'ignore' });
    sim = startSim(['--tls', join(tmp, 'key.pem'), join(tmp, 'cert.pem')]);
    const tlsBmcs = JSON.parse(await nextLine(sim)) as { url: string }[];
    const r = await once(sim, resourceListYaml(tlsBmcs, 1, false, join(tmp, 'cert.pem')));
    const bound = Math.ceil(N / CONCURRENCY) * r.perSystem * LATENCY;
    console.log(`  HTTPS (EC P-256 certificate, verified with caFile), 1 request in flight per BMC, one run:`);
    console.log(
      `    requests per System: ${r.perSystem}, ${r.connections} TLS connections; wall ${s(r.wallMs)} -> ${(r.wallMs / bound).toFixed(2)}x the ${s(bound)} bound; discovery phase ${s(r.activeMs)} -> ${(r.activeMs / bound).toFixed(2)}x; ${cpuLine([r])}; peak memory ${r.rssMiB.toFixed(0)} MiB`,
    );
  } finally {
    sim?.kill('SIGTERM');
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * What this simulator and machine allow at best: one BMC alone, its requests one after another
 * (each waits for the simulator's timer, a wake-up of each process and the function's turn-around),
 * as a ratio to the latency asked. The discovery phase of a fleet cannot be faster per request.
 */
async function floor(sim: Sim, bmcs: { url: string }[], latency: number): Promise<number> {
  const lone: Run[] = [];
  for (let i = 0; i < 3; i++) lone.push(await once(sim, resourceListYaml(bmcs.slice(0, 1), 1, false), 1));
  const perRequest = median(lone.map((r) => r.activeMs / r.served));
  console.log(
    `    floor: one BMC alone takes ${perRequest.toFixed(1)} ms per request (${latency} ms asked, median of 3): ${(perRequest / latency).toFixed(2)}x in the discovery phase at best, before process start and output`,
  );
  return perRequest;
}

/** Other fleet sizes and latencies, 1 request in flight per BMC: each its own simulator. */
async function scale(n: number, latency: number, runs: number): Promise<void> {
  const sim = startSim([], n, latency);
  try {
    const bmcs = JSON.parse(await nextLine(sim)) as { url: string }[];
    const input = resourceListYaml(bmcs, 1, false);
    const done: Run[] = [];
    for (let i = 0; i < runs; i++) done.push(await once(sim, input, n));
    report(`${n.toLocaleString('en')} BMCs at ${latency} ms per response, 1 request in flight per BMC`, done, n, CONCURRENCY, latency);
    const perRequest = await floor(sim, bmcs, latency);
    // what no crawl can beat here: this run's process start and output around a discovery phase at the one-BMC floor (no queueing at all)
    const bound = Math.ceil(n / CONCURRENCY) * done[0]!.perSystem * latency;
    const head = median(done.map((r) => r.headMs));
    const tail = median(done.map((r) => r.tailMs));
    const best = (head + (perRequest / latency) * bound + tail) / bound;
    console.log(
      `    at best (this run's start ${s(head)} and output ${s(tail)} around a discovery phase at the floor, no wait at all): ${best.toFixed(2)}x the bound (goal <= 1.3x)`,
    );
  } finally {
    sim.kill('SIGTERM');
  }
}

/**
 * The sections to run: all, or those named in BMH_BENCH (comma-separated: `1000`, `https`,
 * `500x20`, `1000x50`, `10000x20`), e.g. `BMH_BENCH=500x20 npm run bench -- bmh-from-redfish`.
 */
const sections = process.env.BMH_BENCH?.split(',').map((x) => x.trim());
const wanted = (name: string) => !sections || sections.includes(name);

export async function run(): Promise<void> {
  // what "before it" holds besides reading the BMCs: Node's own start and the bundle's, without a BMC
  const empty = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n';
  const start = startTimes(
    { node: ['-e', '0'], bundle: [join(root, 'dist/bmh-from-redfish.cjs')] },
    empty,
    { PATH: process.env.PATH ?? '' },
    7,
  );
  console.log(
    `  process start (median of 7): node -e 0 ${start.node!.toFixed(0)} ms, the bundle on an empty ResourceList ${start.bundle!.toFixed(0)} ms (start to exit)`,
  );
  if (wanted('1000')) {
    const sim = startSim();
    try {
      await thousandAt20(sim, JSON.parse(await nextLine(sim)) as { url: string }[]);
    } finally {
      sim.kill('SIGTERM');
    }
  }
  if (wanted('https')) await https();
  if (wanted('500x20')) await scale(500, 20, Number(process.env.BMH_BENCH_RUNS ?? RUNS));
  if (wanted('1000x50')) await scale(1000, 50, Number(process.env.BMH_BENCH_RUNS ?? RUNS));
  // 10,000 BMCs on loopback: one listener each in the simulator process
  if (wanted('10000x20')) await scale(10_000, 20, 1);
  console.log(`  machine: ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)} (other work shares them)`);
}
