/**
 * phase-plan-expand: validates Airship PhasePlans, Phases, ClusterMaps and executors
 * statically, and expands every plan into Flux Kustomizations chained by `dependsOn` plus a
 * local-config plan report, so a plan becomes ordered GitOps output.
 */
import {
  GENERATED_BY,
  type Desired,
  type FunctionDefinition,
  type KubeObject,
  type Results,
  type ResultOptions,
} from '../../src/krm/index.js';
import specSchema from './spec.schema.json' with { type: 'json' };
import validateSpec from './generated/spec.validate.js';
import { analysePlan, checkPhase, fluxDeps, readBundle, type Bundle, type Finding, type PlanAnalysis, type Settings } from './expand.js';
import { dnsName } from './flux.js';
import { planJob, type JobsConfig } from './jobs.js';
import { AIRSHIP_GROUP } from './model.js';
import { posix } from 'node:path';
import { renderReport, type ReportContext } from './report.js';

export interface Spec {
  outputs?: ('flux' | 'report')[];
  plans?: string[];
  sourceRef?: { kind?: string; name?: string; namespace?: string };
  namespace?: string;
  interval?: string;
  pathPrefix?: string;
  docEntryPointPrefix?: string;
  managementCluster?: string;
  kubeconfigSecrets?: Record<string, { name: string; key?: string }>;
  outputDir?: string;
  checkUnplannedPhases?: boolean;
  gates?: 'report' | 'job';
  packagePath?: string;
  jobs?: {
    namespace?: string;
    serviceAccountName?: string;
    timeout?: string;
    backoffLimit?: number;
    clusterctlImage?: string;
    krmEntrypoints?: Record<string, string[]>;
  };
}

export const OWNER = 'phase-plan-expand';
export const FLUX_API = 'kustomize.toolkit.fluxcd.io/v1';
const ANN_PREFIX = 'baremetal-krm.dev/';

function planKey(o: KubeObject): string {
  return o.namespace ? `${o.namespace}.${o.name}` : o.name;
}

/**
 * A kustomization.yaml listing exactly `resources`: it keeps Flux (which generates a
 * kustomization of every YAML file below a path that has none) from applying the gate folders
 * with the plan's Kustomizations. Local config: kpt functions and \`kpt live\` leave it alone.
 */
function kustomizeFile(name: string, plan: string, resources: string[]): Record<string, unknown> {
  return {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    metadata: { name, annotations: { 'config.kubernetes.io/local-config': 'true', [`${ANN_PREFIX}phase-plan`]: plan } },
    resources,
  };
}

/** The owners (`phase-plan-expand/<plan>`) of the generated items in the input, sorted. */
function generatedOwners(items: readonly KubeObject[]): string[] {
  const owners = new Set<string>();
  for (const o of items) {
    const g = o.annotations[GENERATED_BY];
    if (g?.startsWith(OWNER + '/')) owners.add(g);
  }
  return [...owners].sort();
}

/** The bundle as one plan sees it: its own management cluster. */
function planBundle(b: Bundle, a: PlanAnalysis): Bundle {
  if (a.management === b.management) return b;
  const pb: Bundle = { ...b };
  if (a.management === undefined) delete pb.management;
  else pb.management = a.management;
  return pb;
}

function emit(ctx: { results: Results }, f: Finding): void {
  const tags: Record<string, string> = {};
  if (f.plan !== undefined) tags.plan = f.plan;
  if (f.step !== undefined) tags.step = String(f.step);
  if (f.phase !== undefined) tags.phase = f.phase;
  const opts: ResultOptions = { rule: f.rule, tags };
  if (f.object) opts.object = f.object;
  if (f.field) opts.field = f.field;
  ctx.results.add(f.severity, f.message, opts);
}

export const definition: FunctionDefinition<Spec> = {
  name: 'phase-plan-expand',
  configKind: 'PhasePlanExpand',
  summary:
    'validates Airship PhasePlans, Phases, ClusterMaps and executors statically, and expands each plan into Flux Kustomizations ordered by dependsOn plus a local-config plan report (Markdown)',
  specSchema,
  validateSpec,
  moreHelp: [
    'Rules (tags.rule): plan/unknown-phase, plan/ambiguous-phase, plan/duplicate-step-id, plan/unknown-dependency,',
    'plan/dependency-cycle, plan/shape, plan/empty, plan/validation-executor, plan/before-move (warning), plan/flux-cluster-gone (warning), plan/gate (info),',
    'phase/no-executor, phase/unknown-executor-kind, phase/executor-not-found, phase/no-entrypoint, phase/entrypoint-outside,',
    'phase/unknown-cluster, clustermap/unknown-parent, clustermap/parent-cycle, clustermap/multiple, clustermap/several-roots,',
    'metadata/conflict, config/management-cluster, flux/unsupported-condition, flux/name-collision, plan/name-collision.',
    `Graph extension: a plan entry may carry \`id\` and \`dependsOn: [step id or phase]\`, and a Phase the annotation`,
    `${ANN_PREFIX}depends-on: "a,b"; then steps run by their dependencies instead of in list order.`,
  ].join('\n'),
  run(ctx) {
    const planObjs = ctx.ofKind('PhasePlan', AIRSHIP_GROUP);
    if (planObjs.length === 0) {
      // removing the last plan removes what it generated, like removing any plan
      const gone = generatedOwners(ctx.items);
      for (const g of gone) ctx.pruneGenerated(g);
      ctx.results.info(
        gone.length === 0
          ? 'no PhasePlan (airshipit.org) in the input: nothing to validate or expand'
          : `no PhasePlan (airshipit.org) in the input: removed the items generated for ${gone.map((g) => g.slice(OWNER.length + 1)).join(', ')}`,
        { rule: 'plan/none' },
      );
      return;
    }
    const spec = ctx.spec;
    const outputs = new Set(spec.outputs ?? ['flux', 'report']);
    const sourceRef = {
      kind: spec.sourceRef?.kind ?? 'GitRepository',
      name: spec.sourceRef?.name ?? 'flux-system',
      namespace: spec.sourceRef?.namespace ?? 'flux-system',
    };
    const namespace = spec.namespace ?? 'flux-system';
    const interval = spec.interval ?? '10m';
    const outputDir = spec.outputDir ?? 'phase-plans';
    const settings: Settings = { pathPrefix: spec.pathPrefix ?? '' };
    if (spec.docEntryPointPrefix !== undefined) settings.docEntryPointPrefix = spec.docEntryPointPrefix;
    if (spec.managementCluster !== undefined) settings.managementCluster = spec.managementCluster;

    const bundle = readBundle(ctx.items, settings);
    for (const f of bundle.findings) emit(ctx, f);
    const kubeconfigSecret = (cluster: string) => {
      const o = spec.kubeconfigSecrets?.[cluster];
      if (o) return { name: o.name, key: o.key ?? 'value' };
      const c = bundle.clusters.get(cluster);
      return { name: `${c?.clusterApiName ?? cluster}-kubeconfig`, key: 'value' };
    };
    const jobMode = spec.gates === 'job';
    if (jobMode && !outputs.has('flux'))
      ctx.results.warning(
        'functionConfig spec.gates is "job" but spec.outputs has no "flux": Job gates are ordered by Flux Kustomizations, so every gate stays a gate; add "flux" to spec.outputs',
        {
          rule: 'config',
          field: 'spec.gates',
        },
      );
    const jobs: JobsConfig = {
      namespace: spec.jobs?.namespace ?? namespace,
      timeout: spec.jobs?.timeout ?? '1h',
      backoffLimit: spec.jobs?.backoffLimit ?? 2,
      krmEntrypoints: spec.jobs?.krmEntrypoints ?? {},
    };
    if (spec.jobs?.serviceAccountName) jobs.serviceAccountName = spec.jobs.serviceAccountName;
    if (spec.jobs?.clusterctlImage) jobs.clusterctlImage = spec.jobs.clusterctlImage;
    const packagePath = spec.packagePath ?? '';
    const byKindName = new Map<string, KubeObject>();
    for (const o of ctx.items) if (!byKindName.has(`${o.kind}|${o.name}`)) byKindName.set(`${o.kind}|${o.name}`, o);
    const rc: ReportContext = {
      bundle,
      sourceRef,
      fluxEnabled: outputs.has('flux'),
      kubeconfigSecret,
      namespace,
      jobMode: jobMode && outputs.has('flux'),
    };

    const selected = spec.plans ? new Set(spec.plans) : undefined;
    if (selected)
      for (const n of [...selected].sort())
        if (!planObjs.some((p) => p.name === n))
          ctx.results.error(
            `functionConfig spec.plans names "${n}", which is no PhasePlan in the input (plans: ${planObjs
              .map((p) => p.name)
              .sort()
              .join(', ')})`,
            {
              rule: 'config',
              field: 'spec.plans',
            },
          );

    const sorted = [...planObjs].sort((a, c) => (planKey(a) < planKey(c) ? -1 : planKey(a) > planKey(c) ? 1 : 0));
    const cache = new Map();
    const keepOwners = new Set<string>();
    const analyses: { obj: KubeObject; a: PlanAnalysis; owner: string }[] = [];
    const planErrorsBefore = ctx.results.list.filter((r) => r.severity === 'error').length;
    const usedNames = new Map<string, string>();
    const planDirs = new Map<string, KubeObject>();
    const shown = (o: KubeObject) => (o.namespace ? `${o.namespace}/${o.name}` : o.name);
    for (const obj of sorted) {
      const findings: Finding[] = [];
      const prefix = dnsName(obj.name);
      const a = analysePlan(bundle, settings, obj, cache, findings, prefix);
      // two plans with one DNS name share the output folder, the report and the Kustomization names:
      // the later one (by namespace.name) generates nothing
      const first = planDirs.get(prefix);
      if (first) {
        findings.push({
          severity: 'error',
          rule: 'plan/name-collision',
          message: `PhasePlan ${shown(obj)}: its output (folder ${outputDir}/${prefix}, report ${dnsName(`${obj.name}-plan-report`)}, Kustomizations ${prefix}-*) would overwrite that of PhasePlan ${shown(first)}: both names become "${prefix}"${obj.name === first.name ? ' (the output does not carry the namespace)' : ' once made DNS-1123'}; rename one of them. Nothing is generated for ${shown(obj)}`,
          object: obj,
          field: 'metadata.name',
          plan: obj.name,
        });
        a.errors++;
      } else planDirs.set(prefix, obj);
      const pb = planBundle(bundle, a);
      if (rc.jobMode && a.errors === 0) {
        const inPlan = new Map(a.steps.filter((x) => x.ksName).map((x) => [x.ksName!, x]));
        for (const st of a.steps) {
          if (!st.gate) continue;
          const name = dnsName(`${prefix}-${st.id}`);
          const gateFinding = findings.find((f) => f.rule === 'plan/gate' && f.step === st.num);
          const other = inPlan.get(name);
          if (other) {
            findings.push({
              severity: 'error',
              rule: 'flux/name-collision',
              message: `PhasePlan ${obj.name} step ${st.num} (${st.id}): Job and Kustomization name ${name} is also the name of step ${other.num} (${other.id}) once made DNS-1123; give one step a distinct \`id\``,
              object: obj,
              field: `${st.field}.id`,
              plan: obj.name,
              step: st.num,
              phase: st.phaseName,
            });
            a.errors++;
            continue;
          }
          const d = planJob(st, {
            bundle: pb,
            cfg: jobs,
            name,
            planName: obj.name,
            planLabel: prefix,
            step: `${st.num}/${a.steps.length}`,
            kubeconfigSecret,
            lookup: (kind, n) => byKindName.get(`${kind}|${n}`),
          });
          if ('job' in d) {
            st.job = d.job;
            st.ksName = name;
            inPlan.set(name, st);
            if (gateFinding)
              gateFinding.message = gateFinding.message.replace(
                /; gate: .*$/,
                `; runs as Job ${jobs.namespace}/${name} (${d.job.summary}), applied by Kustomization ${namespace}/${name}`,
              );
          } else {
            st.notJob = d.reason;
            if (gateFinding) gateFinding.message += `; not a Job: ${d.reason}`;
          }
        }
      }
      // Kustomization names must be unique across plans too
      for (const st of first ? [] : a.steps) {
        if (!st.ksName) continue;
        const other = usedNames.get(st.ksName);
        if (other && other !== planKey(obj)) {
          findings.push({
            severity: 'error',
            rule: 'flux/name-collision',
            message: `PhasePlan ${obj.name} step ${st.num} (${st.id}): Kustomization name ${st.ksName} is also generated for PhasePlan ${other}; rename one plan or give the step a distinct \`id\``,
            object: obj,
            field: `${st.field}.id`,
            plan: obj.name,
            step: st.num,
            phase: st.phaseName,
          });
          a.errors++;
        } else usedNames.set(st.ksName, planKey(obj));
      }
      for (const f of findings) emit(ctx, f);
      const owner = `${OWNER}/${planKey(obj)}`;
      if (selected && !selected.has(obj.name)) continue;
      keepOwners.add(owner);
      analyses.push({ obj, a, owner });
    }
    if (spec.checkUnplannedPhases) {
      const used = new Set(analyses.flatMap(({ a }) => a.steps.map((s) => s.phase)));
      for (const ph of [...bundle.phases].sort((x, y) => (x.name < y.name ? -1 : 1))) {
        if (used.has(ph)) continue;
        for (const is of checkPhase(bundle, settings, ph, cache).issues)
          emit(ctx, { ...is, message: `Phase ${ph.name} (in no plan): ${is.message}`, object: ph.obj, phase: ph.name });
      }
    }
    // global problems (ClusterMap, metadata, config) make every plan's output suspect
    const globalErrors =
      bundle.findings.some((f) => f.severity === 'error') ||
      ctx.results.list.slice(0, planErrorsBefore).some((r) => r.severity === 'error');

    for (const { obj, a, owner } of analyses) {
      // an invalid plan keeps what it generated before: nothing half-expanded lands in Git
      if (a.errors > 0 || globalErrors) continue;
      const desired: Desired[] = [];
      const dir = `${outputDir}/${dnsName(obj.name)}`;
      if (outputs.has('flux')) {
        for (const st of a.steps) {
          if (!st.flux && !st.job) continue;
          const { deps, gates } = fluxDeps(a.steps, st);
          const ann: Record<string, string> = {
            [`${ANN_PREFIX}phase-plan`]: obj.name,
            [`${ANN_PREFIX}phase`]: st.phaseName,
            [`${ANN_PREFIX}step`]: `${st.num}/${a.steps.length}`,
          };
          if (gates.length > 0) ann[`${ANN_PREFIX}after-gates`] = gates.map((g) => g.id).join(',');
          if (st.job) {
            const gateDir = `${dir}/gates/${st.ksName}`;
            ann[`${ANN_PREFIX}gate`] = 'job';
            const gks: Record<string, unknown> = {
              interval,
              path: './' + posix.join(packagePath || '.', gateDir),
              prune: true,
              sourceRef: { kind: sourceRef.kind, name: sourceRef.name, namespace: sourceRef.namespace },
            };
            if (deps.length > 0) gks.dependsOn = deps.map((d) => ({ name: d.ksName }));
            gks.wait = true;
            gks.force = true;
            gks.timeout = jobs.timeout;
            desired.push({
              data: {
                apiVersion: FLUX_API,
                kind: 'Kustomization',
                metadata: { name: st.ksName, namespace, labels: { [`${ANN_PREFIX}phase-plan`]: dnsName(obj.name) }, annotations: ann },
                spec: gks,
              },
              path: `${dir}/kustomizations.yaml`,
            });
            for (const o of st.job.objects) desired.push({ data: o, path: `${gateDir}/job.yaml` });
            desired.push({ data: kustomizeFile(st.ksName!, obj.name, ['job.yaml']), path: `${gateDir}/kustomization.yaml` });
            continue;
          }
          const ks: Record<string, unknown> = {
            interval,
            path: st.path,
            prune: st.prune ?? false,
            sourceRef: { kind: sourceRef.kind, name: sourceRef.name, namespace: sourceRef.namespace },
          };
          if (deps.length > 0) ks.dependsOn = deps.map((d) => ({ name: d.ksName }));
          if (st.cluster && a.management !== undefined && st.cluster !== a.management) {
            const sec = kubeconfigSecret(st.cluster);
            ks.kubeConfig = { secretRef: { name: sec.name, key: sec.key } };
          }
          const w = st.wait!;
          ks.wait = w.wait;
          if (w.timeout) ks.timeout = w.timeout;
          if (w.healthCheckExprs.length > 0) ks.healthCheckExprs = w.healthCheckExprs;
          desired.push({
            data: {
              apiVersion: FLUX_API,
              kind: 'Kustomization',
              metadata: {
                name: st.ksName,
                namespace,
                labels: { [`${ANN_PREFIX}phase-plan`]: dnsName(obj.name) },
                annotations: ann,
              },
              spec: ks,
            },
            path: `${dir}/kustomizations.yaml`,
          });
        }
      }
      // the plan folder's own kustomization.yaml lists kustomizations.yaml only, never gates/
      if (rc.jobMode && desired.some((d) => d.path === `${dir}/kustomizations.yaml`))
        desired.push({ data: kustomizeFile(dnsName(obj.name), obj.name, ['kustomizations.yaml']), path: `${dir}/kustomization.yaml` });
      if (outputs.has('report')) {
        const md = renderReport(a, { ...rc, bundle: planBundle(bundle, a) });
        desired.push({
          data: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: dnsName(`${obj.name}-plan-report`),
              annotations: { 'config.kubernetes.io/local-config': 'true', [`${ANN_PREFIX}phase-plan`]: obj.name },
            },
            data: {
              steps: String(a.steps.length),
              kustomizations: String(a.steps.filter((s) => s.flux).length),
              gates: String(a.steps.filter((s) => s.gate).length),
              ...(rc.jobMode ? { jobs: String(a.steps.filter((s) => s.job).length) } : {}),
              'plan.md': md,
            },
          },
          path: `${dir}/report.yaml`,
        });
      }
      ctx.reconcile(owner, desired);
    }
    // plans that went away (or are no longer selected): their items go too
    for (const g of generatedOwners(ctx.items)) if (!keepOwners.has(g)) ctx.pruneGenerated(g);
  },
};
