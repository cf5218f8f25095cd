/**
 * Roles in a new site follow its phases: a host listed by name in a control plane phase
 * (`target/controlplane`, or `role: controlPlane`) is a control plane host, one in a workers phase
 * a worker. Without spec.roles these placements set the role labels (a phase that selects
 * `hosts: controlPlane` with no host placed takes the first host by name); with spec.roles, a
 * placement that contradicts them is an error. Hosts in no role phase get no role label.
 */
import type { Context } from '../../src/krm/index.js';
import type { RenderedHost } from './generate.js';
import { type Role, ROLES } from './roles.js';
import type { SitePhase, Spec } from './spec.js';

/** A host's role from a phase that lists it by name. */
interface Placement {
  role: Role;
  phase: number;
  /** index in the phase's host list */
  index: number;
}

const ROLE_WORDS: Record<Role, string> = { controlPlane: 'control plane', workers: 'workers' };
const ROLE_NOUNS: Record<Role, string> = { controlPlane: 'a control plane host', workers: 'a worker' };

/** The role of the hosts a phase deploys: its role selector, its `role`, else its folder's name (controlplane, workers). */
function phaseRole(p: SitePhase): Role | undefined {
  if (p.hosts === 'controlPlane' || p.hosts === 'workers') return p.hosts;
  if (p.role) return p.role === 'none' ? undefined : p.role;
  const last = p.path.replace(/\/+$/, '').split('/').pop() ?? '';
  if (/^control-?planes?$/i.test(last)) return 'controlPlane';
  if (/^workers?$/i.test(last)) return 'workers';
  return undefined;
}

function where(phases: SitePhase[], i: number): string {
  return `spec.site.phases[${i}] (${phases[i]!.path})`;
}

/** Hosts the phases list by name in a role phase; a phase whose `role` contradicts its selector, or a host in phases of both roles, is an error. */
export function pinnedRoles<S>(ctx: Context<S>, phases: SitePhase[]): Map<string, Placement> {
  const pinned = new Map<string, Placement>();
  for (const [i, p] of phases.entries()) {
    if (p.role !== undefined && (p.hosts === 'controlPlane' || p.hosts === 'workers') && p.role !== p.hosts)
      ctx.results.error(`${where(phases, i)}: role ${p.role} contradicts hosts: ${p.hosts}; remove role (hosts: ${p.hosts} sets it)`, {
        field: `spec.site.phases[${i}].role`,
        rule: 'site/bad-phase',
      });
    const role = phaseRole(p);
    if (!role || !Array.isArray(p.hosts)) continue;
    for (const [j, name] of p.hosts.entries()) {
      const prev = pinned.get(name);
      if (!prev) pinned.set(name, { role, phase: i, index: j });
      else if (prev.role !== role)
        ctx.results.error(
          `host ${name} is listed in ${where(phases, prev.phase)}, a ${ROLE_WORDS[prev.role]} phase, and in ${where(phases, i)}, a ${ROLE_WORDS[role]} phase: a host has one role; remove it from one of them (or set the phase's role)`,
          { field: `spec.site.phases[${i}].hosts[${j}]`, rule: 'site/role-conflict' },
        );
    }
  }
  return pinned;
}

/** The role rules without spec.roles: the phases' selectors need them (placed hosts come first). */
export function siteRoleRules(phases: SitePhase[], pinned: ReadonlyMap<string, Placement>): Spec['roles'] {
  const roles: NonNullable<Spec['roles']> = {};
  const placedControlPlane = [...pinned.values()].some((p) => p.role === 'controlPlane');
  if (phases.some((p) => p.hosts === 'controlPlane') && !placedControlPlane) roles.controlPlane = { count: 1 };
  if (phases.some((p) => p.hosts === 'workers')) roles.workers = {};
  return roles;
}

/** With spec.roles: a host listed in a role phase must have that role. */
export function checkRolePlacement<S>(
  ctx: Context<S>,
  phases: SitePhase[],
  pinned: ReadonlyMap<string, Placement>,
  hosts: RenderedHost[],
): void {
  for (const h of hosts) {
    const p = pinned.get(h.name);
    if (!p || h.role === undefined || h.role === p.role) continue;
    ctx.results.error(
      `host ${h.name} is listed in ${where(phases, p.phase)}, a ${ROLE_WORDS[p.role]} phase, but spec.roles makes it ${ROLE_NOUNS[h.role]}: name it in spec.roles.${p.role}.hosts, or move it to a ${ROLE_WORDS[h.role]} phase`,
      { field: `spec.site.phases[${p.phase}].hosts[${p.index}]`, rule: 'site/role-conflict' },
    );
  }
}

/** Without spec.roles: say how each role was decided, so the operator can confirm it. */
export function reportRoleDecision<S>(
  ctx: Context<S>,
  phases: SitePhase[],
  pinned: ReadonlyMap<string, Placement>,
  hosts: RenderedHost[],
): void {
  const parts: string[] = [];
  for (const role of ROLES) {
    const names = hosts.filter((h) => h.role === role).map((h) => h.name);
    if (!names.length) continue;
    const listed = names.filter((n) => pinned.get(n)?.role === role);
    const chosen = names.filter((n) => pinned.get(n)?.role !== role);
    const phasesOf = [...new Set(listed.map((n) => phases[pinned.get(n)!.phase]!.path))];
    const how: string[] = [];
    if (listed.length) how.push(`${listed.join(', ')} (listed in ${phasesOf.join(', ')})`);
    if (chosen.length)
      how.push(
        role === 'controlPlane'
          ? `${chosen.join(', ')} (the first host by name, for hosts: controlPlane)`
          : `${chosen.join(', ')} (every other host, for hosts: workers)`,
      );
    parts.push(`${ROLE_WORDS[role]}: ${how.join(' and ')}`);
  }
  const none = hosts.filter((h) => h.role === undefined).map((h) => h.name);
  if (none.length) parts.push(`no role label: ${none.join(', ')} (in no control plane or workers phase)`);
  if (!parts.length) return;
  ctx.results.info(`spec.roles not set: the role labels follow the phases; ${parts.join('; ')}; set spec.roles to choose otherwise`, {
    field: 'spec.roles',
    rule: 'site/decide-roles',
  });
}
