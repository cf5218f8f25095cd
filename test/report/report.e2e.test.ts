/**
 * The report bundle on a kustomization built with the real `kubectl kustomize`.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../golden.js';
import type { Report } from '../../src/report/model.js';
import { NOW, TEST_SITE } from './variants.js';

const OUT = relative(process.cwd(), join(repoRoot, '.e2e-out/report-e2e'));
const bundle = join(repoRoot, 'dist/baremetal-krm.cjs');

function files(dir: string, base = dir): string[] {
  return readdirSync(dir)
    .flatMap((e) => (statSync(join(dir, e)).isDirectory() ? files(join(dir, e), base) : [relative(base, join(dir, e))]))
    .filter((f) => f.endsWith('.yaml'))
    .sort();
}

function report(args: string[], env: Record<string, string> = {}): { out: string; err: string; code: number | null } {
  const r = spawnSync(process.execPath, [bundle, 'report', ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } });
  return { out: r.stdout, err: r.stderr, code: r.status };
}

beforeAll(() => {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const k = join(OUT, 'kustomized');
  cpSync(TEST_SITE, k, { recursive: true });
  writeFileSync(
    join(k, 'kustomization.yaml'),
    `resources:\n${files(k)
      .map((f) => `- ${f}`)
      .join('\n')}\n`,
  );
  const broken = join(OUT, 'broken');
  mkdirSync(broken);
  writeFileSync(join(broken, 'kustomization.yaml'), 'resources:\n- missing.yaml\n');
});

describe('report on a kustomization (kubectl kustomize)', () => {
  it('builds the kustomization first and reports the same certificates as the rendered folder', () => {
    const k = report(['--format', 'json', '--now', NOW, join(OUT, 'kustomized')]);
    const f = report(['--format', 'json', '--now', NOW, TEST_SITE]);
    expect(k.err).toBe('');
    expect(k.code).toBe(0);
    const kr = JSON.parse(k.out) as Report;
    const fr = JSON.parse(f.out) as Report;
    expect(kr.sites[0]).toMatchObject({ name: 'kustomized', mode: 'kustomize', hosts: 6 });
    // where a certificate sits differs (a file and line in the folder, the build's output otherwise)
    const what = ({ site: _s, file: _f, line: _l, ...c }: Report['certificates'][number]) => c;
    expect(kr.certificates.map(what)).toEqual(fr.certificates.map(what));
    // kustomize drops local-config documents: the HardwareInventory of node03 and node06
    expect(kr.sites[0]!.objects).toBe(fr.sites[0]!.objects - 2);
    expect(
      kr.hardware.hosts
        .filter((h) => h.hardwareSource === undefined)
        .map((h) => h.name)
        .sort(),
    ).toEqual(['node02', 'node03', 'node06']);
  });

  it('compares a kustomization with a rendered folder', () => {
    const r = report([
      '--format',
      'json',
      '--now',
      NOW,
      '--fail-on',
      'divergence',
      `rendered=${TEST_SITE}`,
      `built=${join(OUT, 'kustomized')}`,
    ]);
    expect(r.code).toBe(1);
    const rep = JSON.parse(r.out) as Report;
    expect(rep.divergence.map((e) => e.identity)).toEqual(['host[role=worker,profile=worker]#1', 'host[role=worker,profile=worker]#2']);
  });

  it('names kubectl when it cannot run or the build fails', () => {
    const missing = report(['--now', NOW, join(OUT, 'kustomized')], { KUBECTL: '/nonexistent/kubectl' });
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('cannot run "/nonexistent/kubectl kustomize');
    expect(missing.err).toContain('install kubectl, set KUBECTL, or pass the rendered YAML instead');
    const broken = report(['--now', NOW, join(OUT, 'broken')]);
    expect(broken.code).toBe(2);
    expect(broken.err).toMatch(/"kubectl kustomize .*broken" failed: .*missing\.yaml/);
  });
});
