/** site-from-catalogue: generate a 2,000-host site (half the PXE addresses allocated); time and peak memory of the bundle. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

function input(n: number): string {
  const hex = (i: number) => [(i >> 8) & 255, i & 255].map((b) => b.toString(16).padStart(2, '0')).join(':');
  let hosts = '';
  for (let i = 0; i < n; i++) {
    const name = `node${String(i).padStart(4, '0')}`;
    hosts +=
      `    - ${name}:\n`.replace('    - ', '      ') +
      `        bootMode: UEFI\n        macAddress: "52:54:01:aa:${hex(i)}"\n        bmcAddress: redfish+https://10.1.${i >> 8}.${i & 255}/redfish/v1/Systems/1\n` +
      `        ipAddresses:\n          oam-ipv4: 10.2.${i >> 8}.${(i & 255) + 0}\n` +
      (i % 2 ? '' : `          pxe-ipv4: 10.3.${i >> 8}.${i & 255}\n`) +
      `        macAddresses:\n          oam: "52:54:02:aa:${hex(i)}"\n`;
  }
  const items = [
    `apiVersion: airshipit.org/v1alpha1\nkind: NetworkCatalogue\nmetadata:\n  name: networking\nspec:\n  commonHostNetworking:\n    links:\n    - {id: oam, name: oam, type: phy, mtu: "9000"}\n    - {id: pxe, name: pxe, type: phy, mtu: "1500"}\n    networks:\n    - {id: oam-ipv4, type: ipv4, link: oam, netmask: 255.255.0.0, routes: [{network: 0.0.0.0, netmask: 0.0.0.0, gateway: 10.2.255.254}]}\n    - {id: pxe-ipv4, type: ipv4, link: pxe, netmask: 255.255.0.0}\n    services:\n    - {address: 8.8.8.8, type: dns}\n`,
    `apiVersion: airshipit.org/v1alpha1\nkind: VariableCatalogue\nmetadata:\n  name: host-catalogue\nhosts:\n  m3:\n${hosts.replace(/^ {6}(node\d+:)/gm, '    $1').replace(/^ {8}/gm, '      ').replace(/^ {10}/gm, '        ')}`,
  ];
  const cfg =
    'functionConfig:\n  apiVersion: baremetal-krm.dev/v1alpha1\n  kind: SiteFromCatalogue\n  metadata: {name: bench}\n  spec:\n    ipam:\n      pxe-ipv4: {cidr: 10.3.0.0/16, start: 10.3.100.0}\n    roles:\n      controlPlane: {count: 3}\n      workers: {}\n';
  return 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n' + items.map((d) => '- ' + d.replace(/\n(?=.)/g, '\n  ')).join('') + cfg;
}

export async function run(): Promise<void> {
  const bundle = join(root, 'dist/site-from-catalogue.cjs');
  const n = 2000;
  const text = input(n);
  const time = existsSync('/usr/bin/time');
  const runs: { ms: number; rssMiB: number; out: number; status: number | null; bmhs: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = process.hrtime.bigint();
    const r = time
      ? spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, bundle], { input: text, encoding: 'utf8', maxBuffer: 1 << 30 })
      : spawnSync(process.execPath, [bundle], { input: text, encoding: 'utf8', maxBuffer: 1 << 30 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const kb = time ? Number(r.stderr.trim().split('\n').pop()) : NaN;
    runs.push({ ms, rssMiB: kb / 1024, out: r.stdout.length, status: r.status, bmhs: (r.stdout.match(/kind: BareMetalHost\n/g) ?? []).length });
  }
  const best = runs.reduce((a, b) => (a.ms < b.ms ? a : b));
  console.log(`site-from-catalogue: generate ${n} hosts: ${best.bmhs} BareMetalHosts written (${n * 2} objects + catalogues, ${n / 2} PXE addresses allocated)`);
  console.log(`  input ${(text.length / 1024 / 1024).toFixed(1)} MiB, output ${(best.out / 1024 / 1024).toFixed(1)} MiB, exit ${best.status}`);
  console.log(`  wall time (bundle, cold process): best ${best.ms.toFixed(0)} ms of 3 [${runs.map((r) => r.ms.toFixed(0)).join(', ')} ms]`);
  console.log(`  peak memory (max RSS): ${time ? best.rssMiB.toFixed(0) + ' MiB' : 'n/a (/usr/bin/time missing)'}`);
}

if (process.argv[1] && process.argv[1].endsWith('site-from-catalogue.ts')) void run();
