/** Edge cases of the rules: spec.now, kustomization namespaces, host identity across namespaces and documents, DaemonSet capacity, block scalars, where a profile was asked for, BMC default ports, certificate day counts, credentials in BMC addresses, items that are not valid YAML. */
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInput, runFunction, type KubeObject } from '../../src/krm/index.js';
import { definition } from './function.js';
import { runValidate } from '../../src/cli/validate.js';
import { analyse, type IntentValidateSpec } from '../../src/validate/analyse.js';

function items(yaml: string): KubeObject[] {
  return readInput(yaml).items;
}
async function findings(
  yaml: string,
  spec: IntentValidateSpec = {},
): Promise<{ rule: string; severity: string; field?: string; message: string }[]> {
  const a = await analyse(items(yaml), spec);
  return a.findings.map((f) => ({ rule: f.rule, severity: f.severity, field: f.field, message: f.message }));
}
async function cli(argv: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await runValidate(argv, { out: () => undefined, err: (s) => (err += s) });
  return { code, err };
}
const tmp = mkdtempSync(join(tmpdir(), 'iv-edge-'));

describe('spec.now', () => {
  it('the CLI exits non-zero on a spec.now that is not a time, naming the field', async () => {
    const cfg = join(tmp, 'now.yaml');
    writeFileSync(cfg, 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: IntentValidate\nmetadata:\n  name: v\nspec:\n  now: yesterday\n');
    const f = join(tmp, 'cm.yaml');
    writeFileSync(f, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n');
    const r = await cli(['--config', cfg, f]);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('spec.now "yesterday" is not a valid time: write an RFC 3339 time such as 2024-01-01T00:00:00Z');
    expect(r.err).toContain('[config]');
  });
});

describe('kustomization namespace (CLI)', () => {
  it('gives the resources a kustomization lists its namespace: before references are checked', async () => {
    const dir = join(tmp, 'ns');
    mkdirSync(join(dir, 'hosts'), { recursive: true });
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: metal3\nresources: [secret.yaml, hosts]\n',
    );
    writeFileSync(
      join(dir, 'secret.yaml'),
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: n1-bmc\ndata:\n  password: ENC[AES256_GCM,data:abc,iv:AAAA,tag:BBBB,type:str]\nsops:\n  version: 3.7.3\n',
    );
    // in a listed folder, with another namespace written: kustomize overrides it
    writeFileSync(
      join(dir, 'hosts', 'bmh.yaml'),
      'apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: n1\n  namespace: default\nspec:\n  online: true\n  bmc:\n    address: redfish+https://10.0.0.1/redfish/v1/Systems/1\n    credentialsName: n1-bmc\n    disableCertificateVerification: true\n',
    );
    const r = await cli([dir]);
    expect(r.code).toBe(0);
    // the host is metal3/n1 and its line is the file's own (11), though a namespace was set
    expect(r.err).toBe(
      `${join(dir, 'hosts', 'bmh.yaml')}:11: warning: BareMetalHost/metal3/n1 spec.bmc.disableCertificateVerification: BareMetalHost metal3/n1 has spec.bmc.disableCertificateVerification: true: the BMC's identity is not checked; install a trusted certificate on the BMC and set it to false [insecure-tls]\n` +
        '0 error(s), 1 warning(s), 0 info in 2 object(s) from 3 file(s)\n',
    );
  });

  it('a Secret outside the kustomization keeps no namespace, so the reference is still dangling', async () => {
    const dir = join(tmp, 'ns2');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: metal3\nresources: [bmh.yaml]\n',
    );
    writeFileSync(
      join(dir, 'secret.yaml'),
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: n1-bmc\ndata:\n  password: ENC[AES256_GCM,data:abc,iv:AAAA,tag:BBBB,type:str]\nsops:\n  version: 3.7.3\n',
    );
    writeFileSync(
      join(dir, 'bmh.yaml'),
      'apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: n1\nspec:\n  online: true\n  bmc:\n    address: redfish+https://10.0.0.1/redfish/v1/Systems/1\n    credentialsName: n1-bmc\n',
    );
    const r = await cli([dir]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('BMC credentials Secret metal3/n1-bmc referenced by BareMetalHost/metal3/n1 is not in the input');
  });
});

const bmh = (ns: string, name: string, mac: string, bmc: string): string =>
  `apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: ${name}\n${ns ? `  namespace: ${ns}\n` : ''}spec:\n  online: true\n  bootMACAddress: "${mac}"\n  bmc:\n    address: ${bmc}\n`;
const dupOnly: IntentValidateSpec = { rules: { reference: { severity: 'off' }, schema: { severity: 'off' } } };

describe('duplicate MAC / BMC: host identity keeps the namespace', () => {
  it('a/node01 and b/node01 with the same MAC and BMC are two hosts: both duplicates reported', async () => {
    const f = await findings(
      [
        bmh('a', 'node01', '52:54:00:00:00:01', 'redfish+https://10.0.0.1/redfish/v1/Systems/1'),
        bmh('b', 'node01', '52:54:00:00:00:01', 'redfish+https://10.0.0.1/redfish/v1/Systems/1'),
      ].join('---\n'),
      dupOnly,
    );
    expect(f.map((x) => `${x.rule} ${x.field}`)).toEqual(['duplicate spec.bootMACAddress', 'duplicate spec.bmc.address']);
    expect(f[0]!.message).toBe(
      'MAC 52:54:00:00:00:01 of BareMetalHost b/node01 is also used by BareMetalHost a/node01 (BareMetalHost/a/node01 spec.bootMACAddress); every NIC has its own MAC: fix the copy-paste',
    );
  });

  it('a catalogue entry node01 (no namespace) and BareMetalHost a/node01 are the same machine', async () => {
    const cat =
      'apiVersion: airshipit.org/v1alpha1\nkind: VariableCatalogue\nmetadata:\n  name: hosts\nhosts:\n  m3:\n    node01:\n      macAddress: "52:54:00:00:00:01"\n      bmcAddress: redfish+https://10.0.0.1/redfish/v1/Systems/1\n';
    const f = await findings(
      [bmh('a', 'node01', '52:54:00:00:00:01', 'redfish+https://10.0.0.1/redfish/v1/Systems/1'), cat].join('---\n'),
      dupOnly,
    );
    expect(f.filter((x) => x.rule === 'duplicate')).toEqual([]);
  });
});

describe('capacity: DaemonSets and capacity over the same (active) hosts', () => {
  const host = (name: string, cpus: number): string =>
    `apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: ${name}\n  namespace: s\n  labels:\n    role: worker\nspec:\n  online: true\nstatus:\n  hardware:\n    ramMebibytes: 8192\n    cpu:\n      count: ${cpus}\n`;
  const ds = (cpu: string): string =>
    `apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\n  namespace: s\nspec:\n  selector:\n    matchLabels: {app: agent}\n  template:\n    metadata:\n      labels: {app: agent}\n    spec:\n      nodeSelector:\n        role: worker\n      containers:\n      - name: a\n        image: agent:1\n        resources:\n          requests:\n            cpu: "${cpu}"\n`;
  const spec: IntentValidateSpec = {
    rules: { schema: { severity: 'off' } },
    capacity: {
      roles: [
        {
          name: 'worker',
          selector: { matchLabels: { role: 'worker' } },
          count: { active: 2, standby: 1 },
          nodeSelector: { role: 'worker' },
        },
      ],
    },
  };
  it('a DaemonSet of 3 CPUs per pod on 2 active hosts of 4 CPUs (1 standby) fits', async () => {
    const a = await analyse(items([host('w1', 4), host('w2', 4), host('w3', 4), ds('3')].join('---\n')), spec);
    expect(a.facts.roles[0]).toMatchObject({ cpuRequested: 6, cpuCapacity: 8 });
    expect(a.findings.filter((f) => f.rule.startsWith('capacity'))).toEqual([]);
  });
  it('5 CPUs per pod does not fit a 4-CPU host: requests 10 > 8 cores', async () => {
    const a = await analyse(items([host('w1', 4), host('w2', 4), host('w3', 4), ds('5')].join('---\n')), spec);
    expect(a.findings.filter((f) => f.rule.startsWith('capacity')).map((f) => f.message)).toEqual([
      'role worker is over capacity: CPU requests 10 > 8 cores (2 host(s), 0% headroom): add hosts, lower requests or replicas',
    ]);
  });
});

describe('yaml-ambiguous and block scalars', () => {
  it('reads nothing inside a block scalar that is a sequence entry (`- |`), and still sees what follows', async () => {
    const pod =
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: x\n    command:\n    - /bin/sh\n    - -c\n    - |\n      cat > /etc/app.yaml <<EOT\n      debug: on\n      mode: 0755\n      EOT\n    - >-\n      enabled: yes\n    tty: yes\n';
    const f = await findings(pod);
    expect(f.map((x) => `${x.rule} ${x.field}`)).toEqual(['yaml-ambiguous spec.containers[0].tty']);
  });
});

describe('hardware profile asked for by annotation', () => {
  it('points at the annotation (field and line), for a failing profile and for a missing one', async () => {
    const dir = join(tmp, 'anno');
    mkdirSync(dir, { recursive: true });
    const host = (name: string, profile: string): string =>
      `apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: ${name}\n  namespace: s\n  labels:\n    role: worker\n  annotations:\n    baremetal-krm.dev/hardware-profile: ${profile}\nspec:\n  online: true\nstatus:\n  hardware:\n    ramMebibytes: 8192\n`;
    const profile =
      'apiVersion: baremetal-krm.dev/v1alpha1\nkind: HardwareProfile\nmetadata:\n  name: big\nspec:\n  memory:\n    minGiB: 64\n';
    const file = join(dir, 'hosts.yaml');
    writeFileSync(file, [host('h1', 'big'), host('h2', 'missing'), profile].join('---\n'));
    const r = await cli(['--quiet', file]);
    expect(r.code).toBe(1);
    const lines = r.err.split('\n').filter((l) => l.includes('error:'));
    // line 9 of the first document; the second starts on line 16 (14 lines and a ---), so 16 + 9 - 1 = 24
    expect(lines.map((l) => l.replace(/: error: (\S+) (\S+):.*/, ' $1 $2').replace(file, 'F'))).toEqual([
      'F:9 BareMetalHost/s/h1 metadata.annotations.baremetal-krm.dev/hardware-profile',
      'F:24 BareMetalHost/s/h2 metadata.annotations.baremetal-krm.dev/hardware-profile',
    ]);
    expect(r.err).toContain('no HardwareProfile or HardwareClassification of that name is in the input: add it or fix the annotation');
  });
});

describe('BMC addresses: the default port is no port', () => {
  it('10.0.0.1:443/... and 10.0.0.1/... over https are one BMC; :80 over http too; another port is another BMC', async () => {
    const f = await findings(
      [
        bmh('s', 'a', '52:54:00:00:00:01', 'redfish+https://10.0.0.1:443/redfish/v1/Systems/1'),
        bmh('s', 'b', '52:54:00:00:00:02', 'redfish-virtualmedia://10.0.0.1/redfish/v1/Systems/1/'),
        bmh('s', 'c', '52:54:00:00:00:03', 'redfish+http://10.0.0.2:80/redfish/v1/Systems/1'),
        bmh('s', 'd', '52:54:00:00:00:04', 'redfish+http://10.0.0.2/redfish/v1/Systems/1'),
        bmh('s', 'e', '52:54:00:00:00:05', 'redfish+https://10.0.0.2:8443/redfish/v1/Systems/1'),
      ].join('---\n'),
      { rules: { ...dupOnly.rules, 'plain-http-bmc': { severity: 'off' } } },
    );
    expect(f.map((x) => x.message.replace(/ \(BareMetalHost.*/, ''))).toEqual([
      'BMC address redfish-virtualmedia://10.0.0.1/redfish/v1/Systems/1/ of BareMetalHost s/b is also the BMC of BareMetalHost s/a',
      'BMC address redfish+http://10.0.0.2/redfish/v1/Systems/1 of BareMetalHost s/d is also the BMC of BareMetalHost s/c',
    ]);
  });
});

describe('certificate expired N days ago', () => {
  it('counts whole days since notAfter (1 hour after is 0 days ago, 1 day and 1 hour after is 1)', async () => {
    // ConfigMap site-a/trusted-ca of the certificates case: CN=other, notAfter 2026-12-10T06:58:01Z
    const all = readInput(readFileSync(join(import.meta.dirname, 'testdata/certificates/input.yaml'), 'utf8')).items;
    const cm = all.filter((o) => o.kind === 'ConfigMap' && o.name === 'trusted-ca');
    const notAfter = Date.parse('2026-12-10T06:58:01Z');
    const at = async (ms: number): Promise<string | undefined> =>
      (await analyse(cm, { now: new Date(notAfter + ms).toISOString() })).findings.find((x) => x.rule === 'certificate-expired')?.message;
    expect(await at(3_600_000)).toMatch(/expired on 2026-12-10T06:58:01Z \(0 days ago\)/);
    expect(await at(86_400_000 + 3_600_000)).toMatch(/\(1 days ago\)/);
  });
});

describe('credentials in a BMC address', () => {
  it('are an error and never repeated in any message', async () => {
    const yaml =
      'apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: n1\n  namespace: m\nspec:\n  online: false\n  bmc:\n    address: http://admin:s3cr3tpw@10.0.0.1/redfish/v1/Systems/1\n    credentialsName: n1-bmc\n';
    const f = await findings(yaml);
    expect(f.filter((x) => x.rule === 'encryption' && x.field === 'spec.bmc.address')).toHaveLength(1);
    expect(f.some((x) => x.rule === 'plain-http-bmc')).toBe(true);
    for (const x of f) expect(x.message).not.toContain('s3cr3tpw');
  });
});

describe('an item that is not valid YAML', () => {
  // a bad escape in a double-quoted string: the header reads, the body does not
  const bad = (kind: string): string => `apiVersion: v1\nkind: ${kind}\nmetadata:\n  name: s\ndata:\n  password: "abc\\q"\n`;
  const config = (rules: string): string =>
    `functionConfig:\n  apiVersion: baremetal-krm.dev/v1alpha1\n  kind: IntentValidate\n  metadata: {name: v}\n  spec:\n    rules: ${rules}\n`;
  const list = (kind: string, rules: string): string =>
    `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${bad(kind)
      .replace(/^(?=.)/gm, '  ')
      .replace(/^ {2}/, '- ')}${config(rules)}`;

  for (const kind of ['ConfigMap', 'NoSchemaKind'])
    for (const rules of ['{}', '{schema: {severity: "off"}}', '{schema: {severity: "off"}, yaml-ambiguous: {severity: "off"}}'])
      it(`is an input error in the function and the CLI (${kind}, rules ${rules})`, async () => {
        const r = await runFunction(definition, list(kind, rules));
        expect(r.exitCode).toBe(1);
        const errors = r.results.filter((x) => x.severity === 'error');
        expect(errors.map((x) => x.tags?.rule)).toEqual(['input']);
        expect(errors[0]!.message).toMatch(/is not valid YAML at line \d+, column \d+/);
        const f = join(tmp, `bad-${kind}.yaml`);
        writeFileSync(f, bad(kind));
        const cfg = join(tmp, 'rules.yaml');
        writeFileSync(
          cfg,
          config(rules)
            .replace(/^functionConfig:\n/, '')
            .replace(/^ {2}/gm, ''),
        );
        const c = await cli(['--config', cfg, f]);
        expect(c.code).toBe(1);
        expect(c.err).toMatch(/not valid YAML.*\[input\]/);
      });
});
