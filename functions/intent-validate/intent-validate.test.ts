import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeGolden } from '../../test/golden.js';
import { loadYaml, readInput, runFunction, type KubeObject } from '../../src/krm/index.js';
import { expandPaths, runValidate } from '../../src/cli/validate.js';
import { definition } from './function.js';
import { analyse, type IntentValidateSpec } from '../../src/validate/analyse.js';
import { builtinValidator, lineOfPath } from '../../src/validate/schema.js';
import { validateSpec } from '../../src/validate/packed.js';
import { BUILTIN_KEYS } from '../../src/validate/generated/builtin-keys.js';

const testdata = join(import.meta.dirname, 'testdata');
describeGolden(definition, testdata);

function goldenCase(name: string): { items: KubeObject[]; spec: IntentValidateSpec } {
  const dir = join(testdata, name);
  const items = readInput(readFileSync(join(dir, 'input.yaml'), 'utf8')).items;
  const fc = loadYaml(readFileSync(join(dir, 'fn-config.yaml'), 'utf8')) as { spec?: IntentValidateSpec };
  return { items, spec: fc.spec ?? {} };
}

describe('analyse() facts', () => {
  it('lists every certificate of the airshipctl test-site kubeconfig, with the expired target-cluster-admin one', async () => {
    const { items, spec } = goldenCase('airshipctl-test-site');
    const a = await analyse(items, spec);
    const certs = a.facts.certificates.map((c) => ({
      subject: c.subject,
      notAfter: c.notAfter,
      daysLeft: c.daysLeft,
      field: c.field,
      kind: c.resource.kind,
    }));
    expect(certs).toEqual([
      {
        subject: 'CN=Kubernetes API',
        notAfter: '2030-09-13T01:04:37Z',
        daysLeft: 2447,
        field: 'config.clusters[name=target-cluster].cluster.certificate-authority-data',
        kind: 'KubeConfig',
      },
      {
        subject: 'CN=kubernetes',
        notAfter: '2029-12-23T08:28:24Z',
        daysLeft: 2183,
        field: 'config.clusters[name=ephemeral-cluster].cluster.certificate-authority-data',
        kind: 'KubeConfig',
      },
      {
        subject: 'CN=kubernetes-admin, O=system:masters',
        notAfter: '2029-12-02T19:15:10Z',
        daysLeft: 2162,
        field: 'config.users[name=ephemeral-cluster-admin].user.client-certificate-data',
        kind: 'KubeConfig',
      },
      {
        subject: 'O=system:masters, CN=kubernetes-admin',
        notAfter: '2021-09-15T01:22:46Z',
        daysLeft: -837,
        field: 'config.users[name=target-cluster-admin].user.client-certificate-data',
        kind: 'KubeConfig',
      },
    ]);
    expect(a.counts).toEqual({ error: 2, warning: 5, info: 0 });
    // no secret value ever reaches a finding
    for (const f of a.findings) expect(f.message).not.toMatch(/password:|ENC\[/);
  });

  it('gives each host its hardware summary and every failing HardwareClassification/HardwareProfile constraint', async () => {
    const { items, spec } = goldenCase('hardware-profiles');
    const a = await analyse(items, spec);
    const node01 = a.facts.hosts.find((h) => h.name === 'node01')!;
    expect(node01.hardwareSource).toBe('HardwareData node01');
    expect(node01.hardware).toMatchObject({ cpuCount: 96, ramMiB: 196608, manufacturer: 'Dell Inc.', productName: 'PowerEdge R640' });
    // Metal3 semantics: RAM GB x 1024 MiB, disk GB x 10^9 bytes, NIC count over all NICs
    expect(node01.profiles).toEqual([
      {
        kind: 'HardwareClassification',
        name: 'profile1',
        matched: false,
        failures: [
          'cpu count: wanted 1..72, found 96',
          'ram: wanted 1..180 GB (x1024 MiB), found 196608 MiB',
          // sdb (0:1:0:0 -> 0:N:0:0) is the diskSelector's only match; 2 NICs in all, one of them 0x8086
          'disk /dev/sdb size: wanted 1..3000 GB (x10^9 bytes), found 4000.8 GB',
        ],
      },
    ]);
    const r640 = a.facts.hosts.find((h) => h.name === 'r640-7')!;
    expect(r640.kind).toBe('HardwareInventory');
    expect(r640.profiles.map((p) => [p.name, p.matched, p.failures.length])).toEqual([['worker-r640', false, 1]]);
  });

  it('sums role capacity: hosts per topology domain, requests vs capacity minus headroom', async () => {
    const { items, spec } = goldenCase('capacity');
    const a = await analyse(items, spec);
    expect(a.facts.roles).toEqual([
      { name: 'control-plane', hosts: ['cp1', 'cp2', 'cp3'], wanted: 4, domains: 2, cpuRequested: 0, memoryRequestedMiB: 0 },
      // 2 x 16 cores x 0.8 = 25.6; 2 x 64 GiB x 0.8 = 104857 MiB
      {
        name: 'worker',
        hosts: ['w1', 'w2'],
        wanted: 2,
        cpuRequested: 29,
        memoryRequestedMiB: 58368,
        cpuCapacity: 25.6,
        memoryCapacityMiB: 104857,
      },
    ]);
    expect(a.findings.map((f) => f.rule).sort()).toEqual(['capacity-hosts', 'capacity-resources']);
  });

  it('runs no rule that is off', async () => {
    const { items } = goldenCase('airshipctl-test-site');
    const off = Object.fromEntries(definition.moreHelp!.match(/^ {2}([a-z-]+) /gm)!.map((m) => [m.trim(), { severity: 'off' as const }]));
    const a = await analyse(items, { rules: off, now: '2024-01-01T00:00:00Z' });
    expect(a.findings).toEqual([]);
  });
});

describe('line numbers', () => {
  // every path of every item in the golden inputs: the text walk must agree with the YAML parser
  it('lineOfPath agrees with KubeObject.lineOf on every path of the golden inputs', () => {
    let checked = 0;
    let total = 0;
    for (const c of readdirSync(testdata).sort()) {
      for (const o of readInput(readFileSync(join(testdata, c, 'input.yaml'), 'utf8')).items) {
        const paths: (string | number)[][] = [];
        const walk = (v: unknown, p: (string | number)[]): void => {
          if (p.length) paths.push(p);
          if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...p, i]));
          else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...p, k]);
        };
        walk(o.data, []);
        for (const p of paths) {
          total++;
          const fast = lineOfPath(o, p);
          if (fast === undefined) continue;
          checked++;
          expect([c, o.id, p.join('.'), fast]).toEqual([c, o.id, p.join('.'), o.lineOf(p)]);
        }
      }
    }
    expect(total).toBeGreaterThan(700);
    expect(checked / total).toBeGreaterThan(0.9);
    console.log(`lineOfPath: ${checked} of ${total} paths found from the text, all equal to lineOf`);
  });
});

describe('packed validators', () => {
  it('reads every built-in schema and accepts a minimal object of its kind', () => {
    for (const [key, name] of Object.entries(BUILTIN_KEYS)) {
      const v = builtinValidator(name!) as (d: unknown) => boolean;
      const parts = key.split('/');
      const kind = parts.pop()!;
      const apiVersion = parts.join('/');
      // a minimal object passes unless the schema requires more; a wrong-typed metadata never passes
      expect(typeof v, key).toBe('function');
      expect(v({ apiVersion, kind, metadata: 'x' }), key).toBe(false);
    }
    expect(
      (builtinValidator(BUILTIN_KEYS['v1/Secret']!) as (d: unknown) => boolean)({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's' },
        data: { a: 'YQ==' },
      }),
    ).toBe(true);
  });

  it('validates the functionConfig spec (empty spec without compiling, errors otherwise)', () => {
    expect(validateSpec({})).toBe(true);
    expect(validateSpec({ rules: { schema: { severity: 'loud' } } })).toBe(false);
    expect(validateSpec.errors?.[0]).toMatchObject({ instancePath: '/rules/schema/severity', keyword: 'enum' });
    expect(validateSpec({ certificates: { warnDays: 14 } })).toBe(true);
    expect(validateSpec.errors).toBeNull();
  });

  it('reports a bad functionConfig as a config error naming the field', async () => {
    const r = await runFunction(
      definition,
      'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  apiVersion: baremetal-krm.dev/v1alpha1\n  kind: IntentValidate\n  spec:\n    rules:\n      schema:\n        severity: loud\n',
    );
    expect(r.exitCode).toBe(1);
    expect(r.results[0]).toMatchObject({ severity: 'error', field: { path: 'spec.rules.schema.severity' } });
    expect(r.results[0]!.message).toContain('must be one of "error", "warning", "info", "off"');
  });
});

describe('baremetal-krm validate (CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'iv-cli-'));
  const bmh = (name: string, secret: string, mac: string): string =>
    `apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: ${name}\n  namespace: site\nspec:\n  online: true\n  bootMACAddress: "${mac}"\n  bmc:\n    address: redfish+https://10.0.0.1/redfish/v1/Systems/${name}\n    credentialsName: ${secret}\n`;
  const secret = (name: string): string =>
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}\n  namespace: site\ndata:\n  password: ENC[AES256_GCM,data:AAAA,iv:AAAA,tag:BBBB,type:str]\nsops:\n  version: "3.7.3"\n`;
  const good = join(dir, 'good.yaml');
  const bad = join(dir, 'bad.yaml');
  writeFileSync(good, `# hosts\n${bmh('node1', 'node1-bmc', '52:54:00:00:00:01')}---\n${secret('node1-bmc')}`);
  writeFileSync(bad, `${secret('node2-bmc')}---\n# the typo\n${bmh('node2', 'node2-bmc-typo', '52:54:00:00:00:02')}`);

  async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await runValidate(argv, { out: (s) => (out += s), err: (s) => (err += s) });
    return { code, out, err };
  }

  it('passes good files with exit 0 and a summary', async () => {
    const r = await run([good]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('0 error(s), 0 warning(s), 0 info in 2 object(s) from 1 file(s)\n');
  });

  it('names file and line (counted in the file, after comments and ---) and exits 1 on an error', async () => {
    const r = await run([bad]);
    expect(r.code).toBe(1);
    // line 22 of bad.yaml: Secret (9 lines), ---, comment, then credentialsName on the BMH's 11th line
    expect(readFileSync(bad, 'utf8').split('\n')[21]).toBe('    credentialsName: node2-bmc-typo');
    expect(r.err).toBe(
      `${bad}:22: error: BareMetalHost/site/node2 spec.bmc.credentialsName: BMC credentials Secret site/node2-bmc-typo referenced by BareMetalHost/site/node2 is not in the input: add the Secret (same namespace) or fix spec.bmc.credentialsName [reference]\n` +
        '1 error(s), 0 warning(s), 0 info in 2 object(s) from 1 file(s)\n',
    );
  });

  it('checks across files: a duplicate MAC in two files is an error in the second', async () => {
    const other = join(dir, 'other.yaml');
    writeFileSync(other, bmh('node3', 'node1-bmc', '52:54:00:00:00:01'));
    const r = await run([good, other]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      new RegExp(
        `^${other.replace(/[.]/g, '\\.')}:8: error: BareMetalHost/site/node3 spec.bootMACAddress: MAC 52:54:00:00:00:01 of BareMetalHost site/node3 is also used by BareMetalHost site/node1`,
        'm',
      ),
    );
  });

  it('applies --config (rule severities) and rejects a bad config or option with exit 2', async () => {
    const cfg = join(dir, 'cfg.yaml');
    writeFileSync(
      cfg,
      'apiVersion: baremetal-krm.dev/v1alpha1\nkind: IntentValidate\nmetadata:\n  name: v\nspec:\n  rules:\n    reference:\n      severity: warning\n',
    );
    const r = await run(['--config', cfg, bad]);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`${bad}:22: warning: BareMetalHost/site/node2 spec.bmc.credentialsName:`);
    const badCfg = join(dir, 'bad-cfg.yaml');
    writeFileSync(
      badCfg,
      'apiVersion: baremetal-krm.dev/v1alpha1\nkind: IntentValidate\nmetadata:\n  name: v\nspec:\n  rules:\n    reference:\n      severity: loud\n',
    );
    const r2 = await run(['--config', badCfg, good]);
    expect(r2.code).toBe(2);
    expect(r2.err).toContain('spec.rules.reference.severity');
    expect((await run(['--quite', good])).code).toBe(2);
    expect((await run([join(dir, 'missing.yaml')])).code).toBe(2);
    expect((await run(['--config'])).code).toBe(2);
  });

  it('reads every YAML file under a folder (sorted), skipping dot-folders', async () => {
    const site = join(dir, 'site');
    mkdirSync(join(site, 'hosts'), { recursive: true });
    mkdirSync(join(site, '.git'), { recursive: true });
    writeFileSync(join(site, 'hosts', 'node5.yaml'), bmh('node5', 'node5-bmc', '52:54:00:00:00:05'));
    writeFileSync(join(site, 'secrets.yaml'), secret('node5-bmc'));
    writeFileSync(join(site, '.git', 'junk.yaml'), bmh('node6', 'missing', '52:54:00:00:00:06'));
    writeFileSync(join(site, 'notes.txt'), 'not yaml');
    expect(expandPaths([site])).toEqual([join(site, 'hosts', 'node5.yaml'), join(site, 'secrets.yaml')]);
    const r = await run([site]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('0 error(s), 0 warning(s), 0 info in 2 object(s) from 2 file(s)\n');
    // the host alone: its Secret is missing
    expect((await run([join(site, 'hosts')])).code).toBe(1);
  });

  it('--quiet prints only errors; --help lists every rule', async () => {
    const warnOnly = join(dir, 'warn.yaml');
    writeFileSync(warnOnly, bmh('node4', 'node1-bmc', '52:54:00:00:00:04').replace('https://', 'http://') + '---\n' + secret('node1-bmc'));
    const loud = await run([warnOnly]);
    expect(loud.code).toBe(0);
    expect(loud.err).toMatch(/warn\.yaml:10: warning: .* \[plain-http-bmc\]\n0 error\(s\), 1 warning\(s\)/);
    const q = await run(['--quiet', warnOnly]);
    expect(q.err).toBe('0 error(s), 1 warning(s), 0 info in 2 object(s) from 1 file(s)\n');
    const h = await run(['--help']);
    expect(h.code).toBe(0);
    for (const rule of ['schema', 'duplicate', 'certificate-expired', 'encryption', 'capacity-resources'])
      expect(h.out).toContain(`  ${rule} `);
  });
});

describe('lines in files (kpt and kustomize inputs)', () => {
  // what kpt fn render sends for hosts.yaml (one document) and two.yaml (second document)
  const input = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: metal3.io/v1alpha1
  kind: BareMetalHost
  metadata:
    name: n1
    namespace: site
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'hosts.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/package-path: '/tmp/pkg'
      internal.config.kubernetes.io/path: 'hosts.yaml'
      internal.config.kubernetes.io/seqindent: 'compact'
      internal.config.kubernetes.io/id: '2'
      config.k8s.io/id: '2'
  spec:
    online: true
    bmc:
      address: redfish+https://x/redfish/v1/Systems/1
      credentialsName: typo
- apiVersion: v1
  kind: Secret
  metadata:
    name: s
    namespace: site
    annotations:
      team: a
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 's.yaml'
  data:
    password: cGFzcw==
- apiVersion: v1
  kind: Secret
  metadata:
    name: s2
    annotations:
      config.kubernetes.io/index: '1'
      config.kubernetes.io/path: 'two.yaml'
  data:
    password: cGFzcw==
`;
  it('counts from the document start, less the annotation lines the tool added; unknown for later documents', async () => {
    const r = await runFunction(definition, input);
    const lines = r.results.map((x) => [x.resourceRef?.name, x.file?.path, x.tags?.line]);
    // hosts.yaml: credentialsName on line 10 (annotations: and its 8 lines are kpt's)
    // s.yaml: the user's own annotations: key stays, kpt's two lines go: password on line 9
    expect(lines).toEqual([
      ['n1', 'hosts.yaml', '10'],
      ['s', 's.yaml', '9'],
      ['s2', 'two.yaml', undefined],
    ]);
  });

  it("skips kpt's annotations: line by metadata's own block, not by another top-level mapping's annotations: key", async () => {
    // w.yaml: apiVersion, kind, metadata:, name, spec:, annotations:, own, image (line 8); kpt
    // added metadata's annotations: and its two lines. A later `  annotations:` (spec's) once
    // took the place of metadata's in that count, and the line came out one too far.
    const widget = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: example.com/v1
  kind: Widget
  metadata:
    name: w
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'w.yaml'
  spec:
    annotations:
      own: x
    image: CHANGEME
`;
    const r = await runFunction(definition, widget);
    const leftover = r.results.filter((x) => x.tags?.rule === 'template-leftover');
    expect(leftover.map((x) => [x.file?.path, x.tags?.line])).toEqual([['w.yaml', '8']]);
  });

  it('keeps the line in the input for a piped stream (no path annotation)', async () => {
    const r = await runFunction(definition, '# hosts\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  password: cGFzcw==\n');
    expect(r.results.map((x) => x.tags?.line)).toEqual(['7']);
  });

  it('takes the empty ConfigMap kpt fn eval sends without --fn-config, refuses one with data', async () => {
    const rl = (data: string): string =>
      `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: function-input\n  data: ${data}\n`;
    expect((await runFunction(definition, rl('{}'))).exitCode).toBe(0);
    const bad = await runFunction(definition, rl('{warnDays: "3"}'));
    expect(bad.exitCode).toBe(1);
    expect(bad.results[0]!.message).toContain('intent-validate takes no ConfigMap data (found warnDays)');
  });
});

describe('core Kubernetes schemas (from the upstream OpenAPI definitions)', () => {
  type V = ((d: unknown) => boolean) & { errors?: { instancePath: string; keyword: string; params: Record<string, unknown> }[] | null };
  const v = (key: string): V => builtinValidator(BUILTIN_KEYS[key]!) as V;
  const deployment = (container: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: {
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i', ...container }] } },
      ...spec,
    },
  });
  const errs = (val: V) => (val.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`);

  it('has the workload, service, RBAC, storage and network kinds', () => {
    for (const k of [
      'apps/v1/Deployment',
      'apps/v1/StatefulSet',
      'apps/v1/DaemonSet',
      'batch/v1/Job',
      'batch/v1/CronJob',
      'v1/Pod',
      'v1/Service',
      'v1/ServiceAccount',
      'rbac.authorization.k8s.io/v1/Role',
      'rbac.authorization.k8s.io/v1/RoleBinding',
      'rbac.authorization.k8s.io/v1/ClusterRole',
      'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
      'v1/PersistentVolumeClaim',
      'networking.k8s.io/v1/Ingress',
      'networking.k8s.io/v1/NetworkPolicy',
      'v1/Secret',
      'v1/ConfigMap',
      'v1/Namespace',
    ])
      expect(BUILTIN_KEYS[k], k).toBeDefined();
    // the hand-written Secret (sops, base64 data) stays
    expect(BUILTIN_KEYS['v1/Secret']).not.toMatch(/^k8s#/);
  });

  it('accepts int-or-string and quantities in both forms, rejects other types', () => {
    const d = v('apps/v1/Deployment');
    const strategy = (maxSurge: unknown) => ({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable: '25%' } } });
    expect(d(deployment({}, strategy(1)))).toBe(true);
    expect(d(deployment({}, strategy('50%')))).toBe(true);
    expect(d(deployment({}, strategy(true)))).toBe(false);
    expect(errs(d)).toEqual(['/spec/strategy/rollingUpdate/maxSurge type']);
    for (const cpu of [2, 0.5, '500m', '1'])
      expect(d(deployment({ resources: { requests: { cpu, memory: '1Gi' } } })), String(cpu)).toBe(true);
    expect(d(deployment({ resources: { requests: { cpu: [1] } } }))).toBe(false);
  });

  it('checks named ports as the API server does (IANA service names), numbers anywhere', () => {
    const s = v('v1/Service');
    const svc = (targetPort: unknown) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { ports: [{ port: 80, targetPort }] },
    });
    for (const ok of [8080, 'http', 'http-alt', 'metrics9']) expect(s(svc(ok)), String(ok)).toBe(true);
    for (const bad of ['web_port', 'HTTP', '8080', 'a--b', 'a-very-long-port-name']) expect(s(svc(bad)), bad).toBe(false);
    const d = v('apps/v1/Deployment');
    expect(
      d(deployment({ readinessProbe: { httpGet: { path: '/', port: 'metrics' } }, ports: [{ name: 'metrics', containerPort: 9100 }] })),
    ).toBe(true);
    expect(d(deployment({ ports: [{ name: 'Metrics', containerPort: 9100 }] }))).toBe(false);
    expect(errs(d)).toEqual(['/spec/template/spec/containers/0/ports/0/name pattern']);
  });

  it('knows fields newer than the 1.27 definitions (sidecar restartPolicy, PodSpec.resources) and ignores status', () => {
    const d = v('apps/v1/Deployment');
    expect(d(deployment({ restartPolicy: 'Always' }))).toBe(true);
    expect(d(deployment({}, { template: { spec: { resources: { limits: { cpu: 1 } }, containers: [{ name: 'c', image: 'i' }] } } }))).toBe(
      true,
    );
    expect(d({ ...deployment({}), status: { replicas: 'whatever', anything: true } })).toBe(true);
    // null is "not set"
    expect(d(deployment({}, { strategy: null, replicas: null }))).toBe(true);
  });

  it('is strict below the pod template (CronJob, StatefulSet volumeClaimTemplates) and requires a container image', () => {
    const cj = v('batch/v1/CronJob');
    const cron = (container: Record<string, unknown>) => ({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'c' },
      spec: {
        schedule: '* * * * *',
        jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', ...container }] } } } },
      },
    });
    expect(cj(cron({ image: 'i' }))).toBe(true);
    expect(cj(cron({ image: 'i', comand: ['x'] }))).toBe(false);
    expect(cj.errors?.[0]).toMatchObject({
      instancePath: '/spec/jobTemplate/spec/template/spec/containers/0',
      keyword: 'additionalProperties',
      params: { additionalProperty: 'comand' },
    });
    expect(cj(cron({}))).toBe(false);
    expect(cj.errors?.[0]).toMatchObject({ keyword: 'required', params: { missingProperty: 'image' } });
    const ss = v('apps/v1/StatefulSet');
    const sts = (pvcSpec: Record<string, unknown>) => ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 's' },
      spec: {
        serviceName: 's',
        selector: {},
        template: { spec: { containers: [{ name: 'c', image: 'i' }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: pvcSpec }],
      },
    });
    expect(ss(sts({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } }))).toBe(true);
    expect(ss(sts({ accesModes: ['ReadWriteOnce'] }))).toBe(false);
    expect(errs(ss)).toEqual(['/spec/volumeClaimTemplates/0/spec additionalProperties']);
  });

  it('closes RBAC, Ingress and NetworkPolicy objects', () => {
    const role = v('rbac.authorization.k8s.io/v1/ClusterRole');
    expect(
      role({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'r' },
        rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }],
      }),
    ).toBe(true);
    expect(
      role({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'r' },
        rules: [{ apiGroup: [''], verbs: ['get'] }],
      }),
    ).toBe(false);
    const rb = v('rbac.authorization.k8s.io/v1/RoleBinding');
    expect(rb({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'b' }, subjects: [] })).toBe(false);
    expect(errs(rb)).toEqual([' required']); // roleRef
    const np = v('networking.k8s.io/v1/NetworkPolicy');
    expect(
      np({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'n' },
        spec: { podSelector: {}, ingress: [{ ports: [{ port: 'https' }, { port: 443, endPort: 445 }] }] },
      }),
    ).toBe(true);
    const ing = v('networking.k8s.io/v1/Ingress');
    expect(
      ing({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: 'i' },
        spec: { rules: [{ http: { paths: [{ path: '/', pathType: 'Prefix', backend: { serviceName: 'old', servicePort: 80 } }] } }] },
      }),
    ).toBe(false);
    expect(errs(ing)).toContain('/spec/rules/0/http/paths/0/backend additionalProperties');
  });
});
