/**
 * Static analysis of one plan: resolves every step to its Phase, executor and cluster, checks
 * what airshipctl only finds out at run time, orders the steps, decides what Flux performs (and
 * where Flux runs while the plan runs) and what stays a gate.
 */
import type { KubeObject } from '../../src/krm/index.js';
import type { Bundle, Finding, Settings } from './bundle.js';
import { dnsName, type FluxFeatures, pruneOf, waitPlan } from './flux.js';
import { type FluxHost, lifecycleWarnings, placeFlux } from './lifecycle.js';
import { isMap, type PlanDoc, readPlan, str } from './model.js';
import type { PhaseCache } from './phase-check.js';
import {
  buildSteps,
  checkValidationExecutor,
  linkSteps,
  orderSteps,
  type PlanScope,
  resolvePhases,
  type Step,
  stepFinding,
  stepLabel,
} from './steps.js';

export interface PlanAnalysis {
  plan: PlanDoc;
  steps: Step[];
  graph: boolean;
  /** parallel level of each step (graph plans) */
  levels: number[];
  errors: number;
  /** the clusters Flux runs on while the plan runs, in order, and why */
  fluxHosts: FluxHost[];
}

/** Resolves, checks and orders one plan. */
export function analysePlan(
  b: Bundle,
  s: Settings,
  obj: KubeObject,
  cache: PhaseCache,
  out: Finding[],
  opts: { ksPrefix: string; flux: FluxFeatures },
): PlanAnalysis {
  const plan = readPlan(obj);
  const errorsBefore = out.filter((f) => f.severity === 'error').length;
  const x: PlanScope = { b, s, obj, plan, out };
  checkShape(x);
  const { steps, ids } = buildSteps(x);
  resolvePhases(x, steps, cache);
  checkValidationExecutor(x, steps);
  const graph = linkSteps(x, steps, ids);
  const levels = orderSteps(x, steps);
  fluxSettings(x, steps, opts);
  const fluxHosts = placeFlux(x, steps);
  lifecycleWarnings(x, steps, fluxHosts);
  for (const st of steps)
    if (st.gate)
      out.push(
        stepFinding(x, st, {
          severity: 'info',
          rule: 'plan/gate',
          message: `${stepLabel(plan.name, st.num, st.id, st.phaseName)}: ${st.executor!.kind} is not something Flux can do; gate: ${st.gate}`,
          object: st.phase!.obj,
          field: 'config.executorRef',
        }),
      );
  const errors = out.filter((f) => f.severity === 'error').length - errorsBefore;
  return { plan, steps, graph, levels, errors, fluxHosts };
}

function checkShape(x: PlanScope): void {
  const { plan, obj } = x;
  const P = plan.name;
  for (const [field, msg] of plan.problems)
    x.out.push({ severity: 'error', rule: 'plan/shape', message: `PhasePlan ${P}: ${field} ${msg}`, object: obj, field, plan: P });
  if (plan.entries.length === 0)
    x.out.push({
      severity: 'warning',
      rule: 'plan/empty',
      message: `PhasePlan ${P} has no phases; add phases: [{name: ...}]`,
      object: obj,
      field: 'phases',
      plan: P,
    });
}

/** Gates, Flux waits and prune, Kustomization names (unique within the plan). */
function fluxSettings(x: PlanScope, steps: Step[], opts: { ksPrefix: string; flux: FluxFeatures }): void {
  const names = new Map<string, Step>();
  for (const st of steps) {
    if (st.executor && !st.flux) st.gate = describeGate(x.b, st);
    if (!st.flux || !st.executor) continue;
    st.wait = waitPlan(st.executor.data, opts.flux);
    st.prune = pruneOf(st.executor.data);
    waitWarnings(x, st, opts.flux);
    st.ksName = dnsName(`${opts.ksPrefix}-${st.id}`);
    const other = names.get(st.ksName);
    if (other && other.id === st.id) continue; // already a duplicate-step-id error
    if (!other) {
      names.set(st.ksName, st);
      continue;
    }
    x.out.push(
      stepFinding(x, st, {
        severity: 'error',
        rule: 'flux/name-collision',
        message: `${stepLabel(x.plan.name, st.num, st.id, st.phaseName)}: Kustomization name ${st.ksName} is also the name of step ${other.num} (${other.id}) once made DNS-1123; give one step a distinct \`id\``,
        object: x.obj,
        field: `${st.field}.id`,
      }),
    );
  }
}

/** Wait conditions Flux cannot check as written: no CEL form, a Flux without healthCheckExprs, a top-level field that may be absent. */
function waitWarnings(x: PlanScope, st: Step, flux: FluxFeatures): void {
  const at = stepLabel(x.plan.name, st.num, st.id, st.phaseName);
  const ex = st.executor!;
  const warn = (rule: string, ci: number, message: string) =>
    x.out.push(
      stepFinding(x, st, { severity: 'warning', rule, message, object: ex.obj, field: `config.waitOptions.conditions[${ci}].jsonPath` }),
    );
  for (const [ci, jp] of st.wait!.unsupported)
    warn(
      'flux/unsupported-condition',
      ci,
      `${at}: wait condition ${jp} of KubernetesApply/${ex.name} has no Flux equivalent (supported: dotted fields and one [?(@.field=='value')] filter); Flux waits for readiness only`,
    );
  for (const [ci, jp] of st.wait!.needsNewerFlux)
    warn(
      'flux/needs-newer-flux',
      ci,
      `${at}: wait condition ${jp} of KubernetesApply/${ex.name} needs healthCheckExprs (Flux 2.5, kustomize-controller v1.5.0); ` +
        `for Flux ${flux.version} the Kustomization only waits until every object is ready by kstatus (wait: true). Set spec.flux.version if your Flux is newer`,
    );
  for (const [ci, jp, field] of st.wait!.mayBeAbsent)
    warn(
      'flux/absent-field',
      ci,
      `${at}: wait condition ${jp} of KubernetesApply/${ex.name} reads the top-level field ${field}, which CEL cannot test for presence (has() needs a field selection): ` +
        `an object without ${field} fails the expression and Flux waits to the timeout (${st.wait!.timeout}). Check a field under status, or make sure every ${field} is set`,
    );
}

/** What must run at a gate, in words: the airshipctl command and what it does. */
function describeGate(b: Bundle, step: Step): string {
  const d = step.executor!.data;
  const run = `run \`airshipctl phase run ${step.phaseName}\``;
  const spec = isMap(d.spec) ? d.spec : {};
  switch (step.executor!.kind) {
    case 'Clusterctl':
      return `${run}: ${clusterctlGate(b, step)}`;
    case 'BaremetalManager': {
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
      const ref = isMap(d.configRef) ? `, config ${str(d.configRef.kind) ?? 'ConfigMap'}/${str(d.configRef.name) ?? ''}` : '';
      const type = str(spec.type);
      return `${run}: container ${str(spec.image) ?? '(no image)'}${type ? ` (type ${type}${ref})` : ref ? ` (${ref.slice(2)})` : ''}`;
    }
    default:
      return run;
  }
}

function clusterctlGate(b: Bundle, step: Step): string {
  const d = step.executor!.data;
  const on = step.cluster;
  if ((str(d.action) ?? 'init') === 'move') {
    const mo = isMap(d['move-options']) ? d['move-options'] : {};
    const from = on ? b.clusters.get(on)?.parent : undefined;
    return `clusterctl move${from ? ` from ${from}` : ''}${on ? ` to ${on}` : ''}${str(mo.namespace) ? ` (namespace ${str(mo.namespace)})` : ''}`;
  }
  const io = isMap(d['init-options']) ? d['init-options'] : {};
  const providers = Object.entries(io)
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ');
  return `clusterctl init${on ? ` on ${on}` : ''}${providers ? ` (${providers})` : ''}`;
}
