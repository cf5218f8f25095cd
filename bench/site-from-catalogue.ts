/**
 * site-from-catalogue: a 2,000-host site (half the PXE addresses allocated), its re-run on its own
 * output, dual stack with 2,000 IPv6 allocations, and a new site from a type; wall time and peak
 * memory (max RSS) of the bundle in a child process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

export function input(n: number, opts: { v6?: boolean; site?: boolean } = {}): string {
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
    `apiVersion: airshipit.org/v1alpha1\nkind: NetworkCatalogue\nmetadata:\n  name: networking\nspec:\n  commonHostNetworking:\n    links:\n    - {id: oam, name: oam, type: phy, mtu: "9000"}\n    - {id: pxe, name: pxe, type: phy, mtu: "1500"}\n    networks:\n    - {id: oam-ipv4, type: ipv4, link: oam, netmask: 255.255.0.0, routes: [{network: 0.0.0.0, netmask: 0.0.0.0, gateway: 10.2.255.254}]}\n    - {id: pxe-ipv4, type: ipv4, link: pxe, netmask: 255.255.0.0}\n${opts.v6 ? '    - {id: oam-ipv6, type: ipv6, link: oam, netmask: "ffff:ffff:ffff:ffff::"}\n' : ''}    services:\n    - {address: 8.8.8.8, type: dns}\n`,
    `apiVersion: airshipit.org/v1alpha1\nkind: VariableCatalogue\nmetadata:\n  name: host-catalogue\nhosts:\n  m3:\n${hosts
      .replace(/^ {6}(node\d+:)/gm, '    $1')
      .replace(/^ {8}/gm, '      ')
      .replace(/^ {10}/gm, '        ')}`,
  ];
  const cfg =
    'functionConfig:\n  apiVersion: baremetal-krm.dev/v1alpha1\n  kind: SiteFromCatalogue\n  metadata: {name: bench}\n  spec:\n    ipam:\n      pxe-ipv4: {cidr: 10.3.0.0/16, start: 10.3.100.0}\n' +
    (opts.v6 ? '      oam-ipv6: {cidr: "fd00:2::/64", reserved: ["fd00:2::1-fd00:2::ff"]}\n' : '') +
    (opts.site
      ? '    site:\n      name: bench-site\n      type: ../../type/gating\n      phases:\n      - {path: ephemeral/controlplane, hosts: controlPlane, count: 1}\n      - {path: target/initinfra}\n      - {path: target/controlplane, hosts: controlPlane}\n      - {path: target/workers, hosts: workers}\n'
      : '') +
    '    roles:\n      controlPlane: {count: 3}\n      workers: {}\n';
  return (
    'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n' +
    items.map((d) => '- ' + d.replace(/\n(?=.)/g, '\n  ')).join('') +
    cfg
  );
}

interface Run {
  ms: number;
  rssMiB: number;
  out: string;
  status: number | null;
}

function once(bundle: string, text: string, time: boolean): Run {
  const t0 = process.hrtime.bigint();
  const r = time
    ? spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, bundle], { input: text, encoding: 'utf8', maxBuffer: 1 << 30 })
    : spawnSync(process.execPath, [bundle], { input: text, encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const kb = time ? Number(r.stderr.trim().split('\n').pop()) : NaN;
  return { ms, rssMiB: kb / 1024, out: r.stdout, status: r.status };
}

function best(bundle: string, text: string, time: boolean, n = 3): { best: Run; all: Run[] } {
  const all = Array.from({ length: n }, () => once(bundle, text, time));
  return { best: all.reduce((a, b) => (a.ms < b.ms ? a : b)), all };
}

function line(label: string, text: string, r: { best: Run; all: Run[] }, time: boolean): void {
  const b = r.best;
  console.log(`${label}`);
  console.log(
    `  input ${(text.length / 1024 / 1024).toFixed(1)} MiB, output ${(b.out.length / 1024 / 1024).toFixed(1)} MiB, exit ${b.status}; ` +
      `${(b.out.match(/\n {2}kind: BareMetalHost\n/g) ?? []).length} BareMetalHost items`,
  );
  console.log(
    `  wall time (bundle, cold process): best ${b.ms.toFixed(0)} ms of ${r.all.length} [${r.all.map((x) => x.ms.toFixed(0)).join(', ')} ms]`,
  );
  console.log(`  peak memory (max RSS): ${time ? b.rssMiB.toFixed(0) + ' MiB' : 'n/a (/usr/bin/time missing)'}`);
}

export async function run(): Promise<void> {
  const bundle = join(root, 'dist/site-from-catalogue.cjs');
  const n = 2000;
  const time = existsSync('/usr/bin/time');

  const text = input(n);
  const gen = best(bundle, text, time);
  line(`site-from-catalogue: generate ${n} hosts (${n * 2} objects, ${n / 2} IPv4 PXE addresses allocated)`, text, gen, time);

  // the same run on its own output: existing addresses read back, nothing changes
  const items = (out: string) => out.slice(0, out.search(/^(functionConfig|results):/m));
  const again = items(gen.best.out) + text.slice(text.indexOf('functionConfig:'));
  const re = best(bundle, again, time);
  line(
    `site-from-catalogue: re-run on its own output (${n} hosts; items unchanged: ${items(re.best.out) === items(gen.best.out)})`,
    again,
    re,
    time,
  );

  const v6 = input(n, { v6: true });
  line(`site-from-catalogue: generate ${n} hosts, dual stack (${n} IPv6 addresses allocated in a /64)`, v6, best(bundle, v6, time), time);

  // a whole new site: host-inventory, ephemeral + target control plane, workers, phase plan
  const site = input(n, { site: true });
  const written = best(bundle, site, time);
  line(
    `site-from-catalogue: new site from a type with ${n} hosts (host-inventory + phase folders: ${2 * n + 1} BareMetalHost files)`,
    site,
    written,
    time,
  );

  // distil that site back: every host is in host-inventory/ and its phase folder(s), copies merge
  const distilConfig =
    'functionConfig:\n  apiVersion: baremetal-krm.dev/v1alpha1\n  kind: SiteFromCatalogue\n  metadata:\n    name: bench\n  spec:\n    mode: distil\n';
  const back = items(written.best.out) + distilConfig;
  const distilled = best(bundle, back, time);
  line(`site-from-catalogue: distil the new site (${2 * n + 1} BareMetalHost copies of ${n} hosts, merged)`, back, distilled, time);
}

if (process.argv[1]?.endsWith('site-from-catalogue.ts')) void run();
