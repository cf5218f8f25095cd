/**
 * intent-validate does linear work: counted, not timed. Every rule finds objects through the
 * analysis index (context.ts), which counts its lookups and the items it hands out; a scan inside
 * a loop (the Flux dependsOn and Phase -> executor lookups once filtered every object per entry)
 * makes the work per object grow with the input, and these tests fail.
 */
import { describe, expect, it } from 'vitest';
import { readInput } from '../src/krm/index.js';
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
