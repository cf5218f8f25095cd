/**
 * Reading airshipctl documents as they are: host catalogues (`hosts.m3.<name>`), host-generation
 * lists (`hosts.m3: [names]`), the NetworkCatalogue, hardware profiles, and our own
 * HardwareInventory items.
 */
import type { Context, KubeObject } from '../../src/krm/index.js';
import type { HardwareInventorySpec } from '../../src/model/hardware-inventory.js';
import { isRecord as isMap } from '../../src/krm/index.js';

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

export interface Networking {
  links: Json[];
  networks: Json[];
  services: unknown;
  /** addresses that hosts must not get: ironic, control plane endpoint */
  reservedHints: { value: string; what: string }[];
  source?: KubeObject;
}

export interface Profile {
  name: string;
  firmware?: unknown;
  raid?: unknown;
  source?: KubeObject;
  /** `hardwareProfile: {}`: the template's `if not $hardwareProfile` fails on it */
  empty?: boolean;
}

export { isMap };

/** The template's built-in `default` profile (hosttemplate.yaml values.hardwareProfiles.default). */
export const DEFAULT_PROFILE: Profile = { name: 'default', raid: { hardwareRAIDVolumes: [], softwareRAIDVolumes: [] } };

function deepMerge(a: unknown, b: unknown): unknown {
  if (isMap(a) && isMap(b)) {
    const out: Json = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = k in out ? deepMerge(out[k], v) : v;
    return out;
  }
  return b;
}

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
  const hosts = new Map<string, Host>();
  const lists: Inputs['lists'] = [];
  const catalogues: KubeObject[] = [];
  const profiles = new Map<string, Profile>([['default', DEFAULT_PROFILE]]);
  const all = [...extra, ...ctx.items];
  for (const o of all) {
    if (o.kind !== 'VariableCatalogue' || o.group !== AIRSHIP_GROUP) continue;
    const d = o.data;
    const m3 = isMap(d.hosts) ? d.hosts.m3 : undefined;
    if (Array.isArray(m3)) {
      lists.push({ object: o, names: m3.map((n) => String(n)) });
    } else if (isMap(m3)) {
      catalogues.push(o);
      for (const [name, entry] of Object.entries(m3)) {
        const field = `hosts.m3.${name}`;
        if (!isMap(entry)) {
          ctx.results.error(`host ${name}: the catalogue entry must be a mapping of host fields`, {
            object: o,
            field,
            rule: 'catalogue/host-entry',
          });
          continue;
        }
        const prev = hosts.get(name);
        if (prev && JSON.stringify(prev.entry) !== JSON.stringify(entry)) {
          ctx.results.error(`host ${name} is in two host catalogues with different values (${prev.source.id}); keep one`, {
            object: o,
            field,
            rule: 'catalogue/duplicate-host',
          });
          continue;
        }
        if (!prev) hosts.set(name, { name, entry, source: o, field });
      }
    }
    if (isMap(d.hardwareProfile)) {
      // airshipctl convention: VariableCatalogue hardwareprofile-<name> feeds values.hardwareProfiles.<name>
      const name = o.name.replace(/^hardwareprofile-/, '');
      const hp = d.hardwareProfile;
      profiles.set(name, { name, firmware: hp.firmware, raid: hp.raid, source: o, empty: Object.keys(hp).length === 0 });
    }
  }

  // NetworkCatalogue(s): the type's, patched by the site's, merged in input order
  const networkCatalogues = all.filter((o) => o.kind === 'NetworkCatalogue' && o.group === AIRSHIP_GROUP);
  let networking: Networking | undefined;
  if (networkCatalogues.length) {
    let spec: unknown = {};
    let source: KubeObject | undefined;
    for (const o of networkCatalogues) {
      spec = deepMerge(spec, o.data.spec ?? {});
      if (isMap(o.data.spec) && o.data.spec.commonHostNetworking) source = o;
    }
    const s = spec as Json;
    const chn = isMap(s.commonHostNetworking) ? s.commonHostNetworking : undefined;
    if (chn) {
      const reservedHints: Networking['reservedHints'] = [];
      const ironic = isMap(s.ironic) ? s.ironic : {};
      if (typeof ironic.provisioningIp === 'string' && ironic.provisioningIp)
        reservedHints.push({ value: ironic.provisioningIp, what: 'ironic.provisioningIp' });
      if (typeof ironic.dhcpRange === 'string' && ironic.dhcpRange)
        reservedHints.push({ value: ironic.dhcpRange, what: 'ironic.dhcpRange' });
      const k8s = isMap(s.kubernetes) ? s.kubernetes : {};
      const cpe = isMap(k8s.controlPlaneEndpoint) ? k8s.controlPlaneEndpoint : {};
      if (typeof cpe.host === 'string' && cpe.host) reservedHints.push({ value: cpe.host, what: 'kubernetes.controlPlaneEndpoint.host' });
      networking = {
        links: Array.isArray(chn.links) ? (chn.links as Json[]) : [],
        networks: Array.isArray(chn.networks) ? (chn.networks as Json[]) : [],
        services: chn.services,
        reservedHints,
        source,
      };
    }
  }
  return { hosts, lists, catalogues, networking, networkCatalogues, profiles };
}

/** `https://10.0.0.5` + `/redfish/v1/Systems/1` -> `redfish+https://10.0.0.5/redfish/v1/Systems/1`. */
export function redfishAddress(address: string, systemPath: string): string {
  const m = /^([a-z0-9+-]+):\/\/(.*)$/i.exec(address);
  let scheme = 'redfish+https';
  let rest = address;
  if (m) {
    const s = m[1]!.toLowerCase();
    scheme = s === 'https' ? 'redfish+https' : s === 'http' ? 'redfish+http' : s;
    rest = m[2]!;
  }
  rest = rest.replace(/\/+$/, '');
  if (systemPath && !rest.includes('/redfish/')) rest += systemPath.startsWith('/') ? systemPath : '/' + systemPath;
  return `${scheme}://${rest}`;
}
