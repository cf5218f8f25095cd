/**
 * Discovery of 1,000 simulated BMCs at 20 ms per response: wall time next to the lower bound
 * ceil(N / concurrency) x requests-per-System x latency, requests per System, peak memory.
 * The simulator runs in a child process (so its memory is not counted); discovery runs in
 * another child whose max RSS is reported.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const N = 1000;
const LATENCY = 20;
const CONCURRENCY = 100;

export async function run(): Promise<void> {
  const sim = spawn(process.execPath, [join(root, 'dist/redfish-sim.cjs'), '--count', String(N), '--tree', 'dmtf-public-rackmount1', '--latency', String(LATENCY), '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const bmcs = await new Promise<{ url: string }[]>((resolve, reject) => {
    let buf = '';
    sim.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) resolve(JSON.parse(buf) as { url: string }[]);
    });
    sim.on('exit', (c) => reject(new Error(`simulator exited ${c}`)));
  });
  try {
    const config = {
      apiVersion: 'baremetal-krm.dev/v1alpha1',
      kind: 'BMHFromRedfish',
      metadata: { name: 'bench' },
      spec: { mode: 'discover', concurrency: CONCURRENCY, requestsPerBmc: 1, bmcs: bmcs.map((b, i) => ({ address: b.url, name: `node-${i}` })) },
    };
    const input = JSON.stringify({ apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items: [], functionConfig: config });
    const t0 = process.hrtime.bigint();
    const r = spawnSync('/usr/bin/time', ['-f', 'MAXRSS_KB=%M', process.execPath, join(root, 'dist/bmh-from-redfish.cjs')], {
      input,
      env: { PATH: process.env.PATH ?? '', BMC_USERNAME: 'admin', BMC_PASSWORD: 'password' },
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
    const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const rss = Number(/MAXRSS_KB=(\d+)/.exec(r.stderr)?.[1] ?? NaN);
    const m = /discovered (\d+) System\(s\) from (\d+) of (\d+) BMC\(s\), ([\d.]+) Redfish requests per System/.exec(r.stdout);
    if (!m) throw new Error(`no summary in the output (exit ${r.status}): ${r.stderr.slice(0, 500)}`);
    const perSystem = Number(m[4]);
    const bound = Math.ceil(N / CONCURRENCY) * perSystem * LATENCY;
    console.log(`bmh-from-redfish discover: ${m[1]} Systems from ${m[2]}/${m[3]} simulated BMCs (DMTF public-rackmount1, ${LATENCY} ms per response)`);
    console.log(`  concurrency ${CONCURRENCY} BMCs, 1 request in flight per BMC (sequential crawl, the bound's model)`);
    console.log(`  requests per System: ${perSystem}`);
    console.log(`  wall time: ${(wallMs / 1000).toFixed(2)} s (process start to exit)`);
    console.log(`  lower bound ceil(${N}/${CONCURRENCY}) x ${perSystem} x ${LATENCY} ms = ${(bound / 1000).toFixed(2)} s -> ratio ${(wallMs / bound).toFixed(2)}x (goal <= 1.2x)`);
    console.log(`  peak memory (max RSS of the function process): ${(rss / 1024).toFixed(0)} MiB`);
  } finally {
    sim.kill('SIGTERM');
  }
}
