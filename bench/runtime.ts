/**
 * The runtime against the `yaml` Document API, js-yaml and JSON.parse on the same ResourceList
 * of BareMetalHost-sized objects: a no-change pass and a pass that edits one field of every
 * object; and each bundle's start time next to `node -e 0`.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { parseDocument, isMap, isSeq } from 'yaml';
import { identity } from '../test/identity/function.js';
import { resourceList } from '../test/golden.js';
import { runFunction } from '../src/krm/index.js';
import { envWithout, fmt, startTimes, timeAsync, timeIt } from './_util.js';

export function bmh(i: number): string {
  const n = String(i).padStart(5, '0');
  const mac = (i + 0x100000).toString(16).padStart(6, '0').match(/../g)!.join(':');
  return `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: node-${n}
  namespace: target-infra
  labels:
    airshipit.org/k8s-role: worker
    airshipit.org/rack: r${i % 40}
  annotations:
    config.kubernetes.io/index: '0'
    config.kubernetes.io/path: 'hosts/node-${n}.yaml'
    internal.config.kubernetes.io/index: '0'
    internal.config.kubernetes.io/path: 'hosts/node-${n}.yaml'
    internal.config.kubernetes.io/seqindent: 'compact'
spec:
  online: false
  bootMode: UEFI
  bootMACAddress: 52:54:00:${mac}
  bmc:
    address: redfish-virtualmedia://10.23.${i % 250}.${i % 200}/redfish/v1/Systems/1
    credentialsName: node-${n}-bmc-secret
    disableCertificateVerification: false
  rootDeviceHints:
    minSizeGigabytes: 200 # smallest SSD
    rotational: false
  networkData:
    name: node-${n}-network-data
    namespace: target-infra
  hardwareProfile: fixme-profile
  firmware:
    sriovEnabled: false
    virtualizationEnabled: true
    simultaneousMultithreadingEnabled: true
  raid:
    hardwareRAIDVolumes:
    - name: os
      level: "1"
      sizeGibibytes: 480
`;
}

const SIZES = [200, 2_000, 20_000];
const annotateConfig = 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nspec:\n  annotate:\n    example.com/checked: "true"\n';

export async function run(): Promise<void> {
  console.log('objects/s (higher is better); "runtime" = our lossless ResourceList runtime, in process');
  console.log(
    'size    | runtime no-change | runtime edit 1 field | runtime read all | yaml Document no-change | yaml Document edit | js-yaml load+dump | JSON.parse',
  );
  for (const n of SIZES) {
    const docs = Array.from({ length: n }, (_, i) => bmh(i));
    const list = resourceList(docs);
    const listEdit = resourceList(docs, annotateConfig);
    const listRead = resourceList(docs, 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nspec:\n  readAll: true\n');
    const json = JSON.stringify(load(list));
    const runs = n >= 20_000 ? 1 : 3;
    const tNo = await timeAsync(() => runFunction(identity, list), runs);
    const tEdit = await timeAsync(() => runFunction(identity, listEdit), runs);
    const tRead = await timeAsync(() => runFunction(identity, listRead), runs);
    const tYaml = timeIt(() => parseDocument(list, { version: '1.1' }).toString(), runs);
    const tYamlEdit = timeIt(() => {
      const d = parseDocument(list, { version: '1.1' });
      const items = d.get('items');
      if (isSeq(items)) for (const it of items.items) if (isMap(it)) it.setIn(['metadata', 'annotations', 'example.com/checked'], 'true');
      return d.toString();
    }, runs);
    const tJs = timeIt(() => dump(load(list)), runs);
    const tJson = timeIt(() => JSON.parse(json), runs);
    const ops = (t: number): string => fmt((n / t) * 1000).padStart(9);
    console.log(
      `${String(n).padStart(7)} | ${ops(tNo)}         | ${ops(tEdit)}            | ${ops(tRead)}        | ${ops(tYaml)}               | ${ops(tYamlEdit)}          | ${ops(tJs)}         | ${ops(tJson)}`,
    );
    if (n === 20_000) {
      console.log(
        `  at 20,000: no-change pass ${fmt(tYaml / tNo, 1)}x the yaml Document API; edit pass ${fmt(tYamlEdit / tEdit, 1)}x; read-all ${fmt(tYaml / tRead, 1)}x`,
      );
    }
  }

  const dist = join(import.meta.dirname, '..', 'dist');
  const bundles = existsSync(dist)
    ? readdirSync(dist)
        .filter((f) => f.endsWith('.cjs'))
        .sort()
    : [];
  const ten = resourceList(Array.from({ length: 10 }, (_, i) => bmh(i)));
  for (const [label, env] of [
    ['NODE_EXTRA_CA_CERTS unset', envWithout('NODE_EXTRA_CA_CERTS')],
    [`NODE_EXTRA_CA_CERTS=${process.env.NODE_EXTRA_CA_CERTS ?? '(unset)'}`, process.env],
  ] as const) {
    const commands: Record<string, string[]> = { 'node -e 0': ['-e', '0'] };
    for (const b of bundles) {
      if (['redfish-sim.cjs', 'baremetal-krm.cjs', 'baremetal-krm-report.cjs'].includes(b)) continue;
      commands[b] = [join(dist, b)];
    }
    const t = startTimes(commands, ten, env);
    const base = t['node -e 0']!;
    console.log(
      `\nstart time on a 10-BareMetalHost ResourceList, median of 21 interleaved runs (${label}): node -e 0 = ${fmt(base, 1)} ms`,
    );
    for (const [k, v] of Object.entries(t)) {
      if (k === 'node -e 0') continue;
      console.log(`  ${k.padEnd(28)} ${fmt(v, 1).padStart(7)} ms  (${fmt(v / base, 2)}x node -e 0)`);
    }
  }
}
