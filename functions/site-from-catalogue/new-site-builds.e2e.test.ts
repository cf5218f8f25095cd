/**
 * End to end: kpt writes a new site from the shipped example into an empty folder; kubectl
 * kustomize builds every folder of it, and every Phase of its plan points at a folder that builds.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/golden.js';

const example = join(repoRoot, 'examples/site-from-catalogue/new-site');
const bundle = join(repoRoot, 'dist/site-from-catalogue.cjs');
const work = mkdtempSync(join(tmpdir(), 'site-from-catalogue-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
cpSync(join(example, 'type'), join(work, 'manifests/type'), { recursive: true });

type Doc = { kind: string; metadata: { name: string }; config?: { documentEntryPoint?: string }; phases?: { name: string }[] };

function sh(cmd: string, args: string[], cwd = work) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { out: r.stdout, err: r.stderr, status: r.status };
}
function kustomize(dir: string): { docs: Doc[]; out: string } {
  const r = sh('kubectl', ['kustomize', dir]);
  expect(r.status, `kubectl kustomize ${dir}: ${r.err}`).toBe(0);
  return { docs: parseAllDocuments(r.out).map((d) => d.toJS() as Doc), out: r.out };
}
function kinds(docs: Doc[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const d of docs) counts[d.kind] = (counts[d.kind] ?? 0) + 1;
  return counts;
}
function evalSite(siteDir: string, config: string) {
  mkdirSync(siteDir, { recursive: true });
  return sh('kpt', ['fn', 'eval', '--exec', bundle, '--fn-config', config, siteDir]);
}
/** Every Phase of the plan exists and its documentEntryPoint (relative to the site) builds. */
function checkPlan(siteDir: string, expectedPhases: number) {
  const { docs } = kustomize(join(siteDir, 'phases'));
  const phases = docs.filter((d) => d.kind === 'Phase');
  const plan = docs.find((d) => d.kind === 'PhasePlan')!;
  expect(phases.length).toBe(expectedPhases);
  expect(plan.phases!.map((p) => p.name).sort()).toEqual(phases.map((p) => p.metadata.name).sort());
  for (const p of phases) {
    const entry = p.config!.documentEntryPoint!;
    expect(existsSync(join(siteDir, entry, 'kustomization.yaml')), `${p.metadata.name}: ${entry}`).toBe(true);
    kustomize(join(siteDir, entry));
  }
}

describe('site-from-catalogue with kpt and kubectl kustomize: a new site with its own phase plan', () => {
  const siteDir = join(work, 'manifests/site/new-site');
  it('kpt fn eval writes a new site into an empty folder', () => {
    const r = evalSite(siteDir, join(example, 'site.yaml'));
    expect(r.status, r.err + r.out).toBe(0);
    for (const f of [
      'metadata.yaml',
      'kustomization.yaml',
      'phases/plan.yaml',
      'phases/phases.yaml',
      'phases/executors.yaml',
      'host-inventory/hosts/node06.yaml',
      'target/catalogues/host-catalogue.yaml',
      'ephemeral/controlplane/hosts/node03.yaml',
      'target/controlplane/hosts/node03.yaml',
      'target/workers/hosts/node06.yaml',
    ])
      expect(existsSync(join(siteDir, f)), f).toBe(true);
    // no plaintext credentials anywhere in the written site
    expect(sh('grep', ['-rl', 'bmcPassword', siteDir]).out).toBe('');
    // metadata.yaml names only folders that were written
    const md = parseAllDocuments(readFileSync(join(siteDir, 'metadata.yaml'), 'utf8'))[0]!.toJS() as {
      spec: { phase: { path: string }; inventory: { path: string } };
    };
    for (const p of [md.spec.phase.path, md.spec.inventory.path]) expect(existsSync(join(work, p, 'kustomization.yaml')), p).toBe(true);
  });

  const folders: [string, Record<string, number>][] = [
    ['.', { ManifestMetadata: 1 }],
    ['phases', { KubernetesApply: 1, Phase: 6, PhasePlan: 1 }],
    ['host-inventory', { BareMetalHost: 4, Secret: 4 }],
    ['target/catalogues', { NetworkCatalogue: 1, VariableCatalogue: 1 }],
    ['ephemeral/controlplane', { BareMetalHost: 1, Secret: 1 }],
    ['target/initinfra-networking', { Namespace: 1 }],
    ['target/initinfra', { HardwareClassification: 2 }],
    ['target/controlplane', { BareMetalHost: 2, Secret: 2 }],
    ['target/workers', { BareMetalHost: 2, Secret: 2 }],
    ['target/workload', { HelmRelease: 1, HelmRepository: 1, Namespace: 1 }],
  ];
  for (const [dir, want] of folders) {
    it(`kubectl kustomize builds ${dir}`, () => {
      const { docs, out } = kustomize(join(siteDir, dir));
      expect(kinds(docs)).toEqual(want);
      if (dir === 'target/workers') {
        expect(out).toContain('airshipit.org/k8s-role: worker');
        expect(out).toContain('ip_address: 10.23.24.100'); // node06's allocated PXE address
      }
      if (dir === 'ephemeral/controlplane') expect(docs.map((d) => d.metadata.name).sort()).toEqual(['node03', 'node03-network-data']);
    });
  }

  it('the same host in two phases is the same object in both', () => {
    expect(readFileSync(join(siteDir, 'ephemeral/controlplane/hosts/node03.yaml'), 'utf8')).toBe(
      readFileSync(join(siteDir, 'target/controlplane/hosts/node03.yaml'), 'utf8'),
    );
  });

  it('every Phase of the plan points at a site folder that builds', () => checkPlan(siteDir, 6));

  it('re-running kpt on the written site changes nothing', () => {
    const before = sh('find', [siteDir, '-type', 'f', '-exec', 'sha256sum', '{}', ';']).out;
    const r = evalSite(siteDir, join(example, 'site.yaml'));
    expect(r.status, r.err).toBe(0);
    expect(sh('find', [siteDir, '-type', 'f', '-exec', 'sha256sum', '{}', ';']).out).toBe(before);
    expect(readFileSync(join(siteDir, 'target/workers/kustomization.yaml'), 'utf8')).toContain('../../../../type/mini/target/workers');
  });

  it('distil takes the written site back: node03, in host-inventory/ and both control plane folders, is one entry', () => {
    const copy = join(work, 'distil-site');
    cpSync(siteDir, copy, { recursive: true });
    const config = join(work, 'distil.yaml');
    writeFileSync(
      config,
      'apiVersion: baremetal-krm.dev/v1alpha1\nkind: SiteFromCatalogue\nmetadata:\n  name: distil\nspec:\n  mode: distil\n',
    );
    const r = sh('kpt', ['fn', 'eval', '--exec', bundle, '--fn-config', config, copy]);
    expect(r.status, r.err + r.out).toBe(0);
    // the site's own host-catalogue (target/catalogues/) is the one distil brings up to date
    const text = readFileSync(join(copy, 'target/catalogues/host-catalogue.yaml'), 'utf8');
    expect(text).toContain('generated-by: site-from-catalogue/distil');
    const catalogue = parseAllDocuments(text)[0]!.toJS() as { hosts: { m3: Record<string, unknown> } };
    expect(Object.keys(catalogue.hosts.m3)).toEqual(['node03', 'node04', 'node05', 'node06']);
    expect(readFileSync(join(copy, 'hosts/host-generation.yaml'), 'utf8')).toContain('- node06');
    expect(r.err).toContain('4 host(s) are in several folders with identical copies');
  });
});

describe("site-from-catalogue with kpt and kubectl kustomize: a new site that uses the type's phase plan", () => {
  const siteDir = join(work, 'manifests/site/plan-site');
  it("kpt fn eval writes the site; phases/ references the type's plan", () => {
    const config = join(work, 'plan-site.yaml');
    writeFileSync(
      config,
      readFileSync(join(example, 'site.yaml'), 'utf8')
        .replace(/name: new-site/g, 'name: plan-site')
        .replace('    type: ../../type/mini\n', '    type: ../../type/mini\n    phasePlan: {fromType: phases}\n'),
    );
    const r = evalSite(siteDir, config);
    expect(r.status, r.err + r.out).toBe(0);
    expect(existsSync(join(siteDir, 'phases/phases.yaml'))).toBe(false);
    expect(readFileSync(join(siteDir, 'phases/kustomization.yaml'), 'utf8')).toContain('- ../../../type/mini/phases\n');
  });
  it("every Phase of the type's plan points at a folder of the site that builds", () => checkPlan(siteDir, 6));
});
