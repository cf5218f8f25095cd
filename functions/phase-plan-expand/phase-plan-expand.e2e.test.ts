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
import { splitStream } from '../../src/krm/index.js';
import { syntheticSite } from './synthetic.js';

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
    // what a root Flux Kustomization pointing at the plan folder applies: the Flux Kustomizations only
    const plan = spawnSync('kubectl', ['kustomize', join(pkg, 'phase-plans/synthetic')], { encoding: 'utf8' });
    expect(plan.status, plan.stderr).toBe(0);
    const planKinds = parseAllDocuments(plan.stdout).map((d) => (d.toJS() as { kind: string }).kind);
    expect(planKinds).toHaveLength(41);
    expect(new Set(planKinds)).toEqual(new Set(['Kustomization']));
  });

  it('kpt fn render --allow-exec expands the example package, and a second render changes nothing', () => {
    const pkg = join(work, 'pkg');
    cpSync(join(repoRoot, 'examples/phase-plan-expand/package'), pkg, { recursive: true });
    const kptfile = readFileSync(join(pkg, 'Kptfile'), 'utf8').replace('./dist/phase-plan-expand.cjs', bundle);
    writeFileSync(join(pkg, 'Kptfile'), kptfile);
    const render = () => spawnSync('kpt', ['fn', 'render', '--allow-exec', pkg], { encoding: 'utf8' });
    const r1 = render();
    expect(r1.status, r1.stderr).toBe(0);
    const gen = join(pkg, 'phase-plans/deploy');
    expect(readdirSync(gen).sort()).toEqual(['kustomizations.yaml', 'report.yaml']);
    const first = readFileSync(join(gen, 'kustomizations.yaml'), 'utf8');
    expect(first).toContain('kind: Kustomization');
    const report = readFileSync(join(gen, 'report.yaml'), 'utf8');
    expect(report).toContain('# Phase plan deploy');
    const r2 = render();
    expect(r2.status, r2.stderr).toBe(0);
    expect(readFileSync(join(gen, 'kustomizations.yaml'), 'utf8')).toBe(first);
  });

  it('kpt fn render with gates: job writes the gate folder, and a second render changes nothing', () => {
    const pkg = join(work, 'pkg-jobs');
    cpSync(join(repoRoot, 'examples/phase-plan-expand/package'), pkg, { recursive: true });
    writeFileSync(join(pkg, 'Kptfile'), readFileSync(join(pkg, 'Kptfile'), 'utf8').replace('./dist/phase-plan-expand.cjs', bundle));
    writeFileSync(
      join(pkg, 'fn-config.yaml'),
      readFileSync(join(pkg, 'fn-config.yaml'), 'utf8') +
        '  gates: job\n  jobs:\n    clusterctlImage: registry.k8s.io/cluster-api/clusterctl:v1.7.4\n',
    );
    const render = () => spawnSync('kpt', ['fn', 'render', '--allow-exec', pkg], { encoding: 'utf8' });
    const r1 = render();
    expect(r1.status, r1.stderr).toBe(0);
    const gen = join(pkg, 'phase-plans/deploy');
    expect(readdirSync(gen).sort()).toEqual(['gates', 'kustomization.yaml', 'kustomizations.yaml', 'report.yaml']);
    const gate = join(gen, 'gates/deploy-clusterctl-move');
    expect(readdirSync(gate).sort()).toEqual(['job.yaml', 'kustomization.yaml']);
    const job = readFileSync(join(gate, 'job.yaml'), 'utf8');
    expect(job).toContain('kind: Job');
    const r2 = render();
    expect(r2.status, r2.stderr).toBe(0);
    expect(readFileSync(join(gate, 'job.yaml'), 'utf8')).toBe(job);
  });
});
