/** The plan report: a Markdown rendering of the ordered steps, where Flux runs, the gates, cluster groups and parallel groups. */
import type { Bundle } from './bundle.js';
import type { PlanAnalysis } from './expand.js';
import { GATES_DONE_ANNOTATION } from './flux.js';
import { descendants, fluxDeps } from './graph.js';
import type { Step } from './steps.js';

export interface ReportContext {
  bundle: Bundle;
  sourceRef: { kind: string; name: string; namespace: string };
  fluxEnabled: boolean;
  kubeconfigSecret: (cluster: string) => { name: string; key: string };
  namespace: string;
  /** `gates: job` (with Flux output): gates that can run unattended became Jobs */
  jobMode?: boolean;
  /** the Kustomizations after gates wait for `baremetal-krm.dev/gates-done` (readyExpr) */
  gateAcks: boolean;
  /** the folder of the Kustomizations a cluster's Flux applies */
  fluxFolder: (cluster: string | undefined) => string;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function ranges(nums: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < nums.length; ) {
    let j = i;
    while (j + 1 < nums.length && nums[j + 1] === nums[j]! + 1) j++;
    out.push(j > i ? `${nums[i]}-${nums[j]}` : String(nums[i]));
    i = j + 1;
  }
  return out.join(', ');
}

export function renderReport(a: PlanAnalysis, rc: ReportContext): string {
  const L: string[] = [];
  summary(L, a, rc);
  stepTable(L, a, rc);
  gateSections(L, a, rc);
  clusterGroups(L, a, rc);
  if (a.graph) {
    L.push('## Parallel groups', '');
    const byLevel: Step[][] = [];
    a.steps.forEach((s, i) => (byLevel[a.levels[i]!] ??= []).push(s));
    byLevel.forEach((g, i) => L.push(`${i + 1}. ${g.map((s) => s.id).join(', ')}`));
    L.push('');
  }
  while (L[L.length - 1] === '') L.pop();
  return L.join('\n') + '\n';
}

/** Kustomizations (steps and Job gates) per Flux host, in plan order. */
function applied(a: PlanAnalysis): Step[] {
  return a.steps.filter((s) => s.flux || s.job);
}

function summary(L: string[], a: PlanAnalysis, rc: ReportContext): void {
  const { plan, steps } = a;
  const gates = steps.filter((s) => s.gate);
  L.push(`# Phase plan ${plan.name}`, '');
  if (plan.description) L.push(plan.description, '');
  const jobs = rc.jobMode ? `, ${steps.filter((s) => s.job).length} of them as Jobs` : '';
  L.push(
    `- steps: ${steps.length} (${plural(steps.filter((s) => s.flux).length, 'Flux Kustomization')}, ${plural(gates.length, 'gate')}${jobs})`,
  );
  const levelCount = steps.length ? Math.max(...a.levels) + 1 : 0;
  L.push(
    a.graph ? `- order: graph (dependsOn), ${plural(levelCount, 'parallel group')}` : '- order: chain, each step after the one before',
  );
  L.push(`- Flux runs on: ${fluxHosts(a, rc)}`);
  L.push(
    `- source: ${rc.sourceRef.kind} ${rc.sourceRef.namespace}/${rc.sourceRef.name}; entry points under \`${rc.bundle.docPrefix || '.'}\``,
  );
  if (!rc.fluxEnabled) L.push('- Flux output is off (spec.outputs): no Kustomizations were generated');
}

function fluxHosts(a: PlanAnalysis, rc: ReportContext): string {
  if (a.fluxHosts.length === 0) return '(none: no ClusterMap root)';
  const used = a.fluxHosts.filter((h) => applied(a).some((s) => s.fluxCluster === h.name));
  if (used.length <= 1) {
    const h = used[0] ?? a.fluxHosts[0]!;
    return `${h.name} (${h.why})`;
  }
  const parts = used.map((h) => {
    const nums = applied(a)
      .filter((s) => s.fluxCluster === h.name)
      .map((s) => s.num);
    return `${h.name} (${h.why}) for steps ${ranges(nums)}, Kustomizations in \`${rc.fluxFolder(h.name)}\``;
  });
  return `${parts.join('; then ')}. Point each cluster's Flux at its own folder: a Kustomization can only depend on Kustomizations of its own Flux`;
}

function stepTable(L: string[], a: PlanAnalysis, rc: ReportContext): void {
  const multi = new Set(applied(a).map((s) => s.fluxCluster)).size > 1;
  L.push('', '## Steps', '');
  L.push('| # | step | phase | cluster | executor | entry point | waits | Flux |', '|---:|---|---|---|---|---|---|---|');
  for (const s of a.steps) {
    const ex = s.executor ? `${s.executor.kind}/${s.executor.name}` : '(unresolved)';
    const waits = s.wait ? s.wait.summary.join('; ') + (s.prune ? '; prune' : '') : '-';
    const on = multi && s.fluxCluster ? ` (Flux on ${s.fluxCluster})` : '';
    let f = '-';
    if (s.flux) f = rc.fluxEnabled ? `Kustomization ${s.ksName}${on}` : 'Kustomization (off)';
    else if (s.job) f = `Job ${s.ksName}${on}`;
    else if (s.gate) f = 'gate';
    L.push(
      `| ${s.num} | ${cell(s.id)} | ${cell(s.phaseName)} | ${cell(s.cluster ?? '-')} | ${cell(ex)} | ${cell(s.path ?? '-')} | ${cell(waits)} | ${cell(f)} |`,
    );
  }
}

function gateSections(L: string[], a: PlanAnalysis, rc: ReportContext): void {
  const gates = a.steps.filter((s) => s.gate);
  const jobs = a.steps.filter((s) => s.job);
  if (rc.jobMode && gates.length > 0) {
    L.push('', '## Gates run as Jobs', '');
    if (jobs.length === 0) L.push('None of the gates can run as a Job (see below).');
    else
      L.push(
        'Each runs as a Job in its own folder `gates/<name>/`, applied by its own Flux Kustomization (`wait: true`, `force: true`) in the dependsOn chain: the steps after it wait for the Job to complete.',
        '',
      );
    for (const g of jobs) L.push(`- step ${g.num} ${g.id}: Job ${g.ksName}: ${g.job!.summary}`);
  }
  const manual = gates.filter((s) => !s.job);
  if (manual.length === 0) return;
  L.push('', rc.jobMode ? '## Gates to run by hand' : '## Gates', '');
  L.push(
    'Flux cannot perform these steps; run each one at its place in the order. The Kustomization after a gate names it in its `baremetal-krm.dev/after-gates` annotation.',
    '',
  );
  for (const g of manual) L.push(`- step ${g.num} ${g.id}: ${g.gate}${g.notJob ? ` (not a Job: ${g.notJob})` : ''}`);
  if (rc.fluxEnabled) gateAcks(L, a, rc);
}

/** With readyExpr, the commands that confirm the gates; without, say that Flux does not wait for them. */
function gateAcks(L: string[], a: PlanAnalysis, rc: ReportContext): void {
  const waiting = applied(a)
    .filter((s) => s.flux)
    .map((s) => ({ s, ...fluxDeps(a.steps, s) }))
    .filter((w) => w.gates.length > 0 && w.deps.length > 0);
  if (waiting.length === 0) return;
  if (!rc.gateAcks) {
    L.push(
      '',
      'Flux does not wait for these gates: a Kustomization after a gate starts once the Kustomizations it depends on are ready. ' +
        'With Flux 2.7 or later and the kustomize-controller feature gate `AdditiveCELDependencyCheck` (spec.flux), it waits until you confirm the gates.',
    );
    return;
  }
  L.push('', 'Each Kustomization below waits (dependsOn readyExpr) until you confirm that the gates before it ran:', '');
  for (const w of waiting)
    L.push(
      `- \`kubectl -n ${rc.namespace} annotate kustomization ${w.s.ksName} ${GATES_DONE_ANNOTATION}=${w.gates.map((g) => g.id).join(',')} --overwrite\``,
    );
}

/** Cluster groups: parents before children, the move barrier, and how Flux reaches each cluster. */
function clusterGroups(L: string[], a: PlanAnalysis, rc: ReportContext): void {
  const { steps } = a;
  const b = rc.bundle;
  L.push('', '## Cluster groups', '');
  const used = [...new Set(steps.map((s) => s.cluster).filter((c): c is string => !!c))];
  used.sort((x, y) => depth(b, x) - depth(b, y) || (x < y ? -1 : x > y ? 1 : 0));
  for (const c of used) {
    const parent = b.clusters.get(c)?.parent;
    const mine = steps.filter((s) => s.cluster === c);
    const notes = [parent ? `child of ${parent}` : '', a.fluxHosts.some((h) => h.name === c) ? 'runs Flux' : ''].filter((n) => n);
    L.push(`### ${c}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`, '');
    const move = steps.find((s) => s.executor?.kind === 'Clusterctl' && s.executor.data.action === 'move' && s.cluster === c);
    if (move) {
      const down = descendants(steps, move.num - 1);
      const before = mine.filter((s) => s !== move && !down.has(s.num - 1)).map((s) => s.num);
      const after = mine.filter((s) => down.has(s.num - 1)).map((s) => s.num);
      L.push(
        `- managed from ${parent ?? 'its parent'} until step ${move.num} (${move.id}): steps ${before.length ? ranges(before) : 'none'}`,
      );
      L.push(`- move barrier: step ${move.num} ${move.id}`);
      L.push(`- self-managed after the move: steps ${after.length ? ranges(after) : 'none'}`);
    } else L.push(`- steps ${ranges(mine.map((s) => s.num))}`);
    if (mine.some((s) => s.flux && s.fluxCluster !== undefined && s.fluxCluster !== c)) {
      const sec = rc.kubeconfigSecret(c);
      const capi = b.clusters.get(c);
      const from = capi?.clusterApiName
        ? ` (Cluster API writes ${capi.clusterApiName}-kubeconfig in namespace ${capi.clusterApiNamespace ?? 'of the Cluster'}; copy it to ${rc.namespace} if that differs)`
        : '';
      L.push(`- kubeconfig: Secret ${rc.namespace}/${sec.name} key \`${sec.key}\`${from}`);
    }
    L.push('');
  }
  const none = steps.filter((s) => !s.cluster && s.phase).map((s) => s.num);
  if (none.length > 0) L.push('### no cluster (host or BMC level, or the current context)', '', `- steps ${ranges(none)}`, '');
}

function depth(b: Bundle, c: string): number {
  let d = 0;
  let cur = b.clusters.get(c)?.parent;
  const seen = new Set<string>();
  while (cur && !seen.has(cur)) {
    seen.add(cur);
    d++;
    cur = b.clusters.get(cur)?.parent;
  }
  return d;
}
