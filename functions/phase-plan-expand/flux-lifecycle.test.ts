/**
 * Where Flux runs follows the plan's own cluster lifecycle: by default Flux runs on the ClusterMap
 * root and hands over to the target of each clusterctl move, so no Kustomization waits for a Flux
 * the plan creates later or sits on a cluster the plan powers off; a configured management cluster
 * gets a warning for each step it cannot serve.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { itemsStream, resourceList } from '../../test/golden.js';
import { runFunction, splitStream } from '../../src/krm/index.js';
import { definition } from './function.js';

const testdata = join(import.meta.dirname, 'testdata');
const deployGating = splitStream(readFileSync(join(testdata, 'deploy-gating', 'input.yaml'), 'utf8'));
const cfg = (spec: string) => `apiVersion: baremetal-krm.dev/v1alpha1\nkind: PhasePlanExpand\nmetadata:\n  name: x\nspec:\n${spec}`;
const docsOf = (s: string) =>
  parseAllDocuments(s)
    .map((d) => d.toJS() as Record<string, any>)
    .filter(Boolean);

async function expand(docs: string[], spec = '  outputs: [flux]\n') {
  const r = await runFunction(definition, resourceList(docs, cfg(spec)));
  const ks = docsOf(itemsStream(r.output)).filter((d) => d.apiVersion === 'kustomize.toolkit.fluxcd.io/v1');
  const rules = (rule: string) => r.results.filter((x) => x.tags?.rule === rule).map((x) => Number(x.tags?.step));
  return { r, ks, rules };
}

const folderOf = (k: Record<string, any>) =>
  String(k.metadata.annotations['config.kubernetes.io/path']).replace(/\/kustomizations\.yaml$/, '');

describe('Flux and the plan cluster lifecycle', () => {
  it('deploy-gating by default: the ephemeral Flux until the move, the target Flux after; only the steps before the move warn', async () => {
    const { r, ks, rules } = await expand(deployGating);
    expect(r.exitCode).toBe(0);
    expect(rules('plan/flux-not-yet')).toEqual([]);
    expect(rules('plan/flux-cluster-gone')).toEqual([]);
    expect(rules('plan/before-move')).toEqual([15, 16]);
    const step = (k: Record<string, any>) => Number(String(k.metadata.annotations['baremetal-krm.dev/step']).split('/')[0]);
    for (const k of ks) expect(folderOf(k), k.metadata.name).toMatch(step(k) < 21 ? /ephemeral-cluster$/ : /target-cluster$/);
  });

  it('Flux configured on the target (the old default): the steps before the plan uses the target, and those before the move, warn', async () => {
    const { rules, ks } = await expand(deployGating, '  outputs: [flux]\n  managementCluster: target-cluster\n');
    expect(rules('plan/flux-not-yet')).toEqual([4, 5, 11]);
    expect(rules('plan/before-move')).toEqual([15, 16]);
    expect(new Set(ks.map(folderOf))).toEqual(new Set(['phase-plans/deploy-gating']));
  });

  it('Flux configured on the ephemeral cluster: the steps after the power-off warn', async () => {
    const { rules } = await expand(deployGating, '  outputs: [flux]\n  managementCluster: ephemeral-cluster\n');
    expect(rules('plan/flux-cluster-gone')).toEqual([27, 29, 31]);
    expect(rules('plan/flux-not-yet')).toEqual([]);
  });

  it('property: for any plan ephemeral -> target with a move and a power-off, the default never depends on a Flux that is not there', async () => {
    const plans = fc.record({
      before: fc.array(fc.constantFrom('eph', 'tgt', 'gate'), { maxLength: 6 }),
      after: fc.array(fc.constantFrom('tgt', 'gate'), { maxLength: 6 }),
      powerOff: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(plans, async ({ before, after, powerOff }) => {
        const { r, ks, rules } = await expand(lifecyclePlan(before, after, powerOff));
        expect(r.exitCode).toBe(0);
        expect(rules('plan/flux-not-yet')).toEqual([]);
        expect(rules('plan/flux-cluster-gone')).toEqual([]);
        // a dependsOn names only Kustomizations of the same Flux, which exist before it
        const byName = new Map(ks.map((k) => [k.metadata.name, k]));
        for (const k of ks)
          for (const d of k.spec.dependsOn ?? []) expect(folderOf(byName.get(d.name)!), k.metadata.name).toBe(folderOf(k));
        // before the move the ephemeral Flux applies every step (the target through its kubeconfig), after it the target's Flux
        for (const k of ks) {
          const num = Number(String(k.metadata.annotations['baremetal-krm.dev/step']).split('/')[0]);
          const onTarget = k.metadata.name.includes('-apply-') && before[num - 1] === 'tgt';
          expect(k.spec.kubeConfig?.secretRef?.name, k.metadata.name).toBe(num <= before.length && onTarget ? 'tgt-kubeconfig' : undefined);
          if (folderOf(k).endsWith('/tgt')) expect(num).toBeGreaterThan(before.length);
        }
      }),
      { numRuns: 60 },
    );
  });
});

/** A chain: `before` steps, the clusterctl move into the target, (a power-off of the ephemeral node), `after` steps. */
function lifecyclePlan(before: string[], after: string[], powerOff: boolean): string[] {
  const docs: string[] = [
    'apiVersion: airshipit.org/v1alpha1\nkind: ClusterMap\nmetadata:\n  name: m\nmap:\n  eph: {}\n  tgt:\n    parent: eph\n',
    'apiVersion: airshipit.org/v1alpha1\nkind: KubernetesApply\nmetadata:\n  name: apply\nconfig: {}\n',
    'apiVersion: airshipit.org/v1alpha1\nkind: GenericContainer\nmetadata:\n  name: check\nspec:\n  image: x\n',
    'apiVersion: airshipit.org/v1alpha1\nkind: Clusterctl\nmetadata:\n  name: move\naction: move\n',
    'apiVersion: airshipit.org/v1alpha1\nkind: BaremetalManager\nmetadata:\n  name: power-off-node\nspec:\n  operation: power-off\n',
  ];
  const steps: string[] = [];
  const phase = (name: string, cluster: string | undefined, kind: string, exec: string, entry?: string) => {
    steps.push(name);
    docs.push(
      `apiVersion: airshipit.org/v1alpha1\nkind: Phase\nmetadata:\n  name: ${name}\n${cluster ? `  clusterName: ${cluster}\n` : ''}` +
        `config:\n  executorRef: {apiVersion: airshipit.org/v1alpha1, kind: ${kind}, name: ${exec}}\n${entry ? `  documentEntryPoint: ${entry}\n` : ''}`,
    );
  };
  const step = (what: string, i: string) =>
    what === 'gate'
      ? phase(`check-${i}`, 'eph', 'GenericContainer', 'check')
      : phase(`apply-${i}`, what, 'KubernetesApply', 'apply', `p/${i}`);
  before.forEach((w, i) => step(w, `b${i}`));
  phase('move', 'tgt', 'Clusterctl', 'move');
  if (powerOff) phase('power-off', undefined, 'BaremetalManager', 'power-off-node');
  after.forEach((w, i) => step(w, `a${i}`));
  docs.push(
    `apiVersion: airshipit.org/v1alpha1\nkind: PhasePlan\nmetadata:\n  name: plan\nphases:\n${steps.map((s) => `- name: ${s}\n`).join('')}`,
  );
  return docs;
}
