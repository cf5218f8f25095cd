/** References of airshipctl phases and Flux Kustomizations; patch files are not checked. */
import { describe, expect, it } from 'vitest';
import { itemsOf, ruleFindings } from '../../../test/analyse-yaml.js';

const plan = `apiVersion: airshipit.org/v1alpha1
kind: PhasePlan
metadata:
  name: deploy
phases:
- name: initinfra
- name: controlplane
---
apiVersion: airshipit.org/v1alpha1
kind: Phase
metadata:
  name: initinfra
config:
  executorRef:
    apiVersion: airshipit.org/v1alpha1
    kind: KubernetesApply
    name: kubernetes-apply
---
apiVersion: airshipit.org/v1alpha1
kind: KubernetesApply
metadata:
  name: kubernetes-apply
  namespace: elsewhere
`;

describe('airshipctl phases', () => {
  it('names a missing Phase; finds an executor in any namespace', async () => {
    const f = await ruleFindings('reference', plan);
    expect(f.map((x) => x.field)).toEqual(['phases[1].name']);
    expect(f[0]!.message).toContain('names Phase controlplane, which is not in the input');
  });

  it('does not check a PhasePlan or Phase that is a patch file', async () => {
    const items = itemsOf(
      plan +
        '---\napiVersion: airshipit.org/v1alpha1\nkind: Phase\nmetadata:\n  name: p2\nconfig:\n  executorRef:\n    kind: Gone\n    name: gone\n',
    );
    const partial = new Set(items.filter((o) => o.kind === 'PhasePlan' || o.name === 'p2'));
    expect(await ruleFindings('reference', items, {}, { partial })).toEqual([]);
  });
});

describe('Flux dependsOn', () => {
  const ks = (name: string, deps: string[], ns = 'flux-system') =>
    `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  interval: 10m
  path: ./${name}
  prune: true
  sourceRef:
    kind: GitRepository
    name: fleet
${deps.length ? '  dependsOn:\n' + deps.map((d) => `  - name: ${d}\n`).join('') : ''}`;

  it('finds each dependency by namespace and name; a kustomize.config.k8s.io Kustomization does not count', async () => {
    const yaml = [
      ks('a', []),
      ks('b', ['a', 'c', 'gone']),
      ks('c', [], 'other'),
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nmetadata:\n  name: gone\n  namespace: flux-system\n',
    ].join('---\n');
    const f = await ruleFindings('reference', yaml);
    expect(f.map((x) => x.field)).toEqual(['spec.dependsOn[1].name', 'spec.dependsOn[2].name']);
  });
});
