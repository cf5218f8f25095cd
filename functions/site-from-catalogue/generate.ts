/**
 * generate: the airshipctl hostgenerator-m3 template (manifests/function/hostgenerator-m3/
 * hosttemplate.yaml) as code, with its silent failures turned into error results.
 */
import { yamlLib } from '../../src/krm/index.js';

const yamlParse = (
  src: string,
  options?: import('yaml').ParseOptions & import('yaml').DocumentOptions & import('yaml').SchemaOptions,
): unknown => yamlLib().parse(src, options);
import type { Context, KubeObject } from '../../src/krm/index.js';
import { INVENTORY_KIND, type HardwareInventorySpec } from '../../src/model/hardware-inventory.js';
import { indent, sortedKeys, toYaml } from './goyaml.js';
import { canonicalIp, type Family, isIpAddress, netmaskPrefix, parseCidr, parseIp, parseRange } from '../../src/model/ip.js';
import { Pool } from './ipam.js';
import { isMap, redfishAddress, ROLE_LABEL, type Host, type Inputs, type Json, type Networking, type Profile } from './inputs.js';
import type { Spec, RoleRule } from './spec.js';
import { compareStrings } from '../../src/krm/index.js';
import { chooseBootMac } from '../../src/model/host-policy.js';

export const MAC_RE = /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/;
const BOOT_MODES = ['UEFI', 'UEFISecureBoot', 'legacy'];
export const SOPS_ANNOTATION = 'baremetal-krm.dev/sops-encrypted-regex';

export interface RenderedHost {
  name: string;
  /** folders of the host-generation lists that name it (see selection) */
  folders: string[];
  role?: 'controlPlane' | 'workers';
  docs: Json[];
}

function str(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : String(v);
}

export function secretNameFor(spec: Spec, host: string): string {
  return (spec.credentials?.secretName ?? '{host}-bmc-secret').replace(/\{host\}/g, host);
}

/** The networkData text exactly as the template writes it (block scalar content). */
export function renderNetworkData(net: Networking, macs: Record<string, string>, ips: Record<string, string>): string {
  let s = 'links:';
  for (const link of net.links) {
    s += '\n-\n' + indent(toYaml(link), 2);
    const mac = macs[String(link.id)];
    if (mac) s += '\n  ethernet_mac_address: ' + mac;
  }
  s += '\nnetworks:';
  for (const n of net.networks) {
    s += '\n-\n' + indent(toYaml(n), 2);
    s += '\n  ip_address: ' + (ips[String(n.id)] ?? '');
  }
  // sprig toYaml of a missing value is `null`, as airshipctl writes it (planHosts warns)
  s += '\nservices:\n' + indent(toYaml(net.services ?? null), 2) + '\n';
  return s;
}

/** Hosts from HardwareInventory items, merged with catalogue entries of the same name. */
function inventoryHosts<S>(ctx: Context<S>, spec: Spec, inputs: Inputs): void {
  for (const o of ctx.ofKind(INVENTORY_KIND, 'baremetal-krm.dev')) {
    const inv = o.data.spec as HardwareInventorySpec | undefined;
    if (!inv || !isMap(inv.bmc) || !Array.isArray(inv.nics)) {
      ctx.results.error('HardwareInventory has no spec.bmc or spec.nics: re-run bmh-from-redfish discover', {
        object: o,
        field: 'spec',
        rule: 'inventory/invalid',
      });
      continue;
    }
    const nics = [...inv.nics].sort((a, b) => compareStrings(a.id, b.id));
    // the same boot NIC bmh-from-redfish would choose (boot order, PXE/HTTP boot, then first enabled physical NIC)
    const bootMac = chooseBootMac(inv.nics).mac;
    const boot = bootMac ? nics.find((n) => n.mac === bootMac) : undefined;
    const linkMacs: Record<string, string> = {};
    for (const [link, nicId] of Object.entries(spec.inventory?.linkNics ?? {})) {
      const nic = nics.find((n) => n.id === nicId);
      if (!nic) {
        ctx.results.error(
          `spec.inventory.linkNics.${link}: host ${o.name} has no NIC "${nicId}" (it has ${nics.map((n) => n.id).join(', ') || 'none'})`,
          {
            object: o,
            field: 'spec.nics',
            rule: 'inventory/unknown-nic',
          },
        );
        continue;
      }
      linkMacs[link] = nic.mac;
    }
    const discovered: Json = {};
    if (inv.bootMode) discovered.bootMode = inv.bootMode;
    if (boot) discovered.macAddress = boot.mac;
    discovered.bmcAddress = redfishAddress(inv.bmc.address, inv.bmc.systemPath);
    if (inv.bmc.insecureSkipVerify !== undefined) discovered.disableCertificateVerification = inv.bmc.insecureSkipVerify;
    if (Object.keys(linkMacs).length) discovered.macAddresses = linkMacs;
    const existing = inputs.hosts.get(o.name);
    if (existing) {
      // the catalogue types what it knows; what it says must match what the hardware reports
      const mac = str(existing.entry.macAddress);
      if (mac && !nics.some((n) => n.mac.toLowerCase() === mac.toLowerCase())) {
        ctx.results.error(
          `host ${o.name}: catalogue macAddress ${mac} is not a NIC of the discovered hardware (${nics.map((n) => n.mac).join(', ')}); fix the catalogue or re-run discovery`,
          { object: existing.source, field: `${existing.field}.macAddress`, rule: 'inventory/mac-mismatch' },
        );
      }
      const merged: Json = { ...discovered, ...existing.entry };
      if (isMap(discovered.macAddresses) || isMap(existing.entry.macAddresses))
        merged.macAddresses = { ...((discovered.macAddresses as Json) ?? {}), ...((existing.entry.macAddresses as Json) ?? {}) };
      existing.entry = merged;
      existing.inventory = { object: o, spec: inv };
      if (inv.bmc.credentialsSecret) existing.credentialsSecret = inv.bmc.credentialsSecret;
    } else {
      discovered.hardwareProfile = spec.inventory?.hardwareProfile ?? 'default';
      inputs.hosts.set(o.name, {
        name: o.name,
        entry: discovered,
        source: o,
        field: 'spec',
        inventory: { object: o, spec: inv },
        credentialsSecret: inv.bmc.credentialsSecret,
      });
    }
  }
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
export function folderOf(o: KubeObject): string {
  const p = o.annotations['internal.config.kubernetes.io/path'] ?? o.annotations['config.kubernetes.io/path'];
  if (!p) return '.';
  const i = p.lastIndexOf('/');
  return i < 0 ? '.' : p.slice(0, i);
}

function selection(spec: Spec, inputs: Inputs): Selected[] {
  if (spec.hosts) return spec.hosts.map((name, i) => ({ name, field: `spec.hosts[${i}]`, folders: ['.'] }));
  if (inputs.lists.length) {
    // airshipctl: each phase's hostgenerator generates its list's hosts into that phase; a host
    // named by lists in several folders (e.g. ephemeral and target) is generated into each of them
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
  return [...inputs.hosts.keys()].map((name) => ({ name, field: '', folders: ['.'] }));
}

function matchesRule(h: Host, rule: RoleRule): boolean {
  const labels = isMap(h.entry.labels) ? h.entry.labels : {};
  for (const [k, v] of Object.entries(rule.selector ?? {})) if (str(labels[k]) !== v) return false;
  if (rule.hardwareProfile !== undefined && (str(h.entry.hardwareProfile) || 'default') !== rule.hardwareProfile) return false;
  return true;
}

function assignRoles<S>(ctx: Context<S>, spec: Spec, hosts: Host[]): Map<string, 'controlPlane' | 'workers'> {
  const roles = new Map<string, 'controlPlane' | 'workers'>();
  if (!spec.roles) return roles;
  const sorted = [...hosts].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const role of ['controlPlane', 'workers'] as const) {
    const rule = spec.roles[role];
    if (!rule) continue;
    const candidates = sorted.filter((h) => !roles.has(h.name) && matchesRule(h, rule));
    const n = rule.count ?? candidates.length;
    if (candidates.length < n) {
      ctx.results.error(
        `spec.roles.${role}: ${n} host(s) wanted but only ${candidates.length} of the selected hosts match (${candidates.map((h) => h.name).join(', ') || 'none'}); add hosts or relax the rule`,
        { field: `spec.roles.${role}`, rule: 'roles/not-enough-hosts' },
      );
    }
    for (const h of candidates.slice(0, n)) roles.set(h.name, role);
  }
  return roles;
}

/** Pools for networks that have an ipam entry; every address in use is marked. */
function buildPools<S>(ctx: Context<S>, spec: Spec, net: Networking): Map<string, Pool> {
  const pools = new Map<string, Pool>();
  for (const [id, cfg] of Object.entries(spec.ipam ?? {})) {
    const n = net.networks.find((x) => String(x.id) === id);
    if (!n) {
      ctx.results.error(
        `spec.ipam.${id}: no network "${id}" in commonHostNetworking.networks (${net.networks.map((x) => String(x.id)).join(', ')})`,
        {
          field: `spec.ipam.${id}`,
          rule: 'ipam/unknown-network',
        },
      );
      continue;
    }
    let first: bigint | undefined;
    let last: bigint | undefined;
    let family: Family | undefined;
    const cidr = cfg.cidr ? parseCidr(cfg.cidr) : undefined;
    if (cfg.cidr && !cidr) {
      ctx.results.error(
        `spec.ipam.${id}.cidr: "${cfg.cidr}" is not an IPv4 or IPv6 CIDR with the host bits zero (e.g. 10.23.25.0/24, fd00:23:25::/64)`,
        {
          field: `spec.ipam.${id}.cidr`,
          rule: 'ipam/bad-cidr',
        },
      );
      continue;
    }
    // the network's type (ipv4, ipv6, ipv6_dhcp...) says which family its addresses are
    const netType = str(n.type) ?? '';
    const netFamily: Family | undefined = /^ipv4/.test(netType) ? 4 : /^ipv6/.test(netType) ? 6 : undefined;
    if (cidr) {
      family = cidr.family;
      if (netFamily !== undefined && netFamily !== cidr.family) {
        ctx.results.error(
          `spec.ipam.${id}.cidr: ${cfg.cidr} is IPv${cidr.family} but network ${id} is type ${netType}; give an IPv${netFamily} CIDR`,
          {
            field: `spec.ipam.${id}.cidr`,
            rule: 'ipam/bad-cidr',
          },
        );
        continue;
      }
      const mask = str(n.netmask);
      const p = mask ? netmaskPrefix(mask) : undefined;
      if (mask && p !== undefined && p !== cidr.prefix)
        ctx.results.warning(`spec.ipam.${id}.cidr is /${cidr.prefix} but the network's netmask ${mask} is /${p}`, {
          field: `spec.ipam.${id}.cidr`,
          rule: 'ipam/netmask-mismatch',
        });
      // IPv4: not the network and broadcast addresses; IPv6: not the subnet-router anycast (::0)
      first = cidr.size > 2n ? cidr.base + 1n : cidr.base;
      last = cidr.family === 4 && cidr.size > 2n ? cidr.base + cidr.size - 2n : cidr.base + cidr.size - 1n;
    }
    let bad = false;
    for (const [k, v] of [
      ['start', cfg.start],
      ['end', cfg.end],
    ] as const) {
      if (v === undefined) continue;
      const x = parseIp(v);
      const fam = family ?? netFamily ?? x?.family;
      if (!x || x.family !== fam || (cidr && (x.n < cidr.base || x.n >= cidr.base + cidr.size))) {
        ctx.results.error(`spec.ipam.${id}.${k}: "${v}" is not an IPv${fam ?? 4} address${cidr ? ` inside ${cfg.cidr}` : ''}`, {
          field: `spec.ipam.${id}.${k}`,
          rule: 'ipam/bad-range',
        });
        bad = true;
        break;
      }
      family = x.family;
      if (k === 'start') first = x.n;
      else last = x.n;
    }
    if (bad) continue;
    if (first === undefined || last === undefined || family === undefined) {
      ctx.results.error(`spec.ipam.${id}: give cidr, or start and end`, { field: `spec.ipam.${id}`, rule: 'ipam/bad-range' });
      continue;
    }
    const pool = new Pool(id, family, first, last);
    const routes = Array.isArray(n.routes) ? n.routes : [];
    for (const r of routes) {
      const g = isMap(r) ? parseIp(str(r.gateway) ?? '') : undefined;
      if (g && g.family === family) pool.reserve(g.n, g.n);
    }
    for (const h of net.reservedHints) {
      const r = parseRange(h.value);
      if (r && r.family === family) pool.reserve(r.from, r.to);
    }
    for (const [i, res] of (cfg.reserved ?? []).entries()) {
      const r = parseRange(res);
      if (!r || r.family !== family) {
        ctx.results.error(
          `spec.ipam.${id}.reserved[${i}]: "${res}" is not an IPv${family} address or range (10.0.0.5, 10.0.0.200-10.0.0.250, fd00::5-fd00::9)`,
          {
            field: `spec.ipam.${id}.reserved[${i}]`,
            rule: 'ipam/bad-range',
          },
        );
        continue;
      }
      pool.reserve(r.from, r.to, true);
    }
    pools.set(id, pool);
  }
  return pools;
}

/** ip_address per network id from an existing network-data Secret (our own earlier output). */
export function existingAddresses(secret: KubeObject | undefined): Record<string, string> {
  if (!secret) return {};
  const nd = parseNetworkData(secret);
  const out: Record<string, string> = {};
  if (nd && Array.isArray(nd.networks))
    for (const n of nd.networks) if (isMap(n) && n.id !== undefined && n.ip_address) out[String(n.id)] = String(n.ip_address);
  return out;
}

export function parseNetworkData(secret: KubeObject): Json | undefined {
  let text: string | undefined;
  const sd = secret.get('stringData.networkData');
  if (typeof sd === 'string') text = sd;
  else {
    const d = secret.get('data.networkData');
    if (typeof d === 'string') text = Buffer.from(d, 'base64').toString('utf8');
  }
  if (text === undefined) return undefined;
  try {
    const v = yamlParse(text);
    return isMap(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
export interface GenerateOutcome {
  hosts: RenderedHost[];
  ok: boolean;
}

export function planHosts<S>(ctx: Context<S>, spec: Spec, inputs: Inputs): GenerateOutcome {
  const errorsBefore = ctx.results.count('error');
  const ns = spec.namespace ?? 'target-infra';
  const emit = spec.credentials?.mode === 'emit';
  inventoryHosts(ctx, spec, inputs);
  if (inputs.hosts.size === 0 && !(spec.hosts && spec.hosts.length > 0)) {
    // nothing to generate from: like the other generators, change nothing (hosts generated
    // earlier from a catalogue that is gone are pruned by reconcile)
    ctx.results.info('no hosts in the input (no VariableCatalogue hosts.m3.<name> entries, no HardwareInventory): nothing to generate', {
      rule: 'catalogue/no-hosts',
    });
    return { hosts: [], ok: true };
  }
  const net = inputs.networking;
  if (!net) {
    ctx.results.error(
      "no NetworkCatalogue with spec.commonHostNetworking in the input: add the site's networking catalogue (airshipctl: type/<type>/shared/catalogues/networking.yaml)",
      { rule: 'catalogue/no-networking' },
    );
    return { hosts: [], ok: false };
  }
  if (inputs.hosts.size === 0) {
    ctx.results.error('no hosts: the input has no VariableCatalogue with hosts.m3.<name> entries and no HardwareInventory items', {
      rule: 'catalogue/no-hosts',
    });
    return { hosts: [], ok: false };
  }

  if (net.services === undefined || net.services === null)
    ctx.results.warning(
      'NetworkCatalogue spec.commonHostNetworking.services is missing: networkData gets `services: null`, as airshipctl writes it, which cloud-init and glean cannot iterate; set services: [] or the DNS servers ([{address: 8.8.8.8, type: dns}])',
      { object: net.source, field: 'spec.commonHostNetworking.services', rule: 'network/no-services' },
    );

  // plaintext credentials in the input: warn, never copy unless told to
  for (const cat of inputs.catalogues) {
    const m3 = (cat.data.hosts as Json).m3 as Json;
    const withPw = Object.entries(m3)
      .filter(([, e]) => isMap(e) && e.bmcPassword !== undefined && e.bmcPassword !== '')
      .map(([n]) => n);
    if (withPw.length)
      ctx.results.warning(
        `${withPw.length} host(s) have a plaintext bmcPassword in this catalogue (${withPw.join(', ')}): move BMC credentials to a SOPS-encrypted catalogue or to Secrets; ${emit ? 'they are written to SOPS-marked Secrets (credentials.mode: emit): encrypt before committing' : 'they are not copied to the output (credentials.mode: reference)'}`,
        { object: cat, field: 'hosts.m3.*.bmcPassword', rule: 'credentials/plaintext' },
      );
  }

  const linkIds = new Set(net.links.map((l) => String(l.id)));
  const selected: Host[] = [];
  const folders = new Map<string, string[]>();
  for (const sel of selection(spec, inputs)) {
    const h = inputs.hosts.get(sel.name);
    if (!h) {
      ctx.results.error(
        `host ${sel.name} is listed for generation but is in no host catalogue or HardwareInventory (known: ${[...inputs.hosts.keys()].join(', ')}); add it to hosts.m3 or remove it from the list`,
        { object: sel.object, field: sel.field, rule: 'hosts/unknown-host' },
      );
      continue;
    }
    selected.push(h);
    folders.set(h.name, sel.folders);
  }

  // validate each host's entry
  for (const h of selected) {
    const e = h.entry;
    const err = (msg: string, field: string, rule: string) =>
      ctx.results.error(`host ${h.name}: ${msg}`, { object: h.source, field: h.field ? `${h.field}.${field}` : field, rule });
    const mac = str(e.macAddress);
    const sexagesimal = (v: unknown) =>
      typeof v === 'number' ? ` (YAML 1.1 reads an unquoted all-digit MAC as a base-60 number: quote it, "aa:bb:cc:dd:ee:ff")` : '';
    if (!mac)
      err(
        'macAddress (the boot/PXE MAC) is missing; airshipctl would write `bootMACAddress: <no value>`',
        'macAddress',
        'host/missing-field',
      );
    else if (!MAC_RE.test(mac))
      err(`macAddress "${mac}" is not a MAC address (aa:bb:cc:dd:ee:ff)${sexagesimal(e.macAddress)}`, 'macAddress', 'host/bad-mac');
    if (!str(e.bmcAddress))
      err('bmcAddress is missing (e.g. redfish+https://10.0.0.5/redfish/v1/Systems/1)', 'bmcAddress', 'host/missing-field');
    const bm = str(e.bootMode);
    if (bm === undefined || bm === '')
      err(
        `bootMode is missing; airshipctl would write \`bootMode: <no value>\`; set ${h.field ? h.field + '.' : ''}bootMode to one of ${BOOT_MODES.join(', ')}${h.inventory && h.source === h.inventory.object ? ' (or re-run discovery)' : ''}`,
        'bootMode',
        'host/missing-field',
      );
    else if (!BOOT_MODES.includes(bm)) err(`bootMode "${bm}" must be one of ${BOOT_MODES.join(', ')}`, 'bootMode', 'host/bad-boot-mode');
    const dcv = e.disableCertificateVerification;
    if (dcv !== undefined && dcv !== null && typeof dcv !== 'boolean')
      err(
        `disableCertificateVerification must be true or false, not ${JSON.stringify(dcv)}`,
        'disableCertificateVerification',
        'host/bad-field',
      );
    const profile = str(e.hardwareProfile) || 'default';
    if (!inputs.profiles.has(profile))
      err(
        `hardwareProfile "${profile}" is not defined (known: ${[...inputs.profiles.keys()].join(', ')}); add a VariableCatalogue hardwareprofile-${profile} with a hardwareProfile: {firmware, raid} field`,
        'hardwareProfile',
        'host/unknown-profile',
      );
    else if (inputs.profiles.get(profile)!.empty) {
      const p = inputs.profiles.get(profile)!;
      ctx.results.error(
        `host ${h.name}: hardwareProfile "${profile}" is empty (hardwareProfile: {} in VariableCatalogue ${p.source?.name ?? 'hardwareprofile-' + profile}); airshipctl fails with "can't find hardwareProfile ${profile}": give the profile firmware and/or raid, or drop hardwareProfile from host ${h.name} to use the default`,
        {
          object: p.source ?? h.source,
          field: p.source ? 'hardwareProfile' : h.field ? `${h.field}.hardwareProfile` : 'hardwareProfile',
          rule: 'host/empty-profile',
        },
      );
    }
    const macs = isMap(e.macAddresses) ? e.macAddresses : {};
    for (const [link, m] of Object.entries(macs)) {
      if (!linkIds.has(link))
        err(
          `macAddresses has link "${link}" but commonHostNetworking.links has only ${[...linkIds].join(', ') || 'none'}; airshipctl would drop this MAC silently`,
          `macAddresses.${link}`,
          'host/unknown-link',
        );
      else if (!MAC_RE.test(str(m) ?? ''))
        err(`macAddresses.${link} "${str(m)}" is not a MAC address${sexagesimal(m)}`, `macAddresses.${link}`, 'host/bad-mac');
    }
    const ips = isMap(e.ipAddresses) ? e.ipAddresses : {};
    const netIds = new Set(net.networks.map((n) => String(n.id)));
    for (const [id, ip] of Object.entries(ips)) {
      if (!netIds.has(id))
        err(
          `ipAddresses has network "${id}" but commonHostNetworking.networks has only ${[...netIds].join(', ')}`,
          `ipAddresses.${id}`,
          'host/unknown-network',
        );
      else if (!isIpAddress(str(ip) ?? '')) err(`ipAddresses.${id} "${str(ip)}" is not an IP address`, `ipAddresses.${id}`, 'host/bad-ip');
      else {
        const type = str(net.networks.find((n) => String(n.id) === id)?.type) ?? '';
        const fam = parseIp(str(ip)!)!.family;
        if ((/^ipv4/.test(type) && fam !== 4) || (/^ipv6/.test(type) && fam !== 6))
          err(
            `ipAddresses.${id} "${str(ip)}" is an IPv${fam} address but network ${id} is type ${type}`,
            `ipAddresses.${id}`,
            'host/bad-ip',
          );
      }
    }
    if (emit && !h.credentialsSecret) {
      for (const f of ['bmcUsername', 'bmcPassword'])
        if (str(e[f]) === undefined || str(e[f]) === '') err(`${f} is missing and credentials.mode is emit`, f, 'host/missing-field');
    }
  }
  if (!h_ok(ctx, errorsBefore)) return { hosts: [], ok: false };

  // addresses: catalogue first, then what earlier runs allocated, then new ones (name order)
  const pools = buildPools(ctx, spec, net);
  if (!h_ok(ctx, errorsBefore)) return { hosts: [], ok: false };
  const addr = new Map<string, Record<string, string>>();
  for (const h of inputs.hosts.values()) {
    const ips = isMap(h.entry.ipAddresses) ? h.entry.ipAddresses : {};
    const mine: Record<string, string> = {};
    for (const n of net.networks) {
      const id = String(n.id);
      const ip = str(ips[id]);
      if (!ip) continue;
      mine[id] = ip;
      const pool = pools.get(id);
      const other = pool?.take(ip, h.name);
      if (other !== undefined)
        ctx.results.error(`host ${h.name}: ipAddresses.${id} ${ip} is also host ${other}'s address`, {
          object: h.source,
          field: `${h.field}.ipAddresses.${id}`,
          rule: 'ipam/duplicate-address',
        });
    }
    addr.set(h.name, mine);
  }
  // duplicates on networks without a pool, and duplicate boot MACs, among selected hosts
  const seenIp = new Map<string, string>();
  const seenMac = new Map<string, string>();
  for (const h of selected) {
    for (const [id, ip] of Object.entries(addr.get(h.name) ?? {})) {
      if (pools.has(id)) continue;
      const k = `${id}|${canonicalIp(ip)}`;
      const other = seenIp.get(k);
      if (other)
        ctx.results.error(`host ${h.name}: ipAddresses.${id} ${ip} is also host ${other}'s address`, {
          object: h.source,
          field: `${h.field}.ipAddresses.${id}`,
          rule: 'ipam/duplicate-address',
        });
      else seenIp.set(k, h.name);
    }
    const mac = str(h.entry.macAddress)?.toLowerCase();
    if (mac) {
      const other = seenMac.get(mac);
      if (other)
        ctx.results.error(`host ${h.name}: macAddress ${mac} is also host ${other}'s boot MAC`, {
          object: h.source,
          field: `${h.field}.macAddress`,
          rule: 'host/duplicate-mac',
        });
      else seenMac.set(mac, h.name);
    }
  }
  // Allocation depends on the catalogue only, never on which hosts this run writes: every
  // catalogued host takes part, in name order, so separate phase runs (lists [a] and [b]) agree.
  const secrets = new Map<string, KubeObject>();
  for (const s of ctx.ofKind('Secret')) if (s.apiVersion === 'v1') secrets.set(s.name, s);
  const isSelected = new Set(selected.map((h) => h.name));
  const allByName = [...inputs.hosts.values()].sort((a, b) => compareStrings(a.name, b.name));
  const missing: { h: Host; id: string }[] = [];
  for (const h of allByName) {
    const mine = addr.get(h.name)!;
    const secretName = `${h.name}-network-data`;
    const before = existingAddresses(secrets.get(secretName));
    for (const n of net.networks) {
      const id = String(n.id);
      if (mine[id]) continue;
      const pool = pools.get(id);
      const prev = before[id];
      // an address the host already holds is kept, even where the built-in reserved list
      // (gateway, ironic provisioningIp/dhcpRange, controlPlaneEndpoint) would stop a new one:
      // airshipctl sites set the endpoint to a host's own address
      if (pool && prev && pool.inRange(prev)) {
        const other = pool.take(prev, h.name);
        if (other === undefined) {
          mine[id] = prev;
          if (pool.userReserved(prev) && isSelected.has(h.name))
            ctx.results.warning(
              `host ${h.name}: keeps ${prev} on network ${id} (recorded in ${secretName}) although spec.ipam.${id}.reserved covers it; to move the host, delete its address from ${secretName}`,
              { object: h.source, field: `${h.field ? h.field + '.' : ''}ipAddresses.${id}`, rule: 'ipam/kept-reserved' },
            );
        } else
          ctx.results.error(
            `host ${h.name}: address ${prev} on network ${id} (recorded in Secret ${secretName}) is also host ${other}'s address; pin one of them with ipAddresses.${id} in the catalogue, or delete the address from ${secretName} to allocate a new one`,
            { object: secrets.get(secretName) ?? h.source, field: 'stringData.networkData', rule: 'ipam/duplicate-address' },
          );
        continue;
      }
      missing.push({ h, id });
    }
  }
  for (const { h, id } of missing) {
    const pool = pools.get(id);
    const wanted = isSelected.has(h.name);
    if (!pool) {
      if (wanted)
        ctx.results.error(
          `host ${h.name}: no address on network ${id}: airshipctl would write \`ip_address: <no value>\`; set ${h.field ? h.field + '.' : ''}ipAddresses.${id}, or give spec.ipam.${id}.cidr to allocate one`,
          { object: h.source, field: `${h.field ? h.field + '.' : ''}ipAddresses.${id}`, rule: 'host/missing-ip' },
        );
      continue;
    }
    const ip = pool.next(h.name);
    if (!ip) {
      if (wanted)
        ctx.results.error(
          `network ${id}: no free address left in ${pool.describe()} for host ${h.name}; widen spec.ipam.${id} or free addresses`,
          {
            field: `spec.ipam.${id}`,
            rule: 'ipam/range-full',
          },
        );
      continue;
    }
    addr.get(h.name)![id] = ip;
    if (wanted)
      ctx.results.info(
        `host ${h.name}: allocated ${ip} on network ${id} (recorded in ${h.name}-network-data; copy it into the catalogue to pin it)`,
        {
          object: h.source,
          field: `${h.field ? h.field + '.' : ''}ipAddresses.${id}`,
          rule: 'ipam/allocated',
        },
      );
  }
  const roles = assignRoles(ctx, spec, selected);
  if (!h_ok(ctx, errorsBefore)) return { hosts: [], ok: false };

  const out: RenderedHost[] = [];
  const noSecret: string[] = [];
  for (const h of selected) {
    const e = h.entry;
    const profile = inputs.profiles.get(str(e.hardwareProfile) || 'default') as Profile;
    const labels: Record<string, string> = {};
    if (isMap(e.labels)) for (const [k, v] of Object.entries(e.labels)) labels[k] = str(v) ?? '';
    const role = roles.get(h.name);
    if (role) {
      const value = role === 'controlPlane' ? 'controlplane-host' : 'worker';
      if (labels[ROLE_LABEL] !== undefined && labels[ROLE_LABEL] !== value)
        ctx.results.warning(`host ${h.name}: catalogue label ${ROLE_LABEL}=${labels[ROLE_LABEL]} replaced by ${value} (spec.roles)`, {
          object: h.source,
          field: `${h.field}.labels`,
          rule: 'roles/label-replaced',
        });
      labels[ROLE_LABEL] = value;
    }
    const credentialsName = h.credentialsSecret ?? secretNameFor(spec, h.name);
    const metadata: Json = { annotations: {} };
    if (Object.keys(labels).length) metadata.labels = sortedKeys(labels);
    metadata.name = h.name;
    metadata.namespace = ns;
    const bmhSpec: Json = { online: false, bootMACAddress: str(e.macAddress) };
    if (str(e.bootMode)) bmhSpec.bootMode = str(e.bootMode);
    bmhSpec.networkData = { name: `${h.name}-network-data`, namespace: ns };
    bmhSpec.bmc = {
      address: str(e.bmcAddress),
      credentialsName,
      disableCertificateVerification: typeof e.disableCertificateVerification === 'boolean' ? e.disableCertificateVerification : false,
    };
    if (truthy(profile.firmware)) bmhSpec.firmware = sortedKeys(profile.firmware);
    if (truthy(profile.raid)) bmhSpec.raid = sortedKeys(profile.raid);
    const docs: Json[] = [{ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata, spec: bmhSpec }];
    if (emit && !h.credentialsSecret) {
      const b64 = (v: unknown) => Buffer.from(str(v) ?? '', 'utf8').toString('base64');
      docs.push({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { annotations: { [SOPS_ANNOTATION]: '^(data)$' }, name: credentialsName, namespace: ns },
        data: { username: b64(e.bmcUsername), password: b64(e.bmcPassword) },
        type: 'Opaque',
      });
    } else if (spec.credentials?.mode !== 'sops' && !secrets.has(credentialsName)) noSecret.push(credentialsName);
    const macs: Record<string, string> = {};
    if (isMap(e.macAddresses)) for (const [k, v] of Object.entries(e.macAddresses)) macs[k] = str(v) ?? '';
    docs.push({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { annotations: {}, name: `${h.name}-network-data`, namespace: ns },
      stringData: { networkData: renderNetworkData(net, macs, addr.get(h.name) ?? {}) },
      type: 'Opaque',
    });
    out.push({ name: h.name, folders: folders.get(h.name) ?? ['.'], role, docs });
  }
  if (noSecret.length)
    ctx.results.info(
      `BMC credentials are referenced, not written: create the Secret(s) ${noSecret.join(', ')} in namespace ${ns} (keys username, password), SOPS-encrypted, or set spec.credentials.mode: emit`,
      { rule: 'credentials/to-create' },
    );
  return { hosts: out, ok: true };
}

function truthy(v: unknown): boolean {
  // Go template truth: non-empty map/list/string, non-zero
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
}

function h_ok<S>(ctx: Context<S>, before: number): boolean {
  return ctx.results.count('error') === before;
}
