/**
 * How the cross-site report matches and shows resources: IP masking that spares image tags,
 * kind + name matched by namespace when needed, site-name masking in named list keys, per-site
 * JSON lists that survive any site name, HTML escaped in Markdown. Inputs are in
 * test/report/cases/ (hand-written, no upstream data).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/model.js';
import { CASES_DIR, leakSites, reportJson, runReport as run } from './variants.js';

const NOW = '2025-01-01T00:00:00Z';
const DATA = CASES_DIR;
const json = (args: string[]): Promise<Report> => reportJson(NOW, args);
const leak = leakSites;

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
