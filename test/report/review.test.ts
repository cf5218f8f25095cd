/**
 * Regression tests for the reviewer's findings on the cross-site report (secrets, exit codes,
 * IP masking, namespaces, site-name masking, JSON maps, markdown escaping). Inputs are in
 * test/report/review/ (hand-written, no upstream data).
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../golden.js';
import type { Report } from '../../src/report/model.js';
import { runReport as run } from './variants.js';

const NOW = '2025-01-01T00:00:00Z';
const DATA = relative(process.cwd(), join(import.meta.dirname, 'review'));
let tmp = '';

beforeAll(() => {
  tmp = join(repoRoot, '.e2e-out/report-review');
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
});
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const json = async (args: string[]): Promise<Report> => JSON.parse((await run(['--format', 'json', '--now', NOW, ...args])).out) as Report;
const leak = (): string[] => [join(DATA, 'leak/east'), join(DATA, 'leak/west')];

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

describe('unreadable sites and outputs exit 2, not 1', () => {
  it('a broken symbolic link in a site folder', async () => {
    const dir = join(tmp, 'sym');
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
    for (const out of [tmp, join(DATA, 'bmc.yaml', 'x.txt')]) {
      const r = await run(['--now', NOW, '--output', out, join(DATA, 'leak/east')]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(
        /^baremetal-krm report: --output .*: cannot write \((EISDIR|ENOTDIR)\): create its folder or choose a writable path\n$/,
      );
    }
  });
});

describe('IP masking', () => {
  it('masks whole addresses, never the tag of an image: a 4-part version change is reported', async () => {
    const r = await json(leak());
    const app = r.divergence.find((e) => e.identity === 'Deployment app')!;
    expect(app.fields).toEqual([
      {
        path: 'spec.template.spec.containers[name=app].image',
        values: [
          { site: 'east', value: '"registry.local/app:1.2.3.4"' },
          { site: 'west', value: '"registry.local/app:1.2.3.5"' },
        ],
      },
    ]);
    const net = r.divergence.find((e) => e.identity === 'ConfigMap net')!;
    expect(net.fields).toEqual([
      {
        path: 'data.image',
        values: [
          { site: 'east', value: '"10.0.0.1:5000/tools:2.0.0.1"' },
          { site: 'west', value: '"10.0.0.2:5000/tools:2.0.0.2"' },
        ],
      },
    ]);
  });
});

describe('identity', () => {
  it('a kind + name in two namespaces of any site is matched by namespace in every site, whatever the file order', async () => {
    const r = await json([join(DATA, 'coll/a'), join(DATA, 'coll/b')]);
    expect(r.divergence).toEqual([
      {
        identity: 'ConfigMap ns1/foo',
        kind: 'ConfigMap',
        names: [
          { site: 'a', name: 'foo' },
          { site: 'b', name: null },
        ],
        missingIn: ['b'],
        fields: [],
      },
    ]);
    const rev = await json([join(DATA, 'coll/b'), join(DATA, 'coll/a')]);
    expect(rev.divergence).toEqual([
      {
        identity: 'ConfigMap ns1/foo',
        kind: 'ConfigMap',
        names: [
          { site: 'b', name: null },
          { site: 'a', name: 'foo' },
        ],
        missingIn: ['b'],
        fields: [],
      },
    ]);
  });
});

describe('site-name masking', () => {
  it('applies to the [name=...] keys of named list items (and their order)', async () => {
    const r = await json(leak());
    expect(r.divergence.find((e) => e.kind === 'PhasePlan')).toBeUndefined();
    const raw = await json(['--no-default-ignores', ...leak()]);
    const plan = raw.divergence.find((e) => e.kind === 'PhasePlan')!;
    expect(plan.fields.map((f) => f.path)).toEqual(['phases.(order)', 'phases[name=east-workers].name', 'phases[name=west-workers].name']);
    expect(plan.fields[0]!.values).toEqual([
      { site: 'east', value: '["east-workers","common"]' },
      { site: 'west', value: '["west-workers","common"]' },
    ]);
  });
});

describe('per-site lists in JSON', () => {
  it('keep command-line order and survive site names like 10 and __proto__', async () => {
    const [east, west] = leak();
    const r = await json([`10=${east}`, `__proto__=${west}`, `2=${east}`]);
    expect(r.sites.map((s) => s.name)).toEqual(['10', '__proto__', '2']);
    const app = r.divergence.find((e) => e.identity === 'Deployment app')!;
    expect(app.names).toEqual([
      { site: '10', name: 'app' },
      { site: '__proto__', name: 'app' },
      { site: '2', name: 'app' },
    ]);
    expect(app.fields[0]!.values.map((v) => `${v.site}=${v.value}`)).toEqual([
      '10="registry.local/app:1.2.3.4"',
      '__proto__="registry.local/app:1.2.3.5"',
      '2="registry.local/app:1.2.3.4"',
    ]);
    const w = r.workloads.find((x) => x.kind === 'Deployment')!;
    expect(w.versions).toEqual([
      { site: '10', version: 'registry.local/app:1.2.3.4 x1' },
      { site: '__proto__', version: 'registry.local/app:1.2.3.5 x1' },
      { site: '2', version: 'registry.local/app:1.2.3.4 x1' },
    ]);
    const text = await run(['--now', NOW, '--max-rows', '0', `10=${east}`, `__proto__=${west}`, `2=${east}`]);
    expect(text.out).toMatch(
      /Deployment +default\/app +yes +registry\.local\/app:1\.2\.3\.4 x1 +registry\.local\/app:1\.2\.3\.5 x1 +registry\.local\/app:1\.2\.3\.4 x1\n/,
    );
  });
});

describe('markdown', () => {
  it('escapes HTML in table cells, headers and notes', async () => {
    const r = await run([
      '--format',
      'markdown',
      '--now',
      NOW,
      '--no-default-ignores',
      `<script>x=${join(DATA, 'xss/a')}`,
      join(DATA, 'xss/b'),
    ]);
    expect(r.code).toBe(0);
    const [, , sitesLine, ...rest] = r.out.split('\n');
    expect(sitesLine).toBe('Sites: `<script>x`, `b`. Evaluated at 2025-01-01T00:00:00Z.'); // a code span: not HTML
    expect(rest.join('\n')).not.toMatch(/<(img|script|svg|iframe|b|\/title|\/script)[\s>]/i);
    expect(r.out).toContain('&lt;img src=x onerror=alert(1)&gt;a');
    expect(r.out).toContain('| &lt;script&gt;x |');
    expect(r.out).toContain('"x&lt;iframe src=javascript:alert(7)&gt;a"');
  });
});
