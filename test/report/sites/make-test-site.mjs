#!/usr/bin/env node
// Rebuilds test/report/sites/test-site/ (a rendered airshipctl test-site) from the shared
// fixtures and the golden outputs of our generators. Run once by hand; the output is
// committed (tests never read /work/shared). See SOURCES.md for what comes from where.
import { mkdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify, parseAllDocuments } from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '../../..');
const fx = join(repo, '../shared/fixtures');
const air = join(fx, 'airship/airshipctl/manifests');
const out = join(here, 'test-site');
rmSync(out, { recursive: true, force: true });

const docs = (file) =>
  parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS())
    .filter((d) => d?.kind);
const strip = (d) => {
  const a = d.metadata?.annotations;
  if (a) {
    for (const k of Object.keys(a))
      if (k.startsWith('config.kubernetes.io/') || k.startsWith('internal.config.kubernetes.io/') || k === 'baremetal-krm.dev/generated-by')
        delete a[k];
    if (Object.keys(a).length === 0) delete d.metadata.annotations;
  }
  return d;
};
const write = (rel, list) => {
  const p = join(out, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, list.map((d) => stringify(d, { lineWidth: 0 })).join('---\n'));
};
const copy = (from, rel) => {
  const p = join(out, rel);
  mkdirSync(dirname(p), { recursive: true });
  copyFileSync(from, p);
};

// hosts: BareMetalHosts + networkData Secrets from site-from-catalogue (test-site-all-hosts),
// with the role labels the test-site kustomizations add (commonLabels / the node02 patch)
const roles = { node01: 'controlplane-host', node04: 'controlplane-host', node05: 'controlplane-host', node03: 'worker', node06: 'worker' };
const profile = { node01: 'controlplane', node04: 'controlplane', node05: 'controlplane', node03: 'worker', node06: 'worker' };
const gen = docs(join(repo, 'functions/site-from-catalogue/testdata/test-site-all-hosts/expected.yaml'));
for (const d of gen.filter((d) => d.kind === 'BareMetalHost' || d.kind === 'Secret')) strip(d);
for (const n of ['node01', 'node02', 'node03', 'node04', 'node05', 'node06']) {
  const bmh = gen.find((d) => d.kind === 'BareMetalHost' && d.metadata.name === n);
  const nd = gen.find((d) => d.kind === 'Secret' && d.metadata.name === `${n}-network-data`);
  bmh.metadata.labels = { ...(bmh.metadata.labels ?? {}) };
  if (roles[n]) bmh.metadata.labels['airshipit.org/k8s-role'] = roles[n];
  else Object.assign(bmh.metadata.labels, { 'airshipit.org/ephemeral-node': 'true', 'airshipit.org/deploy-k8s': 'false' });
  if (profile[n]) bmh.metadata.labels['baremetal-krm.dev/hardware-profile'] = profile[n];
  write(`hosts/${n}.yaml`, [bmh, nd]);
}

// hardware: real vendor inventories (bmh-from-redfish golden outputs of the libredfish captures)
// assigned to the test-site's virtual hosts: Dell R750 HardwareData for the control plane,
// HPE DL385 and Supermicro 821GE HardwareInventory for the workers; node02 has none.
const fromRedfish = (c, kind) => docs(join(repo, `functions/bmh-from-redfish/testdata/${c}/expected.yaml`)).find((d) => d.kind === kind);
for (const n of ['node01', 'node04', 'node05']) {
  const hd = strip(fromRedfish('dell-r750', 'HardwareData'));
  hd.metadata = { name: n, namespace: 'target-infra' };
  write(`hardware/${n}.yaml`, [hd]);
}
for (const [n, c] of [
  ['node03', 'hpe-dl385'],
  ['node06', 'supermicro-821ge'],
]) {
  const inv = strip(fromRedfish(c, 'HardwareInventory'));
  inv.metadata = { name: n, namespace: 'target-infra', annotations: { 'config.kubernetes.io/local-config': 'true' } };
  write(`hardware/${n}.yaml`, [inv]);
}
write('hardware/profiles.yaml', [
  {
    apiVersion: 'baremetal-krm.dev/v1alpha1',
    kind: 'HardwareProfile',
    metadata: { name: 'controlplane' },
    spec: {
      cpu: { architecture: 'x86_64', minCount: 64 },
      memory: { minGiB: 256 },
      disks: [{ type: 'NVME', count: 2 }],
      nics: { minCount: 2 },
    },
  },
  {
    apiVersion: 'baremetal-krm.dev/v1alpha1',
    kind: 'HardwareProfile',
    metadata: { name: 'worker' },
    spec: {
      cpu: { architecture: 'x86_64', minCount: 128 },
      memory: { minGiB: 1024 },
      disks: [{ type: 'NVME', count: 4 }],
      bootMode: 'UEFI',
    },
  },
]);

// catalogues (unmodified): host catalogue (plaintext BMC passwords, as published), networking,
// versions (the airshipctl base catalogue), SOPS-encrypted target secrets
copy(join(air, 'site/test-site/target/catalogues/shareable/hosts.yaml'), 'catalogues/hosts.yaml');
copy(join(air, 'site/test-site/target/catalogues/shareable/networking.yaml'), 'catalogues/networking.yaml');
copy(join(air, 'function/airshipctl-base-catalogues/versions-airshipctl.yaml'), 'catalogues/versions-airshipctl.yaml');
copy(join(air, 'site/test-site/target/catalogues/encrypted/secrets.yaml'), 'catalogues/secrets.yaml');
copy(join(air, 'site/test-site/kubeconfig/kubeconfig.yaml'), 'kubeconfig/kubeconfig.yaml');
copy(join(air, 'site/test-site/target/controlplane/metal3machinetemplate.yaml'), 'controlplane/metal3machinetemplate.yaml');
for (const f of ['phases.yaml', 'plan.yaml', 'executors.yaml', 'cluster-map.yaml']) copy(join(air, 'phases', f), `phases/${f}`);

// Flux: the Kustomizations phase-plan-expand renders for the gating plan, and the ingress HelmRelease
const ks = docs(join(repo, 'functions/phase-plan-expand/testdata/deploy-gating/expected.yaml'))
  .filter((d) => d.kind === 'Kustomization' && d.apiVersion.startsWith('kustomize.toolkit.fluxcd.io'))
  .map(strip);
write('flux/kustomizations.yaml', ks);
copy(join(air, 'type/gating/target/workload/ingress/helmrelease.yaml'), 'workload/helmrelease.yaml');
// workloads with resource requests on each role (written for the capacity view; not upstream)
const deploy = (name, image, replicas, sel, cpu, memory) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'workload' },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { nodeSelector: sel, containers: [{ name, image, resources: { requests: { cpu, memory } } }] },
    },
  },
});
write('workload/deployments.yaml', [
  deploy('api-gateway', 'quay.io/airshipit/api-gateway:v1.4.0', 3, { 'node-role.kubernetes.io/master': '' }, '4', '8Gi'),
  deploy('analytics', 'quay.io/airshipit/analytics:v2.1.3', 4, { 'node-role.kubernetes.io/worker': '' }, '24', '96Gi'),
]);

copy(join(fx, 'airship/airshipctl/LICENSE'), 'LICENSE.airshipctl');
copy(join(fx, 'redfish/libredfish-dell/LICENSE.upstream'), 'LICENSE.libredfish');
console.log('wrote', out);

// extra documents the test variants add (site-d): an older airshipctl kubeconfig whose admin
// client certificate expired on 2020-09-28 (airshipctl pkg/phase/testdata/kubeconfig.yaml)
mkdirSync(join(here, 'extra'), { recursive: true });
copyFileSync(join(fx, 'airship/airshipctl/pkg/phase/testdata/kubeconfig.yaml'), join(here, 'extra/kubeconfig-expired.yaml'));
copyFileSync(join(fx, 'airship/airshipctl/LICENSE'), join(here, 'extra/LICENSE.airshipctl'));
