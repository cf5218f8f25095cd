/**
 * The cross-site report never prints a secret (values under sensitive keys, key material, URL
 * credentials, in every format) and exits 2, not 1, on a site or output it cannot read or
 * write. Inputs are in test/report/cases/ (hand-written, no upstream data).
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/model.js';
import { CASES_DIR, leakSites, reportJson, runReport as run, scratchDir } from './variants.js';

const NOW = '2025-01-01T00:00:00Z';
const DATA = CASES_DIR;
const scratch = scratchDir('report-secrets');
const json = (args: string[]): Promise<Report> => reportJson(NOW, args);
const leak = leakSites;

describe('secrets are never printed', () => {
  const SECRETS = [
    'dd-apikey-',
    'apikey2-',
    '1111',
    '2222',
    'secretsub-',
    'tok-',
    'MIIPRIVATE',
    'PRIVATE KEY',
    'envpw-',
    'ghp_tok',
    'cred-',
    'privkey-',
    'ak-AAAA',
    'ak-BBBB',
    'sak-',
    'encAAAA',
    'encBBBB',
    'pgpw',
    's3cr3tpw',
    'plainpw',
  ];
  for (const format of ['text', 'json', 'markdown', 'html'])
    for (const extra of [[], ['--no-default-ignores']])
      it(`${format} ${extra.join(' ')}`, async () => {
        const r = await run(['--format', format, '--now', NOW, '--max-rows', '0', ...extra, ...leak(), join(DATA, 'bmc.yaml')]);
        expect(r.code).toBe(0);
        for (const s of SECRETS) expect(r.out, s).not.toContain(s);
        expect(r.out).toContain('https://***@github.com/org/repo');
      });

  it('the working directory is no secret: PWD and OLDPWD never mask a path', async () => {
    const saved = { PWD: process.env.PWD, OLDPWD: process.env.OLDPWD };
    process.env.PWD = process.cwd();
    process.env.OLDPWD = join(process.cwd(), CASES_DIR);
    try {
      const sites = leak().map((s) => join(process.cwd(), s));
      const r = await json(sites);
      expect(r.sites.map((s) => s.source)).toEqual(sites);
      const bad = await run(['--now', NOW, join(process.cwd(), 'no-such-site')]);
      expect(bad.err).toContain(process.cwd());
      expect(bad.err).not.toContain('***');
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });

  it('hidden values are compared by presence; reference keys are still compared by value', async () => {
    const r = await json(leak());
    const deep = r.divergence.find((e) => e.identity === 'ConfigMap deep')!;
    expect(deep.fields).toEqual([
      {
        path: 'spec.creds.passwordSecretRef.name',
        values: [
          { site: 'east', value: '"pw-ref"' },
          { site: 'west', value: '"pw-ref2"' },
        ],
      },
    ]);
    const raw = await json(['--no-default-ignores', ...leak()]);
    expect(raw.divergence.find((e) => e.identity === 'HelmRelease datadog')).toBeUndefined(); // hidden values are all "(set)"
  });
});

describe('what kustomize prints is scrubbed before it is quoted', () => {
  it('a token in a remote resource URL, a secretGenerator literal it cannot split', async () => {
    const dir = join(scratch(), 'kustomize-echo');
    for (const [name, text] of [
      ['url-token', 'resources:\n- https://ghp_Zq9xKUSTOMIZEaaaaaaaaaaaa@127.0.0.1:1/org/repo//base?ref=main\n'],
      ['url-password', 'resources:\n- https://git:kust-S3CR3T-1@127.0.0.1:1/org/repo//base?ref=main\n'],
      ['literal', 'secretGenerator:\n- name: db\n  literals:\n  - "password kust-S3CR3T-2"\n'],
    ]) {
      mkdirSync(join(dir, name!), { recursive: true });
      writeFileSync(join(dir, name!, 'kustomization.yaml'), text!);
      const r = await run([join(dir, name!)]);
      expect(r.code, name).toBe(2);
      expect(r.err).toContain('kustomize');
      expect(r.err).not.toMatch(/ghp_Zq9x|kust-S3CR3T/);
    }
  });
});

describe('unreadable sites and outputs exit 2, not 1', () => {
  it('an --output that names an input, or a file inside a site folder, is refused and the input kept', async () => {
    const site = join(scratch(), 'output-site');
    mkdirSync(site, { recursive: true });
    const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\ndata: {a: b}\n';
    writeFileSync(join(site, 'c.yaml'), manifest);
    for (const out of [join(site, 'c.yaml'), join(site, 'report.txt')]) {
      const r = await run(['--now', NOW, '--output', out, site]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/--output .* (is one of the inputs|is inside the input folder)/);
    }
    expect(readFileSync(join(site, 'c.yaml'), 'utf8')).toBe(manifest);
    expect(existsSync(join(site, 'report.txt'))).toBe(false);
  });

  it('a broken symbolic link in a site folder', async () => {
    const dir = join(scratch(), 'sym');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'a.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n');
    symlinkSync('nowhere.yaml', join(dir, 'broken.yaml'));
    const r = await run(['--now', NOW, dir]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `baremetal-krm report: site sym: cannot read ${join(dir, 'broken.yaml')} (a broken symbolic link): fix or remove it, or pass the rendered YAML elsewhere\n`,
    );
    expect(r.out).toBe('');
  });
  it('an --output that cannot be written (a folder, a path under a file)', async () => {
    for (const out of [scratch(), join(DATA, 'bmc.yaml', 'x.txt')]) {
      const r = await run(['--now', NOW, '--output', out, join(DATA, 'leak/east')]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/^baremetal-krm report: --output .*: cannot write \((EISDIR|ENOTDIR): [^)]+\)\n$/);
    }
  });
});
