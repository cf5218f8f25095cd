/** The plan report: a Markdown rendering of the ordered steps, gates, cluster groups and parallel groups. */
import { descendants, type Bundle, type PlanAnalysis, type Step } from './expand.js';

export interface ReportContext {
  bundle: Bundle;
  sourceRef: { kind: string; name: string; namespace: string };
  fluxEnabled: boolean;
  kubeconfigSecret: (cluster: string) => { name: string; key: string };
  namespace: string;
  /** `gates: job` (with Flux output): gates that can run unattended became Jobs */
  jobMode?: boolean;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

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
  const { plan, steps } = a;
  const b = rc.bundle;
  const flux = steps.filter((s) => s.flux);
  const gates = steps.filter((s) => s.gate);
  const jobs = steps.filter((s) => s.job);
  const L: string[] = [];
  L.push(`# Phase plan ${plan.name}`, '');
  if (plan.description) L.push(plan.description, '');
  L.push(
    `- steps: ${steps.length} (${flux.length} Flux Kustomization${flux.length === 1 ? '' : 's'}, ${gates.length} gate${gates.length === 1 ? '' : 's'}${rc.jobMode ? `, ${jobs.length} of them as Jobs` : ''})`,
  );
  const levelCount = steps.length ? Math.max(...a.levels) + 1 : 0;
  L.push(
    a.graph
      ? `- order: graph (dependsOn), ${levelCount} parallel group${levelCount === 1 ? '' : 's'}`
      : '- order: chain, each step after the one before',
  );
  L.push(
    `- management cluster (where Flux runs): ${b.management !== undefined ? `${b.management} (${a.managementWhy})` : '(none: no ClusterMap root)'}`,
  );
  L.push(`- source: ${rc.sourceRef.kind} ${rc.sourceRef.namespace}/${rc.sourceRef.name}; entry points under \`${b.docPrefix || '.'}\``);
  if (!rc.fluxEnabled) L.push('- Flux output is off (spec.outputs): no Kustomizations were generated');
  L.push('', '## Steps', '');
  L.push('| # | step | phase | cluster | executor | entry point | waits | Flux |', '|---:|---|---|---|---|---|---|---|');
  for (const s of steps) {
    const ex = s.executor ? `${s.executor.kind}/${s.executor.name}` : '(unresolved)';
    const waits = s.wait ? s.wait.summary.join('; ') + (s.prune ? '; prune' : '') : '-';
    const f = s.flux
      ? rc.fluxEnabled
        ? `Kustomization ${s.ksName}`
        : 'Kustomization (off)'
      : s.job
        ? `Job ${s.ksName}`
        : s.gate
          ? 'gate'
          : '-';
    L.push(
      `| ${s.num} | ${cell(s.id)} | ${cell(s.phaseName)} | ${cell(s.cluster ?? '-')} | ${cell(ex)} | ${cell(s.path ?? '-')} | ${cell(waits)} | ${cell(f)} |`,
    );
  }
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
  if (manual.length > 0) {
    L.push('', rc.jobMode ? '## Gates to run by hand' : '## Gates', '');
    L.push(
      'Flux cannot perform these steps; run each one at its place in the order. The Kustomization after a gate names it in its `baremetal-krm.dev/after-gates` annotation.',
      '',
    );
    for (const g of manual) L.push(`- step ${g.num} ${g.id}: ${g.gate}${g.notJob ? ` (not a Job: ${g.notJob})` : ''}`);
  }
  // cluster groups: parents before children, then steps without a cluster
  L.push('', '## Cluster groups', '');
  const used = [...new Set(steps.map((s) => s.cluster).filter((c): c is string => !!c))];
  const depth = (c: string) => {
    let d = 0;
    let cur = b.clusters.get(c)?.parent;
    const seen = new Set<string>();
    while (cur && !seen.has(cur)) {
      seen.add(cur);
      d++;
      cur = b.clusters.get(cur)?.parent;
    }
    return d;
  };
  used.sort((x, y) => depth(x) - depth(y) || (x < y ? -1 : x > y ? 1 : 0));
  for (const c of used) {
    const parent = b.clusters.get(c)?.parent;
    const mine = steps.filter((s) => s.cluster === c);
    L.push(`### ${c}${c === b.management ? ' (management)' : parent ? ` (child of ${parent})` : ''}`, '');
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
    if (c !== b.management && mine.some((s) => s.flux)) {
      const sec = rc.kubeconfigSecret(c);
      const capi = b.clusters.get(c);
      L.push(
        `- kubeconfig: Secret ${rc.namespace}/${sec.name} key \`${sec.key}\`${capi?.clusterApiName ? ` (Cluster API writes ${capi.clusterApiName}-kubeconfig in namespace ${capi.clusterApiNamespace ?? 'of the Cluster'}; copy it to ${rc.namespace} if that differs)` : ''}`,
      );
    }
    L.push('');
  }
  const none = steps.filter((s) => !s.cluster && s.phase).map((s) => s.num);
  if (none.length > 0) L.push('### no cluster (host or BMC level, or the current context)', '', `- steps ${ranges(none)}`, '');
  if (a.graph) {
    L.push('## Parallel groups', '');
    const byLevel: Step[][] = [];
    steps.forEach((s, i) => (byLevel[a.levels[i]!] ??= []).push(s));
    byLevel.forEach((g, i) => L.push(`${i + 1}. ${g.map((s) => s.id).join(', ')}`));
    L.push('');
  }
  while (L[L.length - 1] === '') L.pop();
  return L.join('\n') + '\n';
}
