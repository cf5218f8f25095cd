/**
 * Reading airshipctl documents as they are: host catalogues (`hosts.m3.<name>`), host-generation
 * lists (`hosts.m3: [names]`), the NetworkCatalogue(s), hardware profiles, and our own
 * HardwareInventory items.
 */
import type { Context, KubeObject } from '../../src/krm/index.js';
import { isRecord, scalarText } from '../../src/krm/index.js';
import { isDnsSubdomain, toDnsSubdomain } from '../../src/model/dns-name.js';
import type { HardwareInventorySpec } from '../../src/model/hardware-inventory.js';
import { sortedKeys } from './goyaml.js';

/** credentials.ts (worked on in parallel) still reads mappings with this name; new code uses isRecord. */
export { isRecord as isMap };

export const AIRSHIP_GROUP = 'airshipit.org';
export const ROLE_LABEL = 'airshipit.org/k8s-role';

export type Json = Record<string, unknown>;

export interface Host {
  name: string;
  /** the catalogue entry as written (plain data) */
  entry: Json;
  /** the item the host came from, and the field path of its entry, for results */
  source: KubeObject;
  field: string;
  /** from a HardwareInventory: its NICs and discovered values */
  inventory?: { object: KubeObject; spec: HardwareInventorySpec };
  credentialsSecret?: string;
}

/** A field one NetworkCatalogue document set and a later one replaced (documents merge in input order). */
interface MergeOverride {
  path: string;
  winner: KubeObject;
  loser: KubeObject;
}

export interface Networking {
  links: Json[];
  networks: Json[];
  services: unknown;
  /** `links` / `networks` absent from every merged document (a site catalogue without the type's) */
  missing: ('links' | 'networks')[];
  /** entries that are no mapping with an `id` (`links[2]`): left out, reported */
  badEntries: string[];
  /** addresses that hosts must not get: ironic, control plane endpoint */
  reservedHints: { value: string; what: string }[];
  /** `ironic.provisioningInterface`: the link the hosts PXE-boot on (airshipctl's base catalogue: pxe) */
  provisioningInterface?: string;
  /** the document that supplied commonHostNetworking last */
  source?: KubeObject;
  overrides: MergeOverride[];
}

export interface Profile {
  name: string;
  firmware?: unknown;
  raid?: unknown;
  source?: KubeObject;
  /** `hardwareProfile: {}`: the template's `if not $hardwareProfile` fails on it */
  empty?: boolean;
}

/** The template's built-in `default` profile (hosttemplate.yaml values.hardwareProfiles.default). */
const DEFAULT_PROFILE: Profile = { name: 'default', raid: { hardwareRAIDVolumes: [], softwareRAIDVolumes: [] } };

export interface Inputs {
  hosts: Map<string, Host>;
  /** host-generation lists, in input order */
  lists: { object: KubeObject; names: string[] }[];
  catalogues: KubeObject[];
  networking?: Networking;
  networkCatalogues: KubeObject[];
  profiles: Map<string, Profile>;
}

export function readInputs<S>(ctx: Context<S>, extra: KubeObject[] = []): Inputs {
  const all = [...extra, ...ctx.items];
  const inputs: Inputs = {
    hosts: new Map(),
    lists: [],
    catalogues: [],
    networkCatalogues: all.filter((o) => o.kind === 'NetworkCatalogue' && o.group === AIRSHIP_GROUP),
    profiles: new Map([['default', DEFAULT_PROFILE]]),
  };
  for (const o of all) if (o.kind === 'VariableCatalogue' && o.group === AIRSHIP_GROUP) readVariableCatalogue(ctx, o, inputs);
  inputs.networking = readNetworking(inputs.networkCatalogues);
  return inputs;
}

function readVariableCatalogue<S>(ctx: Context<S>, o: KubeObject, inputs: Inputs): void {
  const d = o.data;
  const m3 = isRecord(d.hosts) ? d.hosts.m3 : undefined;
  if (Array.isArray(m3)) {
    // names are host names: a number (`- 1`) is written out, anything else cannot name a host
    inputs.lists.push({ object: o, names: m3.map((n) => scalarText(n) ?? '') });
  } else if (isRecord(m3)) {
    inputs.catalogues.push(o);
    for (const [name, entry] of Object.entries(m3)) readHostEntry(ctx, o, name, entry, inputs.hosts);
  }
  if (isRecord(d.hardwareProfile)) {
    // airshipctl convention: VariableCatalogue hardwareprofile-<name> feeds values.hardwareProfiles.<name>
    const name = o.name.replace(/^hardwareprofile-/, '');
    const hp = d.hardwareProfile;
    inputs.profiles.set(name, { name, firmware: hp.firmware, raid: hp.raid, source: o, empty: Object.keys(hp).length === 0 });
  }
}

function readHostEntry<S>(ctx: Context<S>, o: KubeObject, name: string, entry: unknown, hosts: Map<string, Host>): void {
  const field = `hosts.m3.${name}`;
  if (!isRecord(entry)) {
    ctx.results.error(`host ${name}: the catalogue entry must be a mapping of host fields`, {
      object: o,
      field,
      rule: 'catalogue/host-entry',
    });
    return;
  }
  // the name names the BareMetalHost, its Secrets (<name>-bmc-secret) and its file: a name that is
  // no DNS-1123 name (`../../evil`, `a/b`, `NODE01`) would write invalid objects outside the package
  if (!isDnsSubdomain(name) || name.length > 63) {
    const fix = toDnsSubdomain(name, { max: 63, fallback: 'node' });
    ctx.results.error(
      `host ${JSON.stringify(name)}: not a DNS-1123 name (lowercase letters, digits, '-' and '.', at most 63 characters; try "${fix}"): it names the host's BareMetalHost, Secrets and file; rename it`,
      { object: o, field, rule: 'catalogue/bad-host-name' },
    );
    return;
  }
  const prev = hosts.get(name);
  if (prev && JSON.stringify(prev.entry) !== JSON.stringify(entry)) {
    ctx.results.error(`host ${name} is in two host catalogues with different values (${prev.source.id}); keep one`, {
      object: o,
      field,
      rule: 'catalogue/duplicate-host',
    });
    return;
  }
  if (!prev) hosts.set(name, { name, entry, source: o, field });
}

/** The NetworkCatalogue(s): the type's, patched by the site's, merged in input order (the later wins). */
function readNetworking(docs: KubeObject[]): Networking | undefined {
  if (!docs.length) return undefined;
  let merged: unknown = {};
  let source: KubeObject | undefined;
  const origin = new Map<string, KubeObject>();
  const overrides: MergeOverride[] = [];
  for (const o of docs) {
    merged = mergeInto(merged, o.data.spec ?? {}, 'spec', o, origin, overrides);
    if (isRecord(o.data.spec) && o.data.spec.commonHostNetworking) source = o;
  }
  const spec = merged as Json;
  const chn = isRecord(spec.commonHostNetworking) ? spec.commonHostNetworking : undefined;
  if (!chn) return undefined;
  const missing = (['links', 'networks'] as const).filter((k) => chn[k] === undefined || chn[k] === null);
  const badEntries: string[] = [];
  const entries = (key: 'links' | 'networks'): Json[] =>
    (Array.isArray(chn[key]) ? chn[key] : []).filter((e: unknown, i: number): e is Json => {
      const ok = isRecord(e) && scalarText(e.id) !== undefined && e.id !== '';
      if (!ok) badEntries.push(`${key}[${i}]`);
      return ok;
    });
  const ironic = isRecord(spec.ironic) ? spec.ironic : {};
  return {
    links: entries('links'),
    networks: entries('networks'),
    services: chn.services,
    missing,
    badEntries,
    reservedHints: reservedHints(spec),
    provisioningInterface: typeof ironic.provisioningInterface === 'string' ? ironic.provisioningInterface : undefined,
    source,
    overrides,
  };
}

/** Addresses airshipctl's catalogue gives to ironic and the API endpoint: never allocated to a new host. */
function reservedHints(spec: Json): Networking['reservedHints'] {
  const hints: Networking['reservedHints'] = [];
  const ironic = isRecord(spec.ironic) ? spec.ironic : {};
  if (typeof ironic.provisioningIp === 'string' && ironic.provisioningIp)
    hints.push({ value: ironic.provisioningIp, what: 'ironic.provisioningIp' });
  if (typeof ironic.dhcpRange === 'string' && ironic.dhcpRange) hints.push({ value: ironic.dhcpRange, what: 'ironic.dhcpRange' });
  const k8s = isRecord(spec.kubernetes) ? spec.kubernetes : {};
  const cpe = isRecord(k8s.controlPlaneEndpoint) ? k8s.controlPlaneEndpoint : {};
  if (typeof cpe.host === 'string' && cpe.host) hints.push({ value: cpe.host, what: 'kubernetes.controlPlaneEndpoint.host' });
  return hints;
}

/**
 * Deep merge of mappings (lists and scalars are replaced, as a strategic merge patch does for a
 * CRD without a schema), remembering which document set each value and which later one replaced it.
 */
function mergeInto(
  a: unknown,
  b: unknown,
  path: string,
  doc: KubeObject,
  origin: Map<string, KubeObject>,
  overrides: MergeOverride[],
): unknown {
  if (isRecord(b) && (a === undefined || isRecord(a))) {
    const out: Json = { ...(a ?? {}) };
    for (const [k, v] of Object.entries(b)) out[k] = mergeInto(out[k], v, `${path}.${k}`, doc, origin, overrides);
    return out;
  }
  const before = a === undefined ? undefined : originOf(path, origin);
  if (before && before !== doc && JSON.stringify(sortedKeys(a)) !== JSON.stringify(sortedKeys(b)))
    overrides.push({ path, winner: doc, loser: before });
  origin.set(path, doc);
  return b;
}

/** The document that set a value: at the path, or the mapping around it, or (a mapping now replaced) inside it. */
function originOf(path: string, origin: Map<string, KubeObject>): KubeObject | undefined {
  for (let p = path; p; p = p.slice(0, Math.max(0, p.lastIndexOf('.')))) {
    const o = origin.get(p);
    if (o) return o;
  }
  for (const [p, o] of origin) if (p.startsWith(`${path}.`)) return o;
  return undefined;
}
