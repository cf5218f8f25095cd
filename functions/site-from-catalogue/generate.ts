/**
 * generate: the airshipctl hostgenerator-m3 template (manifests/function/hostgenerator-m3/
 * hosttemplate.yaml) as code, with its silent failures turned into error results. The steps:
 * which hosts (selection), their entries checked (host-entry.ts), addresses (addresses.ts),
 * roles (roles.ts), documents (render.ts).
 */
import type { Context, KubeObject } from '../../src/krm/index.js';
import { isRecord } from '../../src/krm/index.js';
import { assignAddresses, buildPools } from './addresses.js';
import { checkHostEntry, type HostEntry } from './host-entry.js';
import type { Host, Inputs, Json, Networking } from './inputs.js';
import { inventoryHosts } from './inventory.js';
import { renderHost } from './render.js';
import { assignRoles, type Role } from './roles.js';
import type { Spec } from './spec.js';

export { SOPS_ANNOTATION } from './render.js';

export interface RenderedHost {
  name: string;
  /** folders of the host-generation lists that name it (see selection) */
  folders: string[];
  role?: Role;
  docs: Json[];
}

/** Which hosts, in which order, where the list came from (for results), and the folders of the lists naming them. */
interface Selected {
  name: string;
  object?: KubeObject;
  field: string;
  /** folders (relative to the package) of the host-generation lists that name the host, when lists are in several folders; else `.` */
  folders: string[];
}

/** Folder of an item's file (`.` at the package root or without a path annotation). */
function folderOf(o: KubeObject): string {
  const p = o.file()?.path;
  if (!p) return '.';
  const i = p.lastIndexOf('/');
  return i < 0 ? '.' : p.slice(0, i);
}

function selection(spec: Spec, inputs: Inputs): Selected[] {
  if (spec.hosts) return spec.hosts.map((name, i) => ({ name, field: `spec.hosts[${i}]`, folders: ['.'] }));
  if (!inputs.lists.length) return [...inputs.hosts.keys()].map((name) => ({ name, field: '', folders: ['.'] }));
  // airshipctl: each phase's hostgenerator generates its list's hosts into that phase; a host
  // named by lists in several folders (e.g. ephemeral and target) is generated into each of them;
  // with every list in one folder (the usual single list), hosts go to outputDir as before
  const perFolder = new Set(inputs.lists.map((l) => folderOf(l.object))).size > 1;
  const byName = new Map<string, Selected>();
  for (const l of inputs.lists) {
    const folder = perFolder ? folderOf(l.object) : '.';
    l.names.forEach((name, i) => {
      const seen = byName.get(name);
      if (!seen) byName.set(name, { name, object: l.object, field: `hosts.m3[${i}]`, folders: [folder] });
      else if (!seen.folders.includes(folder)) seen.folders.push(folder);
    });
  }
  return [...byName.values()];
}

interface PlanOptions {
  /** roles the site's phases give hosts (site mode without spec.roles), before spec rules */
  pinnedRoles?: ReadonlyMap<string, Role>;
}

interface GenerateOutcome {
  hosts: RenderedHost[];
  ok: boolean;
}

/** The hosts to write with their documents; ok: false (and nothing to write) after any error. */
export function planHosts<S>(ctx: Context<S>, spec: Spec, inputs: Inputs, opts: PlanOptions = {}): GenerateOutcome {
  const failed: GenerateOutcome = { hosts: [], ok: false };
  const errorsBefore = ctx.results.count('error');
  const ok = () => ctx.results.count('error') === errorsBefore;
  inventoryHosts(ctx, spec, inputs);
  if (inputs.hosts.size === 0 && !spec.hosts?.length) {
    // nothing to generate from: like the other generators, change nothing (hosts generated
    // earlier from a catalogue that is gone are pruned by reconcile)
    ctx.results.info('no hosts in the input (no VariableCatalogue hosts.m3.<name> entries, no HardwareInventory): nothing to generate', {
      rule: 'catalogue/no-hosts',
    });
    return { hosts: [], ok: true };
  }
  const net = checkNetworking(ctx, inputs);
  if (!net || !ok()) return failed;
  warnPlaintextPasswords(ctx, spec, inputs);

  const selected = selectHosts(ctx, spec, inputs);
  const emit = spec.credentials?.mode === 'emit';
  const entries = new Map<string, HostEntry>();
  for (const { host } of selected) {
    const entry = checkHostEntry(ctx, host, inputs, net, emit);
    if (entry) entries.set(host.name, entry);
  }
  if (!ok()) return failed;
  const pools = buildPools(ctx, spec, net);
  if (!ok()) return failed;
  const hosts = selected.map((s) => s.host);
  const addresses = assignAddresses(ctx, inputs, hosts, net, pools);
  const roles = assignRoles(ctx, spec.roles, hosts, opts.pinnedRoles);
  if (!ok()) return failed;
  return { hosts: renderHosts(ctx, spec, selected, entries, { inputs, net, addresses, roles }), ok: true };
}

/** The merged NetworkCatalogue, or undefined after an error; warns about what airshipctl writes silently. */
function checkNetworking<S>(ctx: Context<S>, inputs: Inputs): Networking | undefined {
  const net = inputs.networking;
  if (!net) {
    ctx.results.error(
      "no NetworkCatalogue with spec.commonHostNetworking in the input: add the site's networking catalogue (airshipctl: type/<type>/shared/catalogues/networking.yaml)",
      { rule: 'catalogue/no-networking' },
    );
    return undefined;
  }
  if (inputs.hosts.size === 0) {
    ctx.results.error('no hosts: the input has no VariableCatalogue with hosts.m3.<name> entries and no HardwareInventory items', {
      rule: 'catalogue/no-hosts',
    });
    return undefined;
  }
  reportMerge(ctx, inputs.networkCatalogues, net);
  for (const key of net.missing)
    ctx.results.error(
      `the NetworkCatalogue${inputs.networkCatalogues.length > 1 ? 's' : ''} in the input (${inputs.networkCatalogues.map((o) => describe(o, inputs.networkCatalogues)).join(', ')}) ${inputs.networkCatalogues.length > 1 ? 'have' : 'has'} no spec.commonHostNetworking.${key}: a site's catalogue usually patches the type's, which holds the links and networks; add the type's NetworkCatalogue (airshipctl: type/<type>/shared/catalogues/networking.yaml) to the input before the site's, or write ${key} in the site's`,
      { object: net.source, field: `spec.commonHostNetworking.${key}`, rule: `network/missing-${key}` },
    );
  for (const entry of net.badEntries)
    ctx.results.error(
      `NetworkCatalogue spec.commonHostNetworking.${entry} must be a mapping with a text id (e.g. {id: oam, name: oam, type: phy}): hosts key their MACs and addresses by it`,
      { object: net.source, field: `spec.commonHostNetworking.${entry}`, rule: 'network/bad-entry' },
    );
  if (net.services === undefined || net.services === null)
    ctx.results.warning(
      'NetworkCatalogue spec.commonHostNetworking.services is missing: networkData gets `services: null`, as airshipctl writes it, which cloud-init and glean cannot iterate; set services: [] or the DNS servers ([{address: 8.8.8.8, type: dns}])',
      { object: net.source, field: 'spec.commonHostNetworking.services', rule: 'network/no-services' },
    );
  return net;
}

/** A document as messages name it: `networking (type/gating/shared/catalogues/networking.yaml)`, else by its place among `docs`. */
function describe(o: KubeObject, docs: KubeObject[]): string {
  const file = o.file()?.path;
  return file ? `${o.name} (${file})` : `${o.name} (NetworkCatalogue ${docs.indexOf(o) + 1} of ${docs.length} in the input)`;
}

/** Which NetworkCatalogue document won where several set the same field (their order is the input's: file names decide it). */
function reportMerge<S>(ctx: Context<S>, docs: KubeObject[], net: Networking): void {
  const byWinner = new Map<KubeObject, typeof net.overrides>();
  for (const o of net.overrides) byWinner.set(o.winner, [...(byWinner.get(o.winner) ?? []), o]);
  for (const [winner, list] of byWinner) {
    const losers = [...new Set(list.map((o) => describe(o.loser, docs)))];
    const paths = list.map((o) => o.path);
    const shown = paths.length > 6 ? `${paths.slice(0, 6).join(', ')} and ${paths.length - 6} more` : paths.join(', ');
    ctx.results.info(
      `NetworkCatalogue ${describe(winner, docs)} wins the merge over ${losers.join(', ')} at ${shown}: the ${docs.length} NetworkCatalogue documents merge in input order (the order of their files), the later one wins`,
      { object: winner, field: paths[0], rule: 'network/merge-order' },
    );
  }
}

/** Plaintext credentials in the input: warn, never copy unless told to. */
function warnPlaintextPasswords<S>(ctx: Context<S>, spec: Spec, inputs: Inputs): void {
  const emit = spec.credentials?.mode === 'emit';
  for (const cat of inputs.catalogues) {
    const m3 = (cat.data.hosts as Json).m3 as Json;
    const withPw = Object.entries(m3)
      .filter(([, e]) => isRecord(e) && e.bmcPassword !== undefined && e.bmcPassword !== '')
      .map(([n]) => n);
    if (withPw.length)
      ctx.results.warning(
        `${withPw.length} host(s) have a plaintext bmcPassword in this catalogue (${withPw.join(', ')}): move BMC credentials to a SOPS-encrypted catalogue or to Secrets; ${emit ? 'they are written to SOPS-marked Secrets (credentials.mode: emit): encrypt before committing' : 'they are not copied to the output (credentials.mode: reference)'}`,
        { object: cat, field: 'hosts.m3.*.bmcPassword', rule: 'credentials/plaintext' },
      );
  }
}

function selectHosts<S>(ctx: Context<S>, spec: Spec, inputs: Inputs): { host: Host; folders: string[] }[] {
  const out: { host: Host; folders: string[] }[] = [];
  for (const sel of selection(spec, inputs)) {
    const host = inputs.hosts.get(sel.name);
    if (host) out.push({ host, folders: sel.folders });
    else
      ctx.results.error(
        `host ${sel.name} is listed for generation but is in no host catalogue or HardwareInventory (known: ${[...inputs.hosts.keys()].join(', ')}); add it to hosts.m3 or remove it from the list`,
        { object: sel.object, field: sel.field, rule: 'hosts/unknown-host' },
      );
  }
  return out;
}

export function secretNameFor(spec: Spec, host: string): string {
  return (spec.credentials?.secretName ?? '{host}-bmc-secret').replace(/\{host\}/g, host);
}

interface Plan {
  inputs: Inputs;
  net: Networking;
  addresses: Map<string, Record<string, string>>;
  roles: Map<string, Role>;
}

function renderHosts<S>(
  ctx: Context<S>,
  spec: Spec,
  selected: { host: Host; folders: string[] }[],
  entries: Map<string, HostEntry>,
  plan: Plan,
): RenderedHost[] {
  const ns = spec.namespace ?? 'target-infra';
  const emit = spec.credentials?.mode === 'emit';
  const secrets = new Set(ctx.ofKind('Secret').flatMap((s) => (s.apiVersion === 'v1' ? [s.name] : [])));
  const noSecret: string[] = [];
  const out: RenderedHost[] = [];
  for (const { host, folders } of selected) {
    const entry = entries.get(host.name)!;
    const credentialsName = host.credentialsSecret ?? secretNameFor(spec, host.name);
    const emitSecret = emit && !host.credentialsSecret;
    // sops mode writes the encrypted Secrets itself (sops-secrets.ts)
    if (!emitSecret && spec.credentials?.mode !== 'sops' && !secrets.has(credentialsName)) noSecret.push(credentialsName);
    const role = plan.roles.get(host.name);
    const docs = renderHost(
      ctx,
      {
        host,
        entry,
        role,
        credentialsName,
        profile: plan.inputs.profiles.get(entry.hardwareProfile)!,
        addresses: plan.addresses.get(host.name) ?? {},
      },
      plan.net,
      ns,
      emitSecret,
    );
    out.push({ name: host.name, folders, role, docs });
  }
  if (noSecret.length)
    ctx.results.info(
      `BMC credentials are referenced, not written: create the Secret(s) ${noSecret.join(', ')} in namespace ${ns} (keys username, password), SOPS-encrypted, or set spec.credentials.mode: emit`,
      { rule: 'credentials/to-create' },
    );
  return out;
}
