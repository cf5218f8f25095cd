/**
 * Builds the plan from pairs of trees (base, head): objects are paired by identity (group,
 * kind, namespace, name), so moving a file changes nothing; identical text is unchanged without
 * parsing; every other pair is compared field by field and classified (rules.ts). Linear in
 * the number of objects.
 */
import { compareStrings } from '../krm/index.js';
import { SiteError } from '../report/load.js';
import { lineOfPath } from '../validate/schema.js';
import { IMPACT_CLASSES, type ImpactClass, isImpactClass, rank } from './classes.js';
import { changedPaths } from './diff.js';
import { ALLOW_ANNOTATION, type Impact, PLAN_API_VERSION, PLAN_KIND, type Plan, type PlanChange, type PlanTree } from './model.js';
import { type ChangeInput, fieldNames, impactsOf, type RuleContext } from './rules.js';
import { type Entry, isHost, type Tree } from './tree.js';
import { pushAll } from '../krm/index.js';

export interface TreePair {
  name: string;
  /** what the two sides are (paths, or `ref:path`) */
  baseLabel: string;
  headLabel: string;
  base: Tree;
  head: Tree;
}

/** Host-scoped kinds of metal3.io named after their BareMetalHost. */
const PER_HOST_KINDS = new Set([
  'HostFirmwareSettings',
  'HostFirmwareComponents',
  'HardwareData',
  'PreprovisioningImage',
  'DataImage',
  'HostUpdatePolicy',
  'FirmwareSchema',
]);

function allowedClasses(e: Entry): Set<string> {
  const v = e.object.annotations[ALLOW_ANNOTATION];
  return new Set(
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(isImpactClass),
  );
}

function hostOf(ctx: RuleContext, e: Entry): string | undefined {
  const o = e.object;
  if (isHost(o)) return o.name;
  const key = `${o.namespace ?? ''}/${o.name}`;
  if (o.kind === 'Secret' && o.apiVersion === 'v1') {
    const uses = ctx.head.secretUse().get(key) ?? ctx.base.secretUse().get(key);
    return uses?.length ? [...new Set(uses.map((u) => u.host))].sort().join(', ') : undefined;
  }
  if (o.group === 'metal3.io' && PER_HOST_KINDS.has(o.kind) && (ctx.head.hosts.has(key) || ctx.base.hosts.has(key))) return o.name;
  return undefined;
}

function change(ctx: RuleContext, tree: string, c: ChangeInput): PlanChange {
  const at = c.action === 'removed' ? c.before! : c.after!;
  const allow = allowedClasses(at);
  const impacts: Impact[] = impactsOf(ctx, c)
    .map((f) => ({ class: f.class, reason: f.reason, allowed: allow.has(f.class) }))
    .sort((a, b) => rank(a.class) - rank(b.class));
  const o = at.object;
  const resource: PlanChange['resource'] = { apiVersion: o.apiVersion, kind: o.kind, name: o.name };
  if (o.namespace) resource.namespace = o.namespace;
  const secret = o.kind === 'Secret' && o.apiVersion === 'v1';
  const out: PlanChange = {
    tree,
    action: c.action,
    resource,
    class: impacts[0]!.class,
    reason: impacts[0]!.reason,
    impacts,
    fields: fieldNames(c.paths, secret),
  };
  const host = hostOf(ctx, at);
  if (host) out.host = host;
  if (at.file !== undefined) {
    out.file = at.file;
    const first = c.paths[0];
    out.line = (first && c.action === 'changed' ? lineOfPath(o, first) : undefined) ?? at.line;
  }
  return out;
}

/** An entry's data; a document that does not parse is an input error naming file and line. */
function dataOf(e: Entry): Record<string, unknown> {
  try {
    return e.object.data;
  } catch (err) {
    throw new SiteError(
      `${e.file ?? e.object.id}${e.line ? `:${e.line}` : ''}: does not parse as YAML (${(err as Error).message.split('\n')[0]}): fix the document`,
    );
  }
}

function planTree(pair: TreePair): { changes: PlanChange[]; unchanged: number } {
  const ctx: RuleContext = { base: pair.base, head: pair.head };
  const changes: PlanChange[] = [];
  let unchanged = 0;
  for (const [key, after] of pair.head.entries) {
    const before = pair.base.entries.get(key);
    if (!before) {
      changes.push(change(ctx, pair.name, { action: 'added', after, paths: [] }));
      continue;
    }
    if (before.object.body === after.object.body) {
      unchanged++;
      continue;
    }
    const paths = changedPaths(dataOf(before), dataOf(after));
    changes.push(change(ctx, pair.name, { action: 'changed', before, after, paths }));
  }
  for (const [key, before] of pair.base.entries)
    if (!pair.head.entries.has(key)) changes.push(change(ctx, pair.name, { action: 'removed', before, paths: [] }));
  return { changes, unchanged };
}

export function buildPlan(pairs: readonly TreePair[], failOn: readonly ImpactClass[]): Plan {
  const trees: PlanTree[] = [];
  const changes: PlanChange[] = [];
  let unchanged = 0;
  pairs.forEach((p) => {
    const r = planTree(p);
    pushAll(changes, r.changes);
    unchanged += r.unchanged;
    trees.push({ name: p.name, base: p.baseLabel, head: p.headLabel, objects: { base: p.base.entries.size, head: p.head.entries.size } });
  });
  const order = new Map(pairs.map((p, i) => [p.name, i]));
  changes.sort(
    (a, b) =>
      order.get(a.tree)! - order.get(b.tree)! ||
      rank(a.class) - rank(b.class) ||
      compareStrings(a.host ?? '\uffff', b.host ?? '\uffff') ||
      compareStrings(a.resource.kind, b.resource.kind) ||
      compareStrings(a.resource.namespace ?? '', b.resource.namespace ?? '') ||
      compareStrings(a.resource.name, b.resource.name),
  );
  const failed = IMPACT_CLASSES.filter(
    (c) => failOn.includes(c) && changes.some((x) => x.impacts.some((i) => i.class === c && !i.allowed)),
  );
  return {
    apiVersion: PLAN_API_VERSION,
    kind: PLAN_KIND,
    trees,
    summary: IMPACT_CLASSES.map((c) => ({ class: c, changes: changes.filter((x) => x.class === c).length })),
    changes,
    failOn: IMPACT_CLASSES.filter((c) => failOn.includes(c)),
    failed,
    unchanged,
  };
}
