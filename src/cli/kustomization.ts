/**
 * What kustomization files beside the validated files say about them: which files are patches
 * (partial objects) and which Secrets/ConfigMaps generators make (so references to them are
 * not dangling).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { loadYaml } from '../krm/index.js';

export interface KustomizeFacts {
  /** absolute paths of files used as patches */
  patches: Set<string>;
  /** `Secret/name`, `ConfigMap/name` made by generators */
  generated: string[];
  /**
   * The namespace a kustomization's `namespace:` gives the resources it lists, by absolute file
   * path (a listed folder: every file under it). The outermost kustomization wins, as in kustomize.
   */
  namespaceOf: (file: string) => string | undefined;
}

/** Kinds kustomize's namespace transformer leaves alone (cluster-scoped). */
export const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PersistentVolume',
  'StorageClass',
  'Node',
  'PriorityClass',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'APIService',
  'IngressClass',
  'RuntimeClass',
  'CSIDriver',
  'CSINode',
  'VolumeSnapshotClass',
  'ClusterIssuer',
  'PodSecurityPolicy',
]);

const NAMES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

export function kustomizeFacts(files: string[]): KustomizeFacts {
  const patches = new Set<string>();
  const generated = new Set<string>();
  const dirs = new Set(files.map((f) => dirname(resolve(f))));
  // (prefix or file, namespace, depth of the kustomization): the shallowest kustomization wins
  const nsRules: { target: string; dir: boolean; ns: string; depth: number }[] = [];
  for (const dir of dirs) {
    const k = NAMES.map((n) => join(dir, n)).find((p) => existsSync(p));
    if (!k) continue;
    let d: Record<string, unknown>;
    try {
      d = (loadYaml(readFileSync(k, 'utf8')) ?? {}) as Record<string, unknown>;
    } catch {
      continue;
    }
    const add = (p: unknown): void => {
      if (typeof p === 'string' && !p.includes('\n')) patches.add(resolve(dir, p));
    };
    if (typeof d.namespace === 'string' && d.namespace !== '') {
      for (const r of Array.isArray(d.resources) ? d.resources : []) {
        if (typeof r !== 'string' || r.includes('://')) continue;
        const target = resolve(dir, r);
        const isDir = /\.(ya?ml|json)$/i.test(target) ? false : existsSync(target) && statSync(target).isDirectory();
        nsRules.push({ target, dir: isDir, ns: d.namespace, depth: dir.split(sep).length });
      }
    }
    for (const p of Array.isArray(d.patchesStrategicMerge) ? d.patchesStrategicMerge : []) add(p);
    for (const p of Array.isArray(d.patches) ? d.patches : []) if (p && typeof p === 'object') add((p as Record<string, unknown>).path);
    for (const p of Array.isArray(d.patchesJson6902) ? d.patchesJson6902 : [])
      if (p && typeof p === 'object') add((p as Record<string, unknown>).path);
    for (const [field, kind] of [
      ['secretGenerator', 'Secret'],
      ['configMapGenerator', 'ConfigMap'],
    ] as const) {
      for (const g of Array.isArray(d[field]) ? (d[field] as unknown[]) : []) {
        const name = g && typeof g === 'object' ? (g as Record<string, unknown>).name : undefined;
        if (typeof name === 'string') generated.add(`${kind}/${name}`);
      }
    }
  }
  nsRules.sort((a, b) => a.depth - b.depth);
  // asked once per object: answered once per file (a file holds thousands of objects)
  const answers = new Map<string, string | undefined>();
  const namespaceOf = (file: string): string | undefined => {
    if (answers.has(file)) return answers.get(file);
    const f = resolve(file);
    const ns = nsRules.find((r) => (r.dir ? f.startsWith(r.target + sep) : f === r.target))?.ns;
    answers.set(file, ns);
    return ns;
  };
  return { patches, generated: [...generated].sort(), namespaceOf };
}
