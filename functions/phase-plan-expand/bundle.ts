/**
 * The phase bundle as phase-plan-expand sees it: Phases, executor documents, the ClusterMap,
 * ManifestMetadata and the package the documents came from. Reading it checks what concerns the
 * whole bundle (ClusterMap, ManifestMetadata, the configured management cluster).
 */
import type { KubeObject } from '../../src/krm/index.js';
import { type ClusterEntry, type Data, type PhaseDoc, AIRSHIP_GROUP, readClusterMap, readPhase } from './model.js';
import { packageRoot } from './entry-points.js';
import { PackageView } from './package-tree.js';

export type Severity = 'error' | 'warning' | 'info';

export interface Finding {
  severity: Severity;
  rule: string;
  message: string;
  object?: KubeObject;
  field?: string;
  plan?: string;
  step?: number;
  phase?: string;
}

export interface Settings {
  docEntryPointPrefix?: string;
  pathPrefix: string;
  managementCluster?: string;
  /** where the package sits in the Flux source (spec.packagePath); undefined: not configured */
  packagePath?: string;
}

export interface Executor {
  obj: KubeObject;
  kind: string;
  name: string;
  data: Data;
}

export interface Bundle {
  phases: PhaseDoc[];
  /** every executor document by kind|name (airshipctl then selects by group, version and namespace) */
  executors: Map<string, Executor[]>;
  clusters: Map<string, ClusterEntry>;
  clusterMap?: KubeObject;
  /** the configured management cluster, else the single ClusterMap root */
  management?: string;
  docPrefix: string;
  /** the package files the input came from (entry points, kustomizations) */
  pkg: PackageView;
  /** where the package sits in the Flux source, when known (see packageRoot) */
  pkgRoot?: string;
  findings: Finding[];
}

export const execKey = (kind: string, name: string) => `${kind}|${name}`;

/** The clusters of the ClusterMap without a parent, sorted. */
export function rootClusters(b: Bundle): string[] {
  return [...b.clusters.values()]
    .filter((c) => !c.parent)
    .map((c) => c.name)
    .sort();
}

interface Sorted {
  phases: PhaseDoc[];
  executors: Map<string, Executor[]>;
  maps: KubeObject[];
  metas: KubeObject[];
}

function sortDocuments(items: readonly KubeObject[]): Sorted {
  const out: Sorted = { phases: [], executors: new Map(), maps: [], metas: [] };
  for (const o of items) {
    if (o.group !== AIRSHIP_GROUP) continue;
    if (o.kind === 'Phase') out.phases.push(readPhase(o));
    else if (o.kind === 'ClusterMap') out.maps.push(o);
    else if (o.kind === 'ManifestMetadata') out.metas.push(o);
    else if (o.kind !== 'PhasePlan') {
      const k = execKey(o.kind, o.name);
      const ex = { obj: o, kind: o.kind, name: o.name, data: o.data };
      const list = out.executors.get(k);
      if (list) list.push(ex);
      else out.executors.set(k, [ex]);
    }
  }
  return out;
}

/** Reads the bundle and checks the ClusterMap and ManifestMetadata. */
export function readBundle(items: readonly KubeObject[], s: Settings): Bundle {
  const { phases, executors, maps, metas } = sortDocuments(items);
  const b: Bundle = { phases, executors, clusters: new Map(), docPrefix: '', pkg: new PackageView(items), findings: [] };
  if (maps.length > 1) {
    for (const m of maps.slice(1))
      b.findings.push({
        severity: 'error',
        rule: 'clustermap/multiple',
        message: `${m.id}: airshipctl reads exactly one ClusterMap, found ${maps.length} (${maps.map((x) => x.name).join(', ')}); merge them into ${maps[0]!.name}`,
        object: m,
        field: 'map',
      });
  }
  if (maps[0]) {
    b.clusterMap = maps[0];
    for (const c of readClusterMap(maps[0])) b.clusters.set(c.name, c);
    checkClusterMap(b, maps[0]);
  }
  b.docPrefix = docPrefixOf(b, s, metas);
  const root = packageRoot(b, s);
  if (root !== undefined) b.pkgRoot = root;
  chooseManagement(b, s);
  return b;
}

/** docEntryPointPrefix: the functionConfig wins over ManifestMetadata, which must agree with itself. */
function docPrefixOf(b: Bundle, s: Settings, metas: KubeObject[]): string {
  if (s.docEntryPointPrefix !== undefined) return s.docEntryPointPrefix;
  if (metas.length === 0) return '';
  const prefixes = [...new Set(metas.map((m) => String(m.get('spec.phase.docEntryPointPrefix') ?? '')))];
  if (prefixes.length > 1)
    b.findings.push({
      severity: 'error',
      rule: 'metadata/conflict',
      message: `ManifestMetadata documents disagree on spec.phase.docEntryPointPrefix (${prefixes.map((p) => JSON.stringify(p)).join(', ')}); keep one or set spec.docEntryPointPrefix in the functionConfig`,
      object: metas[1],
      field: 'spec.phase.docEntryPointPrefix',
    });
  return prefixes[0]!;
}

/** The management cluster: configured (and in the ClusterMap), else the single root of the ClusterMap. */
function chooseManagement(b: Bundle, s: Settings): void {
  const { clusters } = b;
  if (s.managementCluster !== undefined) {
    b.management = s.managementCluster;
    if (clusters.size > 0 && !clusters.has(s.managementCluster))
      b.findings.push({
        severity: 'error',
        rule: 'config/management-cluster',
        message: `functionConfig spec.managementCluster "${s.managementCluster}" is not in ClusterMap ${b.clusterMap!.name} (clusters: ${[...clusters.keys()].sort().join(', ')})`,
        field: 'spec.managementCluster',
      });
    return;
  }
  const roots = rootClusters(b);
  if (roots.length === 1) b.management = roots[0];
  else if (roots.length > 1)
    b.findings.push({
      severity: 'warning',
      rule: 'clustermap/several-roots',
      message: `ClusterMap ${b.clusterMap!.name} has several clusters without a parent (${roots.join(', ')}); set spec.managementCluster to the one Flux runs on (phases on the others get kubeConfig.secretRef)`,
      object: b.clusterMap,
      field: 'map',
    });
}

function checkClusterMap(b: Bundle, obj: KubeObject): void {
  const { clusters, findings } = b;
  for (const c of clusters.values()) {
    if (c.parent && !clusters.has(c.parent))
      findings.push({
        severity: 'error',
        rule: 'clustermap/unknown-parent',
        message: `ClusterMap ${obj.name}: cluster ${c.name} names parent "${c.parent}", which is not in the map; add map.${c.parent} or fix the parent`,
        object: obj,
        field: `map.${c.name}.parent`,
      });
  }
  const reported = new Set<string>();
  for (const start of [...clusters.keys()].sort()) {
    const seen: string[] = [];
    let cur: string | undefined = start;
    while (cur && clusters.has(cur) && !seen.includes(cur)) {
      seen.push(cur);
      cur = clusters.get(cur)!.parent;
    }
    if (!cur || !seen.includes(cur)) continue;
    const cycle = seen.slice(seen.indexOf(cur));
    const key = [...cycle].sort().join(',');
    if (reported.has(key)) continue;
    reported.add(key);
    findings.push({
      severity: 'error',
      rule: 'clustermap/parent-cycle',
      message: `ClusterMap ${obj.name}: parent cycle ${[...cycle, cur].join(' -> ')}; one of these clusters must have no parent`,
      object: obj,
      field: `map.${cycle[0]}.parent`,
    });
  }
}
