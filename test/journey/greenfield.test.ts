/**
 * The greenfield site as committed: rendered/ is plain YAML Flux can apply (BMC Secrets SOPS-
 * encrypted, the phase order the only way in), it validates and reports on its own, the Flux objects
 * point at what exists and decrypt, the CI workflow and pre-commit config run what exists, and every copy
 * of a reference catalogue is still equal to catalogues/.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decryptSops } from 'sops-age';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../golden.js';
import { readDoc, readDocs, yamlFiles, type Doc } from './catalogue-files.js';

const gs = join(repoRoot, 'examples/greenfield-site');
const rel = (p: string): string => p.slice(repoRoot.length + 1);
const read = (p: string): string => readFileSync(join(repoRoot, p), 'utf8');

describe('greenfield-site rendered/', () => {
  const files = yamlFiles(join(gs, 'rendered'));
  const docs = files.filter((f) => !f.endsWith('kustomization.yaml')).flatMap((f) => readDocs(f).map((d) => ({ f: rel(f), d })));
  const identity = read('examples/greenfield-site/demo.agekey')
    .split('\n')
    .find((l) => l.startsWith('AGE-SECRET-KEY-'))!;

  it('holds the site, one object per file: a Namespace, 3 BareMetalHosts with their BMC and network-data Secrets, the plan', () => {
    expect(docs.map(({ f, d }) => `${f.replace('examples/greenfield-site/rendered/', '')} ${d.kind}/${d.metadata.name}`).sort()).toEqual([
      'hosts/baremetalhost_dl385-01.yaml BareMetalHost/dl385-01',
      'hosts/baremetalhost_r750-01.yaml BareMetalHost/r750-01',
      'hosts/baremetalhost_sys821ge-01.yaml BareMetalHost/sys821ge-01',
      'hosts/secret_dl385-01-bmc-secret.yaml Secret/dl385-01-bmc-secret',
      'hosts/secret_dl385-01-network-data.yaml Secret/dl385-01-network-data',
      'hosts/secret_r750-01-bmc-secret.yaml Secret/r750-01-bmc-secret',
      'hosts/secret_r750-01-network-data.yaml Secret/r750-01-network-data',
      'hosts/secret_sys821ge-01-bmc-secret.yaml Secret/sys821ge-01-bmc-secret',
      'hosts/secret_sys821ge-01-network-data.yaml Secret/sys821ge-01-network-data',
      'namespaces/namespace_target-infra.yaml Namespace/target-infra',
      'phase-plans/deploy-site/kustomization_deploy-site-hosts-management.yaml Kustomization/deploy-site-hosts-management',
      'phase-plans/deploy-site/kustomization_deploy-site-namespaces-management.yaml Kustomization/deploy-site-namespaces-management',
    ]);
  });

  it('is plain YAML: no local-config, no function configs, no Airship or baremetal-krm kinds, no tool annotations', () => {
    for (const { f, d } of docs) {
      const ann = (d.metadata?.annotations ?? {}) as Record<string, string>;
      expect(
        Object.keys(ann).filter((k) => /config\.kubernetes\.io\//.test(k)),
        f,
      ).toEqual([]);
      expect(String(d.apiVersion), f).not.toMatch(/airshipit\.org|baremetal-krm\.dev|kpt\.dev/);
    }
  });

  it('holds BMC credentials only SOPS-encrypted, decrypted by sops-age to the demo credentials; no plaintext anywhere', async () => {
    const text = files.map((f) => readFileSync(f, 'utf8')).join('\n');
    expect(text).not.toContain(Buffer.from('password').toString('base64'));
    const secrets = docs.filter(({ d }) => d.kind === 'Secret' && String(d.metadata.name).endsWith('-bmc-secret'));
    expect(secrets).toHaveLength(3);
    for (const { f, d } of secrets) {
      expect(
        Object.values(d.data as Record<string, string>).every((v) => v.startsWith('ENC[AES256_GCM,data:')),
        f,
      ).toBe(true);
      expect(Object.keys(d.sops)).toEqual(['age', 'lastmodified', 'mac', 'encrypted_regex', 'version']);
      const plain = await decryptSops(readFileSync(join(repoRoot, f), 'utf8'), { secretKey: identity, fileType: 'yaml' });
      expect(Buffer.from(plain.data.username, 'base64').toString(), f).toBe('admin');
      expect(Buffer.from(plain.data.password, 'base64').toString(), f).toBe('password');
    }
    for (const { d } of docs.filter(({ d }) => d.kind === 'BareMetalHost'))
      expect(d.spec.bmc.credentialsName).toBe(`${d.metadata.name}-bmc-secret`);
  });

  it('orders Flux: the root builds to the Flux Kustomizations only, each Kustomization path to its phase only', () => {
    const build = (p: string): string[] =>
      parseAllDocuments(execFileSync('kubectl', ['kustomize', join(repoRoot, p)], { encoding: 'utf8' }))
        .map((d) => d.toJS() as Doc)
        .map((d) => `${d.kind}/${d.metadata.name}`)
        .sort();
    const root = build('examples/greenfield-site/rendered');
    expect(root).toEqual(['Kustomization/deploy-site-hosts-management', 'Kustomization/deploy-site-namespaces-management']);
    const phases = docs.filter(({ d }) => d.kind === 'Kustomization').map(({ d }) => String(d.spec.path).replace(/^\.\//, ''));
    expect(phases.sort()).toEqual(['examples/greenfield-site/rendered/hosts', 'examples/greenfield-site/rendered/namespaces']);
    expect(build('examples/greenfield-site/rendered/namespaces')).toEqual(['Namespace/target-infra']);
    expect(build('examples/greenfield-site/rendered/hosts')).toEqual([
      'BareMetalHost/dl385-01',
      'BareMetalHost/r750-01',
      'BareMetalHost/sys821ge-01',
      'Secret/dl385-01-bmc-secret',
      'Secret/dl385-01-network-data',
      'Secret/r750-01-bmc-secret',
      'Secret/r750-01-network-data',
      'Secret/sys821ge-01-bmc-secret',
      'Secret/sys821ge-01-network-data',
    ]);
    for (const { d } of docs.filter(({ d }) => d.kind === 'Kustomization'))
      expect(d.spec.sourceRef).toEqual({ kind: 'GitRepository', name: 'fleet', namespace: 'flux-system' });
  });

  it("validates on its own with default settings (what Flux applies, folder by folder), and the report sees every host's hardware", () => {
    for (const p of ['', '/hosts', '/namespaces']) {
      const built = execFileSync('kubectl', ['kustomize', join(gs, `rendered${p}`)], { encoding: 'utf8' });
      const r = spawnSync(process.execPath, [join(repoRoot, 'dist/intent-validate.cjs')], { input: built, encoding: 'utf8' });
      expect(r.status, `${p}: ${r.stderr}`).toBe(0);
    }
    const report = execFileSync(
      process.execPath,
      [join(repoRoot, 'dist/baremetal-krm.cjs'), 'report', '--format', 'json', join(gs, 'rendered')],
      {
        encoding: 'utf8',
      },
    );
    const hosts = (JSON.parse(report) as Doc).hardware.hosts as Doc[];
    expect(hosts.map((h) => [h.name, h.manufacturer, h.model, h.cpuCount, h.ramMiB, h.requestedProfile]).sort()).toEqual([
      ['dl385-01', 'HPE', 'ProLiant DL385 Gen10 Plus v2', 256, 1048576, 'storage-nvme'],
      ['r750-01', 'Dell Inc.', 'PowerEdge R750', 72, 524288, 'control-plane'],
      ['sys821ge-01', 'Supermicro', 'SYS-821GE-TNHR', 128, 2097152, 'compute-large-memory'],
    ]);
  });
});

describe('greenfield-site Flux objects', () => {
  const repo = readDoc(join(gs, 'flux/gitrepository.yaml'));
  const ks = readDoc(join(gs, 'flux/site-kustomization.yaml'));
  it('the GitRepository is what the rendered Kustomizations name as their source', () => {
    expect([repo.apiVersion, repo.kind, repo.metadata.name, repo.metadata.namespace]).toEqual([
      'source.toolkit.fluxcd.io/v1',
      'GitRepository',
      'fleet',
      'flux-system',
    ]);
    // the ignore rules keep exactly rendered/ (gitignore semantics: everything, then re-include)
    expect(String(repo.spec.ignore).trim().split('\n')).toEqual(['/*', '!/examples/greenfield-site/rendered/']);
  });
  it("the entry Kustomization applies rendered/ (only the plan's Kustomizations) from that GitRepository, pruning", () => {
    expect([ks.apiVersion, ks.kind, ks.metadata.namespace]).toEqual(['kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'flux-system']);
    expect(ks.spec.sourceRef).toEqual({ kind: 'GitRepository', name: 'fleet' });
    expect(ks.spec.path).toBe('./examples/greenfield-site/rendered');
    expect(ks.spec.prune).toBe(true);
    expect(existsSync(join(repoRoot, ks.spec.path, 'kustomization.yaml'))).toBe(true);
  });
  it('carries the SOPS decryption settings, for itself and (patched) for every Kustomization it applies', () => {
    const decryption = { provider: 'sops', secretRef: { name: 'sops-age' } };
    expect(ks.spec.decryption).toEqual(decryption);
    expect(ks.spec.patches).toHaveLength(1);
    const [p] = ks.spec.patches as Doc[];
    expect(p!.target).toEqual({ group: 'kustomize.toolkit.fluxcd.io', kind: 'Kustomization' });
    expect(parse(p!.patch)).toEqual([{ op: 'add', path: '/spec/decryption', value: decryption }]);
    // the recipient the Secrets are encrypted for is the identity's (demo.agekey)
    const sopsConfig = parse(read('examples/greenfield-site/.sops.yaml')) as Doc;
    expect(read('examples/greenfield-site/demo.agekey')).toContain(`# public key: ${sopsConfig.creation_rules[0].age}`);
  });
});

describe('greenfield-site CI workflow and pre-commit config', () => {
  const wf = parse(read('examples/greenfield-site/ci/render-and-validate.yaml')) as Doc;
  const steps = wf.jobs.render.steps as Doc[];
  it('runs on pull requests and pushes to main', () => {
    expect(Object.keys(wf.on).sort()).toEqual(['pull_request', 'push']);
    expect(wf.on.push.branches).toEqual(['main']);
  });
  it('builds, validates the catalogues, renders and validates the site, then fails on drift, in that order', () => {
    const runs = steps.filter((s) => s.run).map((s) => String(s.run));
    const idx = (re: RegExp): number => runs.findIndex((r) => re.test(r));
    const order = [
      /npm run build/,
      /vitest run test\/journey\/catalogues\.test\.ts/,
      /node examples\/greenfield-site\/journey\.mjs --render/,
      /git diff --exit-code/,
    ];
    const at = order.map(idx);
    expect(
      at.every((i) => i >= 0),
      JSON.stringify(at),
    ).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    // new, uncommitted output counts as drift too
    expect(runs[at[3] ?? -1]).toContain('git add --intent-to-add examples/greenfield-site');
  });
  it('every file the workflow runs exists', () => {
    for (const f of ['examples/greenfield-site/journey.mjs', 'test/journey/catalogues.test.ts', 'scripts/build.mjs'])
      expect(existsSync(join(repoRoot, f)), f).toBe(true);
  });
  it('pre-commit: local hooks whose entries exist and whose file patterns match files of this repository', () => {
    const pc = parse(read('examples/greenfield-site/.pre-commit-config.yaml')) as Doc;
    const hooks = pc.repos[0].hooks as Doc[];
    expect(hooks.map((h) => h.id)).toEqual(['baremetal-krm-validate', 'greenfield-render-drift']);
    const [validate, drift] = hooks as [Doc, Doc];
    expect(new RegExp(validate.files).test('catalogues/hosts/host-catalogue.yaml')).toBe(true);
    expect(new RegExp(validate.exclude).test('catalogues/hosts/kustomization.yaml')).toBe(true);
    expect(new RegExp(drift.files).test('examples/greenfield-site/site/catalogues/host-catalogue.yaml')).toBe(true);
    expect(drift.entry).toBe('node examples/greenfield-site/journey.mjs --render --check');
  });
});

describe('copies of the reference catalogues are still equal to catalogues/', () => {
  const hw = ['control-plane', 'compute-general', 'compute-large-memory', 'storage-nvme']
    .map((c) => read(`catalogues/hardware-profiles/${c}.yaml`))
    .join('---\n');
  const cases: [string, string][] = [
    ['examples/greenfield-site/site/catalogues/networking.yaml', read('catalogues/networking/networking.yaml')],
    ['examples/greenfield-site/site/catalogues/versions.yaml', read('catalogues/versions/versions.yaml')],
    ['examples/greenfield-site/site/catalogues/hardware-profiles.yaml', hw],
    ['examples/site-from-catalogue/catalogues/catalogues/hardware-profiles.yaml', hw],
    ['examples/intent-validate/valid-site/catalogues/hardware-profiles.yaml', hw],
    ['examples/site-from-catalogue/catalogues/catalogues/networking.yaml', read('catalogues/networking/networking.yaml')],
    ['examples/site-from-catalogue/catalogues/catalogues/host-catalogue.yaml', read('catalogues/hosts/host-catalogue.yaml')],
  ];
  for (const [copy, original] of cases) it(copy, () => expect(read(copy)).toBe(original));

  it('the kustomize examples use the greenfield site as it is rendered (inventory and hosts)', () => {
    for (const h of ['dl385-01', 'r750-01', 'sys821ge-01']) {
      expect(read(`examples/bmh-from-redfish/generate/inventory/${h}.yaml`)).toBe(
        read(`examples/greenfield-site/site/inventory/${h}.yaml`),
      );
      expect(read(`examples/intent-validate/valid-site/inventory/${h}.yaml`)).toBe(
        read(`examples/greenfield-site/site/inventory/${h}.yaml`),
      );
      expect(read(`examples/intent-validate/valid-site/hosts/${h}.yaml`)).toBe(read(`examples/greenfield-site/site/hosts/${h}.yaml`));
    }
  });
});
