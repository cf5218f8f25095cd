/**
 * Plan cases: the committed base site (test/plan/site: Flux Kustomizations hosts (prune),
 * workloads (prune, dependsOn hosts) and legacy (no prune); eight provisioned hosts with BMC and
 * network-data Secrets; an apps Namespace with a ConfigMap, a Deployment and a Secret) and, per
 * case, the edits that make its head (and sometimes its base). Written under .e2e-out/ by the
 * tests and the benchmark.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SITE = join(import.meta.dirname, 'site');

export function edit(file: string, from: string | RegExp, to: string): void {
  const t = readFileSync(file, 'utf8');
  const n = t.replace(from, to);
  if (n === t) throw new Error(`edit had no effect: ${file}: ${String(from)}`);
  writeFileSync(file, n);
}

/** Removes the YAML document that names `name` (and kind) from a multi-document file. */
export function dropDoc(file: string, kind: string, name: string): void {
  const docs = readFileSync(file, 'utf8').split(/^---\n/m);
  const kept = docs.filter((d) => !(new RegExp(`^kind: ${kind}$`, 'm').test(d) && new RegExp(`^  name: ${name}$`, 'm').test(d)));
  if (kept.length === docs.length) throw new Error(`no ${kind} ${name} in ${file}`);
  writeFileSync(file, kept.join('---\n'));
}

const hosts = (d: string, n: string): string => join(d, 'site/hosts', `node${n}.yaml`);

export interface Expect {
  resource: string;
  action: 'added' | 'removed' | 'changed';
  class: string;
  /** the reason, exactly */
  reason: string;
}

export interface PlanCase {
  name: string;
  what: string;
  base?: (dir: string) => void;
  head: (dir: string) => void;
  expect: Expect[];
}

const newHost = (n: string, image: boolean): string =>
  readFileSync(hosts(SITE, '01'), 'utf8')
    .replace(/node01/g, `node${n}`)
    .replace(/10\.0\.0\.01/, `10.0.0.${n}`)
    .replace(/00:01"/g, `00:${n}"`)
    .replace(image ? /^$/ : / {2}image:\n( {4}.*\n)+/m, '');

export const CASES: PlanCase[] = [
  {
    name: 'host-removed',
    what: 'a provisioned host and its Secrets removed from a pruning Kustomization',
    head: (d) => rmSync(hosts(d, '01')),
    expect: [
      {
        resource: 'BareMetalHost/metal3/node01',
        action: 'removed',
        class: 'deprovision',
        reason: 'removed (pruned by Kustomization hosts): BMO deprovisions the host (image wiped, disks cleaned) and powers it off',
      },
      {
        resource: 'Secret/metal3/node01-bmc-secret',
        action: 'removed',
        class: 'deletion',
        reason: 'removed: pruned by Kustomization hosts',
      },
      {
        resource: 'Secret/metal3/node01-network-data',
        action: 'removed',
        class: 'deletion',
        reason: 'removed: pruned by Kustomization hosts',
      },
    ],
  },
  {
    name: 'host-removed-without-prune',
    what: 'the same removal while the Kustomization stops pruning: the host stays',
    head: (d) => {
      rmSync(hosts(d, '01'));
      edit(join(d, 'flux/kustomizations.yaml'), 'path: ./site/hosts\n  prune: true', 'path: ./site/hosts\n  prune: false');
    },
    expect: [
      {
        resource: 'BareMetalHost/metal3/node01',
        action: 'removed',
        class: 'no-runtime-effect',
        reason: 'removed from Git, left in the cluster: Kustomization hosts has prune: false',
      },
      {
        resource: 'Kustomization/flux-system/hosts',
        action: 'changed',
        class: 'config-change',
        reason: 'prune: false: Flux no longer deletes what leaves its path',
      },
    ],
  },
  {
    name: 'image-changed',
    what: 'a new image URL re-provisions',
    head: (d) => edit(hosts(d, '02'), 'ubuntu-22.04.qcow2\n', 'ubuntu-24.04.qcow2\n'),
    expect: [
      {
        resource: 'BareMetalHost/metal3/node02',
        action: 'changed',
        class: 'reprovision',
        reason:
          'image changed http://images.example.com/ubuntu-22.04.qcow2 -> http://images.example.com/ubuntu-24.04.qcow2: BMO deprovisions (disks cleaned) and provisions the new image',
      },
    ],
  },
  {
    name: 'image-removed',
    what: 'removing the image deprovisions; cleaning disabled is said',
    head: (d) => {
      edit(hosts(d, '03'), / {2}image:\n( {4}.*\n)+/, '');
      edit(hosts(d, '03'), '  online: true\n', '  online: true\n  automatedCleaningMode: disabled\n');
    },
    expect: [
      {
        resource: 'BareMetalHost/metal3/node03',
        action: 'changed',
        class: 'deprovision',
        reason: 'image removed: BMO deprovisions the host (image wiped, automatedCleaningMode: disabled, disks not cleaned)',
      },
    ],
  },
  {
    name: 'power-off',
    what: 'online: false powers off',
    head: (d) => edit(hosts(d, '04'), 'online: true', 'online: false'),
    expect: [
      { resource: 'BareMetalHost/metal3/node04', action: 'changed', class: 'power-off', reason: 'online: false: BMO powers the host off' },
    ],
  },
  {
    name: 'power-on',
    what: 'online: true on a host that was off',
    base: (d) => edit(hosts(d, '04'), 'online: true', 'online: false'),
    head: (d) => edit(hosts(d, '04'), 'online: false', 'online: true'),
    expect: [
      { resource: 'BareMetalHost/metal3/node04', action: 'changed', class: 'power-on', reason: 'online: true: BMO powers the host on' },
    ],
  },
  {
    name: 'management-change',
    what: 'a new BMC address and boot MAC',
    head: (d) => {
      edit(hosts(d, '05'), '10.0.0.05', '10.0.1.05');
      edit(hosts(d, '05'), 'bootMACAddress: "52:54:00:00:00:05"', 'bootMACAddress: "52:54:00:00:01:05"');
    },
    expect: [
      {
        resource: 'BareMetalHost/metal3/node05',
        action: 'changed',
        class: 'management-change',
        reason:
          'spec.bootMACAddress, spec.bmc.address changed (BMC redfish-virtualmedia://10.0.0.05/redfish/v1/Systems/1 -> redfish-virtualmedia://10.0.1.05/redfish/v1/Systems/1): BMO registers the host again; wrong values leave it in registration error',
      },
    ],
  },
  {
    name: 'consumer-change',
    what: 'a consumerRef written in Git',
    head: (d) =>
      edit(
        hosts(d, '06'),
        '  online: true\n',
        '  online: true\n  consumerRef:\n    apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\n    kind: Metal3Machine\n    name: worker-0\n',
      ),
    expect: [
      {
        resource: 'BareMetalHost/metal3/node06',
        action: 'changed',
        class: 'consumer-change',
        reason: 'consumerRef (none) -> Metal3Machine/worker-0: the host changes hands',
      },
    ],
  },
  {
    name: 'next-provisioning',
    what: 'root device hints and RAID wait for the next provisioning',
    head: (d) =>
      edit(hosts(d, '07'), 'deviceName: /dev/sda\n', 'deviceName: /dev/sdb\n  raid:\n    softwareRAIDVolumes:\n    - level: "1"\n'),
    expect: [
      {
        resource: 'BareMetalHost/metal3/node07',
        action: 'changed',
        class: 'next-provisioning',
        reason: 'spec.rootDeviceHints, spec.raid changed: BMO uses it at the next provisioning only',
      },
    ],
  },
  {
    name: 'credential-rotation',
    what: 'BMC password, network data and an application Secret change; no value is shown',
    head: (d) => {
      edit(hosts(d, '08'), 'password: s3cret-node08', 'password: n3w-s3cret-node08');
      edit(hosts(d, '08'), 'ethernet_mac_address: "52:54:00:00:00:08"', 'ethernet_mac_address: "52:54:00:00:10:08"');
      edit(join(d, 'site/workloads/app.yaml'), 'hunter2-db', 'hunter3-db');
    },
    expect: [
      {
        resource: 'Secret/metal3/node08-bmc-secret',
        action: 'changed',
        class: 'credential-rotation',
        reason: 'BMC credentials of host node08 changed (keys password; values not shown): BMO registers the host again with them',
      },
      {
        resource: 'Secret/metal3/node08-network-data',
        action: 'changed',
        class: 'next-provisioning',
        reason: 'networkData of host node08 changed (keys networkData): used at its next provisioning only',
      },
      {
        resource: 'Secret/apps/app-db',
        action: 'changed',
        class: 'credential-rotation',
        reason: 'Secret data changed (keys DB_PASSWORD; values not shown)',
      },
    ],
  },
  {
    name: 'hosts-added',
    what: 'a new host with an image is provisioned, one without is only registered',
    head: (d) => {
      writeFileSync(hosts(d, '09'), newHost('09', true));
      writeFileSync(hosts(d, '10'), newHost('10', false));
    },
    expect: [
      {
        resource: 'BareMetalHost/metal3/node09',
        action: 'added',
        class: 'provision',
        reason: 'new host: BMO registers and inspects it, then writes image http://images.example.com/ubuntu-22.04.qcow2 to its root disk',
      },
      {
        resource: 'BareMetalHost/metal3/node10',
        action: 'added',
        class: 'register',
        reason: 'new host without image: BMO registers and inspects it (inspection boots an agent); nothing is written',
      },
      { resource: 'Secret/metal3/node09-bmc-secret', action: 'added', class: 'config-change', reason: 'created' },
    ],
  },
  {
    name: 'prune',
    what: 'a ConfigMap leaves a pruning Kustomization (deleted) and a non-pruning one (kept)',
    head: (d) => {
      dropDoc(join(d, 'site/workloads/app.yaml'), 'ConfigMap', 'app-config');
      rmSync(join(d, 'site/legacy/configmap.yaml'));
    },
    expect: [
      { resource: 'ConfigMap/apps/app-config', action: 'removed', class: 'deletion', reason: 'removed: pruned by Kustomization workloads' },
      {
        resource: 'ConfigMap/apps/legacy',
        action: 'removed',
        class: 'no-runtime-effect',
        reason: 'removed from Git, left in the cluster: Kustomization legacy has prune: false',
      },
    ],
  },
  {
    name: 'namespace-removed',
    what: 'the apps Namespace and its objects removed: a cascade',
    head: (d) => rmSync(join(d, 'site/workloads/app.yaml')),
    expect: [
      {
        resource: 'Namespace/apps',
        action: 'removed',
        class: 'cascade',
        reason: 'Namespace removed (pruned by Kustomization workloads): Kubernetes deletes everything in it: 4 object(s) of this tree',
      },
      { resource: 'Deployment/apps/web', action: 'removed', class: 'deletion', reason: 'removed: pruned by Kustomization workloads' },
    ],
  },
  {
    name: 'ordering-change',
    what: 'dependsOn, path and targetNamespace of a Flux Kustomization',
    head: (d) =>
      edit(
        join(d, 'flux/kustomizations.yaml'),
        '  path: ./site/workloads\n  prune: true\n  dependsOn:\n  - name: hosts\n',
        '  path: ./site/apps\n  prune: true\n  targetNamespace: apps\n',
      ),
    expect: [
      {
        resource: 'Kustomization/flux-system/workloads',
        action: 'changed',
        class: 'ordering-change',
        reason: 'spec.dependsOn [{"name":"hosts"}] -> null: Flux applies in another order',
      },
    ],
  },
  {
    name: 'kustomization-removed',
    what: 'the hosts Kustomization removed with prune: Flux deletes every host',
    head: (d) => dropDoc(join(d, 'flux/kustomizations.yaml'), 'Kustomization', 'hosts'),
    expect: [
      {
        resource: 'Kustomization/flux-system/hosts',
        action: 'removed',
        class: 'deprovision',
        reason:
          'Kustomization removed with prune: true (assumed pruned: no Flux Kustomization of the tree applies it): Flux deletes everything it applied: 25 object(s) of this tree, 8 BareMetalHost(s) among them (deprovisioned)',
      },
    ],
  },
  {
    name: 'annotations',
    what: 'reboot, hold powered off, detach',
    head: (d) => {
      edit(hosts(d, '01'), '  labels:\n', '  annotations:\n    reboot.metal3.io: ""\n  labels:\n');
      edit(hosts(d, '02'), '  labels:\n', '  annotations:\n    reboot.metal3.io/maintenance: ""\n  labels:\n');
      edit(hosts(d, '03'), '  labels:\n', '  annotations:\n    baremetalhost.metal3.io/detached: ""\n  labels:\n');
    },
    expect: [
      {
        resource: 'BareMetalHost/metal3/node01',
        action: 'changed',
        class: 'reboot',
        reason: 'annotation reboot.metal3.io added: BMO power-cycles the host once',
      },
      {
        resource: 'BareMetalHost/metal3/node02',
        action: 'changed',
        class: 'power-off',
        reason: 'annotation reboot.metal3.io/maintenance added: BMO powers the host off and keeps it off until the annotation is removed',
      },
      {
        resource: 'BareMetalHost/metal3/node03',
        action: 'changed',
        class: 'management-change',
        reason: 'detached: BMO stops managing the host (no power changes, no deprovisioning)',
      },
    ],
  },
  {
    name: 'config-and-format',
    what: 'formatting only, a ConfigMap value, replicas, and a host moved to another file',
    head: (d) => {
      const f = hosts(d, '04');
      writeFileSync(
        f,
        `# node04, reformatted\n${readFileSync(f, 'utf8').replace('  online: true\n', '  online: yes\n').replace('bootMACAddress: "52:54:00:00:00:04"', "bootMACAddress: '52:54:00:00:00:04'")}`,
      );
      edit(join(d, 'site/workloads/app.yaml'), 'LOG_LEVEL: info', 'LOG_LEVEL: debug');
      edit(join(d, 'site/workloads/app.yaml'), 'replicas: 2', 'replicas: 3');
      cpSync(hosts(d, '05'), join(d, 'site/hosts/renamed-node05.yaml'));
      rmSync(hosts(d, '05'));
    },
    expect: [
      {
        resource: 'BareMetalHost/metal3/node04',
        action: 'changed',
        class: 'no-runtime-effect',
        reason: 'only formatting, status or tool annotations changed',
      },
      { resource: 'ConfigMap/apps/app-config', action: 'changed', class: 'config-change', reason: 'data.LOG_LEVEL changed' },
      { resource: 'Deployment/apps/web', action: 'changed', class: 'config-change', reason: 'spec.replicas changed' },
    ],
  },
  {
    name: 'allowed',
    what: 'a removal the operator marked beforehand (base annotation) and one they did not',
    base: (d) => edit(hosts(d, '01'), '  labels:\n', '  annotations:\n    baremetal-krm.dev/plan-allow: deprovision\n  labels:\n'),
    head: (d) => {
      rmSync(hosts(d, '01'));
      rmSync(hosts(d, '02'));
    },
    expect: [
      {
        resource: 'BareMetalHost/metal3/node01',
        action: 'removed',
        class: 'deprovision',
        reason: 'removed (pruned by Kustomization hosts): BMO deprovisions the host (image wiped, disks cleaned) and powers it off',
      },
      {
        resource: 'BareMetalHost/metal3/node02',
        action: 'removed',
        class: 'deprovision',
        reason: 'removed (pruned by Kustomization hosts): BMO deprovisions the host (image wiped, disks cleaned) and powers it off',
      },
    ],
  },
];

/** Writes a case's base and head trees under `root/<case>/` and returns their paths. */
export function writeCase(root: string, c: PlanCase): { base: string; head: string } {
  const dir = join(root, c.name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const base = join(dir, 'base');
  const head = join(dir, 'head');
  cpSync(SITE, base, { recursive: true });
  c.base?.(base);
  cpSync(base, head, { recursive: true });
  c.head(head);
  return { base, head };
}
