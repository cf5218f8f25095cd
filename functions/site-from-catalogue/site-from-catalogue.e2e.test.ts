/** End to end: kpt writes a new site from the shipped example into an empty folder; kubectl kustomize builds every phase. */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/golden.js';

const example = join(repoRoot, 'examples/site-from-catalogue');
const work = mkdtempSync(join(tmpdir(), 'site-from-catalogue-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function sh(cmd: string, args: string[], cwd = work) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { out: r.stdout, err: r.stderr, status: r.status };
}

describe('site-from-catalogue with kpt and kubectl kustomize', () => {
  const siteDir = join(work, 'manifests/site/new-site');
  it('kpt fn eval writes a new site into an empty folder', () => {
    cpSync(join(example, 'type'), join(work, 'manifests/type'), { recursive: true });
    sh('mkdir', ['-p', siteDir]);
    const r = sh('kpt', ['fn', 'eval', '--exec', join(repoRoot, 'dist/site-from-catalogue.cjs'), '--fn-config', join(example, 'site.yaml'), siteDir]);
    expect(r.status, r.err + r.out).toBe(0);
    for (const f of ['metadata.yaml', 'kustomization.yaml', 'phases/phases.yaml', 'target/catalogues/host-catalogue.yaml', 'target/controlplane/hosts/node03.yaml', 'target/workers/hosts/node06.yaml'])
      expect(existsSync(join(siteDir, f)), f).toBe(true);
    // no plaintext credentials anywhere in the written site
    const all = sh('grep', ['-rl', 'bmcPassword', siteDir]);
    expect(all.out).toBe('');
  });

  const phases: [string, Record<string, number>][] = [
    ['.', { ManifestMetadata: 1 }],
    ['phases', { Phase: 5 }],
    ['target/catalogues', { NetworkCatalogue: 1, VariableCatalogue: 1 }],
    ['target/initinfra-networking', { Namespace: 1 }],
    ['target/initinfra', { HardwareClassification: 2 }],
    ['target/controlplane', { BareMetalHost: 2, Secret: 2 }],
    ['target/workers', { BareMetalHost: 2, Secret: 2 }],
    ['target/workload', { HelmRelease: 1, HelmRepository: 1, Namespace: 1 }],
  ];
  for (const [dir, kinds] of phases) {
    it(`kubectl kustomize builds ${dir}`, () => {
      const r = sh('kubectl', ['kustomize', join(siteDir, dir)]);
      expect(r.status, r.err).toBe(0);
      const counts: Record<string, number> = {};
      for (const d of parseAllDocuments(r.out)) {
        const k = (d.toJS() as { kind: string }).kind;
        counts[k] = (counts[k] ?? 0) + 1;
      }
      expect(counts).toEqual(kinds);
      if (dir === 'target/workers') {
        expect(r.out).toContain('airshipit.org/k8s-role: worker');
        expect(r.out).toContain('ip_address: 10.23.24.100'); // node06's allocated PXE address
      }
    });
  }

  it('re-running kpt on the written site changes nothing', () => {
    const before = sh('find', [siteDir, '-type', 'f', '-exec', 'sha256sum', '{}', ';']).out;
    const r = sh('kpt', ['fn', 'eval', '--exec', join(repoRoot, 'dist/site-from-catalogue.cjs'), '--fn-config', join(example, 'site.yaml'), siteDir]);
    expect(r.status, r.err).toBe(0);
    expect(sh('find', [siteDir, '-type', 'f', '-exec', 'sha256sum', '{}', ';']).out).toBe(before);
    expect(readFileSync(join(siteDir, 'target/workers/kustomization.yaml'), 'utf8')).toContain('../../../../type/mini/target/workers');
  });
});
