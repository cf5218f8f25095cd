/**
 * phase-plan-expand: validates Airship PhasePlans, Phases, ClusterMaps and executors
 * statically, and expands every plan into Flux Kustomizations chained by `dependsOn` plus a
 * local-config plan report, so a plan becomes ordered GitOps output.
 */
import {
  type Context,
  type FunctionDefinition,
  GENERATED_BY,
  type JsonSchema,
  type KubeObject,
  lazy,
  type Results,
  type ResultOptions,
} from '../../src/krm/index.js';
import { type Bundle, type Finding, readBundle, type Settings } from './bundle.js';
import { analysePlan, type PlanAnalysis } from './expand.js';
import { dnsName, fluxFeatures } from './flux.js';
import validateSpec from './generated/spec.validate.js';
import { type JobsConfig, planJob } from './jobs.js';
import { AIRSHIP_GROUP } from './model.js';
import { type OutputConfig, planOutputs } from './outputs.js';
import { checkPhase, type PhaseCache } from './phase-check.js';
import { type Step, unbuiltHint } from './steps.js';

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
  flux?: { version?: string; featureGates?: string[] };
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

const planKey = (o: KubeObject) => (o.namespace ? `${o.namespace}.${o.name}` : o.name);
const shown = (o: KubeObject) => (o.namespace ? `${o.namespace}/${o.name}` : o.name);

/** The owners (`phase-plan-expand/<plan>`) of the generated items in the input, sorted. */
function generatedOwners(items: readonly KubeObject[]): string[] {
  const owners = new Set<string>();
  for (const o of items) {
    const g = o.annotations[GENERATED_BY];
    if (g?.startsWith(OWNER + '/')) owners.add(g);
  }
  return [...owners].sort();
}

function emit(results: Results, f: Finding): void {
  const tags: Record<string, string> = {};
  if (f.plan !== undefined) tags.plan = f.plan;
  if (f.step !== undefined) tags.step = String(f.step);
  if (f.phase !== undefined) tags.phase = f.phase;
  const opts: ResultOptions = { rule: f.rule, tags };
  if (f.object) opts.object = f.object;
  if (f.field) opts.field = f.field;
  results.add(f.severity, f.message, opts);
}

interface RunConfig {
  settings: Settings;
  out: OutputConfig;
}

interface ConfigProblem {
  severity: 'error' | 'warning';
  message: string;
  field: string;
}

/** The functionConfig with its defaults, and what is wrong with it (reported after the bundle's findings). */
function readConfig(ctx: Context<Spec>): { settings: Settings; out: Omit<OutputConfig, 'kubeconfigSecret'>; problems: ConfigProblem[] } {
  const spec = ctx.spec;
  const outputs = new Set<string>(spec.outputs ?? ['flux', 'report']);
  const namespace = spec.namespace ?? 'flux-system';
  const settings: Settings = { pathPrefix: spec.pathPrefix ?? '' };
  if (spec.docEntryPointPrefix !== undefined) settings.docEntryPointPrefix = spec.docEntryPointPrefix;
  if (spec.managementCluster !== undefined) settings.managementCluster = spec.managementCluster;
  if (spec.packagePath !== undefined) settings.packagePath = spec.packagePath;
  const problems: ConfigProblem[] = [];
  if (spec.gates === 'job' && !outputs.has('flux'))
    problems.push({
      severity: 'warning',
      message:
        'functionConfig spec.gates is "job" but spec.outputs has no "flux": Job gates are ordered by Flux Kustomizations, so every gate stays a gate; add "flux" to spec.outputs',
      field: 'spec.gates',
    });
  const flux = fluxFeatures(spec.flux?.version, spec.flux?.featureGates ?? []);
  for (const p of flux.problems) problems.push({ severity: 'error', message: `functionConfig ${p}`, field: 'spec.flux' });
  const jobs: JobsConfig = {
    namespace: spec.jobs?.namespace ?? namespace,
    timeout: spec.jobs?.timeout ?? '1h',
    backoffLimit: spec.jobs?.backoffLimit ?? 2,
    krmEntrypoints: spec.jobs?.krmEntrypoints ?? {},
  };
  if (spec.jobs?.serviceAccountName) jobs.serviceAccountName = spec.jobs.serviceAccountName;
  if (spec.jobs?.clusterctlImage) jobs.clusterctlImage = spec.jobs.clusterctlImage;
  const sourceRef = {
    kind: spec.sourceRef?.kind ?? 'GitRepository',
    name: spec.sourceRef?.name ?? 'flux-system',
    namespace: spec.sourceRef?.namespace ?? 'flux-system',
  };
  const out = {
    outputs,
    sourceRef,
    namespace,
    interval: spec.interval ?? '10m',
    outputDir: spec.outputDir ?? 'phase-plans',
    packagePath: spec.packagePath ?? '',
    jobs,
    jobMode: spec.gates === 'job' && outputs.has('flux'),
    flux: flux.features,
  };
  return { settings, out, problems };
}

/** Per cluster, the Secret holding its kubeconfig: configured, else `<clusterAPI name>-kubeconfig` as Cluster API writes it. */
function kubeconfigSecrets(spec: Spec, bundle: Bundle): (cluster: string) => { name: string; key: string } {
  return (cluster) => {
    const o = spec.kubeconfigSecrets?.[cluster];
    if (o) return { name: o.name, key: o.key ?? 'value' };
    return { name: `${bundle.clusters.get(cluster)?.clusterApiName ?? cluster}-kubeconfig`, key: 'value' };
  };
}

/** The spec's JSON schema, for --help and the docs only: not built at every start. */
const specSchema = lazy(() => require('./spec.schema.json') as JsonSchema, './spec.schema.json', import.meta.url);

export const definition: FunctionDefinition<Spec> = {
  name: 'phase-plan-expand',
  configKind: 'PhasePlanExpand',
  summary:
    'validates Airship PhasePlans, Phases, ClusterMaps and executors statically, and expands each plan into Flux Kustomizations ordered by dependsOn plus a local-config plan report (Markdown)',
  get specSchema() {
    return specSchema();
  },
  validateSpec,
  moreHelp: [
    'Rules (tags.rule): plan/unknown-phase, plan/ambiguous-phase, plan/unbuilt-input, plan/duplicate-step-id, plan/unknown-dependency,',
    'plan/dependency-cycle, plan/shape, plan/empty, plan/validation-executor, plan/before-move (warning), plan/flux-not-yet (warning),',
    'plan/flux-cluster-gone (warning), plan/gate (info), phase/no-executor, phase/unknown-executor-kind, phase/executor-not-found,',
    'phase/no-entrypoint, phase/entrypoint-outside, phase/entrypoint-missing, phase/needs-plugins, phase/plugins-unchecked (warning),',
    'phase/entrypoint-unchecked (info), phase/unknown-cluster, clustermap/unknown-parent, clustermap/parent-cycle, clustermap/multiple,',
    'clustermap/several-roots, metadata/conflict, config/management-cluster, config, flux/unsupported-condition, flux/needs-newer-flux,',
    'flux/absent-field, flux/name-collision, plan/name-collision.',
    'Graph extension: a plan entry may carry `id` and `dependsOn: [step id or phase]`, and a Phase the annotation',
    'baremetal-krm.dev/depends-on: "a,b"; then steps run by their dependencies instead of in list order.',
  ].join('\n'),
  run(ctx) {
    const planObjs = ctx.ofKind('PhasePlan', AIRSHIP_GROUP);
    if (planObjs.length === 0) return removeAll(ctx);
    const cfg = readConfig(ctx);
    const bundle = readBundle(ctx.items, cfg.settings);
    for (const f of bundle.findings) emit(ctx.results, f);
    for (const p of cfg.problems) ctx.results.add(p.severity, p.message, { rule: 'config', field: p.field });
    const out: OutputConfig = { ...cfg.out, kubeconfigSecret: kubeconfigSecrets(ctx.spec, bundle) };
    checkSelection(ctx, planObjs);
    const globalErrorsBefore = ctx.results.list.some((r) => r.severity === 'error');
    const cache: PhaseCache = new Map();
    const analyses = analysePlans(ctx, { settings: cfg.settings, out }, bundle, planObjs, cache);
    if (ctx.spec.checkUnplannedPhases) checkUnplanned(ctx, bundle, cfg.settings, analyses, cache);
    if (!bundle.pkg.hasPaths && analyses.some(({ a }) => a.steps.some((s) => s.flux)))
      ctx.results.info(
        'entry points not checked: the input carries no file paths (config.kubernetes.io/path), as from kustomize or a plain YAML stream; run phase-plan-expand with kpt fn render on the package that holds the entry points to check that they exist and build without kustomize plugins',
        { rule: 'phase/entrypoint-unchecked' },
      );
    // global problems (ClusterMap, metadata, config) make every plan's output suspect
    const globalErrors = globalErrorsBefore || bundle.findings.some((f) => f.severity === 'error');
    const keep = new Set<string>();
    for (const { obj, a, selected } of analyses) {
      if (!selected) continue;
      const owner = `${OWNER}/${planKey(obj)}`;
      keep.add(owner);
      // an invalid plan keeps what it generated before: nothing half-expanded lands in Git
      if (a.errors === 0 && !globalErrors) ctx.reconcile(owner, planOutputs(bundle, a, out));
    }
    // plans that went away (or are no longer selected): their items go too
    for (const g of generatedOwners(ctx.items)) if (!keep.has(g)) ctx.pruneGenerated(g);
  },
};

/** No PhasePlan: removing the last plan removes what it generated, like removing any plan. */
function removeAll(ctx: Context<Spec>): void {
  const gone = generatedOwners(ctx.items);
  for (const g of gone) ctx.pruneGenerated(g);
  ctx.results.info(
    gone.length === 0
      ? 'no PhasePlan (airshipit.org) in the input: nothing to validate or expand'
      : `no PhasePlan (airshipit.org) in the input: removed the items generated for ${gone.map((g) => g.slice(OWNER.length + 1)).join(', ')}`,
    { rule: 'plan/none' },
  );
}

function checkSelection(ctx: Context<Spec>, planObjs: KubeObject[]): void {
  const names = planObjs.map((p) => p.name).sort();
  for (const n of [...new Set(ctx.spec.plans ?? [])].sort())
    if (!names.includes(n))
      ctx.results.error(`functionConfig spec.plans names "${n}", which is no PhasePlan in the input (plans: ${names.join(', ')})`, {
        rule: 'config',
        field: 'spec.plans',
      });
}

interface Analysed {
  obj: KubeObject;
  a: PlanAnalysis;
  selected: boolean;
}

/** Analyses every plan (by namespace, name), then what only the plans together decide: output names, Job gates. */
function analysePlans(ctx: Context<Spec>, cfg: RunConfig, bundle: Bundle, planObjs: KubeObject[], cache: PhaseCache): Analysed[] {
  const sorted = [...planObjs].sort((a, c) => (planKey(a) < planKey(c) ? -1 : planKey(a) > planKey(c) ? 1 : 0));
  const selected = ctx.spec.plans ? new Set(ctx.spec.plans) : undefined;
  const planDirs = new Map<string, KubeObject>();
  const usedNames = new Map<string, string>();
  const byKindName = new Map<string, KubeObject>();
  for (const o of ctx.items) if (!byKindName.has(`${o.kind}|${o.name}`)) byKindName.set(`${o.kind}|${o.name}`, o);
  const lookup = (kind: string, name: string) => byKindName.get(`${kind}|${name}`);
  const analysed: Analysed[] = [];
  // several documents of one identity: an unbuilt input (a patch read as a plan); none of them is expanded
  const copies = new Map<string, number>();
  for (const o of sorted) copies.set(planKey(o), (copies.get(planKey(o)) ?? 0) + 1);
  for (const obj of sorted) {
    const findings: Finding[] = [];
    const prefix = dnsName(obj.name);
    const first = planDirs.get(prefix);
    if (first && planKey(first) === planKey(obj)) {
      // a second copy: the first one's analysis says it all
      emit(ctx.results, unbuiltPlan(obj, first));
      continue;
    }
    const a = analysePlan(bundle, cfg.settings, obj, cache, findings, { ksPrefix: prefix, flux: cfg.out.flux });
    if (first) outputCollision(obj, first, a, findings, cfg.out.outputDir);
    else planDirs.set(prefix, obj);
    if (copies.get(planKey(obj))! > 1) a.errors++;
    if (cfg.out.jobMode && a.errors === 0) assignJobs(bundle, cfg.out, obj, a, findings, lookup);
    // Kustomization names must be unique across plans too
    if (!first) crossPlanNames(obj, a, findings, usedNames);
    for (const f of findings) emit(ctx.results, f);
    analysed.push({ obj, a, selected: !selected || selected.has(obj.name) });
  }
  return analysed;
}

function unbuiltPlan(obj: KubeObject, first: KubeObject): Finding {
  return {
    severity: 'error',
    rule: 'plan/unbuilt-input',
    message: `PhasePlan ${shown(obj)}: ${unbuiltHint([first, obj])}. Nothing is generated for it`,
    object: obj,
    field: 'metadata.name',
    plan: obj.name,
  };
}

/** Two plans with one DNS name share the output folder, the report and the Kustomization names: the later one generates nothing. */
function outputCollision(obj: KubeObject, first: KubeObject, a: PlanAnalysis, findings: Finding[], outputDir: string): void {
  const prefix = dnsName(obj.name);
  a.errors++;
  const why = obj.name === first.name ? ' (the output does not carry the namespace)' : ' once made DNS-1123';
  findings.push({
    severity: 'error',
    rule: 'plan/name-collision',
    message:
      `PhasePlan ${shown(obj)}: its output (folder ${outputDir}/${prefix}, report ${dnsName(`${obj.name}-plan-report`)}, Kustomizations ${prefix}-*) ` +
      `would overwrite that of PhasePlan ${shown(first)}: both names become "${prefix}"${why}; rename one of them. Nothing is generated for ${shown(obj)}`,
    object: obj,
    field: 'metadata.name',
    plan: obj.name,
  });
}

function crossPlanNames(obj: KubeObject, a: PlanAnalysis, findings: Finding[], usedNames: Map<string, string>): void {
  for (const st of a.steps) {
    if (!st.ksName) continue;
    const other = usedNames.get(st.ksName);
    if (!other || other === planKey(obj)) {
      usedNames.set(st.ksName, planKey(obj));
      continue;
    }
    nameCollision(
      obj,
      st,
      a,
      findings,
      `Kustomization name ${st.ksName} is also generated for PhasePlan ${other}; rename one plan or give the step a distinct \`id\``,
    );
  }
}

/** Two generated objects with one name: an error on the step's `id`, and the plan generates nothing. */
function nameCollision(obj: KubeObject, st: Step, a: PlanAnalysis, findings: Finding[], what: string): void {
  findings.push({
    severity: 'error',
    rule: 'flux/name-collision',
    message: `PhasePlan ${obj.name} step ${st.num} (${st.id}): ${what}`,
    object: obj,
    field: `${st.field}.id`,
    plan: obj.name,
    step: st.num,
    phase: st.phaseName,
  });
  a.errors++;
}

/** `gates: job`: each gate that can run unattended becomes a Job; the gate's info result says which, or why not. */
function assignJobs(
  bundle: Bundle,
  cfg: OutputConfig,
  obj: KubeObject,
  a: PlanAnalysis,
  findings: Finding[],
  lookup: (kind: string, name: string) => KubeObject | undefined,
): void {
  const prefix = dnsName(obj.name);
  const inPlan = new Map(a.steps.filter((x) => x.ksName).map((x) => [x.ksName!, x]));
  for (const st of a.steps) {
    if (!st.gate) continue;
    const name = dnsName(`${prefix}-${st.id}`);
    const gateFinding = findings.find((f) => f.rule === 'plan/gate' && f.step === st.num);
    const other = inPlan.get(name);
    if (other) {
      const what = `Job and Kustomization name ${name} is also the name of step ${other.num} (${other.id}) once made DNS-1123; give one step a distinct \`id\``;
      nameCollision(obj, st, a, findings, what);
      continue;
    }
    const d = planJob(st, {
      bundle,
      fluxCluster: st.fluxCluster,
      cfg: cfg.jobs,
      name,
      planName: obj.name,
      planLabel: prefix,
      step: `${st.num}/${a.steps.length}`,
      kubeconfigSecret: cfg.kubeconfigSecret,
      lookup,
    });
    if ('job' in d) {
      st.job = d.job;
      st.ksName = name;
      inPlan.set(name, st);
      if (gateFinding)
        gateFinding.message = gateFinding.message.replace(
          /; gate: .*$/,
          `; runs as Job ${cfg.jobs.namespace}/${name} (${d.job.summary}), applied by Kustomization ${cfg.namespace}/${name}`,
        );
    } else {
      st.notJob = d.reason;
      if (gateFinding) gateFinding.message += `; not a Job: ${d.reason}`;
    }
  }
}

function checkUnplanned(ctx: Context<Spec>, bundle: Bundle, settings: Settings, analyses: Analysed[], cache: PhaseCache): void {
  const used = new Set(analyses.filter((x) => x.selected).flatMap(({ a }) => a.steps.map((s) => s.phase)));
  for (const ph of [...bundle.phases].sort((x, y) => (x.name < y.name ? -1 : 1))) {
    if (used.has(ph)) continue;
    for (const is of checkPhase(bundle, settings, ph, cache).issues)
      emit(ctx.results, { ...is, message: `Phase ${ph.name} (in no plan): ${is.message}`, object: ph.obj, phase: ph.name });
  }
}
