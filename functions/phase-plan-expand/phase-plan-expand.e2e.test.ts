/**
 * End to end with the real tools: a synthetic site whose every generated Kustomization `path`
 * must build with `kubectl kustomize`, and `kpt fn render --allow-exec` on the example package.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, resourceList } from '../../test/golden.js';
import { execForm } from '../../test/examples/kptfile.js';
import { airshipctlFixtures, airshipctlPackage } from '../../test/phase-plan/kpt-package.js';
import { splitStream } from '../../src/krm/index.js';
import { syntheticSite } from '../../test/phase-plan/synthetic-site.js';

const work = mkdtempSync(join(tmpdir(), 'ppe-e2e-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const bundle = join(repoRoot, 'dist/phase-plan-expand.cjs');

describe('phase-plan-expand e2e', () => {
  it('every generated path builds with kubectl kustomize (synthetic site, 40 phases)', () => {
    const site = syntheticSite(40);
    const repo = join(work, 'repo');
    for (const [p, text] of Object.entries(site.files)) {
      mkdirSync(dirname(join(repo, p)), { recursive: true });
      writeFileSync(join(repo, p), text);
    }
    const r = spawnSync(process.execPath, [bundle], { input: site.bundle, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJS() as Record<string, any>); // a plain stream in, a plain stream out
    const ks = docs.filter((d) => d.kind === 'Kustomization');
    expect(ks).toHaveLength(36); // 40 phases, 4 GenericContainer gates; the move is a gate too
    for (const k of ks) {
      const out = spawnSync('kubectl', ['kustomize', join(repo, k.spec.path)], { encoding: 'utf8' });
      expect(out.status, `${k.metadata.name} ${k.spec.path}: ${out.stderr}`).toBe(0);
      expect(out.stdout).toContain('kind: ConfigMap');
    }
  });

  it('gates: job: every generated path builds, gate folders hold their Job, the plan folder holds no Job', () => {
    const site = syntheticSite(40);
    const repo = join(work, 'repo-jobs');
    for (const [p, text] of Object.entries(site.files)) {
      mkdirSync(dirname(join(repo, p)), { recursive: true });
      writeFileSync(join(repo, p), text);
    }
    const cfg = [
      'apiVersion: baremetal-krm.dev/v1alpha1',
      'kind: PhasePlanExpand',
      'metadata:',
      '  name: expand',
      'spec:',
      '  gates: job',
      '  packagePath: clusters/mgmt',
      '  jobs:',
      '    clusterctlImage: registry.k8s.io/cluster-api/clusterctl:v1.7.4',
      '    krmEntrypoints:',
      '      localhost/toolbox: [/usr/local/bin/toolbox]',
      '',
    ].join('\n');
    const r = spawnSync(process.execPath, [bundle], {
      input: resourceList(splitStream(site.bundle), cfg),
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    expect(r.status, r.stderr).toBe(0);
    const items = (parseAllDocuments(r.stdout)[0]!.toJS() as { items: Record<string, any>[] }).items;
    // write the generated files into the package, as kpt would
    const files = new Map<string, Record<string, any>[]>();
    for (const it of items) {
      const p = it.metadata?.annotations?.['config.kubernetes.io/path'];
      if (!p || !it.metadata.annotations['baremetal-krm.dev/generated-by']) continue;
      const docs = files.get(p) ?? [];
      docs[Number(it.metadata.annotations['config.kubernetes.io/index'] ?? 0)] = it;
      files.set(p, docs);
    }
    const pkg = join(repo, 'clusters/mgmt');
    for (const [p, docs] of files) {
      mkdirSync(dirname(join(pkg, p)), { recursive: true });
      writeFileSync(join(pkg, p), docs.map((d) => stringify(d)).join('---\n'));
    }
    const ks = items.filter((d) => d.apiVersion === 'kustomize.toolkit.fluxcd.io/v1');
    const gates = ks.filter((k) => k.metadata.annotations['baremetal-krm.dev/gate'] === 'job');
    expect(gates).toHaveLength(5); // 4 toolbox checks and the clusterctl move
    expect(ks).toHaveLength(36 + 5);
    for (const k of ks) {
      const out = spawnSync('kubectl', ['kustomize', join(repo, k.spec.path)], { encoding: 'utf8' });
      expect(out.status, `${k.metadata.name} ${k.spec.path}: ${out.stderr}`).toBe(0);
      const kinds = parseAllDocuments(out.stdout).map((d) => (d.toJS() as { kind: string }).kind);
      if (gates.includes(k)) {
        expect(kinds, k.metadata.name).toContain('Job');
        expect(out.stdout).not.toContain('config.kubernetes.io/path'); // kustomize drops the kpt annotations
      } else expect(kinds).toContain('ConfigMap');
    }
    // what each cluster's root Flux Kustomization, pointed at its folder, applies: its Flux Kustomizations only
    const planKinds: string[] = [];
    for (const folder of ['ephemeral-cluster', 'target-cluster']) {
      const plan = spawnSync('kubectl', ['kustomize', join(pkg, 'phase-plans/synthetic', folder)], { encoding: 'utf8' });
      expect(plan.status, plan.stderr).toBe(0);
      planKinds.push(...parseAllDocuments(plan.stdout).map((d) => (d.toJS() as { kind: string }).kind));
    }
    expect(planKinds).toHaveLength(41);
    expect(new Set(planKinds)).toEqual(new Set(['Kustomization']));
  });

  it('kpt fn render --allow-exec expands the example package, and a second render changes nothing', () => {
    const pkg = join(work, 'pkg');
    cpSync(join(repoRoot, 'examples/phase-plan-expand/deploy-gating'), pkg, { recursive: true });
    execForm(pkg);
    const render = () => spawnSync('kpt', ['fn', 'render', '--allow-exec', pkg], { encoding: 'utf8' });
    const r1 = render();
    expect(r1.status, r1.stderr).toBe(0);
    const gen = join(pkg, 'phase-plans/deploy');
    // Flux runs on the ephemeral cluster until the clusterctl move, then on the target: one folder each
    expect(readdirSync(gen).sort()).toEqual(['ephemeral-cluster', 'report.yaml', 'target-cluster']);
    const first = readFileSync(join(gen, 'target-cluster/kustomizations.yaml'), 'utf8');
    expect(first).toContain('kind: Kustomization');
    const report = readFileSync(join(gen, 'report.yaml'), 'utf8');
    expect(report).toContain('# Phase plan deploy');
    const r2 = render();
    expect(r2.status, r2.stderr).toBe(0);
    expect(readFileSync(join(gen, 'target-cluster/kustomizations.yaml'), 'utf8')).toBe(first);
  });

  it('kpt fn render with gates: job writes the gate folder, and a second render changes nothing', () => {
    const pkg = join(work, 'pkg-jobs');
    cpSync(join(repoRoot, 'examples/phase-plan-expand/deploy-gating'), pkg, { recursive: true });
    execForm(pkg);
    writeFileSync(
      join(pkg, 'fn-config.yaml'),
      readFileSync(join(pkg, 'fn-config.yaml'), 'utf8') +
        '  gates: job\n  jobs:\n    clusterctlImage: registry.k8s.io/cluster-api/clusterctl:v1.7.4\n',
    );
    const render = () => spawnSync('kpt', ['fn', 'render', '--allow-exec', pkg], { encoding: 'utf8' });
    const r1 = render();
    expect(r1.status, r1.stderr).toBe(0);
    const gen = join(pkg, 'phase-plans/deploy');
    expect(readdirSync(gen).sort()).toEqual(['ephemeral-cluster', 'gates', 'report.yaml', 'target-cluster']);
    expect(readdirSync(join(gen, 'ephemeral-cluster')).sort()).toEqual(['kustomization.yaml', 'kustomizations.yaml']);
    const gate = join(gen, 'gates/deploy-clusterctl-move');
    expect(readdirSync(gate).sort()).toEqual(['job.yaml', 'kustomization.yaml']);
    const job = readFileSync(join(gate, 'job.yaml'), 'utf8');
    expect(job).toContain('kind: Job');
    const r2 = render();
    expect(r2.status, r2.stderr).toBe(0);
    expect(readFileSync(join(gate, 'job.yaml'), 'utf8')).toBe(job);
  });

  it('what phase/needs-plugins flags, kustomize without plugins (as in Flux) cannot build; builtin transformers it builds', () => {
    // the airshipctl test-site: its workload entry point needs airshipctl's Templater
    const air = join(work, 'airshipctl');
    cpSync(airshipctlFixtures, air, { recursive: true });
    const r = spawnSync(process.execPath, [bundle], { input: airshipctlPackage(), encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('entry point ./manifests/site/test-site/target/workload needs kustomize plugins');
    const k = spawnSync('kubectl', ['kustomize', join(air, 'manifests/site/test-site/target/workload')], { encoding: 'utf8' });
    expect(k.status).not.toBe(0);
    expect(k.stderr).toContain("external plugins disabled; unable to load external plugin 'Templater'");
    // a rendered entry point with builtin transformers only: both are content
    const site = join(work, 'rendered-site');
    const input = readFileSync(join(import.meta.dirname, 'testdata/entrypoints-rendered/input.yaml'), 'utf8');
    for (const doc of splitStream(input)) {
      const path = /config\.kubernetes\.io\/path: (\S+)/.exec(doc)![1]!;
      mkdirSync(dirname(join(site, path)), { recursive: true });
      const clean = doc.replace(/^ {4}config\.kubernetes\.io\/(path|index): .*\n/gm, '').replace(/^ {2}annotations:\n(?! {4})/m, '');
      writeFileSync(join(site, path), clean, { flag: 'a' });
    }
    for (const entry of ['rendered/hosts', 'rendered/namespaces']) {
      const b = spawnSync('kubectl', ['kustomize', join(site, entry)], { encoding: 'utf8' });
      expect(b.status, `${entry}: ${b.stderr}`).toBe(0);
    }
  });
});
