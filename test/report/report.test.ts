/**
 * The cross-site report: golden outputs (text, json, markdown, html) on the rendered airshipctl
 * test-site and the variants derived from it, plus unit tests of divergence, thresholds,
 * secrecy and error handling. UPDATE_GOLDEN=1 rewrites test/report/golden/: read the diff.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../golden.js';
import type { Report } from '../../src/report/model.js';
import { BMC_PASSWORD, NOW, runReport as run, TEST_SITE, writeVariants } from './variants.js';

const GOLDEN = join(import.meta.dirname, 'golden');
const CONFIG = join(import.meta.dirname, 'report-config.yaml');
let root = '';
let sites: Record<string, string> = {};

// The variants are written under .e2e-out/ (gitignored) and named by paths relative to the
// repository, so that the printed sources (and the text column widths) are the same everywhere.
beforeAll(() => {
  root = relative(process.cwd(), join(repoRoot, '.e2e-out/report-unit'));
  rmSync(root, { recursive: true, force: true });
  sites = writeVariants(join(root, 'sites'));
});
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const all = (): string[] => [sites['test-site']!, sites['site-b']!, sites['site-c']!, sites['site-d']!];
const json = async (args: string[]): Promise<Report> => JSON.parse((await run(['--format', 'json', '--now', NOW, ...args])).out) as Report;

interface Case {
  name: string;
  args: () => string[];
  exit: number;
}

const CASES: Case[] = [
  { name: 'test-site.txt', args: () => ['--now', NOW, '--max-rows', '0', sites['test-site']!], exit: 0 },
  { name: 'four-sites.json', args: () => ['--format', 'json', '--now', NOW, '--config', CONFIG, ...all()], exit: 0 },
  {
    name: 'four-sites-reference.md',
    args: () => ['--format', 'markdown', '--now', NOW, '--config', CONFIG, '--reference', 'test-site', ...all()],
    exit: 0,
  },
  { name: 'four-sites.html', args: () => ['--format', 'html', '--now', NOW, '--config', CONFIG, ...all()], exit: 0 },
  {
    name: 'fail-on.txt',
    args: () => [
      '--now',
      NOW,
      '--config',
      CONFIG,
      '--fail-on',
      'expired-certs,unencrypted-secrets,divergence,over-capacity,unmatched-hosts',
      sites['test-site']!,
      sites['site-b']!,
      sites['site-d']!,
    ],
    exit: 1,
  },
];

describe('report golden outputs', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const first = await run(c.args());
      const again = await run(c.args());
      expect(again.out).toBe(first.out); // deterministic
      const file = join(GOLDEN, c.name);
      if (process.env.UPDATE_GOLDEN) {
        writeFileSync(file, first.out);
        if (first.err) writeFileSync(file + '.stderr', first.err);
      }
      expect(first.out).toBe(readFileSync(file, 'utf8'));
      expect(first.err).toBe(existsSync(file + '.stderr') ? readFileSync(file + '.stderr', 'utf8') : '');
      expect(first.code).toBe(c.exit);
    });
  }

  it('the bundle prints the same bytes and exit code (BAREMETAL_KRM_NOW pins the time)', () => {
    const bundle = join(repoRoot, 'dist/baremetal-krm.cjs');
    const r = spawnSync(process.execPath, [bundle, 'report', '--format', 'json', '--config', CONFIG, ...all()], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', BAREMETAL_KRM_NOW: NOW },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(GOLDEN, 'four-sites.json'), 'utf8'));
  });
});

describe('report contents', () => {
  it('never prints secret values or key material, in any format', async () => {
    const keyB64 = 'LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVkt'; // base64 of "-----BEGIN RSA PRIVATE KEY-"
    expect(readFileSync(join(sites['site-d']!, 'secrets/node01-bmc-secret.yaml'), 'utf8')).toContain(BMC_PASSWORD);
    expect(readFileSync(join(TEST_SITE, 'kubeconfig/kubeconfig.yaml'), 'utf8')).toContain(keyB64.slice(0, 20));
    for (const format of ['text', 'json', 'markdown', 'html']) {
      const r = await run(['--format', format, '--now', NOW, '--max-rows', '0', '--no-default-ignores', ...all()]);
      expect(r.out).not.toContain(BMC_PASSWORD);
      expect(r.out).not.toContain(keyB64.slice(0, 20));
      expect(r.out).not.toContain('PRIVATE KEY');
    }
  });

  it('certificates are sorted by days left, with the pinned now', async () => {
    const r = await json([sites['test-site']!, sites['site-d']!]);
    expect(r.now).toBe(NOW);
    expect(r.certificates.map((c) => c.daysLeft)).toEqual([...r.certificates.map((c) => c.daysLeft)].sort((a, b) => a - b));
    const first = r.certificates[0]!;
    expect(first).toMatchObject({
      site: 'site-d',
      status: 'expired',
      notAfter: '2020-09-28T17:03:12Z',
      daysLeft: -245,
      file: 'kubeconfig/old-admin.yaml',
    });
    expect(r.certificates.find((c) => c.site === 'test-site' && c.daysLeft === 106)?.subject).toBe('O=system:masters, CN=kubernetes-admin');
  });

  it('hosts are matched across sites by role and profile, not by name or MAC', async () => {
    const r = await json([sites['test-site']!, sites['site-c']!]);
    expect(r.hardware.hosts.filter((h) => h.site === 'site-c').map((h) => h.name)).toContain('c-node01');
    expect(r.divergence.filter((e) => e.identity.startsWith('host['))).toEqual([]);
    const phase = r.divergence.find((e) => e.identity === 'Phase workers-target');
    expect(phase).toEqual({
      identity: 'Phase workers-target',
      kind: 'Phase',
      names: [
        { site: 'test-site', name: 'workers-target' },
        { site: 'site-c', name: null },
      ],
      missingIn: ['site-c'],
      fields: [],
    });
  });

  it('addresses and MACs are ignored by default and shown with --no-default-ignores', async () => {
    const def = await json([sites['test-site']!, sites['site-b']!]);
    const paths = def.divergence.flatMap((e) => e.fields.map((f) => `${e.identity} ${f.path}`));
    expect(paths.some((p) => /bmc\.address|bootMACAddress|ipAddresses|macAddress/.test(p))).toBe(false);
    expect(paths).toContain('HelmRelease ingress spec.chart.spec.version');
    expect(paths).toContain('VersionsCatalogue versions-airshipctl spec.capi_images.capm3.manager.tag');
    const raw = await json(['--no-default-ignores', sites['test-site']!, sites['site-b']!]);
    const rawPaths = raw.divergence.flatMap((e) => e.fields.map((f) => `${e.identity} ${f.path}`));
    expect(rawPaths).toContain('host[role=controlplane-host,profile=controlplane]#1 spec.bmc.address');
  });

  it('--ignore removes fields, Kind: limits a pattern to a kind', async () => {
    const r = await json(['--ignore', 'Deployment:spec.replicas,**.tag', sites['test-site']!, sites['site-b']!]);
    const paths = r.divergence.flatMap((e) => e.fields.map((f) => `${e.identity} ${f.path}`));
    expect(paths).not.toContain('Deployment analytics spec.replicas');
    expect(paths.some((p) => p.endsWith('.tag'))).toBe(false);
    expect(paths).toContain('HelmRelease ingress spec.chart.spec.version');
  });

  it('--ignore takes a field as the report shows it, list items included', async () => {
    const field = 'spec.template.spec.containers[name=analytics].image';
    const before = await json([sites['test-site']!, sites['site-b']!]);
    const paths = (r: Report) => r.divergence.flatMap((e) => e.fields.map((f) => `${e.identity} ${f.path}`));
    expect(paths(before)).toContain(`Deployment analytics ${field}`);
    for (const pattern of [`Deployment:${field}`, 'spec.template.spec.containers[*].image', 'spec.template.spec.containers.*.image']) {
      const r = await run(['--format', 'json', '--now', NOW, '--ignore', pattern, sites['test-site']!, sites['site-b']!]);
      expect(paths(JSON.parse(r.out) as Report)).not.toContain(`Deployment analytics ${field}`);
      expect(r.err).not.toContain('matched no field');
    }
  });

  it('an --ignore pattern that cannot match is a usage error; one that matched nothing is named', async () => {
    for (const bad of ['[', 'spec.[name=a', 'a..b', 'spec.containers]', 'x[a]y', 'Deployment:']) {
      const r = await run(['--ignore', bad, sites['test-site']!]);
      expect(r.code, bad).toBe(2);
      expect(r.err).toContain(`--ignore ${JSON.stringify(bad)}: `);
      expect(r.out).toBe('');
    }
    const r = await run(['--now', NOW, '--ignore', 'spec.intervl,**.tag', sites['test-site']!, sites['site-b']!]);
    expect(r.code).toBe(0);
    expect(r.err).toContain('the ignored field pattern "spec.intervl" matched no field of the 2 sites');
    expect(r.err).not.toContain('"**.tag" matched');
  });

  it('with a reference site, resources only elsewhere are missing from the reference', async () => {
    const r = await json(['--reference', 'site-c', sites['test-site']!, sites['site-c']!]);
    expect(r.reference).toBe('site-c');
    expect(r.divergence.find((e) => e.identity === 'Phase workers-target')?.missingIn).toEqual(['site-c']);
  });

  it('a host whose hardware misses its profile is listed with the reasons', async () => {
    const r = await json([sites['site-b']!]);
    const h = r.hardware.hosts.find((x) => x.name === 'node06')!;
    expect(h).toMatchObject({
      profileStatus: 'mismatch',
      manufacturer: 'Dell Inc.',
      model: 'PowerEdge R750',
      cpuCount: 72,
      biosVersion: '1.8.2',
    });
    expect(h.profiles[0]!.failures).toContain('cpu.minCount: wanted >= 128 threads, found 72');
    expect(r.hardware.mix).toEqual([
      { site: 'site-b', model: 'Dell Inc. PowerEdge R750', hosts: 4 },
      { site: 'site-b', model: 'HPE ProLiant DL385 Gen10 Plus v2', hosts: 1 },
      { site: 'site-b', model: 'unknown', hosts: 1 },
    ]);
  });

  it('workloads side by side, differing only when more than the site name differs', async () => {
    const r = await json([sites['test-site']!, sites['site-b']!]);
    const ingress = r.workloads.find((w) => w.kind === 'HelmRelease')!;
    expect(ingress).toEqual({
      kind: 'HelmRelease',
      name: 'ingress',
      versions: [
        { site: 'test-site', version: 'ingress-nginx@3.5.1' },
        { site: 'site-b', version: 'ingress-nginx@4.0.1' },
      ],
      differs: true,
    });
    const ks = r.workloads.find((w) => w.name === 'deploy-gating-initinfra-target')!;
    expect(ks.versions.find((v) => v.site === 'site-b')?.version).toBe(
      './manifests/site/site-b/target/initinfra (GitRepository/flux-system)',
    );
    expect(ks.differs).toBe(false);
  });

  it('a single rendered YAML file is a site', async () => {
    const file = join(root, 'rendered.yaml');
    const r0 = await json([sites['test-site']!]);
    const docs: string[] = [];
    for (const f of ['hosts/node01.yaml', 'hardware/node01.yaml', 'hardware/profiles.yaml', 'kubeconfig/kubeconfig.yaml'])
      docs.push(readFileSync(join(TEST_SITE, f), 'utf8'));
    writeFileSync(file, docs.join('---\n'));
    const r = await json([`prod=${file}`]);
    expect(r.sites[0]).toMatchObject({ name: 'prod', mode: 'file', hosts: 1, certificates: 4 });
    expect(r.certificates.map((c) => c.file)).toEqual(['rendered.yaml', 'rendered.yaml', 'rendered.yaml', 'rendered.yaml']);
    expect(r0.sites[0]!.mode).toBe('folder');
  });
});

describe('report thresholds (exit 1 for CI)', () => {
  const cases: [string, string, number][] = [
    ['expired-certs', 'site-d', 1],
    ['expired-certs', 'test-site', 0],
    ['unmatched-hosts', 'site-b', 1],
    ['unmatched-hosts', 'test-site', 0],
    ['over-capacity', 'site-b', 1],
    ['over-capacity', 'test-site', 0],
    ['unencrypted-secrets', 'test-site', 1],
    ['insecure-bmc', 'test-site', 1],
  ];
  for (const [t, site, code] of cases)
    it(`--fail-on ${t} on ${site}: exit ${code}`, async () => {
      const r = await run(['--format', 'json', '--now', NOW, '--config', CONFIG, '--fail-on', t, sites[site]!]);
      expect(r.code).toBe(code);
      expect(r.err).toBe(
        code
          ? `baremetal-krm report: threshold broken: --fail-on ${t} (${(JSON.parse(r.out) as Report).thresholds.find((x) => x.name === t)!.count})\n`
          : '',
      );
    });

  it('--fail-on divergence: two identical sites pass, a changed one fails', async () => {
    expect((await run(['--now', NOW, '--fail-on', 'divergence', `a=${sites['test-site']}`, `b=${sites['test-site']}`])).code).toBe(0);
    expect((await run(['--now', NOW, '--fail-on', 'divergence', sites['test-site']!, sites['site-b']!])).code).toBe(1);
  });
});

describe('report errors (exit 2, naming the problem and the fix)', () => {
  it('a missing site', async () => {
    const r = await run(['--now', NOW, join(root, 'nope')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/site nope: .*nope does not exist: pass a folder of rendered YAML/);
  });
  it('two sites with the same name', async () => {
    const r = await run(['--now', NOW, sites['test-site']!, sites['test-site']!]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('two sites are named test-site: name them with NAME=PATH');
  });
  it('bad options', async () => {
    expect((await run(['--fail-on', 'everything', sites['test-site']!])).err).toContain(
      '--fail-on everything: unknown threshold; use expired-certs',
    );
    expect((await run(['--now', 'yesterday', sites['test-site']!])).err).toContain('--now yesterday: use an RFC 3339 time');
    expect((await run(['--format', 'pdf', sites['test-site']!])).err).toContain(
      '--format pdf: use text, json, markdown, html, sarif, junit or artifact',
    );
    expect((await run(['--colour', sites['test-site']!])).err).toContain('unknown option --colour');
    expect((await run(['--now', NOW])).err).toContain('no site given');
    const ref = await run(['--now', NOW, '--reference', 'prod', sites['test-site']!]);
    expect(ref.code).toBe(2);
    expect(ref.err).toContain('--reference prod is not one of the sites (test-site)');
  });
  it('a bad config names the field', async () => {
    const bad = join(root, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: CrossSiteReport\nspec:\n  failOn: [sometimes]\n');
    const r = await run(['--config', bad, sites['test-site']!]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('spec.failOn[0]: must be equal to one of the allowed values (expired-certs');
    writeFileSync(
      bad,
      'apiVersion: baremetal-krm.dev/v1alpha1\nkind: CrossSiteReport\nspec:\n  intent:\n    certificates:\n      warnDays: soon\n',
    );
    expect((await run(['--config', bad, sites['test-site']!])).err).toContain('spec.intent.certificates.warnDays: must be integer');
    writeFileSync(bad, 'apiVersion: v1\nkind: ConfigMap\n');
    expect((await run(['--config', bad, sites['test-site']!])).err).toContain(
      'expected apiVersion baremetal-krm.dev/v1alpha1, kind CrossSiteReport',
    );
  });
  it('documents that are not KRM objects are skipped with a note', async () => {
    const dir = join(root, 'odd');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'a.yaml'), 'just: values\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n');
    const r = await run(['--now', NOW, '--format', 'json', dir]);
    expect(r.code).toBe(0);
    expect(r.err).toBe(`${join(dir, 'a.yaml')}:1: warning: skipped: not a KRM object (no apiVersion/kind) [input]\n`);
    expect((JSON.parse(r.out) as Report).sites[0]!.objects).toBe(1);
  });
  it('--help', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('baremetal-krm report [options] SITE...');
  });
});
