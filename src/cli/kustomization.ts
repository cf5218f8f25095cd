/**
 * What kustomization files beside the validated files say about them: which files are patches
 * (partial objects) and which Secrets/ConfigMaps generators make (so references to them are
 * not dangling).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { loadYaml } from '../krm/index.js';

export interface KustomizeFacts {
  /** absolute paths of files used as patches */
  patches: Set<string>;
  /** `Secret/name`, `ConfigMap/name` made by generators */
  generated: string[];
}

const NAMES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

export function kustomizeFacts(files: string[]): KustomizeFacts {
  const patches = new Set<string>();
  const generated = new Set<string>();
  const dirs = new Set(files.map((f) => dirname(resolve(f))));
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
    for (const p of Array.isArray(d.patchesStrategicMerge) ? d.patchesStrategicMerge : []) add(p);
    for (const p of Array.isArray(d.patches) ? d.patches : []) if (p && typeof p === 'object') add((p as Record<string, unknown>).path);
    for (const p of Array.isArray(d.patchesJson6902) ? d.patchesJson6902 : []) if (p && typeof p === 'object') add((p as Record<string, unknown>).path);
    for (const [field, kind] of [['secretGenerator', 'Secret'], ['configMapGenerator', 'ConfigMap']] as const) {
      for (const g of Array.isArray(d[field]) ? (d[field] as unknown[]) : []) {
        const name = g && typeof g === 'object' ? (g as Record<string, unknown>).name : undefined;
        if (typeof name === 'string') generated.add(`${kind}/${name}`);
      }
    }
  }
  return { patches, generated: [...generated].sort() };
}
