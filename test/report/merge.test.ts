/**
 * Fan out, fan in: `report --format artifact SITE` per site (what per-site CI jobs run) and
 * `report --merge` of the artifacts give the same fleet report as reading every site directly,
 * byte for byte, in every format; mismatched or foreign artifacts are refused.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../golden.js';
import { NOW, runReport as run, writeVariants } from './variants.js';

const CONFIG = join(import.meta.dirname, 'report-config.yaml');
let root = '';
let sites: Record<string, string> = {};
const NAMES = ['test-site', 'site-b', 'site-c', 'site-d'] as const;

beforeAll(() => {
  root = relative(process.cwd(), join(repoRoot, '.e2e-out/report-merge'));
  rmSync(root, { recursive: true, force: true });
  sites = writeVariants(join(root, 'sites'));
  mkdirSync(join(root, 'artifacts'), { recursive: true });
});
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/** One artifact per site, as each site's CI job would write it. */
async function artifacts(...opts: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const n of NAMES) {
    const file = join(root, 'artifacts', `${n}.json`);
    const r = await run(['--format', 'artifact', '--now', NOW, ...opts, '--output', file, sites[n]!]);
    expect(r.code, r.err).toBe(0);
    files.push(file);
  }
  return files;
}

describe('report --merge', () => {
  it('scrubs what an artifact says again (one written before a scrub knew a form, or edited by hand)', async () => {
    const [file] = await artifacts();
    const a = JSON.parse(readFileSync(file!, 'utf8'));
    expect(a.slice.security.length).toBeGreaterThan(0);
    a.slice.security[0].message = 'password: S3CR3T-ART and curl -H "X-Vault-Token: S3CR3T-ART2"';
    writeFileSync(file!, JSON.stringify(a));
    for (const format of ['text', 'json', 'html', 'markdown']) {
      const r = await run(['--merge', '--format', format, '--max-rows', '0', file!]);
      expect(r.code, r.err).toBe(0);
      expect(r.out).not.toContain('S3CR3T-ART');
    }
  });

  it('gives the report of all sites read directly, in every format', async () => {
    const files = await artifacts('--config', CONFIG);
    for (const format of ['json', 'text', 'markdown', 'html', 'sarif', 'junit']) {
      const direct = await run(['--format', format, '--now', NOW, '--config', CONFIG, '--max-rows', '0', ...NAMES.map((n) => sites[n]!)]);
      const merged = await run(['--merge', '--format', format, '--max-rows', '0', ...files]);
      expect(merged.code, merged.err).toBe(direct.code);
      expect(merged.out, format).toBe(direct.out);
    }
  });

  it('applies --reference and --fail-on at the merge', async () => {
    const files = await artifacts('--config', CONFIG);
    const direct = await run([
      '--format',
      'json',
      '--now',
      NOW,
      '--config',
      CONFIG,
      '--reference',
      'test-site',
      '--fail-on',
      'expired-certs',
      ...NAMES.map((n) => sites[n]!),
    ]);
    const merged = await run(['--merge', '--format', 'json', '--reference', 'test-site', '--fail-on', 'expired-certs', ...files]);
    expect(merged.out).toBe(direct.out);
    expect(merged.code).toBe(1);
    expect(direct.code).toBe(1);
  });

  it('refuses artifacts gathered with other options, one site twice, and options that belong to the per-site runs', async () => {
    const files = await artifacts();
    const other = join(root, 'artifacts', 'other-now.json');
    expect((await run(['--format', 'artifact', '--now', '2022-01-01T00:00:00Z', '--output', other, sites['site-b']!])).code).toBe(0);
    const mixed = await run(['--merge', files[0]!, other]);
    expect(mixed.code).toBe(2);
    expect(mixed.err).toMatch(/gathered with other options/);
    const twice = await run(['--merge', files[0]!, files[0]!]);
    expect(twice.code).toBe(2);
    expect(twice.err).toMatch(/site test-site is in .* too/);
    const shaping = await run(['--merge', '--now', NOW, ...files]);
    expect(shaping.code).toBe(2);
    expect(shaping.err).toMatch(/drop --now/);
    const notArtifact = join(root, 'artifacts', 'report.json');
    writeFileSync(notArtifact, (await run(['--format', 'json', '--now', NOW, sites['site-b']!])).out);
    const wrong = await run(['--merge', notArtifact]);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toMatch(/not a SiteReportArtifact/);
    expect((await run(['--format', 'artifact', '--now', NOW, sites['site-b']!, sites['site-c']!])).code).toBe(2);
  });
});
