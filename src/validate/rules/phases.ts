/**
 * airshipctl phases: a PhasePlan's steps name Phases in the input, a Phase's executor document
 * exists, its cluster is in a ClusterMap. Patch files (kustomize patches of a plan or phase) are
 * not checked: what they leave out is in their base.
 */
import type { KubeObject } from '../../krm/index.js';
import { isRecord, scalarText } from '../../krm/index.js';
import type { Head, RuleContext, RuleFamily, Tree } from '../context.js';
import { closest } from '../suggest.js';

interface PlanStep {
  name: string;
  field: string;
  path: (string | number)[];
  /** `group <name> step 3` or `step 3` */
  label: string;
}

interface PhaseRecord {
  o: KubeObject;
  executor?: { kind: string; name: string };
  cluster?: { name: string; inMetadata: boolean };
}

/** The steps of a plan in both shapes: `phases[]` and airshipctl's historical `phaseGroups[].phases[]`. */
function planSteps(tree: Tree): PlanStep[] {
  const out: PlanStep[] = [];
  const groups = Array.isArray(tree.phaseGroups) ? tree.phaseGroups : [];
  groups.forEach((g, gi) => {
    const steps = isRecord(g) && Array.isArray(g.phases) ? g.phases : [];
    const gname = isRecord(g) ? scalarText(g.name) : undefined;
    steps.forEach((step, i) => {
      const name = isRecord(step) ? scalarText(step.name) : undefined;
      if (name)
        out.push({
          name,
          field: `phaseGroups[${gi}].phases[${i}].name`,
          path: ['phaseGroups', gi, 'phases', i, 'name'],
          label: `group ${gname ?? gi + 1} step ${i + 1}`,
        });
    });
  });
  (Array.isArray(tree.phases) ? tree.phases : []).forEach((step, i) => {
    const name = isRecord(step) ? scalarText(step.name) : undefined;
    if (name) out.push({ name, field: `phases[${i}].name`, path: ['phases', i, 'name'], label: `step ${i + 1}` });
  });
  return out;
}

function phaseRecord(o: KubeObject, tree: Tree): PhaseRecord {
  const cfg = isRecord(tree.config) ? tree.config : undefined;
  const ref = cfg && isRecord(cfg.executorRef) ? cfg.executorRef : undefined;
  const kind = ref ? scalarText(ref.kind) : undefined;
  const name = ref ? scalarText(ref.name) : undefined;
  const inMeta = isRecord(tree.metadata) ? scalarText(tree.metadata.clusterName) : undefined;
  const cluster = inMeta ?? scalarText(tree.clusterName);
  return {
    o,
    executor: kind && name ? { kind, name } : undefined,
    cluster: cluster ? { name: cluster, inMetadata: inMeta !== undefined } : undefined,
  };
}

export class PhaseRules implements RuleFamily {
  readonly #plans: { o: KubeObject; steps: PlanStep[] }[] = [];
  readonly #phases: PhaseRecord[] = [];
  readonly #phaseNames = new Set<string>();
  readonly #clusters = new Set<string>();
  #clusterMaps = 0;

  constructor(private readonly ctx: RuleContext) {}

  visit(o: KubeObject, head: Head, tree: Tree | undefined): void {
    if (!tree || head.group !== 'airshipit.org') return;
    if (head.kind === 'Phase') {
      this.#phaseNames.add(head.name);
      if (!this.ctx.isPartial(o)) this.#phases.push(phaseRecord(o, tree));
    } else if (head.kind === 'PhasePlan' && !this.ctx.isPartial(o)) this.#plans.push({ o, steps: planSteps(tree) });
    else if (head.kind === 'ClusterMap') {
      this.#clusterMaps++;
      if (isRecord(tree.map)) for (const k of Object.keys(tree.map)) this.#clusters.add(k);
    }
  }

  finish(): void {
    if (!this.ctx.on('reference')) return;
    for (const plan of this.#plans) for (const step of plan.steps) this.#step(plan.o, step);
    for (const p of this.#phases) this.#phase(p);
  }

  #step(plan: KubeObject, step: PlanStep): void {
    this.ctx.count('lookups');
    if (this.#phaseNames.has(step.name) || this.ctx.external('Phase', undefined, step.name)) return;
    this.ctx.report(
      'reference',
      `PhasePlan ${plan.name} ${step.label} names Phase ${step.name}, which is not in the input: add the Phase or fix the name${closest(step.name, this.#phaseNames)}`,
      { object: plan, field: step.field, path: step.path },
    );
  }

  #phase({ o, executor, cluster }: PhaseRecord): void {
    const { ctx } = this;
    if (executor && !ctx.existsAnywhere(executor.kind, executor.name))
      ctx.report(
        'reference',
        `Phase ${o.name} runs executor ${executor.kind}/${executor.name}, which is not in the input: add the executor document or fix config.executorRef`,
        { object: o, field: 'config.executorRef.name', path: ['config', 'executorRef', 'name'] },
      );
    if (!cluster || this.#clusterMaps === 0 || this.#clusters.has(cluster.name)) return;
    const known = [...this.#clusters].sort().join(', ') || 'none';
    ctx.report(
      'reference',
      `Phase ${o.name} targets cluster ${cluster.name}, which no ClusterMap in the input defines (known: ${known}): fix clusterName or add it to the ClusterMap${closest(cluster.name, this.#clusters)}`,
      cluster.inMetadata
        ? { object: o, field: 'metadata.clusterName', path: ['metadata', 'clusterName'] }
        : { object: o, field: 'clusterName', path: ['clusterName'] },
    );
  }
}
