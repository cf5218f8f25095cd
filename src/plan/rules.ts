/**
 * The impact of one added, removed or changed object: host rules (rules-host.ts), Secrets,
 * Flux Kustomizations, Namespaces, host firmware objects, and the generic rule for the rest.
 * Removals first ask what Flux does with the object (prune), from the tree's own Kustomizations.
 */
import type { KubeObject } from '../krm/index.js';
import { isSensitiveKey } from '../secrets/redact.js';
import { pathText, under } from './diff.js';
import { type Found, hostAdded, hostChanged, hostDeleted } from './rules-host.js';
import { type Entry, identity, isHost, ownerOf, type Tree } from './tree.js';

export interface RuleContext {
  base: Tree;
  head: Tree;
}

export interface ChangeInput {
  action: 'added' | 'removed' | 'changed';
  before?: Entry;
  after?: Entry;
  /** changed paths (changed objects only) */
  paths: string[][];
}

const PRUNE = 'kustomize.toolkit.fluxcd.io/prune';
const RECONCILE = 'kustomize.toolkit.fluxcd.io/reconcile';

const isSecret = (o: KubeObject): boolean => o.kind === 'Secret' && o.apiVersion === 'v1';
const isFluxKustomization = (o: KubeObject): boolean => o.kind === 'Kustomization' && o.group === 'kustomize.toolkit.fluxcd.io';
const isNamespace = (o: KubeObject): boolean => o.kind === 'Namespace' && o.apiVersion === 'v1';

/** What happens in the cluster to an object removed from the tree. */
export function removalFate(ctx: RuleContext, e: Entry): { deleted: boolean; why: string } {
  const o = e.object;
  if (o.isLocalConfig()) return { deleted: false, why: 'local-config: never applied' };
  for (const [key, what] of [
    [PRUNE, 'prune'],
    [RECONCILE, 'reconcile'],
  ] as const)
    if (o.annotations[key] === 'disabled' || o.labels[key] === 'disabled')
      return { deleted: false, why: `left in the cluster: ${key}: disabled (Flux does not ${what} it)` };
  const owner = ownerOf(ctx.base, e);
  if (!owner) return { deleted: true, why: 'assumed pruned: no Flux Kustomization of the tree applies it' };
  const name = `Kustomization ${owner.entry.object.name}`;
  const now = ctx.head.entries.get(identity(owner.entry.object));
  if (!now)
    return owner.prune
      ? { deleted: true, why: `${name} removed with prune: true` }
      : { deleted: false, why: `left in the cluster: ${name} (removed) had prune: false` };
  return now.object.get('spec.prune') === true
    ? { deleted: true, why: `pruned by ${name}` }
    : { deleted: false, why: `left in the cluster: ${name} has prune: false` };
}

/** Key names (never values) of a Secret's data that differ. */
function secretKeys(paths: string[][]): string[] {
  return [...new Set(paths.filter((p) => p[0] === 'data' || p[0] === 'stringData').map((p) => p[1] ?? p[0]!))].sort();
}

function secretChanged(ctx: RuleContext, o: KubeObject, paths: string[][]): Found[] {
  const keys = secretKeys(paths);
  const sops = paths.some((p) => p[0] === 'sops');
  if (keys.length === 0 && !sops && !paths.some((p) => p[0] === 'type')) return [];
  const what = keys.length ? `keys ${keys.join(', ')}` : 'encrypted data';
  const uses = ctx.head.secretUse().get(`${o.namespace ?? ''}/${o.name}`) ?? [];
  const out: Found[] = [];
  for (const u of uses) {
    if (u.role === 'bmc-credentials')
      out.push({
        class: 'credential-rotation',
        reason: `BMC credentials of host ${u.host} changed (${what}; values not shown): BMO registers the host again with them`,
      });
    else
      out.push({ class: 'next-provisioning', reason: `${u.role} of host ${u.host} changed (${what}): used at its next provisioning only` });
  }
  if (uses.length === 0) out.push({ class: 'credential-rotation', reason: `Secret data changed (${what}; values not shown)` });
  return out;
}

function kustomizationChanged(before: KubeObject, after: KubeObject, paths: string[][]): Found[] {
  const out: Found[] = [];
  const text = (o: KubeObject, f: string): string => JSON.stringify(o.get(`spec.${f}`) ?? null);
  for (const f of ['dependsOn', 'path', 'sourceRef', 'targetNamespace'])
    if (paths.some((p) => under(p, 'spec', f)))
      out.push({
        class: 'ordering-change',
        reason: `spec.${f} ${text(before, f)} -> ${text(after, f)}: Flux applies ${f === 'dependsOn' ? 'in another order' : f === 'targetNamespace' ? 'into another namespace (and prunes the old copies)' : 'other manifests'}`,
      });
  const pruneWas = before.get('spec.prune') === true;
  const pruneNow = after.get('spec.prune') === true;
  if (!pruneWas && pruneNow)
    out.push({ class: 'deletion', reason: 'prune: true: Flux now deletes what it applied earlier and is no longer in its path' });
  if (pruneWas && !pruneNow) out.push({ class: 'config-change', reason: 'prune: false: Flux no longer deletes what leaves its path' });
  if (before.get('spec.suspend') !== true && after.get('spec.suspend') === true)
    out.push({ class: 'config-change', reason: 'suspend: true: Flux stops applying it' });
  return out;
}

/** Objects a removed (or GC'ed) pruning Kustomization applied, from the base tree. */
function ownedBy(ctx: RuleContext, k: KubeObject): Entry[] {
  const id = identity(k);
  return [...ctx.base.entries.values()].filter((e) => {
    const owner = ownerOf(ctx.base, e);
    return owner !== undefined && identity(owner.entry.object) === id;
  });
}

function cascadeText(list: Entry[], whose: string): { hosts: number; text: string } {
  const hosts = list.filter((e) => isHost(e.object)).length;
  return {
    hosts,
    text: `${whose} ${list.length} object(s) of this tree${hosts ? `, ${hosts} BareMetalHost(s) among them (deprovisioned)` : ''}`,
  };
}

function removed(ctx: RuleContext, e: Entry): Found[] {
  const o = e.object;
  const fate = removalFate(ctx, e);
  if (!fate.deleted) return [{ class: 'no-runtime-effect', reason: `removed from Git, ${fate.why}` }];
  if (isHost(o)) return hostDeleted(o, fate.why);
  if (isNamespace(o)) {
    const c = cascadeText(ctx.base.byNamespace.get(o.name) ?? [], 'Kubernetes deletes everything in it:');
    return [{ class: 'cascade', reason: `Namespace removed (${fate.why}): ${c.text}` }];
  }
  if (isFluxKustomization(o) && o.get('spec.prune') === true) {
    const c = cascadeText(ownedBy(ctx, o), 'Flux deletes everything it applied:');
    return [{ class: c.hosts ? 'deprovision' : 'deletion', reason: `Kustomization removed with prune: true (${fate.why}): ${c.text}` }];
  }
  const uses = isSecret(o) ? (ctx.head.secretUse().get(`${o.namespace ?? ''}/${o.name}`) ?? []) : [];
  const used = uses.length ? `; still named by ${uses.map((u) => `host ${u.host} (${u.role})`).join(', ')}` : '';
  return [{ class: 'deletion', reason: `removed: ${fate.why}${used}` }];
}

function added(o: KubeObject): Found[] {
  if (o.isLocalConfig()) return [{ class: 'no-runtime-effect', reason: 'new local-config document: never applied' }];
  if (isHost(o)) return hostAdded(o);
  if (isFluxKustomization(o))
    return [
      { class: 'config-change', reason: `new Flux Kustomization: Flux starts applying ${JSON.stringify(o.get('spec.path') ?? '.')}` },
    ];
  return [{ class: 'config-change', reason: 'created' }];
}

function changed(ctx: RuleContext, before: KubeObject, after: KubeObject, paths: string[][]): Found[] {
  if (paths.length === 0) return [{ class: 'no-runtime-effect', reason: 'only formatting, status or tool annotations changed' }];
  if (after.isLocalConfig() && before.isLocalConfig())
    return [{ class: 'no-runtime-effect', reason: 'local-config document: never applied' }];
  let out: Found[] = [];
  if (isHost(after)) out = hostChanged(before, after, paths);
  else if (isSecret(after)) out = secretChanged(ctx, after, paths);
  else if (isFluxKustomization(after)) out = kustomizationChanged(before, after, paths);
  else if (
    after.group === 'metal3.io' &&
    (after.kind === 'HostFirmwareSettings' || after.kind === 'HostFirmwareComponents') &&
    paths.some((p) => p[0] === 'spec')
  )
    out = [
      {
        class: 'next-provisioning',
        reason: `${after.kind} of host ${after.name} changed: applied when the host is next prepared (provisioning, or a reboot under HostUpdatePolicy onReboot)`,
      },
    ];
  if (out.length === 0) out = [{ class: 'config-change', reason: `${fieldList(paths, isSecret(after))} changed` }];
  return out;
}

/** Changed fields as text, Secret values by key name only (`data.password`, never deeper). */
export function fieldNames(paths: string[][], secret: boolean): string[] {
  return [...new Set(paths.map((p) => (secret || isSensitiveKey(p.at(-1) ?? '') ? pathText(p.slice(0, 2)) : pathText(p))))];
}

/** `spec.replicas, spec.template and 3 more`. */
export function fieldList(paths: string[][], secret: boolean, max = 3): string {
  const names = fieldNames(paths, secret);
  return names.length > max ? `${names.slice(0, max).join(', ')} and ${names.length - max} more` : names.join(', ');
}

export function impactsOf(ctx: RuleContext, c: ChangeInput): Found[] {
  if (c.action === 'added') return added(c.after!.object);
  if (c.action === 'removed') return removed(ctx, c.before!);
  return changed(ctx, c.before!.object, c.after!.object, c.paths);
}
