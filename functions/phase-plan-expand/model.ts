/**
 * The Airship documents phase-plan-expand reads, as airshipctl writes them: PhasePlan (the
 * `phases` list or the historical `phaseGroups`), Phase, ClusterMap, the executor kinds and
 * ManifestMetadata. Reading is lenient: shapes that are wrong become validation results, not
 * exceptions.
 */
import type { KubeObject } from '../../src/krm/index.js';
import { isRecord as isMap, nonEmptyText as str } from '../../src/krm/index.js';

export { str };

export const AIRSHIP_GROUP = 'airshipit.org';
/** Our graph extension on a Phase: comma-separated names of phases (or step ids) it depends on. */
export const DEPENDS_ON_ANNOTATION = 'baremetal-krm.dev/depends-on';

/** The executor kinds airshipctl registers, and whether they need an executor bundle. */
export const EXECUTOR_KINDS: Record<string, { needsBundle: boolean; flux: boolean }> = {
  KubernetesApply: { needsBundle: true, flux: true },
  Clusterctl: { needsBundle: false, flux: false },
  GenericContainer: { needsBundle: false, flux: false },
  BaremetalManager: { needsBundle: false, flux: false },
  BootConfiguration: { needsBundle: false, flux: false },
};

export type Data = Record<string, unknown>;

export { isMap };

export interface PhaseDoc {
  obj: KubeObject;
  name: string;
  namespace?: string;
  clusterName?: string;
  executorRef?: { apiVersion?: string; kind?: string; name?: string; namespace?: string };
  documentEntryPoint?: string;
  siteWideKubeconfig: boolean;
  validation: boolean;
  dependsOn: string[];
}

interface PlanEntry {
  name?: string;
  namespace?: string;
  id?: string;
  dependsOn: string[];
  /** field path of the entry in the plan, e.g. `phases[3]` */
  field: string;
  group?: string;
}

export interface PlanDoc {
  obj: KubeObject;
  name: string;
  namespace?: string;
  description?: string;
  entries: PlanEntry[];
  validation: boolean;
  /** shape problems found while reading: [field, message] */
  problems: [string, string][];
}

export interface ClusterEntry {
  name: string;
  parent?: string;
  /** the Cluster API cluster (name) the kubeconfig comes from, when the map names one */
  clusterApiName?: string;
  clusterApiNamespace?: string;
}

export function readPhase(obj: KubeObject): PhaseDoc {
  const d = obj.data;
  const md = isMap(d.metadata) ? d.metadata : {};
  const cfg = isMap(d.config) ? d.config : {};
  const ref = isMap(cfg.executorRef) ? cfg.executorRef : undefined;
  const deps = (obj.annotations[DEPENDS_ON_ANNOTATION] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const p: PhaseDoc = {
    obj,
    name: obj.name,
    siteWideKubeconfig: cfg.siteWideKubeconfig === true,
    validation: isMap(cfg.validation),
    dependsOn: deps,
  };
  if (obj.namespace) p.namespace = obj.namespace;
  const cn = str(md.clusterName);
  if (cn) p.clusterName = cn;
  if (ref) {
    p.executorRef = { apiVersion: str(ref.apiVersion), kind: str(ref.kind), name: str(ref.name) };
    const ns = str(ref.namespace);
    if (ns) p.executorRef.namespace = ns;
  }
  const ep = str(cfg.documentEntryPoint);
  if (ep) p.documentEntryPoint = ep;
  return p;
}

function readEntry(v: unknown, field: string, problems: [string, string][], group?: string): PlanEntry {
  const e: PlanEntry = { dependsOn: [], field };
  if (group) e.group = group;
  if (!isMap(v)) {
    problems.push([field, 'must be a mapping with a `name`']);
    return e;
  }
  const n = str(v.name);
  if (n) e.name = n;
  const ns = str(v.namespace);
  if (ns) e.namespace = ns;
  const id = str(v.id);
  if (id) e.id = id;
  if (v.dependsOn !== undefined) {
    if (!Array.isArray(v.dependsOn)) problems.push([`${field}.dependsOn`, 'must be a list of step ids or phase names']);
    else
      v.dependsOn.forEach((x, i) => {
        const s = str(x) ?? (isMap(x) ? str(x.name) : undefined);
        if (s) e.dependsOn.push(s);
        else problems.push([`${field}.dependsOn[${i}]`, 'must be a step id or phase name']);
      });
  }
  return e;
}

export function readPlan(obj: KubeObject): PlanDoc {
  const d = obj.data;
  const problems: [string, string][] = [];
  const entries: PlanEntry[] = [];
  if (Array.isArray(d.phases)) {
    d.phases.forEach((v, i) => entries.push(readEntry(v, `phases[${i}]`, problems)));
  } else if (d.phases !== undefined && d.phases !== null) {
    problems.push(['phases', 'must be a list of {name, namespace}']);
  }
  if (Array.isArray(d.phaseGroups)) {
    d.phaseGroups.forEach((g, gi) => {
      if (!isMap(g) || !Array.isArray(g.phases)) {
        problems.push([`phaseGroups[${gi}].phases`, 'must be a list of {name}']);
        return;
      }
      const gname = str(g.name) ?? `group${gi + 1}`;
      g.phases.forEach((v, i) => entries.push(readEntry(v, `phaseGroups[${gi}].phases[${i}]`, problems, gname)));
    });
  }
  const p: PlanDoc = { obj, name: obj.name, entries, validation: isMap(d.validation), problems };
  if (obj.namespace) p.namespace = obj.namespace;
  const desc = str(d.description);
  if (desc) p.description = desc;
  return p;
}

/** ClusterMap `map.<cluster>`: parent and the clusterAPI kubeconfig source. */
export function readClusterMap(obj: KubeObject): ClusterEntry[] {
  const m = obj.data.map;
  if (!isMap(m)) return [];
  const out: ClusterEntry[] = [];
  for (const [name, v] of Object.entries(m)) {
    const c: ClusterEntry = { name };
    if (isMap(v)) {
      const parent = str(v.parent);
      if (parent) c.parent = parent;
      if (Array.isArray(v.kubeconfigSources)) {
        for (const s of v.kubeconfigSources) {
          if (isMap(s) && s.type === 'clusterAPI' && isMap(s.clusterAPI) && isMap(s.clusterAPI.clusterNamespacedName)) {
            const nn = s.clusterAPI.clusterNamespacedName;
            const n = str(nn.name);
            if (n) c.clusterApiName = n;
            const ns = str(nn.namespace);
            if (ns) c.clusterApiNamespace = ns;
          }
        }
      }
    }
    out.push(c);
  }
  return out;
}
