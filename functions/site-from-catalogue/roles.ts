/** Roles (the `airshipit.org/k8s-role` label): from spec.roles rules, and hosts pinned to a role by the site's phases. */
import type { Context } from '../../src/krm/index.js';
import { compareStrings, isRecord } from '../../src/krm/index.js';
import type { Host } from './inputs.js';
import type { RoleRule, Spec } from './spec.js';

export type Role = 'controlPlane' | 'workers';
export const ROLES: readonly Role[] = ['controlPlane', 'workers'];

/** The label value of a role, as airshipctl's gating type writes it. */
export function roleLabel(role: Role): string {
  return role === 'controlPlane' ? 'controlplane-host' : 'worker';
}

function matchesRule(h: Host, rule: RoleRule): boolean {
  const labels = isRecord(h.entry.labels) ? h.entry.labels : {};
  for (const [k, v] of Object.entries(rule.selector ?? {})) {
    const value = labels[k];
    if ((typeof value === 'number' || typeof value === 'boolean' ? String(value) : value) !== v) return false;
  }
  const profile = typeof h.entry.hardwareProfile === 'string' && h.entry.hardwareProfile ? h.entry.hardwareProfile : 'default';
  return rule.hardwareProfile === undefined || profile === rule.hardwareProfile;
}

/**
 * Roles of the selected hosts: `pinned` hosts first (the site's phases place them), then each
 * rule, control plane first: the hosts it names, or the matching hosts in name order (`count` of them).
 */
export function assignRoles<S>(
  ctx: Context<S>,
  rules: Spec['roles'],
  hosts: Host[],
  pinned: ReadonlyMap<string, Role> = new Map(),
): Map<string, Role> {
  const roles = new Map<string, Role>();
  const selected = new Set(hosts.map((h) => h.name));
  for (const [name, role] of pinned) if (selected.has(name)) roles.set(name, role);
  const sorted = [...hosts].sort((a, b) => compareStrings(a.name, b.name));
  for (const role of ROLES) {
    const rule = rules?.[role];
    if (!rule) continue;
    if (rule.hosts) namedHosts(ctx, role, rule, selected, roles);
    else {
      const candidates = sorted.filter((h) => !roles.has(h.name) && matchesRule(h, rule));
      const n = rule.count ?? candidates.length;
      if (candidates.length < n)
        ctx.results.error(
          `spec.roles.${role}: ${n} host(s) wanted but only ${candidates.length} of the selected hosts match (${candidates.map((h) => h.name).join(', ') || 'none'}); add hosts or relax the rule`,
          { field: `spec.roles.${role}`, rule: 'roles/not-enough-hosts' },
        );
      for (const h of candidates.slice(0, n)) roles.set(h.name, role);
    }
  }
  return roles;
}

function namedHosts<S>(ctx: Context<S>, role: Role, rule: RoleRule, selected: Set<string>, roles: Map<string, Role>): void {
  if (rule.count !== undefined || rule.selector !== undefined || rule.hardwareProfile !== undefined)
    ctx.results.error(`spec.roles.${role}: hosts names the hosts; count, selector and hardwareProfile choose them: give one or the other`, {
      field: `spec.roles.${role}`,
      rule: 'roles/bad-rule',
    });
  for (const [i, name] of (rule.hosts ?? []).entries()) {
    const field = `spec.roles.${role}.hosts[${i}]`;
    const other = roles.get(name);
    if (!selected.has(name))
      ctx.results.error(`${field}: host ${name} is not one of the hosts generated (${[...selected].join(', ') || 'none'})`, {
        field,
        rule: 'roles/unknown-host',
      });
    else if (other !== undefined && other !== role)
      ctx.results.error(`${field}: host ${name} already has the role ${other}; a host has one role`, { field, rule: 'roles/conflict' });
    else roles.set(name, role);
  }
}
