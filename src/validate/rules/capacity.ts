/**
 * Capacity per role (spec.capacity.roles): enough hosts (in enough topology domains) for
 * count.active + count.standby, and the CPU/memory the role's workloads request within its
 * active hosts' capacity less headroom.
 */
import type { KubeObject } from '../../krm/index.js';
import { isRecord, scalarText } from '../../krm/index.js';
import type { Head, RuleContext, RuleFamily, Tree } from '../context.js';
import { parseCpu, parseMemoryMiB } from '../quantity.js';
import type { CapacityRole, HostFact, RoleFact } from '../types.js';

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'ReplicaSet', 'DaemonSet', 'Job', 'Pod']);

/** What a workload asks of the nodes its nodeSelector picks (its tree is not kept). */
interface WorkloadDemand {
  kind: string;
  nodeSelector: Tree;
  /** undefined: a DaemonSet, one pod per host */
  replicas?: number;
  cpu: number;
  memoryMiB: number;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

function demand(kind: string, tree: Tree): WorkloadDemand | undefined {
  const spec = isRecord(tree.spec) ? tree.spec : undefined;
  const template = spec && isRecord(spec.template) ? spec.template : undefined;
  const podSpec = kind === 'Pod' ? spec : template?.spec;
  if (!spec || !isRecord(podSpec)) return undefined;
  let replicas: number | undefined = 1;
  if (kind === 'DaemonSet') replicas = undefined;
  else if (kind !== 'Pod') {
    const r = spec.replicas ?? (kind === 'Job' ? spec.parallelism : undefined);
    replicas = typeof r === 'number' ? r : 1;
  }
  let cpu = 0;
  let memoryMiB = 0;
  for (const c of Array.isArray(podSpec.containers) ? podSpec.containers : []) {
    const req = isRecord(c) && isRecord(c.resources) && isRecord(c.resources.requests) ? c.resources.requests : {};
    cpu += parseCpu(req.cpu) ?? 0;
    memoryMiB += parseMemoryMiB(req.memory) ?? 0;
  }
  return { kind, nodeSelector: isRecord(podSpec.nodeSelector) ? podSpec.nodeSelector : {}, replicas, cpu, memoryMiB };
}

export class CapacityRules implements RuleFamily {
  readonly roles: RoleFact[] = [];
  readonly #workloads: WorkloadDemand[] = [];
  readonly #wanted: CapacityRole[];

  constructor(
    private readonly ctx: RuleContext,
    private readonly hosts: () => HostFact[],
  ) {
    this.#wanted = ctx.spec.capacity?.roles ?? [];
  }

  visit(_o: KubeObject, head: Head, tree: Tree | undefined): void {
    if (!tree || this.#wanted.length === 0 || !WORKLOAD_KINDS.has(head.kind)) return;
    const d = demand(head.kind, tree);
    if (d) this.#workloads.push(d);
  }

  finish(): void {
    for (const role of this.#wanted) this.roles.push(this.#role(role));
  }

  #role(role: CapacityRole): RoleFact {
    const sel = role.selector.matchLabels ?? {};
    const members = this.hosts().filter((h) => Object.entries(sel).every(([k, v]) => h.labels[k] === v));
    const wanted = (role.count?.active ?? 0) + (role.count?.standby ?? 0);
    const fact: RoleFact = { name: role.name, hosts: members.map((h) => h.name).sort(), wanted, cpuRequested: 0, memoryRequestedMiB: 0 };
    this.#hostCount(role, members, fact);
    if (role.nodeSelector && Object.keys(role.nodeSelector).length > 0) this.#resources(role, members, fact);
    return fact;
  }

  #hostCount(role: CapacityRole, members: HostFact[], fact: RoleFact): void {
    const selText =
      Object.entries(role.selector.matchLabels ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(',') || '(all hosts)';
    const counts = `active ${role.count?.active ?? 0} + standby ${role.count?.standby ?? 0}`;
    if (role.topologyKey) {
      const domains = new Set(members.map((h) => h.labels[role.topologyKey!]).filter((v) => v !== undefined));
      fact.domains = domains.size;
      if (fact.wanted > 0 && domains.size < fact.wanted)
        this.ctx.report(
          'capacity-hosts',
          `role ${role.name} needs ${fact.wanted} host(s) (${counts}) on distinct ${role.topologyKey} values, but hosts matching ${selText} span only ${domains.size} (${[...domains].sort().join(', ') || 'none'}): add hosts in other domains or lower the count`,
        );
    } else if (fact.wanted > 0 && members.length < fact.wanted)
      this.ctx.report(
        'capacity-hosts',
        `role ${role.name} needs ${fact.wanted} host(s) (${counts}) but only ${members.length} match ${selText}${members.length ? ' (' + fact.hosts.join(', ') + ')' : ''}: add hosts or fix their labels`,
      );
  }

  #resources(role: CapacityRole, members: HostFact[], fact: RoleFact): void {
    // the hosts that carry the role's load: count.active of them (standbys carry none); a
    // DaemonSet runs one pod on each of them, and capacity is theirs
    const active = role.count?.active && role.count.active < members.length ? members.slice(0, role.count.active) : members;
    const selector = role.nodeSelector ?? {};
    for (const w of this.#workloads) {
      if (!Object.entries(selector).every(([k, v]) => scalarText(w.nodeSelector[k]) === v)) continue;
      const replicas = w.replicas ?? active.length;
      fact.cpuRequested += w.cpu * replicas;
      fact.memoryRequestedMiB += w.memoryMiB * replicas;
    }
    const headroom = (role.headroomPercent ?? this.ctx.spec.capacity?.headroomPercent ?? 0) / 100;
    const known = active.filter((h) => h.hardware?.cpuCount !== undefined && h.hardware?.ramMiB !== undefined);
    if (known.length < active.length) {
      if (fact.cpuRequested > 0 || fact.memoryRequestedMiB > 0)
        this.ctx.report(
          'capacity-resources',
          `role ${role.name}: ${active.length - known.length} of ${active.length} host(s) have no CPU/memory inventory, so capacity cannot be checked: add HardwareInventory or HardwareData for them`,
          {},
          'warning',
        );
    } else {
      fact.cpuCapacity = round2(known.reduce((a, h) => a + h.hardware!.cpuCount!, 0) * (1 - headroom));
      fact.memoryCapacityMiB = Math.floor(known.reduce((a, h) => a + h.hardware!.ramMiB!, 0) * (1 - headroom));
      const over: string[] = [];
      if (fact.cpuRequested > fact.cpuCapacity) over.push(`CPU requests ${round2(fact.cpuRequested)} > ${fact.cpuCapacity} cores`);
      if (fact.memoryRequestedMiB > fact.memoryCapacityMiB)
        over.push(`memory requests ${Math.ceil(fact.memoryRequestedMiB)} MiB > ${fact.memoryCapacityMiB} MiB`);
      if (over.length)
        this.ctx.report(
          'capacity-resources',
          `role ${role.name} is over capacity: ${over.join(', ')} (${known.length} host(s), ${headroom * 100}% headroom): add hosts, lower requests or replicas`,
        );
    }
    fact.cpuRequested = round2(fact.cpuRequested);
    fact.memoryRequestedMiB = Math.ceil(fact.memoryRequestedMiB);
  }
}
