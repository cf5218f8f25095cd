/**
 * Where Flux runs while a plan runs, following the plan's own cluster lifecycle. The ClusterMap
 * root (the ephemeral cluster) exists from the start; a child cluster exists from the steps that
 * use it and becomes self-managed at the `clusterctl move` into it; a BaremetalManager power-off
 * (or an ISO boot of a cluster Flux already ran on) ends a cluster. By default Flux runs on the
 * root and hands over at each move: the steps after a move (those that depend on it) are applied
 * by a Flux on the move's target, so no Kustomization waits for a Flux the plan creates later,
 * and none is left on a cluster the plan powers off. With `spec.managementCluster` one Flux applies
 * every step, and the steps it cannot serve get warnings.
 */
import { rootClusters } from './bundle.js';
import { dependencySet, descendants, descendantsOf } from './graph.js';
import { isMap, str } from './model.js';
import { type PlanScope, type Step, stepFinding, stepLabel } from './steps.js';

/** A cluster Flux runs on for a plan, and why. */
export interface FluxHost {
  name: string;
  why: string;
}

const isMove = (st: Step) => st.executor?.kind === 'Clusterctl' && str(st.executor.data.action) === 'move' && !!st.cluster;

/** Sets every step's `fluxCluster` and returns the clusters Flux runs on for the plan, in order of use. */
export function placeFlux(x: PlanScope, steps: Step[]): FluxHost[] {
  const configured = x.s.managementCluster;
  if (configured !== undefined) {
    for (const st of steps) st.fluxCluster = configured;
    return [{ name: configured, why: 'spec.managementCluster' }];
  }
  const root = x.b.management;
  const hosts: FluxHost[] = root === undefined ? [] : [{ name: root, why: 'the ClusterMap root, from the start of the plan' }];
  const moves = steps.filter(isMove).map((m) => ({ m, after: descendants(steps, m.num - 1) }));
  for (const st of steps) {
    // the Flux of the last move the step depends on, else the root's
    const last = moves.filter(({ after }) => after.has(st.num - 1)).pop();
    const host = last ? last.m.cluster : root;
    if (host !== undefined) st.fluxCluster = host;
    if (last && !hosts.some((h) => h.name === host))
      hosts.push({ name: host!, why: `target of the clusterctl move in step ${last.m.num}: install Flux there once the move is done` });
  }
  return hosts;
}

/** The warnings of the plan's cluster lifecycle: Flux not there yet, a cluster not yet self-managed, a cluster gone. */
export function lifecycleWarnings(x: PlanScope, steps: Step[], hosts: FluxHost[]): void {
  const why = (c: string | undefined) => hosts.find((h) => h.name === c)?.why ?? '';
  for (const h of hosts) notYet(x, steps, h);
  beforeMove(x, steps);
  clusterGone(x, steps, why);
}

/** Flux steps whose Flux runs on a child cluster that the plan has not used yet at that step. */
function notYet(x: PlanScope, steps: Step[], host: FluxHost): void {
  if (!x.b.clusters.get(host.name)?.parent) return;
  const onHost = steps.flatMap((s, i) => (s.cluster === host.name ? [i] : []));
  if (onHost.length === 0) return;
  // the cluster exists from its first step on: every step on it, and every step after one (one walk)
  const exists = descendantsOf(steps, onHost);
  for (const i of onHost) exists.add(i);
  const first = steps[onHost[0]!]!;
  for (const st of steps) {
    if (!st.flux || st.fluxCluster !== host.name || exists.has(st.num - 1)) continue;
    x.out.push(
      stepFinding(x, st, {
        severity: 'warning',
        rule: 'plan/flux-not-yet',
        message:
          `${stepLabel(x.plan.name, st.num, st.id, st.phaseName)}: applied by the Flux on ${host.name} (${host.why}), but the plan first uses ${host.name} at step ${first.num} (${first.id}): ` +
          `this Kustomization waits for a Flux that does not exist yet. Leave spec.managementCluster unset (Flux runs on the ClusterMap root and moves with the clusterctl move)`,
        object: st.phase!.obj,
        field: 'metadata.clusterName',
      }),
    );
  }
}

/** Flux steps on a cluster before the clusterctl move that makes it self-managed. */
function beforeMove(x: PlanScope, steps: Step[]): void {
  const moves = steps.filter(isMove).map((m) => ({ m, after: descendants(steps, m.num - 1), before: dependencySet(steps, m.num - 1) }));
  for (const st of steps) {
    if (!st.flux || !st.cluster) continue;
    const hit = moves.find(({ m, after }) => m.cluster === st.cluster && m !== st && !after.has(st.num - 1));
    if (!hit) continue;
    const { m, before } = hit;
    const when = before.has(st.num - 1) ? 'before' : 'possibly before';
    const parent = x.b.clusters.get(st.cluster)?.parent ?? 'its parent';
    const head = `${stepLabel(x.plan.name, st.num, st.id, st.phaseName)}: runs on ${st.cluster} ${when} step ${m.num} (${m.id}) moves its Cluster API objects there`;
    const tail =
      st.fluxCluster === st.cluster
        ? `; its Flux runs on ${st.cluster} (spec.managementCluster), so Flux must already run there while ${st.cluster} is managed from ${parent}. Leave spec.managementCluster unset to apply it from ${parent}'s Flux until the move`
        : `; ${st.fluxCluster ? `${st.fluxCluster}'s` : 'its'} Flux applies it through the kubeconfig Secret Cluster API writes there, which the move takes away: ` +
          `after the move no Flux reconciles what it applied (the Flux on ${st.cluster} does not own it). Order it after the move to keep it reconciled`;
    st.beforeMove = m.id;
    x.out.push(
      stepFinding(x, st, {
        severity: 'warning',
        rule: 'plan/before-move',
        message: head + tail,
        object: st.phase!.obj,
        field: 'metadata.clusterName',
      }),
    );
  }
}

/** A Flux step after a step that powers off (or re-images) the cluster its Flux runs on: it is never applied. */
function clusterGone(x: PlanScope, steps: Step[], why: (c: string | undefined) => string): void {
  const roots = rootClusters(x.b);
  const operation = (g: Step) => (isMap(g.executor?.data.spec) ? str(g.executor.data.spec.operation) : undefined);
  const gone = steps.filter((g) => {
    if (g.executor?.kind !== 'BaremetalManager') return false;
    // a BaremetalManager phase without clusterName acts on the ephemeral hosts: the ClusterMap root
    const target = g.cluster ?? (roots.length === 1 ? roots[0] : undefined);
    if (target === undefined) return false;
    const op = operation(g);
    // remote-direct boots the host from an ISO: it wipes the cluster only once Flux already ran there
    const fluxRan = () => [...dependencySet(steps, g.num - 1)].some((i) => steps[i]!.flux && steps[i]!.fluxCluster === target);
    return op === 'power-off' || (op === 'remote-direct' && fluxRan());
  });
  if (gone.length === 0) return;
  const target = (g: Step) => g.cluster ?? roots[0]!;
  const after = new Map(gone.map((g) => [g, descendants(steps, g.num - 1)]));
  const lastMove = steps.filter(isMove).pop();
  for (const st of steps) {
    const g = st.flux ? gone.find((c) => target(c) === st.fluxCluster && after.get(c)!.has(st.num - 1)) : undefined;
    if (!g) continue;
    const verb = operation(g) === 'power-off' ? 'powers off' : 'boots from an ISO';
    const fix = lastMove
      ? `Leave spec.managementCluster unset (Flux then moves to ${lastMove.cluster} with the clusterctl move in step ${lastMove.num})`
      : 'Run Flux on a cluster that survives the plan (spec.managementCluster)';
    x.out.push(
      stepFinding(x, st, {
        severity: 'warning',
        rule: 'plan/flux-cluster-gone',
        message: `${stepLabel(x.plan.name, st.num, st.id, st.phaseName)}: runs after step ${g.num} (${g.id}) ${verb} ${st.fluxCluster}, the cluster whose Flux applies it (${why(st.fluxCluster)}); this Kustomization would never be applied. ${fix}`,
        object: st.phase!.obj,
        field: 'metadata.clusterName',
      }),
    );
  }
}
