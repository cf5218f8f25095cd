/**
 * `baremetal-krm plan`: one golden per impact case (test/plan/cases.ts), each asserting the
 * class and the reason of its changes; the text output as a golden file; Markdown, JSON, SARIF
 * (schema-valid) and JUnit (parsed) of the cases; --fail-on and the allow annotation; Secrets
 * never shown. UPDATE_GOLDEN=1 rewrites test/plan/golden/: read the diff.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPlan } from '../../src/cli/plan.js';
import { IMPACT_CLASSES } from '../../src/plan/classes.js';
import type { Plan } from '../../src/plan/model.js';
import { expectValidSarif, parseJUnit } from '../ci/ci-formats.js';
import { repoRoot } from '../golden.js';
import { CASES, writeCase } from './cases.js';

const GOLDEN = join(import.meta.dirname, 'golden');
const root = relative(process.cwd(), join(repoRoot, '.e2e-out/plan-cases'));
const trees = new Map<string, { base: string; head: string }>();

beforeAll(() => {
  rmSync(root, { recursive: true, force: true });
  for (const c of CASES) trees.set(c.name, writeCase(root, c));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function plan(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runPlan(argv, { out: (s) => void (out += s), err: (s) => void (err += s) });
  return { code, out, err };
}

const sides = (name: string): string[] => {
  const t = trees.get(name)!;
  return [t.base, t.head];
};

function golden(file: string, text: string): void {
  const p = join(GOLDEN, file);
  if (process.env.UPDATE_GOLDEN) writeFileSync(p, text);
  expect(text).toBe(existsSync(p) ? readFileSync(p, 'utf8') : '(no golden file)');
}

describe('plan: one case per impact class, class and reason asserted', () => {
  for (const c of CASES)
    it(`${c.name}: ${c.what}`, async () => {
      const r = await plan(['--format', 'json', ...sides(c.name)]);
      expect(r.code, r.err).toBe(0);
      const p = JSON.parse(r.out) as Plan;
      for (const e of c.expect) {
        const found = p.changes.find(
          (x) => `${x.resource.kind}/${x.resource.namespace ? x.resource.namespace + '/' : ''}${x.resource.name}` === e.resource,
        );
        expect(found, `${e.resource} in ${p.changes.map((x) => x.resource.name).join(', ')}`).toBeDefined();
        expect({ action: found!.action, class: found!.class, reason: found!.reason }).toEqual({
          action: e.action,
          class: e.class,
          reason: e.reason,
        });
      }
      const text = await plan(sides(c.name));
      golden(`${c.name}.txt`, text.out);
      const again = await plan(sides(c.name));
      expect(again.out).toBe(text.out); // deterministic
    });

  it('every impact class is covered by a case', async () => {
    const seen = new Set<string>();
    for (const c of CASES) {
      const p = JSON.parse((await plan(['--format', 'json', ...sides(c.name)])).out) as Plan;
      for (const x of p.changes) for (const i of x.impacts) seen.add(i.class);
    }
    expect(IMPACT_CLASSES.filter((k) => !seen.has(k))).toEqual([]);
  });

  it('identical trees plan nothing', async () => {
    const r = await plan(['--format', 'json', trees.get('power-off')!.base, trees.get('power-off')!.base]);
    const p = JSON.parse(r.out) as Plan;
    expect(p.changes).toEqual([]);
    expect(p.unchanged).toBe(p.trees[0]!.objects.base);
  });
});

describe('plan: outputs', () => {
  it('markdown for a pull request: counts by class, then per host, then other objects', async () => {
    const r = await plan(['--format', 'markdown', ...sides('credential-rotation')]);
    golden('credential-rotation.md', r.out);
    expect(r.out).toContain('| credential-rotation | 2 |');
    expect(r.out).toContain('### Per host');
    expect(r.out.indexOf('### Per host')).toBeLessThan(r.out.indexOf('### Other objects'));
  });

  it('json follows the documented shape', async () => {
    const r = await plan(['--format', 'json', ...sides('host-removed')]);
    golden('host-removed.json', r.out);
    const p = JSON.parse(r.out) as Plan;
    expect(p.summary.map((s) => s.class)).toEqual([...IMPACT_CLASSES]);
    expect(p.changes[0]).toMatchObject({
      action: 'removed',
      class: 'deprovision',
      host: 'node01',
      file: expect.stringMatching(/site\/hosts\/node01\.yaml$/),
      line: 1,
    });
  });

  it('SARIF is valid SARIF 2.1.0 with rule metadata, repository-relative locations and stable fingerprints', async () => {
    for (const c of CASES) {
      const r = await plan(['--format', 'sarif', '--fail-on', 'deprovision', ...sides(c.name)]);
      const doc = expectValidSarif(r.out);
      const run = doc.runs[0]!;
      expect(run.tool.driver.rules.map((x) => x.id)).toEqual([...IMPACT_CLASSES]);
      for (const res of run.results) {
        const uri = res.locations?.[0]?.physicalLocation?.artifactLocation.uri ?? '';
        expect(uri.startsWith('.e2e-out/plan-cases/'), uri).toBe(true);
        expect(res.locations?.[0]?.physicalLocation?.region?.startLine).toBeGreaterThan(0);
      }
    }
    const removed = expectValidSarif((await plan(['--format', 'sarif', '--fail-on', 'deprovision', ...sides('allowed')])).out).runs[0]!
      .results;
    expect(removed.filter((x) => x.ruleId === 'deprovision').map((x) => [x.level, x.suppressions?.length ?? 0])).toEqual([
      ['warning', 1],
      ['error', 0],
    ]);
    // the same finding in another commit (its lines moved down) keeps its fingerprint
    const a = expectValidSarif((await plan(['--format', 'sarif', ...sides('host-removed')])).out).runs[0]!.results;
    const file = join(trees.get('host-removed')!.base, 'site/hosts/node01.yaml');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, `# moved\n# down\n${text}`);
    const b = expectValidSarif((await plan(['--format', 'sarif', ...sides('host-removed')])).out).runs[0]!.results;
    writeFileSync(file, text);
    const fp = (rs: typeof a): string[] => rs.map((x) => Object.values(x.partialFingerprints)[0]!);
    const line = (rs: typeof a): number[] => rs.map((x) => x.locations![0]!.physicalLocation!.region!.startLine);
    expect(fp(b)).toEqual(fp(a));
    expect(line(b)).not.toEqual(line(a));
    expect(new Set(a.map((x) => Object.values(x.partialFingerprints)[0])).size).toBe(a.length);
  });

  it('JUnit parses: a test case per file x class, failures for --fail-on classes', async () => {
    const r = await plan(['--format', 'junit', '--fail-on', 'deprovision', ...sides('host-removed')]);
    const j = parseJUnit(r.out);
    expect(j.failures).toBe(1);
    const failed = j.cases.filter((x) => x.failure);
    expect(failed.map((x) => [x.classname.replace(/^.*site\//, ''), x.name])).toEqual([['hosts/node01.yaml', 'deprovision']]);
    expect(failed[0]!.failure!.message).toContain('BMO deprovisions the host');
    expect(j.tests).toBe(j.cases.length);
  });

  it('nothing but the document goes to stdout; notes go to stderr', async () => {
    const r = await plan(['--format', 'sarif', '--fail-on', 'deprovision', ...sides('host-removed')]);
    expect(() => JSON.parse(r.out)).not.toThrow();
    expect(r.err).toBe('baremetal-krm plan: --fail-on deprovision: 1 change(s)\n');
  });

  it('never shows a Secret value, in any format', async () => {
    for (const format of ['text', 'markdown', 'json', 'sarif', 'junit'])
      for (const c of ['credential-rotation', 'host-removed', 'hosts-added']) {
        const r = await plan(['--format', format, ...sides(c)]);
        for (const v of ['s3cret', 'hunter', 'n3w-']) expect(r.out + r.err, `${format} ${c}`).not.toContain(v);
      }
  });
});

describe('plan: --fail-on and the allow annotation', () => {
  it('exits 1 when a --fail-on class is hit, 0 when not', async () => {
    expect((await plan(['--fail-on', 'power-off', ...sides('power-off')])).code).toBe(1);
    expect((await plan(['--fail-on', 'deprovision,reprovision', ...sides('power-off')])).code).toBe(0);
    expect((await plan(['--fail-on', 'deprovision', '--fail-on', 'power-off', ...sides('power-off')])).code).toBe(1);
  });

  it('an impact the object allows does not fail; the others still do', async () => {
    const r = await plan(['--format', 'json', '--fail-on', 'deprovision', ...sides('allowed')]);
    expect(r.code).toBe(1);
    const p = JSON.parse(r.out) as Plan;
    expect(p.changes.filter((c) => c.resource.kind === 'BareMetalHost').map((c) => [c.resource.name, c.impacts[0]!.allowed])).toEqual([
      ['node01', true],
      ['node02', false],
    ]);
    expect(r.err).toBe('baremetal-krm plan: --fail-on deprovision: 1 change(s)\n');
  });

  it('bad arguments exit 2 with the fix', async () => {
    const r = await plan(['--fail-on', 'explode', ...sides('power-off')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--fail-on explode: not an impact class; use deprovision, cascade');
    expect((await plan(['only-one'])).code).toBe(2);
    expect((await plan(['--format', 'yaml', ...sides('power-off')])).code).toBe(2);
    const missing = await plan(['no/such/base', trees.get('power-off')!.head]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('does not exist');
  });
});

describe('plan --output', () => {
  it('never writes into BASE or HEAD (the next plan would read it), and --fail-on "" is a usage error', async () => {
    const [base, head] = sides(CASES[0]!.name);
    for (const out of [join(base!, 'plan.txt'), join(head!, 'plan.txt')]) {
      const r = await plan(['--output', out, base!, head!]);
      expect(r.code).toBe(2);
      expect(r.err).toContain('is inside the input folder');
      expect(existsSync(out)).toBe(false);
    }
    const r = await plan(['--fail-on', '', base!, head!]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--fail-on is empty');
  });

  it('a document that does not parse is no plan (its objects would show as removed), exit 2', async () => {
    const dir = join(root, 'unreadable');
    const [base] = sides(CASES[0]!.name);
    cpSync(base!, join(dir, 'base'), { recursive: true });
    cpSync(base!, join(dir, 'head'), { recursive: true });
    const file = readdirSync(join(dir, 'head'), { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith('.yaml'))!;
    writeFileSync(join(dir, 'head', file), `${readFileSync(join(dir, 'head', file), 'utf8')}oops\n`);
    const r = await plan(['--format', 'json', join(dir, 'base'), join(dir, 'head')]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain('does not parse as YAML');
    expect(r.err).toContain('document(s) or file(s) could not be read (above): no plan without them');
    // bytes that are not UTF-8, a FIFO where a manifest was: the same
    writeFileSync(join(dir, 'head', file), Buffer.concat([readFileSync(join(dir, 'base', file)), Buffer.from([0xff])]));
    expect((await plan([join(dir, 'base'), join(dir, 'head')])).code).toBe(2);
    rmSync(join(dir, 'head', file));
    spawnSync('mkfifo', [join(dir, 'head', file)]);
    const fifo = await plan([join(dir, 'base'), join(dir, 'head')]);
    expect(fifo.code).toBe(2);
    expect(fifo.err).toContain('a FIFO, not a regular file');
  });
});
