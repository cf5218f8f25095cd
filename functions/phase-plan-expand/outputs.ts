/**
 * What phase-plan-expand writes for a valid plan: the Flux Kustomizations (one per step Flux
 * performs, one per Job gate), the kustomization files that keep Flux from applying gate
 * folders early, and the local-config plan report.
 */
import { posix } from 'node:path';
import type { Desired } from '../../src/krm/index.js';
import type { Bundle } from './bundle.js';
import type { PlanAnalysis } from './expand.js';
import { dnsName, type FluxFeatures, gatesDoneExpr } from './flux.js';
import { fluxDeps } from './graph.js';
import type { JobsConfig } from './jobs.js';
import { renderReport, type ReportContext } from './report.js';
import type { Step } from './steps.js';
import { pushAll } from '../../src/krm/index.js';

const FLUX_API = 'kustomize.toolkit.fluxcd.io/v1';
const ANN_PREFIX = 'baremetal-krm.dev/';

/** The settings every plan's output shares. */
export interface OutputConfig {
  outputs: Set<string>;
  sourceRef: { kind: string; name: string; namespace: string };
  namespace: string;
  interval: string;
  outputDir: string;
  packagePath: string;
  jobs: JobsConfig;
  jobMode: boolean;
  flux: FluxFeatures;
  kubeconfigSecret: (cluster: string) => { name: string; key: string };
}

/** One plan's output folder and where each Flux's Kustomizations go in it. */
interface PlanLayout {
  planName: string;
  label: string;
  dir: string;
  /** `<dir>/<cluster>` for each Flux when the plan hands Flux over, else `<dir>` */
  fluxFolder: (cluster: string | undefined) => string;
}

function layout(a: PlanAnalysis, cfg: OutputConfig): PlanLayout {
  const label = dnsName(a.plan.name);
  const dir = `${cfg.outputDir}/${label}`;
  const hosts = new Set(a.steps.filter((s) => s.flux || s.job).map((s) => s.fluxCluster));
  const fluxFolder = (c: string | undefined) => (hosts.size > 1 ? `${dir}/${dnsName(c ?? 'flux')}` : dir);
  return { planName: a.plan.name, label, dir, fluxFolder };
}

/**
 * A kustomization.yaml listing exactly `resources`: it keeps Flux (which generates a
 * kustomization of every YAML file below a path that has none) from applying the gate folders
 * with the plan's Kustomizations. Local config: kpt functions and `kpt live` leave it alone.
 */
function kustomizeFile(name: string, plan: string, resources: string[]): Record<string, unknown> {
  return {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    metadata: { name, annotations: { 'config.kubernetes.io/local-config': 'true', [`${ANN_PREFIX}phase-plan`]: plan } },
    resources,
  };
}

function reportContext(b: Bundle, a: PlanAnalysis, cfg: OutputConfig): ReportContext {
  return {
    bundle: b,
    sourceRef: cfg.sourceRef,
    fluxEnabled: cfg.outputs.has('flux'),
    kubeconfigSecret: cfg.kubeconfigSecret,
    namespace: cfg.namespace,
    jobMode: cfg.jobMode,
    gateAcks: cfg.flux.readyExpr,
    fluxFolder: layout(a, cfg).fluxFolder,
  };
}

/** Everything a valid plan generates, with the file each item goes to. */
export function planOutputs(b: Bundle, a: PlanAnalysis, cfg: OutputConfig): Desired[] {
  const lay = layout(a, cfg);
  const desired: Desired[] = [];
  if (cfg.outputs.has('flux')) {
    for (const st of a.steps) {
      if (st.job) pushAll(desired, jobGate(st, a, lay, cfg));
      else if (st.flux)
        desired.push({ data: stepKustomization(st, a, cfg, lay), path: `${lay.fluxFolder(st.fluxCluster)}/kustomizations.yaml` });
    }
  }
  // each Flux folder's own kustomization.yaml lists kustomizations.yaml only, never gates/
  if (cfg.jobMode)
    for (const file of new Set(desired.map((d) => d.path!).filter((p) => p.endsWith('/kustomizations.yaml')))) {
      const folder = posix.dirname(file);
      const name = folder === lay.dir ? lay.label : dnsName(`${lay.label}-${posix.basename(folder)}`);
      desired.push({ data: kustomizeFile(name, lay.planName, ['kustomizations.yaml']), path: `${folder}/kustomization.yaml` });
    }
  if (cfg.outputs.has('report')) desired.push({ data: reportMap(b, a, cfg), path: `${lay.dir}/report.yaml` });
  return desired;
}

function annotations(st: Step, a: PlanAnalysis, lay: PlanLayout, gates: Step[], otherFlux: Step[]): Record<string, string> {
  const ann: Record<string, string> = {
    [`${ANN_PREFIX}phase-plan`]: lay.planName,
    [`${ANN_PREFIX}phase`]: st.phaseName,
    [`${ANN_PREFIX}step`]: `${st.num}/${a.steps.length}`,
  };
  if (gates.length > 0) ann[`${ANN_PREFIX}after-gates`] = gates.map((g) => g.id).join(',');
  // applied by another Flux (before the hand-over): the order holds through the gates between them
  if (otherFlux.length > 0) ann[`${ANN_PREFIX}after-other-flux`] = otherFlux.map((d) => d.ksName).join(',');
  return ann;
}

function metadata(name: string, cfg: OutputConfig, lay: PlanLayout, ann: Record<string, string>): Record<string, unknown> {
  return { name, namespace: cfg.namespace, labels: { [`${ANN_PREFIX}phase-plan`]: lay.label }, annotations: ann };
}

function stepKustomization(st: Step, a: PlanAnalysis, cfg: OutputConfig, lay: PlanLayout): Record<string, unknown> {
  const { deps, gates, otherFlux } = fluxDeps(a.steps, st);
  const ks: Record<string, unknown> = {
    interval: cfg.interval,
    path: st.path,
    prune: st.prune ?? false,
    sourceRef: { ...cfg.sourceRef },
  };
  if (deps.length > 0) {
    // with readyExpr, a step after gates also waits until the operator confirms them
    const ack = cfg.flux.readyExpr && gates.length > 0 ? gatesDoneExpr(gates.map((g) => g.id)) : undefined;
    ks.dependsOn = deps.map((d) => (ack ? { name: d.ksName, readyExpr: ack } : { name: d.ksName }));
  }
  if (st.cluster && st.fluxCluster !== undefined && st.cluster !== st.fluxCluster) {
    const sec = cfg.kubeconfigSecret(st.cluster);
    ks.kubeConfig = { secretRef: { name: sec.name, key: sec.key } };
  }
  const w = st.wait!;
  // a wait condition Flux cannot express as CEL still waits for every object (kstatus)
  ks.wait = w.wait;
  if (w.timeout) ks.timeout = w.timeout;
  if (w.healthCheckExprs.length > 0) ks.healthCheckExprs = w.healthCheckExprs;
  return {
    apiVersion: FLUX_API,
    kind: 'Kustomization',
    metadata: metadata(st.ksName!, cfg, lay, annotations(st, a, lay, gates, otherFlux)),
    spec: ks,
  };
}

/** A Job gate: its Kustomization (wait, force), the Job (and ConfigMap) in its own folder, and that folder's kustomization.yaml. */
function jobGate(st: Step, a: PlanAnalysis, lay: PlanLayout, cfg: OutputConfig): Desired[] {
  const { deps, gates, otherFlux } = fluxDeps(a.steps, st);
  const gateDir = `${lay.dir}/gates/${st.ksName}`;
  const ann = annotations(st, a, lay, gates, otherFlux);
  ann[`${ANN_PREFIX}gate`] = 'job';
  const gks: Record<string, unknown> = {
    interval: cfg.interval,
    path: './' + posix.join(cfg.packagePath || '.', gateDir),
    prune: true,
    sourceRef: { ...cfg.sourceRef },
  };
  if (deps.length > 0) gks.dependsOn = deps.map((d) => ({ name: d.ksName }));
  gks.wait = true;
  gks.force = true;
  gks.timeout = cfg.jobs.timeout;
  const ks = { apiVersion: FLUX_API, kind: 'Kustomization', metadata: metadata(st.ksName!, cfg, lay, ann), spec: gks };
  return [
    { data: ks, path: `${lay.fluxFolder(st.fluxCluster)}/kustomizations.yaml` },
    ...st.job!.objects.map((o) => ({ data: o, path: `${gateDir}/job.yaml` })),
    { data: kustomizeFile(st.ksName!, lay.planName, ['job.yaml']), path: `${gateDir}/kustomization.yaml` },
  ];
}

function reportMap(b: Bundle, a: PlanAnalysis, cfg: OutputConfig): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: dnsName(`${a.plan.name}-plan-report`),
      annotations: { 'config.kubernetes.io/local-config': 'true', [`${ANN_PREFIX}phase-plan`]: a.plan.name },
    },
    data: {
      steps: String(a.steps.length),
      kustomizations: String(a.steps.filter((s) => s.flux).length),
      gates: String(a.steps.filter((s) => s.gate).length),
      ...(cfg.jobMode ? { jobs: String(a.steps.filter((s) => s.job).length) } : {}),
      'plan.md': renderReport(a, reportContext(b, a, cfg)),
    },
  };
}
