/**
 * Static analysis of the phase bundle: resolves every plan step to its Phase, executor and
 * cluster, checks what airshipctl only finds out at run time, and builds the step graph
 * (a chain, or the graph our `dependsOn` extension gives) with its Flux dependencies.
 */
import { posix } from 'node:path';
import type { KubeObject } from '../../src/krm/index.js';
import { dnsName, pruneOf, waitPlan, type WaitPlan } from './flux.js';
import type { JobPlan } from './jobs.js';
import {
  AIRSHIP_GROUP,
  DEPENDS_ON_ANNOTATION,
  EXECUTOR_KINDS,
  isMap,
  readClusterMap,
  readPhase,
  readPlan,
  str,
  type ClusterEntry,
  type Data,
  type PhaseDoc,
  type PlanDoc,
} from './model.js';

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
}

export interface Executor {
  obj: KubeObject;
  kind: string;
  name: string;
  data: Data;
}

export interface Step {
  /** 1-based position in the plan */
  num: number;
  id: string;
  field: string;
  group?: string;
  phaseName: string;
  phase?: PhaseDoc;
  executor?: Executor;
  cluster?: string;
  /** Flux path (`./...`) of the executor bundle, when the phase has an entry point */
  path?: string;
  /** indices of the steps it depends on */
  deps: number[];
  flux: boolean;
  wait?: WaitPlan;
  prune?: boolean;
  ksName?: string;
  /** what must run at a gate */
  gate?: string;
  /** `gates: job`: the Job this gate became */
  job?: JobPlan;
  /** `gates: job`: why this gate stays a gate */
  notJob?: string;
  /** a target-cluster step before the move that makes it self-managed */
  beforeMove?: string;
}

export interface PlanAnalysis {
  plan: PlanDoc;
  steps: Step[];
  graph: boolean;
  /** parallel level of each step (graph plans) */
  levels: number[];
  errors: number;
  /** where Flux runs for this plan: spec.managementCluster, else the target of the plan's last clusterctl move, else the ClusterMap root */
  management?: string;
  /** why `management` (for the report) */
  managementWhy: string;
}

export interface Bundle {
  phases: PhaseDoc[];
  /** every executor document by kind|name (airshipctl then selects by group, version and namespace) */
  executors: Map<string, Executor[]>;
  clusters: Map<string, ClusterEntry>;
  clusterMap?: KubeObject;
  management?: string;
  docPrefix: string;
  findings: Finding[];
}

const execKey = (kind: string, name: string) => `${kind}|${name}`;

/** Reads the bundle and checks the ClusterMap and ManifestMetadata. */
export function readBundle(items: readonly KubeObject[], s: Settings): Bundle {
  const findings: Finding[] = [];
  const phases: PhaseDoc[] = [];
  const executors = new Map<string, Executor[]>();
  const clusters = new Map<string, ClusterEntry>();
  const maps: KubeObject[] = [];
  const metas: KubeObject[] = [];
  for (const o of items) {
    if (o.group !== AIRSHIP_GROUP) continue;
    if (o.kind === 'Phase') phases.push(readPhase(o));
    else if (o.kind === 'ClusterMap') maps.push(o);
    else if (o.kind === 'ManifestMetadata') metas.push(o);
    else if (o.kind !== 'PhasePlan') {
      const k = execKey(o.kind, o.name);
      const list = executors.get(k);
      const ex = { obj: o, kind: o.kind, name: o.name, data: o.data };
      if (list) list.push(ex);
      else executors.set(k, [ex]);
    }
  }
  const b: Bundle = { phases, executors, clusters, docPrefix: '', findings };
  if (maps.length > 1) {
    for (const m of maps.slice(1))
      findings.push({
        severity: 'error',
        rule: 'clustermap/multiple',
        message: `${m.id}: airshipctl reads exactly one ClusterMap, found ${maps.length} (${maps.map((x) => x.name).join(', ')}); merge them into ${maps[0]!.name}`,
        object: m,
        field: 'map',
      });
  }
  if (maps[0]) {
    b.clusterMap = maps[0];
    for (const c of readClusterMap(maps[0])) clusters.set(c.name, c);
    checkClusterMap(b, maps[0]);
  }
  // docEntryPointPrefix: the config wins over ManifestMetadata
  if (s.docEntryPointPrefix !== undefined) b.docPrefix = s.docEntryPointPrefix;
  else if (metas.length > 0) {
    const prefixes = [...new Set(metas.map((m) => String(m.get('spec.phase.docEntryPointPrefix') ?? '')))];
    if (prefixes.length > 1)
      findings.push({
        severity: 'error',
        rule: 'metadata/conflict',
        message: `ManifestMetadata documents disagree on spec.phase.docEntryPointPrefix (${prefixes.map((p) => JSON.stringify(p)).join(', ')}); keep one or set spec.docEntryPointPrefix in the functionConfig`,
        object: metas[1],
        field: 'spec.phase.docEntryPointPrefix',
      });
    b.docPrefix = prefixes[0]!;
  }
  // management cluster: configured, else the single root of the ClusterMap
  if (s.managementCluster !== undefined) {
    b.management = s.managementCluster;
    if (clusters.size > 0 && !clusters.has(s.managementCluster))
      findings.push({
        severity: 'error',
        rule: 'config/management-cluster',
        message: `functionConfig spec.managementCluster "${s.managementCluster}" is not in ClusterMap ${b.clusterMap!.name} (clusters: ${[...clusters.keys()].sort().join(', ')})`,
        field: 'spec.managementCluster',
      });
  } else {
    const roots = [...clusters.values()].filter((c) => !c.parent).map((c) => c.name);
    if (roots.length === 1) b.management = roots[0];
    else if (roots.length > 1)
      findings.push({
        severity: 'warning',
        rule: 'clustermap/several-roots',
        message: `ClusterMap ${b.clusterMap!.name} has several clusters without a parent (${roots.sort().join(', ')}); set spec.managementCluster to the one Flux runs on (phases on the others get kubeConfig.secretRef)`,
        object: b.clusterMap,
        field: 'map',
      });
  }
  return b;
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
    if (cur && seen.includes(cur)) {
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
}

/** Parent chain of a cluster, nearest first (stops at cycles). */
export function ancestors(b: Bundle, cluster: string): string[] {
  const out: string[] = [];
  let cur = b.clusters.get(cluster)?.parent;
  while (cur && !out.includes(cur) && cur !== cluster) {
    out.push(cur);
    cur = b.clusters.get(cur)?.parent;
  }
  return out;
}

/** The Phases a plan step names: airshipctl selects them by name only, whatever the step's namespace. */
function findPhase(b: Bundle, name: string): PhaseDoc[] {
  return b.phases.filter((p) => p.name === name);
}

interface PhaseCheck {
  executor?: Executor;
  issues: { severity: Severity; rule: string; field: string; message: string }[];
  path?: string;
}

/** Checks a Phase on its own (memoized per phase). */
export function checkPhase(b: Bundle, s: Settings, p: PhaseDoc, cache: Map<PhaseDoc, PhaseCheck>): PhaseCheck {
  const hit = cache.get(p);
  if (hit) return hit;
  const r: PhaseCheck = { issues: [] };
  cache.set(p, r);
  const ref = p.executorRef;
  let needsBundle = true;
  if (!ref?.name || !ref.kind) {
    r.issues.push({
      severity: 'error',
      rule: 'phase/no-executor',
      field: 'config.executorRef',
      message: `Phase ${p.name} has no config.executorRef (apiVersion, kind, name); name the executor document that runs it`,
    });
  } else {
    const group = (ref.apiVersion ?? '').split('/')[0];
    // airshipctl's selector: group, version, kind, name, and the namespace when the ref has one
    const named = b.executors.get(execKey(ref.kind, ref.name)) ?? [];
    const ex = named.find((e) => e.obj.apiVersion === ref.apiVersion && (ref.namespace === undefined || e.obj.namespace === ref.namespace));
    const known = EXECUTOR_KINDS[ref.kind];
    if (group !== AIRSHIP_GROUP || !known) {
      r.issues.push({
        severity: 'error',
        rule: 'phase/unknown-executor-kind',
        field: 'config.executorRef.kind',
        message: `Phase ${p.name}: executor kind ${ref.apiVersion ?? '(no apiVersion)'}/${ref.kind} is not one airshipctl runs (${AIRSHIP_GROUP}: ${Object.keys(EXECUTOR_KINDS).join(', ')}); fix config.executorRef`,
      });
    } else {
      needsBundle = known.needsBundle;
    }
    if (!ex) {
      r.issues.push({
        severity: 'error',
        rule: 'phase/executor-not-found',
        field: 'config.executorRef.name',
        message:
          named.length === 0
            ? `Phase ${p.name}: executor ${ref.kind}/${ref.name} found no document in the input; add it or fix config.executorRef`
            : `Phase ${p.name}: executor ${ref.apiVersion ?? '(no apiVersion)'} ${ref.kind}/${ref.name}${ref.namespace !== undefined ? ` in namespace ${ref.namespace}` : ''} found no document: airshipctl selects by group, version, kind, name${ref.namespace !== undefined ? ' and namespace' : ''}, and the input has ${named.map((e) => `${e.obj.apiVersion} ${e.obj.id}`).join(', ')}; fix config.executorRef`,
      });
    } else r.executor = ex;
  }
  if (!p.documentEntryPoint) {
    // without an executor document there is nothing to say about its bundle
    if (needsBundle && r.executor)
      r.issues.push({
        severity: 'error',
        rule: 'phase/no-entrypoint',
        field: 'config.documentEntryPoint',
        message: `documentEntryPoint is not defined for the phase '${p.name}' in namespace '${p.namespace ?? ''}'; its executor (${ref?.kind ?? 'unknown'}) needs a bundle: set config.documentEntryPoint to a directory under the docEntryPointPrefix`,
      });
  } else {
    const joined = posix.normalize(posix.join(s.pathPrefix || '.', b.docPrefix || '.', p.documentEntryPoint));
    // like Go's filepath.Join (airshipctl), an absolute entry point is joined under the prefix, not an error
    if (joined === '..' || joined.startsWith('../')) {
      r.issues.push({
        severity: 'error',
        rule: 'phase/entrypoint-outside',
        field: 'config.documentEntryPoint',
        message: `Phase ${p.name}: documentEntryPoint "${p.documentEntryPoint}" leaves the repository (resolves to "${joined}"); make it relative to the docEntryPointPrefix`,
      });
    } else r.path = joined === '.' ? './' : './' + joined.replace(/\/$/, '');
  }
  if (p.clusterName && !b.clusters.has(p.clusterName)) {
    r.issues.push({
      severity: 'error',
      rule: 'phase/unknown-cluster',
      field: 'metadata.clusterName',
      message: b.clusterMap
        ? `Phase ${p.name}: clusterName "${p.clusterName}" is not in ClusterMap ${b.clusterMap.name} (clusters: ${[...b.clusters.keys()].sort().join(', ')}); add map.${p.clusterName} or fix metadata.clusterName`
        : `Phase ${p.name}: clusterName "${p.clusterName}" but the input has no ClusterMap; add the ClusterMap document`,
    });
  }
  return r;
}

function describeGate(b: Bundle, step: Step): string {
  const ex = step.executor!;
  const d = ex.data;
  const run = `run \`airshipctl phase run ${step.phaseName}\``;
  switch (ex.kind) {
    case 'Clusterctl': {
      const action = str(d.action) ?? 'init';
      if (action === 'move') {
        const mo = isMap(d['move-options']) ? d['move-options'] : {};
        const from = step.cluster ? b.clusters.get(step.cluster)?.parent : undefined;
        return `${run}: clusterctl move${from ? ` from ${from}` : ''}${step.cluster ? ` to ${step.cluster}` : ''}${str(mo.namespace) ? ` (namespace ${str(mo.namespace)})` : ''}`;
      }
      const io = isMap(d['init-options']) ? d['init-options'] : {};
      const providers = Object.entries(io)
        .map(([k, v]) => `${k} ${String(v)}`)
        .join(', ');
      return `${run}: clusterctl init${step.cluster ? ` on ${step.cluster}` : ''}${providers ? ` (${providers})` : ''}`;
    }
    case 'BaremetalManager': {
      const spec = isMap(d.spec) ? d.spec : {};
      const sel = isMap(spec.hostSelector)
        ? Object.entries(spec.hostSelector)
            .map(([k, v]) => `${k}=${String(v)}`)
            .join(',')
        : '';
      return `${run}: BMC operation ${str(spec.operation) ?? '(unset)'}${sel ? ` on hosts ${sel}` : ''}`;
    }
    case 'BootConfiguration': {
      const ec = isMap(d.ephemeralCluster) ? d.ephemeralCluster : {};
      const bc = isMap(d.bootstrapContainer) ? d.bootstrapContainer : {};
      return `${run}: bootstrap container ${str(bc.image) ?? '(no image)'} (${str(ec.bootstrapCommand) ?? 'create'})`;
    }
    case 'GenericContainer': {
      const spec = isMap(d.spec) ? d.spec : {};
      const ref = isMap(d.configRef) ? `, config ${str(d.configRef.kind) ?? 'ConfigMap'}/${str(d.configRef.name) ?? ''}` : '';
      return `${run}: container ${str(spec.image) ?? '(no image)'}${str(spec.type) ? ` (type ${str(spec.type)}${ref})` : ref ? ` (${ref.slice(2)})` : ''}`;
    }
    default:
      return run;
  }
}

/** Resolves, checks and orders one plan. */
export function analysePlan(
  b: Bundle,
  s: Settings,
  obj: KubeObject,
  cache: Map<PhaseDoc, PhaseCheck>,
  out: Finding[],
  ksPrefix: string,
): PlanAnalysis {
  const plan = readPlan(obj);
  const before = out.filter((f) => f.severity === 'error').length;
  const P = plan.name;
  const at = (n: number, id: string, phase: string) => `PhasePlan ${P} step ${n} (${id}, phase ${phase})`;
  for (const [field, msg] of plan.problems)
    out.push({ severity: 'error', rule: 'plan/shape', message: `PhasePlan ${P}: ${field} ${msg}`, object: obj, field, plan: P });
  if (plan.entries.length === 0)
    out.push({
      severity: 'warning',
      rule: 'plan/empty',
      message: `PhasePlan ${P} has no phases; add phases: [{name: ...}]`,
      object: obj,
      field: 'phases',
      plan: P,
    });

  // step ids: explicit `id`, else the phase name, `-2`, `-3`... for repeats, skipping every name a
  // phase or an explicit id of the plan already uses (airshipctl has no ids: a repeat must never collide)
  const steps: Step[] = [];
  const ids = new Map<string, number>();
  const seenPhase = new Map<string, number>();
  const reserved = new Set<string>();
  for (const e of plan.entries) {
    if (e.id) reserved.add(e.id);
    if (e.name) reserved.add(e.name);
  }
  const assigned = new Set<string>();
  plan.entries.forEach((e, i) => {
    const phaseName = e.name ?? '';
    let id = e.id;
    if (!id) {
      const k = (seenPhase.get(phaseName) ?? 0) + 1;
      seenPhase.set(phaseName, k);
      if (k === 1) id = phaseName;
      else {
        let n = k;
        while (reserved.has(`${phaseName}-${n}`) || assigned.has(`${phaseName}-${n}`)) n++;
        id = `${phaseName}-${n}`;
      }
    }
    assigned.add(id);
    const step: Step = { num: i + 1, id, field: e.field, phaseName, deps: [], flux: false };
    if (e.group) step.group = e.group;
    if (ids.has(id)) {
      out.push({
        severity: 'error',
        rule: 'plan/duplicate-step-id',
        message: `${at(i + 1, id, phaseName)}: step id "${id}" is already used by step ${ids.get(id)! + 1}; give one of them a distinct \`id\``,
        object: obj,
        field: `${e.field}.${e.id ? 'id' : 'name'}`,
        plan: P,
        step: i + 1,
        phase: phaseName,
      });
    } else ids.set(id, i);
    steps.push(step);
  });

  // phases, executors, clusters
  const reportedPhase = new Set<PhaseDoc>();
  plan.entries.forEach((e, i) => {
    const step = steps[i]!;
    if (!e.name) {
      out.push({
        severity: 'error',
        rule: 'plan/shape',
        message: `PhasePlan ${P} step ${i + 1}: ${e.field}.name is missing; name the Phase to run`,
        object: obj,
        field: `${e.field}.name`,
        plan: P,
        step: i + 1,
      });
      return;
    }
    const found = findPhase(b, e.name);
    if (found.length === 0) {
      out.push({
        severity: 'error',
        rule: 'plan/unknown-phase',
        message: `${at(i + 1, step.id, e.name)}: no Phase named "${e.name}" in the input (document filtered by selector Kind="Phase", Name="${e.name}" found no documents); add the Phase or fix ${e.field}.name`,
        object: obj,
        field: `${e.field}.name`,
        plan: P,
        step: i + 1,
        phase: e.name,
      });
      return;
    }
    if (found.length > 1) {
      out.push({
        severity: 'error',
        rule: 'plan/ambiguous-phase',
        message: `${at(i + 1, step.id, e.name)}: ${found.length} Phases are named "${e.name}" (namespaces ${found.map((p) => p.namespace ?? '(none)').join(', ')}); airshipctl selects a plan's Phase by name only, whatever the step's namespace, and fails on several: rename all but one of them`,
        object: obj,
        field: `${e.field}.name`,
        plan: P,
        step: i + 1,
        phase: e.name,
      });
      return;
    }
    const ph = found[0]!;
    step.phase = ph;
    const chk = checkPhase(b, s, ph, cache);
    if (!reportedPhase.has(ph)) {
      reportedPhase.add(ph);
      for (const is of chk.issues)
        out.push({
          severity: is.severity,
          rule: is.rule,
          message: `${at(i + 1, step.id, ph.name)}: ${is.message}`,
          object: ph.obj,
          field: is.field,
          plan: P,
          step: i + 1,
          phase: ph.name,
        });
    }
    if (chk.executor) step.executor = chk.executor;
    if (chk.path) step.path = chk.path;
    step.cluster = ph.clusterName;
    const known = step.executor ? EXECUTOR_KINDS[step.executor.kind] : undefined;
    step.flux = !!known?.flux && !!step.path;
  });

  // validation executor (airshipctl runs the GenericContainer document-validation for plan/phase validation)
  const wantsValidation = plan.validation || steps.some((st) => st.phase?.validation);
  if (wantsValidation && !b.executors.has(execKey('GenericContainer', 'document-validation'))) {
    const vs = steps.find((st) => st.phase?.validation);
    out.push({
      severity: 'error',
      rule: 'plan/validation-executor',
      message: plan.validation
        ? `PhasePlan ${P}: has \`validation\` but the input has no GenericContainer/document-validation executor to run it; add that executor document or remove validation`
        : `${at(vs!.num, vs!.id, vs!.phaseName)}: config.validation needs the GenericContainer/document-validation executor, which the input does not have; add it`,
      object: plan.validation ? obj : vs!.phase!.obj,
      field: plan.validation ? 'validation' : 'config.validation',
      plan: P,
      ...(plan.validation ? {} : { step: vs!.num, phase: vs!.phaseName }),
    });
  }

  // dependencies: a graph when any step or phase names dependencies, else a chain
  const graph = plan.entries.some((e) => e.dependsOn.length > 0) || steps.some((st) => (st.phase?.dependsOn.length ?? 0) > 0);
  const resolve = (tok: string): number | undefined => {
    const byId = ids.get(tok);
    if (byId !== undefined) return byId;
    const i = steps.findIndex((st) => st.phaseName === tok);
    return i >= 0 ? i : undefined;
  };
  steps.forEach((st, i) => {
    if (!graph) {
      if (i > 0) st.deps.push(i - 1);
      return;
    }
    const e = plan.entries[i]!;
    const toks: [string, string, KubeObject][] = e.dependsOn.map((t, k) => [t, `${e.field}.dependsOn[${k}]`, obj]);
    if (st.phase) for (const t of st.phase.dependsOn) toks.push([t, `metadata.annotations.${DEPENDS_ON_ANNOTATION}`, st.phase.obj]);
    for (const [t, field, o] of toks) {
      const j = resolve(t);
      if (j === undefined) {
        out.push({
          severity: 'error',
          rule: 'plan/unknown-dependency',
          message: `${at(st.num, st.id, st.phaseName)}: depends on "${t}", which is no step id or phase of this plan (steps: ${steps.map((x) => x.id).join(', ')}); fix ${field}`,
          object: o,
          field,
          plan: P,
          step: st.num,
          phase: st.phaseName,
        });
      } else if (!st.deps.includes(j)) st.deps.push(j);
    }
    st.deps.sort((a, c) => a - c);
  });

  // cycles (Kahn, then walk what is left to show one cycle per strongly connected knot)
  const levels = new Array<number>(steps.length).fill(0);
  const indeg = steps.map((st) => st.deps.length);
  const users: number[][] = steps.map(() => []);
  steps.forEach((st, i) => st.deps.forEach((d) => users[d]!.push(i)));
  const queue: number[] = [];
  indeg.forEach((d, i) => d === 0 && queue.push(i));
  const done = new Array<boolean>(steps.length).fill(false);
  for (let q = 0; q < queue.length; q++) {
    const i = queue[q]!;
    done[i] = true;
    for (const u of users[i]!) {
      levels[u] = Math.max(levels[u]!, levels[i]! + 1);
      if (--indeg[u]! === 0) queue.push(u);
    }
  }
  const inCycle = new Set<number>();
  for (let i = 0; i < steps.length; i++) {
    if (done[i] || inCycle.has(i)) continue;
    // follow undone dependencies until a node repeats
    const path: number[] = [];
    let cur = i;
    while (!path.includes(cur)) {
      path.push(cur);
      cur = steps[cur]!.deps.find((d) => !done[d])!;
    }
    const cyc = path.slice(path.indexOf(cur));
    if (cyc.some((c) => inCycle.has(c))) continue;
    cyc.forEach((c) => inCycle.add(c));
    const first = steps[Math.min(...cyc)]!;
    // show it in dependency order: a depends on b depends on ... a
    out.push({
      severity: 'error',
      rule: 'plan/dependency-cycle',
      message: `PhasePlan ${P}: dependency cycle ${[...cyc, cyc[0]!].map((c) => steps[c]!.id).join(' -> ')} (each depends on the next); remove one of these dependencies`,
      object:
        first.phase && first.phase.dependsOn.length > 0 && plan.entries[first.num - 1]!.dependsOn.length === 0 ? first.phase.obj : obj,
      field:
        first.phase && first.phase.dependsOn.length > 0 && plan.entries[first.num - 1]!.dependsOn.length === 0
          ? `metadata.annotations.${DEPENDS_ON_ANNOTATION}`
          : `${first.field}.dependsOn`,
      plan: P,
      step: first.num,
      phase: first.phaseName,
    });
  }

  // gates, Flux settings, names
  const names = new Map<string, Step>();
  for (const st of steps) {
    if (st.executor && !st.flux) st.gate = describeGate(b, st);
    if (st.flux && st.executor) {
      st.wait = waitPlan(st.executor.data);
      st.prune = pruneOf(st.executor.data);
      for (const [ci, jp] of st.wait.unsupported)
        out.push({
          severity: 'warning',
          rule: 'flux/unsupported-condition',
          message: `${at(st.num, st.id, st.phaseName)}: wait condition ${jp} of KubernetesApply/${st.executor.name} has no Flux equivalent (supported: dotted fields and one [?(@.field=='value')] filter); Flux waits for readiness only`,
          object: st.executor.obj,
          field: `config.waitOptions.conditions[${ci}].jsonPath`,
          plan: P,
          step: st.num,
          phase: st.phaseName,
        });
      st.ksName = dnsName(`${ksPrefix}-${st.id}`);
      const other = names.get(st.ksName);
      if (other && other.id === st.id) continue; // already a duplicate-step-id error
      if (other)
        out.push({
          severity: 'error',
          rule: 'flux/name-collision',
          message: `${at(st.num, st.id, st.phaseName)}: Kustomization name ${st.ksName} is also the name of step ${other.num} (${other.id}) once made DNS-1123; give one step a distinct \`id\``,
          object: obj,
          field: `${st.field}.id`,
          plan: P,
          step: st.num,
          phase: st.phaseName,
        });
      else names.set(st.ksName, st);
    }
  }

  // target-cluster steps before the clusterctl move that makes the cluster self-managed
  const moves = steps.filter((st) => st.executor?.kind === 'Clusterctl' && str(st.executor.data.action) === 'move' && st.cluster);
  // after a clusterctl move the management role passes to the move's target: by default Flux runs on
  // the cluster that is self-managed at the end of the plan, not on the (ephemeral) root
  let management = b.management;
  let managementWhy = s.managementCluster !== undefined ? 'spec.managementCluster' : management !== undefined ? 'the ClusterMap root' : '';
  if (s.managementCluster === undefined && moves.length > 0) {
    const last = moves[moves.length - 1]!;
    management = last.cluster;
    managementWhy = `target of the clusterctl move in step ${last.num}, self-managed at the end of the plan`;
  }
  if (moves.length > 0) {
    const after = new Map(moves.map((m) => [m, descendants(steps, m.num - 1)]));
    const before = new Map(moves.map((m) => [m, dependencySet(steps, m.num - 1)]));
    for (const st of steps) {
      if (!st.flux || !st.cluster || st.cluster === management) continue;
      const m = moves.find((x) => x.cluster === st.cluster && x !== st && !after.get(x)!.has(st.num - 1));
      if (!m) continue;
      const mvAfter = before.get(m)!.has(st.num - 1);
      const parent = b.clusters.get(st.cluster)?.parent;
      st.beforeMove = m.id;
      out.push({
        severity: 'warning',
        rule: 'plan/before-move',
        message: `${at(st.num, st.id, st.phaseName)}: runs on ${st.cluster} ${mvAfter ? 'before' : 'possibly before'} step ${m.num} (${m.id}) moves its Cluster API objects there; until then the cluster is managed from ${parent ?? 'its parent'} and this Kustomization reaches it through a kubeconfig Secret the move takes away. Order it after the move or make sure the Secret stays`,
        object: st.phase!.obj,
        field: 'metadata.clusterName',
        plan: P,
        step: st.num,
        phase: st.phaseName,
      });
    }
  }
  // a Flux step after a step that powers off (or re-images) the cluster Flux runs on never runs
  if (management !== undefined) {
    const roots = [...b.clusters.values()].filter((c) => !c.parent);
    const gone = steps.filter((g) => {
      if (g.executor?.kind !== 'BaremetalManager') return false;
      // a BaremetalManager phase without clusterName acts on the ephemeral hosts: the ClusterMap root
      const target = g.cluster ?? (roots.length === 1 ? roots[0]!.name : undefined);
      if (target !== management) return false;
      const op = isMap(g.executor.data.spec) ? str(g.executor.data.spec.operation) : undefined;
      if (op === 'power-off') return true;
      // remote-direct boots the host from an ISO: it wipes the cluster only once Flux already ran there
      return op === 'remote-direct' && [...dependencySet(steps, g.num - 1)].some((i) => steps[i]!.flux);
    });
    if (gone.length > 0) {
      const after = new Map(gone.map((g) => [g, descendants(steps, g.num - 1)]));
      for (const st of steps) {
        if (!st.flux) continue;
        const g = gone.find((x) => after.get(x)!.has(st.num - 1));
        if (!g) continue;
        const op = str((g.executor!.data.spec as Data).operation);
        out.push({
          severity: 'warning',
          rule: 'plan/flux-cluster-gone',
          message: `${at(st.num, st.id, st.phaseName)}: runs after step ${g.num} (${g.id}) ${op === 'power-off' ? 'powers off' : 'boots from an ISO'} ${management}, the management cluster Flux runs on (${managementWhy}); this Kustomization would never be applied. ${moves.length > 0 ? `Set spec.managementCluster to ${moves[moves.length - 1]!.cluster} (the target of the clusterctl move) or leave it unset` : 'Run Flux on a cluster that survives the plan (spec.managementCluster)'}`,
          object: st.phase!.obj,
          field: 'metadata.clusterName',
          plan: P,
          step: st.num,
          phase: st.phaseName,
        });
      }
    }
  }
  for (const st of steps)
    if (st.gate)
      out.push({
        severity: 'info',
        rule: 'plan/gate',
        message: `${at(st.num, st.id, st.phaseName)}: ${st.executor!.kind} is not something Flux can do; gate: ${st.gate}`,
        object: st.phase!.obj,
        field: 'config.executorRef',
        plan: P,
        step: st.num,
        phase: st.phaseName,
      });
  const errors = out.filter((f) => f.severity === 'error').length - before;
  const res: PlanAnalysis = { plan, steps, graph, levels, errors, managementWhy };
  if (management !== undefined) res.management = management;
  return res;
}

/** Steps step `i` (transitively) depends on. */
export function dependencySet(steps: Step[], i: number): Set<number> {
  const out = new Set<number>();
  const stack = [i];
  while (stack.length > 0)
    for (const d of steps[stack.pop()!]!.deps)
      if (!out.has(d)) {
        out.add(d);
        stack.push(d);
      }
  return out;
}

/** Steps that (transitively) depend on step `i`: one walk, linear in the graph. */
export function descendants(steps: Step[], i: number): Set<number> {
  const users: number[][] = steps.map(() => []);
  steps.forEach((st, j) => st.deps.forEach((d) => users[d]!.push(j)));
  const out = new Set<number>();
  const stack = [i];
  while (stack.length > 0) {
    for (const u of users[stack.pop()!]!)
      if (!out.has(u)) {
        out.add(u);
        stack.push(u);
      }
  }
  return out;
}

/** The Flux dependencies of a step: its dependencies (Kustomizations and Job gates), with explicit gates replaced by their own (transitively). */
export function fluxDeps(steps: Step[], st: Step): { deps: Step[]; gates: Step[] } {
  const deps = new Set<Step>();
  const gates = new Set<Step>();
  const seen = new Set<number>();
  const walk = (i: number) => {
    if (seen.has(i)) return;
    seen.add(i);
    const d = steps[i]!;
    if (d.flux || d.job) deps.add(d);
    else {
      gates.add(d);
      d.deps.forEach(walk);
    }
  };
  st.deps.forEach(walk);
  // drop dependencies another kept dependency already implies? keep them all: explicit is clearer
  const bynum = (a: Step, c: Step) => a.num - c.num;
  return { deps: [...deps].sort(bynum), gates: [...gates].sort(bynum) };
}
