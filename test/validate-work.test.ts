/**
 * intent-validate does linear work: counted, not timed. Every rule finds objects through the
 * analysis index (context.ts), which counts its lookups and the items it hands out; a scan inside
 * a loop (the Flux dependsOn and Phase -> executor lookups once filtered every object per entry)
 * makes the work per object grow with the input, and these tests fail. Findings are positioned
 * through a per-item line index: the lines walked grow with the item, not with its findings.
 */
import { describe, expect, it } from 'vitest';
import { readInput, Results } from '../src/krm/index.js';
import { toResults } from '../src/validate/results.js';
import { analyse } from '../src/validate/analyse.js';
import { fleetMix } from './fleet-mix.js';
import { resourceList } from './golden.js';

async function workPerObject(objects: number): Promise<Record<string, number>> {
  const items = readInput(resourceList(fleetMix(objects))).items;
  const work = new Map<string, number>();
  await analyse(items, {}, { work });
  return Object.fromEntries([...work].map(([k, v]) => [k, v / items.length]));
}

describe('work per object on the realistic fleet mix', () => {
  it('stays flat from 500 to 4,000 objects (every counter within 5%), with a small constant of lookups', async () => {
    const small = await workPerObject(500);
    const large = await workPerObject(4_000);
    expect(Object.keys(large).sort()).toEqual(['items handed out', 'items read', 'lookups']);
    for (const [what, perObject] of Object.entries(large)) expect(perObject, what).toBeLessThanOrEqual(small[what]! * 1.05);
    expect(large['items read']).toBe(1);
    expect(large.lookups).toBeLessThan(2);
    // the pass that reads every item, and the object identity check
    expect(large['items handed out']).toBeLessThan(2.5);
  });

  it('looks each Flux dependsOn entry up once: 60 Kustomizations, each depending on all earlier ones, cost one lookup per entry', async () => {
    const n = 60;
    const docs = Array.from(
      { length: n },
      (_, i) =>
        `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: k${i}\n  namespace: flux-system\nspec:\n  interval: 1m\n  path: ./k${i}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: fleet\n` +
        (i > 0 ? `  dependsOn:\n${Array.from({ length: i }, (_, j) => `  - name: k${j}\n`).join('')}` : ''),
    );
    const work = new Map<string, number>();
    const a = await analyse(readInput(resourceList(docs)).items, {}, { work });
    expect(a.findings.filter((f) => f.rule === 'reference')).toEqual([]);
    expect(work.get('lookups')).toBe((n * (n - 1)) / 2);
    expect(work.get('items handed out') ?? 0).toBeLessThanOrEqual(3 * n);
  });

  it('looks each Phase executor up once, whatever the number of other objects', async () => {
    const phases = Array.from(
      { length: 50 },
      (_, i) =>
        `apiVersion: airshipit.org/v1alpha1\nkind: Phase\nmetadata:\n  name: p${i}\nconfig:\n  executorRef:\n    kind: KubernetesApply\n    name: apply${i % 5}\n`,
    );
    const executors = Array.from(
      { length: 5 },
      (_, i) => `apiVersion: airshipit.org/v1alpha1\nkind: KubernetesApply\nmetadata:\n  name: apply${i}\n`,
    );
    const work = new Map<string, number>();
    await analyse(readInput(resourceList([...phases, ...executors, ...fleetMix(1_000)])).items, { rules: {} }, { work });
    const alone = new Map<string, number>();
    await analyse(readInput(resourceList(fleetMix(1_000))).items, {}, { work: alone });
    expect(work.get('lookups')! - alone.get('lookups')!).toBe(50);
  });
});

describe('positioning many findings of one item', () => {
  /** One ConfigMap of `n` keys valued `yes` (two findings each: not a string, ambiguous), block or flow style. */
  async function positioned(n: number, flow: boolean): Promise<{ work: Map<string, number>; results: Results; lines: number }> {
    const keys = Array.from({ length: n }, (_, i) => `k${i}: yes`);
    const data = flow ? `data: {${keys.join(', ')}}\n` : `data:\n${keys.map((k) => `  ${k}\n`).join('')}`;
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n${data}`;
    const items = readInput(text).items;
    const a = await analyse(items, {});
    const work = new Map<string, number>();
    const results = new Results();
    toResults(a.findings, { results }, new Map(items.map((o, i) => [o, i])), work);
    return { work, results, lines: text.split('\n').length };
  }

  // the first few findings of an item walk its text up to their line; then it is indexed in one
  // walk: at most twice its lines in all, whatever the number of findings
  it("walks the item at most twice for all its findings (block style), and every finding has its key's line", async () => {
    for (const n of [200, 2_000]) {
      const { work, results, lines } = await positioned(n, false);
      const schema = results.list.filter((r) => r.tags?.rule === 'schema');
      expect(schema).toHaveLength(n);
      expect(work.get('lines walked')).toBeLessThanOrEqual(2 * lines);
      expect(work.get('items parsed for lines')).toBeUndefined();
      // data.kN is on line 6 + N
      for (const r of schema) expect(Number(r.tags?.line), r.field?.path).toBe(6 + Number(r.field?.path.slice('data.k'.length)));
    }
  });

  it('parses a flow-style item once for all its findings', async () => {
    for (const n of [200, 2_000]) {
      const { work, results, lines } = await positioned(n, true);
      expect(results.list.filter((r) => r.tags?.rule === 'schema')).toHaveLength(n);
      expect(work.get('lines walked')).toBeLessThanOrEqual(2 * lines); // a search that finds nothing, then the index
      expect(work.get('items parsed for lines')).toBe(1);
    }
  });
});
