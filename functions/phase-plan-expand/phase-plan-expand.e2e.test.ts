/**
 * End to end with the real tools: a synthetic site whose every generated Kustomization `path`
 * must build with `kubectl kustomize`, and `kpt fn render --allow-exec` on the example package.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/golden.js';
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
});
