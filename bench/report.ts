/**
 * The cross-site report on 100 sites x 50 hosts (derived from the rendered airshipctl test-site:
 * every site has its phases, catalogues, kubeconfig, Flux objects and workloads, and 50
 * BareMetalHosts with networkData Secrets and Dell HardwareData or HPE HardwareInventory; every
 * tenth site changes the ingress chart version). Prints wall time and peak memory of the bundle
 * (dist/baremetal-krm.cjs report) for the json and html outputs.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt } from './_util.js';

const root = join(import.meta.dirname, '..');
const testSite = join(root, 'test/report/sites/test-site');
const SITES = 100;
const HOSTS = 50;

function makeSites(dir: string): string[] {
  const host = readFileSync(join(testSite, 'hosts/node01.yaml'), 'utf8');
  const worker = readFileSync(join(testSite, 'hosts/node03.yaml'), 'utf8');
  const hd = readFileSync(join(testSite, 'hardware/node01.yaml'), 'utf8');
  const inv = readFileSync(join(testSite, 'hardware/node03.yaml'), 'utf8');
  const paths: string[] = [];
  for (let s = 0; s < SITES; s++) {
    const name = `site-${String(s).padStart(3, '0')}`;
    const d = join(dir, name);
    for (const sub of ['catalogues', 'kubeconfig', 'phases', 'flux', 'workload', 'controlplane'])
      cpSync(join(testSite, sub), join(d, sub), { recursive: true });
    cpSync(join(testSite, 'hardware/profiles.yaml'), join(d, 'hardware/profiles.yaml'));
    if (s % 10 === 9) {
      const f = join(d, 'workload/helmrelease.yaml');
      writeFileSync(f, readFileSync(f, 'utf8').replace('version: 3.5.1', 'version: 4.0.1'));
    }
    const hosts: string[] = [];
    const hw: string[] = [];
    for (let h = 0; h < HOSTS; h++) {
      const n = `h${String(h).padStart(2, '0')}`;
      const mac = (x: string): string =>
        x.replace(
          /52:54:00:([0-9a-f]{2}):([0-9a-f]{2}):/g,
          `52:54:${(s % 256).toString(16).padStart(2, '0')}:${(h % 256).toString(16).padStart(2, '0')}:$2:`,
        );
      const ip = (x: string): string => x.replace(/10\.23\.(2[45])\.10\d/g, `10.${s % 250}.$1.${h + 10}`);
      const isWorker = h >= 3;
      hosts.push(ip(mac((isWorker ? worker : host).replace(/node0[13]/g, n))));
      hw.push((isWorker ? inv : hd).replace(/name: node0[13]/, `name: ${n}`));
    }
    mkdirSync(join(d, 'hosts'), { recursive: true });
    writeFileSync(join(d, 'hosts/hosts.yaml'), hosts.join('---\n'));
    writeFileSync(join(d, 'hardware/hosts.yaml'), hw.join('---\n'));
    paths.push(d);
  }
  return paths;
}

function timed(args: string[]): { ms: number; rssMiB?: number; bytes: number; code: number | null } {
  const out = join(tmpdir(), `bench-report-${process.pid}.out`);
  const t = performance.now();
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', '%M', process.execPath, join(root, 'dist/baremetal-krm.cjs'), 'report', '--output', out, ...args],
    { encoding: 'utf8', maxBuffer: 1 << 30 },
  );
  const ms = performance.now() - t;
  if (r.status !== 0 && r.status !== 1) throw new Error(`report failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const m = /(\d+)\s*$/.exec(r.stderr ?? '');
  const bytes = existsSync(out) ? statSync(out).size : 0;
  rmSync(out, { force: true });
  return { ms, rssMiB: m ? Number(m[1]) / 1024 : undefined, bytes, code: r.status };
}

export async function run(): Promise<void> {
  const dir = join(tmpdir(), `bench-report-sites-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  const t0 = performance.now();
  const sites = makeSites(dir);
  console.log(`generated ${SITES} sites x ${HOSTS} hosts (${fmt(SITES * HOSTS)} hosts) in ${fmt(performance.now() - t0)} ms`);
  try {
    const common = ['--now', '2021-06-01T00:00:00Z', '--reference', 'site-000', ...sites];
    for (const format of ['json', 'html', 'text']) {
      const r = timed(['--format', format, ...common]);
      console.log(
        `report --format ${format.padEnd(4)} on ${SITES} sites x ${HOSTS} hosts: ${fmt(r.ms)} ms wall (${fmt((SITES * HOSTS) / (r.ms / 1000))} hosts/s), peak RSS ${r.rssMiB !== undefined ? fmt(r.rssMiB) + ' MiB' : 'n/a'}, output ${fmt(r.bytes / 1024)} KiB`,
      );
    }
    const small = timed(['--format', 'json', '--now', '2021-06-01T00:00:00Z', testSite]);
    console.log(
      `report --format json on the test-site alone (6 hosts, 122 objects): ${fmt(small.ms)} ms wall, peak RSS ${small.rssMiB !== undefined ? fmt(small.rssMiB) + ' MiB' : 'n/a'}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
