/**
 * The greenfield site as committed: rendered/ is plain YAML Flux can apply, the Flux objects
 * point at what exists, the CI workflow and pre-commit config run what exists, and every copy
 * of a reference catalogue is still equal to catalogues/.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../golden.js';
import { readDoc, readDocs, yamlFiles, type Doc } from './catalogue-files.js';

const gs = join(repoRoot, 'examples/greenfield-site');
const rel = (p: string): string => p.slice(repoRoot.length + 1);
const read = (p: string): string => readFileSync(join(repoRoot, p), 'utf8');

describe('greenfield-site rendered/', () => {
  const files = yamlFiles(join(gs, 'rendered'));
  const docs = files.filter((f) => !f.endsWith('kustomization.yaml')).flatMap((f) => readDocs(f).map((d) => ({ f: rel(f), d })));

  it('holds the site: a Namespace, 3 BareMetalHosts with their network data, the 2 Flux Kustomizations of the plan', () => {
    expect(docs.map(({ d }) => `${d.kind}/${d.metadata.name}`).sort()).toEqual([
      'BareMetalHost/dl385-01',
      'BareMetalHost/r750-01',
      'BareMetalHost/sys821ge-01',
      'Kustomization/deploy-site-hosts-management',
      'Kustomization/deploy-site-namespaces-management',
      'Namespace/target-infra',
      'Secret/dl385-01-network-data',
      'Secret/r750-01-network-data',
      'Secret/sys821ge-01-network-data',
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

  it('has no BMC credentials in plain text: hosts reference <host>-bmc-secret, which is not in Git', () => {
    const text = files.map((f) => readFileSync(f, 'utf8')).join('\n');
    expect(text).not.toMatch(/password|username/i);
    for (const { d } of docs.filter(({ d }) => d.kind === 'BareMetalHost'))
      expect(d.spec.bmc.credentialsName).toBe(`${d.metadata.name}-bmc-secret`);
  });

  it('each folder has a kustomization.yaml listing exactly its files', () => {
    for (const dir of ['hosts', 'namespaces', 'phase-plans']) {
      const k = parse(read(`examples/greenfield-site/rendered/${dir}/kustomization.yaml`)) as Doc;
      const listed = (k.resources as string[]).slice().sort();
      const present = yamlFiles(join(gs, 'rendered', dir))
        .map((f) => f.slice(join(gs, 'rendered', dir).length + 1))
        .filter((f) => f !== 'kustomization.yaml')
        .sort();
      expect(listed, dir).toEqual(present);
    }
    expect((parse(read('examples/greenfield-site/rendered/kustomization.yaml')) as Doc).resources).toEqual([
      'hosts',
      'namespaces',
      'phase-plans',
    ]);
  });

  it('every Flux Kustomization of the plan points at a rendered folder that kustomize can build', () => {
    for (const { d } of docs.filter(({ d }) => d.kind === 'Kustomization')) {
      const path = String(d.spec.path).replace(/^\.\//, '');
      expect(path.startsWith('examples/greenfield-site/rendered/'), path).toBe(true);
      expect(existsSync(join(repoRoot, path, 'kustomization.yaml')), path).toBe(true);
      expect(d.spec.sourceRef).toEqual({ kind: 'GitRepository', name: 'fleet', namespace: 'flux-system' });
    }
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
  it('the entry Kustomization applies rendered/phase-plans from that GitRepository, pruning', () => {
    expect([ks.apiVersion, ks.kind, ks.metadata.namespace]).toEqual(['kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'flux-system']);
    expect(ks.spec.sourceRef).toEqual({ kind: 'GitRepository', name: 'fleet' });
    expect(ks.spec.path).toBe('./examples/greenfield-site/rendered/phase-plans');
    expect(ks.spec.prune).toBe(true);
    expect(existsSync(join(repoRoot, ks.spec.path, 'kustomization.yaml'))).toBe(true);
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
    ['examples/kustomize/site-from-catalogues/catalogues/hardware-profiles.yaml', hw],
    ['examples/kustomize/validation/catalogues/hardware-profiles.yaml', hw],
    ['examples/kustomize/site-from-catalogues/catalogues/networking.yaml', read('catalogues/networking/networking.yaml')],
    ['examples/kustomize/site-from-catalogues/catalogues/host-catalogue.yaml', read('catalogues/hosts/host-catalogue.yaml')],
  ];
  for (const [copy, original] of cases) it(copy, () => expect(read(copy)).toBe(original));

  it('the kustomize examples use the greenfield site as it is rendered (inventory and hosts)', () => {
    for (const h of ['dl385-01', 'r750-01', 'sys821ge-01']) {
      expect(read(`examples/kustomize/greenfield-bmh/inventory/${h}.yaml`)).toBe(read(`examples/greenfield-site/site/inventory/${h}.yaml`));
      expect(read(`examples/kustomize/validation/inventory/${h}.yaml`)).toBe(read(`examples/greenfield-site/site/inventory/${h}.yaml`));
      expect(read(`examples/kustomize/validation/hosts/${h}.yaml`)).toBe(read(`examples/greenfield-site/rendered/hosts/${h}.yaml`));
    }
  });
});
