/**
 * intent-validate benchmark: a generated corpus of 10,000 BareMetalHosts + 10,000 Secrets (with
 * some faults), every rule on, through the built bundle in a child process: wall time,
 * objects/s, peak RSS; and start time on a 10-item input next to `node -e 0`
 * (NODE_EXTRA_CA_CERTS unset). Goal: <= 1.28 s (2x kubeconform -n 2) and start <= 1.5x node.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const bundle = join(root, 'dist/intent-validate.cjs');

function hex(n: number): string {
  return n.toString(16).padStart(2, '0');
}

export function corpus(hosts: number): string {
  let s = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n';
  for (let i = 0; i < hosts; i++) {
    const mac = `52:54:${hex((i >> 16) & 255)}:${hex((i >> 8) & 255)}:${hex(i & 255)}:01`;
    const dupMac = i % 1000 === 999 ? '52:54:00:00:00:01' : mac; // 10 duplicate MACs
    const http = i % 500 === 0 ? 'http' : 'https'; // 20 plain-http BMCs
    s += `- apiVersion: metal3.io/v1alpha1
  kind: BareMetalHost
  metadata:
    name: node${i}
    namespace: site
    labels:
      role: ${i % 10 === 0 ? 'control-plane' : 'worker'}
  spec:
    online: true
    bootMACAddress: ${dupMac}
    bootMode: UEFI
    bmc:
      address: redfish+${http}://10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/redfish/v1/Systems/1
      credentialsName: node${i}-bmc${i % 2000 === 1 ? '-typo' : ''}
    rootDeviceHints:
      deviceName: /dev/sda
`;
    const enc = i % 1000 === 7 ? 'cGFzc3dvcmQ=' : 'ENC[AES256_GCM,data:AAAA,iv:BBBB,tag:CCCC,type:str]';
    s += `- apiVersion: v1
  kind: Secret
  metadata:
    name: node${i}-bmc
    namespace: site
  type: Opaque
  data:
    username: ENC[AES256_GCM,data:AAAA,iv:BBBB,tag:CCCC,type:str]
    password: ${enc}
  sops:
    version: 3.7.3
`;
  }
  return s;
}

function timeRun(cmd: string[], input: string | undefined, runs: number): number {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    spawnSync(cmd[0]!, cmd.slice(1), { input, env, maxBuffer: 1 << 30 });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'iv-bench-'));
  const big = corpus(10_000);
  const bigFile = join(dir, 'corpus.yaml');
  writeFileSync(bigFile, big);
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  // one measured run with peak RSS from the child
  const probe =
    `const {spawnSync}=require('node:child_process');const fs=require('node:fs');` +
    `const t=process.hrtime.bigint();const r=spawnSync(process.execPath,[${JSON.stringify(bundle)}],{input:fs.readFileSync(${JSON.stringify(bigFile)}),maxBuffer:1<<30});` +
    `const ms=Number(process.hrtime.bigint()-t)/1e6;const u=process.resourceUsage();` +
    `const res=(r.stdout.toString().match(/severity: error/g)||[]).length;const warn=(r.stdout.toString().match(/severity: warning/g)||[]).length;` +
    `console.log(JSON.stringify({ms,status:r.status,errors:res,warnings:warn}))`;
  const results: { ms: number; status: number; errors: number; warnings: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const r = spawnSync(process.execPath, ['-e', probe], { env, encoding: 'utf8', maxBuffer: 1 << 30 });
    results.push(JSON.parse(r.stdout.trim()));
  }
  results.sort((a, b) => a.ms - b.ms);
  const med = results[1]!;
  const rss = spawnSync('/usr/bin/time', ['-f', '%M %U %S', process.execPath, bundle], {
    input: big,
    env,
    maxBuffer: 1 << 30,
    encoding: 'utf8',
  });
  const [peakKiB, user, sys] = (/(\d+) ([\d.]+) ([\d.]+)\s*$/.exec(rss.stderr.trim())?.slice(1) ?? []).map(Number) as [
    number,
    number,
    number,
  ];
  console.log(
    `intent-validate: 20,000 objects (10,000 BareMetalHosts + 10,000 Secrets, ${(big.length / 1e6).toFixed(1)} MB), every rule on`,
  );
  console.log(
    `  wall time (median of 3): ${(med.ms / 1000).toFixed(2)} s  -> ${Math.round(20_000 / (med.ms / 1000)).toLocaleString('en')} objects/s (goal <= 1.28 s, 2x kubeconform -n 2 at 2.56 s)`,
  );
  console.log(`  results: ${med.errors} errors, ${med.warnings} warnings, exit code ${med.status}`);
  console.log(
    `  peak RSS: ${(peakKiB / 1024).toFixed(0)} MiB; CPU time of one run: ${(user + sys).toFixed(2)} s (user ${user.toFixed(2)} s + sys ${sys.toFixed(2)} s; wall time suffers when the machine is shared, CPU time less)`,
  );
  // start time: a clean 10-BareMetalHost ResourceList (MACs quoted, one shared encrypted BMC
  // Secret), the same with unquoted MACs, and 10 items with faults (5 BMH + 5 Secrets)
  const clean = tenHosts(true);
  const unquoted = tenHosts(false);
  const small = corpus(5);
  const nodeMs = timeRun([process.execPath, '-e', '0'], undefined, 21);
  const idMs = timeRun([process.execPath, join(root, 'dist/test-identity.cjs')], clean, 21);
  console.log(
    `  start (median of 21, NODE_EXTRA_CA_CERTS unset): node -e 0 ${nodeMs.toFixed(0)} ms; runtime's test-identity bundle ${idMs.toFixed(0)} ms = ${(idMs / nodeMs).toFixed(2)}x`,
  );
  for (const [what, input] of [
    ['10 BareMetalHosts + their Secret, clean, MACs quoted', clean],
    ['10 BareMetalHosts + their Secret, clean, MACs unquoted', unquoted],
    ['5 BareMetalHosts + 5 Secrets with 2 findings', small],
  ] as const) {
    const ms = timeRun([process.execPath, bundle], input, 21);
    console.log(`  start on ${what}: ${ms.toFixed(0)} ms = ${(ms / nodeMs).toFixed(2)}x node (goal <= 1.5x)`);
  }
}

/** 10 BareMetalHosts sharing one sops-encrypted BMC Secret: no findings. */
function tenHosts(quoteMacs: boolean): string {
  const q = quoteMacs ? '"' : '';
  let s = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n';
  for (let i = 0; i < 10; i++)
    s += `- apiVersion: metal3.io/v1alpha1
  kind: BareMetalHost
  metadata:
    name: node${i}
    namespace: site
  spec:
    online: true
    bootMACAddress: ${q}52:54:00:00:00:${hex(i)}${q}
    bmc:
      address: redfish+https://bmc${i}.example/redfish/v1/Systems/1
      credentialsName: shared-bmc
`;
  s += `- apiVersion: v1
  kind: Secret
  metadata:
    name: shared-bmc
    namespace: site
  data:
    username: ENC[AES256_GCM,data:AAAA,type:str]
    password: ENC[AES256_GCM,data:AAAA,type:str]
  sops:
    version: "3.7.3"
`;
  return s;
}

if (process.argv[1]?.endsWith('intent-validate.ts')) void run();
