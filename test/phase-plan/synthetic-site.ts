/**
 * A synthetic Airship site for the e2e test and the benchmark: `n` KubernetesApply phases
 * (entry points with a kustomization.yaml and a ConfigMap each), a GenericContainer gate every
 * 10 steps, a ClusterMap ephemeral -> target with a clusterctl move half-way, and one plan.
 */
interface SyntheticSite {
  /** the phase bundle, as one YAML stream */
  bundle: string;
  /** files of the executor bundles, relative to the repository root */
  files: Record<string, string>;
}

export function syntheticSite(n: number, prefix = 'manifests/site/synthetic'): SyntheticSite {
  const docs: string[] = [];
  const files: Record<string, string> = {};
  docs.push(`apiVersion: airshipit.org/v1alpha1
kind: ManifestMetadata
metadata:
  name: manifest-metadata
spec:
  phase:
    path: ${prefix}/phases
    docEntryPointPrefix: ${prefix}
`);
  docs.push(`apiVersion: airshipit.org/v1alpha1
kind: ClusterMap
metadata:
  name: main-map
map:
  ephemeral-cluster: {}
  target-cluster:
    parent: ephemeral-cluster
    kubeconfigSources:
      - type: clusterAPI
        clusterAPI:
          clusterNamespacedName:
            name: target-cluster
            namespace: target-infra
`);
  docs.push(`apiVersion: airshipit.org/v1alpha1
kind: KubernetesApply
metadata:
  name: kubernetes-apply
config:
  waitOptions:
    timeout: 600
    conditions:
      - apiVersion: v1
        kind: ConfigMap
        jsonPath: "{.data.ready}"
        value: "yes"
  pruneOptions:
    prune: true
---
apiVersion: airshipit.org/v1alpha1
kind: GenericContainer
metadata:
  name: toolbox
spec:
  type: krm
  image: localhost/toolbox
---
apiVersion: airshipit.org/v1alpha1
kind: Clusterctl
metadata:
  name: clusterctl_move
action: move
`);
  const steps: string[] = [];
  const move = Math.floor(n / 2);
  for (let i = 1; i <= n; i++) {
    const id = String(i).padStart(5, '0');
    const cluster = i <= move ? 'ephemeral-cluster' : 'target-cluster';
    const side = i <= move ? 'ephemeral' : 'target';
    if (i === move) {
      docs.push(`apiVersion: airshipit.org/v1alpha1
kind: Phase
metadata:
  name: clusterctl-move
  clusterName: target-cluster
config:
  executorRef:
    apiVersion: airshipit.org/v1alpha1
    kind: Clusterctl
    name: clusterctl_move
`);
      steps.push('clusterctl-move');
    }
    const gate = i % 10 === 0;
    const name = gate ? `wait-${id}-${side}` : `apply-${id}-${side}`;
    const ep = `${side}/apply-${id}`;
    docs.push(`apiVersion: airshipit.org/v1alpha1
kind: Phase
metadata:
  name: ${name}
  clusterName: ${cluster}
config:
  executorRef:
    apiVersion: airshipit.org/v1alpha1
    kind: ${gate ? 'GenericContainer' : 'KubernetesApply'}
    name: ${gate ? 'toolbox' : 'kubernetes-apply'}
${gate ? '' : `  documentEntryPoint: ${ep}\n`}`);
    if (!gate) {
      files[`${prefix}/${ep}/kustomization.yaml`] = 'resources:\n  - configmap.yaml\n';
      files[`${prefix}/${ep}/configmap.yaml`] =
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: step-${id}\n  namespace: default\ndata:\n  ready: "yes"\n`;
    }
    steps.push(name);
  }
  docs.push(`apiVersion: airshipit.org/v1alpha1
kind: PhasePlan
metadata:
  name: synthetic
description: synthetic plan with ${n} phases
phases:
${steps.map((s) => `  - name: ${s}\n`).join('')}`);
  return { bundle: docs.join('---\n'), files };
}
