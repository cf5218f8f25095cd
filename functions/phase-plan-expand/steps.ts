/**
 * A plan's steps: their ids, the Phase, executor and cluster each resolves to, and the order
 * they run in (a chain, or the graph our `dependsOn` extension gives) with its parallel levels.
 */
import type { KubeObject } from '../../src/krm/index.js';
import type { Bundle, Executor, Finding, Settings } from './bundle.js';
import type { WaitPlan } from './flux.js';
import type { JobPlan } from './jobs.js';
import { DEPENDS_ON_ANNOTATION, EXECUTOR_KINDS, type PhaseDoc, type PlanDoc } from './model.js';
import { checkPhase, type PhaseCache } from './phase-check.js';

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
  /** the cluster whose Flux applies this step (its Kustomization, or its Job with `gates: job`) */
  fluxCluster?: string;
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

/** One plan being analysed: where findings go and how they name a step. */
export interface PlanScope {
  b: Bundle;
  s: Settings;
  obj: KubeObject;
  plan: PlanDoc;
  out: Finding[];
}

/** `PhasePlan <plan> step <n> (<id>, phase <phase>)`: how every step finding starts. */
export const stepLabel = (plan: string, n: number, id: string, phase: string) => `PhasePlan ${plan} step ${n} (${id}, phase ${phase})`;

/** A finding about a step, tagged with plan, step and phase. */
export function stepFinding(x: PlanScope, st: Step, f: Omit<Finding, 'plan' | 'step' | 'phase'>): Finding {
  return { ...f, plan: x.plan.name, step: st.num, phase: st.phaseName };
}

/**
 * Step ids: the explicit `id`, else the phase name, `-2`, `-3`... for repeats, skipping every
 * name a phase or an explicit id of the plan already uses (airshipctl has no ids: a repeat must
 * never collide).
 */
export function buildSteps(x: PlanScope): { steps: Step[]; ids: Map<string, number> } {
  const { plan } = x;
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
      let n = k;
      while (n > 1 && (reserved.has(`${phaseName}-${n}`) || assigned.has(`${phaseName}-${n}`))) n++;
      id = n === 1 ? phaseName : `${phaseName}-${n}`;
    }
    assigned.add(id);
    const step: Step = { num: i + 1, id, field: e.field, phaseName, deps: [], flux: false };
    if (e.group) step.group = e.group;
    steps.push(step);
    const first = ids.get(id);
    if (first === undefined) ids.set(id, i);
    else
      x.out.push(
        stepFinding(x, step, {
          severity: 'error',
          rule: 'plan/duplicate-step-id',
          message: `${stepLabel(plan.name, i + 1, id, phaseName)}: step id "${id}" is already used by step ${first + 1}; give one of them a distinct \`id\``,
          object: x.obj,
          field: `${e.field}.${e.id ? 'id' : 'name'}`,
        }),
      );
  });
  return { steps, ids };
}

/** Resolves each step's Phase (by name only, like airshipctl), its executor, entry point and cluster. */
export function resolvePhases(x: PlanScope, steps: Step[], cache: PhaseCache): void {
  const { plan, out, obj } = x;
  const reportedPhase = new Set<PhaseDoc>();
  plan.entries.forEach((e, i) => {
    const step = steps[i]!;
    const at = stepLabel(plan.name, i + 1, step.id, e.name ?? '');
    if (!e.name) {
      const message = `PhasePlan ${plan.name} step ${i + 1}: ${e.field}.name is missing; name the Phase to run`;
      out.push({ severity: 'error', rule: 'plan/shape', message, object: obj, field: `${e.field}.name`, plan: plan.name, step: i + 1 });
      return;
    }
    const found = x.b.phases.filter((p) => p.name === e.name);
    if (found.length !== 1) {
      out.push(
        stepFinding(x, step, {
          severity: 'error',
          ...phaseLookupProblem(at, e.name, e.field, found),
          object: obj,
          field: `${e.field}.name`,
        }),
      );
      return;
    }
    const ph = found[0]!;
    step.phase = ph;
    const chk = checkPhase(x.b, x.s, ph, cache);
    if (!reportedPhase.has(ph)) {
      reportedPhase.add(ph);
      for (const is of chk.issues)
        out.push(
          stepFinding(x, step, { severity: is.severity, rule: is.rule, message: `${at}: ${is.message}`, object: ph.obj, field: is.field }),
        );
    }
    if (chk.executor) step.executor = chk.executor;
    if (chk.path) step.path = chk.path;
    step.cluster = ph.clusterName;
    step.flux = !!(step.executor && EXECUTOR_KINDS[step.executor.kind]?.flux) && !!step.path;
  });
}

/** No Phase, or several: airshipctl selects a plan's Phase by name only and fails on both. */
function phaseLookupProblem(at: string, name: string, field: string, found: PhaseDoc[]): { rule: string; message: string } {
  if (found.length === 0)
    return {
      rule: 'plan/unknown-phase',
      message: `${at}: no Phase named "${name}" in the input (document filtered by selector Kind="Phase", Name="${name}" found no documents); add the Phase or fix ${field}.name`,
    };
  const namespaces = found.map((p) => p.namespace ?? '(none)');
  const head = `${at}: ${found.length} Phases are named "${name}" (namespaces ${namespaces.join(', ')})`;
  // the same namespace too: only an unbuilt input holds two documents of one identity
  if (new Set(namespaces).size < namespaces.length)
    return {
      rule: 'plan/unbuilt-input',
      message: `${at}: ${found.length} Phases named "${name}": ${unbuiltHint(found.map((p) => p.obj))}`,
    };
  const why = "airshipctl selects a plan's Phase by name only, whatever the step's namespace, and fails on several";
  return { rule: 'plan/ambiguous-phase', message: `${head}; ${why}: rename all but one of them` };
}

/** What to say about documents that share kind, namespace and name: kustomize build never outputs that, so a patch was read as a document. */
export function unbuiltHint(objs: KubeObject[]): string {
  const files = objs.map((o) => o.file()?.path).filter((p): p is string => !!p);
  const where = files.length > 0 ? ` (${files.join(', ')})` : '';
  return `the input holds several documents with the same kind, namespace and name${where}, which a kustomize build never outputs: one of them is probably a patch. Build with kustomize first (kustomize build, or kpt fn render on the built output) and run phase-plan-expand on the result`;
}

/** Plan or phase validation needs airshipctl's GenericContainer document-validation executor. */
export function checkValidationExecutor(x: PlanScope, steps: Step[]): void {
  const { plan, b } = x;
  if (b.executors.has('GenericContainer|document-validation')) return;
  if (plan.validation) {
    x.out.push({
      severity: 'error',
      rule: 'plan/validation-executor',
      message: `PhasePlan ${plan.name}: has \`validation\` but the input has no GenericContainer/document-validation executor to run it; add that executor document or remove validation`,
      object: x.obj,
      field: 'validation',
      plan: plan.name,
    });
    return;
  }
  const vs = steps.find((st) => st.phase?.validation);
  if (vs)
    x.out.push(
      stepFinding(x, vs, {
        severity: 'error',
        rule: 'plan/validation-executor',
        message: `${stepLabel(plan.name, vs.num, vs.id, vs.phaseName)}: config.validation needs the GenericContainer/document-validation executor, which the input does not have; add it`,
        object: vs.phase!.obj,
        field: 'config.validation',
      }),
    );
}

/** Dependencies: a graph when any step or phase names dependencies, else a chain. Returns whether it is a graph. */
export function linkSteps(x: PlanScope, steps: Step[], ids: Map<string, number>): boolean {
  const { plan } = x;
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
    const toks: [string, string, KubeObject][] = e.dependsOn.map((t, k) => [t, `${e.field}.dependsOn[${k}]`, x.obj]);
    if (st.phase) for (const t of st.phase.dependsOn) toks.push([t, `metadata.annotations.${DEPENDS_ON_ANNOTATION}`, st.phase.obj]);
    for (const [t, field, o] of toks) {
      const j = resolve(t);
      if (j !== undefined) {
        if (!st.deps.includes(j)) st.deps.push(j);
        continue;
      }
      x.out.push(
        stepFinding(x, st, {
          severity: 'error',
          rule: 'plan/unknown-dependency',
          message: `${stepLabel(plan.name, st.num, st.id, st.phaseName)}: depends on "${t}", which is no step id or phase of this plan (steps: ${steps.map((s) => s.id).join(', ')}); fix ${field}`,
          object: o,
          field,
        }),
      );
    }
    st.deps.sort((a, c) => a - c);
  });
  return graph;
}

/** Parallel levels (Kahn's order); each dependency cycle left over becomes one error. */
export function orderSteps(x: PlanScope, steps: Step[]): number[] {
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
    for (const c of cyc) inCycle.add(c);
    reportCycle(x, steps, cyc);
  }
  return levels;
}

function reportCycle(x: PlanScope, steps: Step[], cyc: number[]): void {
  const first = steps[Math.min(...cyc)]!;
  // blame the Phase annotation when only it names the dependencies of the first step
  const byPhase = !!first.phase && first.phase.dependsOn.length > 0 && x.plan.entries[first.num - 1]!.dependsOn.length === 0;
  x.out.push(
    stepFinding(x, first, {
      severity: 'error',
      rule: 'plan/dependency-cycle',
      // in dependency order: a depends on b depends on ... a
      message: `PhasePlan ${x.plan.name}: dependency cycle ${[...cyc, cyc[0]!].map((c) => steps[c]!.id).join(' -> ')} (each depends on the next); remove one of these dependencies`,
      object: byPhase ? first.phase!.obj : x.obj,
      field: byPhase ? `metadata.annotations.${DEPENDS_ON_ANNOTATION}` : `${first.field}.dependsOn`,
    }),
  );
}
