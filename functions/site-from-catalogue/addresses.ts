/**
 * Host addresses: the catalogue's first, then what earlier runs recorded in `<host>-network-data`
 * Secrets, then new ones from the `spec.ipam` pools (lowest free first, hosts in name order).
 * Allocation depends on the catalogue only, never on which hosts a run writes: every catalogued
 * host takes part, so separate phase runs (lists [a] and [b]) agree.
 */
import type { Context, KubeObject } from '../../src/krm/index.js';
import { compareStrings, isRecord } from '../../src/krm/index.js';
import { canonicalIp, type Cidr, type Family, netmaskPrefix, parseCidr, parseIp, parseRange } from '../../src/model/ip.js';
import type { Host, Inputs, Json, Networking } from './inputs.js';
import { Pool } from './ipam.js';
import { parseNetworkData } from './network-data.js';
import type { Spec } from './spec.js';

type IpamEntry = NonNullable<Spec['ipam']>[string];

/** Where an address of a host is reported: its catalogue entry's ipAddresses. */
function ipField(h: Host, id: string): string {
  return `${h.field ? `${h.field}.` : ''}ipAddresses.${id}`;
}

/** Pools for networks that have an ipam entry, with the built-in and configured reservations. */
export function buildPools<S>(ctx: Context<S>, spec: Spec, net: Networking): Map<string, Pool> {
  const pools = new Map<string, Pool>();
  for (const [id, cfg] of Object.entries(spec.ipam ?? {})) {
    const n = net.networks.find((x) => String(x.id) === id);
    if (!n) {
      ctx.results.error(
        `spec.ipam.${id}: no network "${id}" in commonHostNetworking.networks (${net.networks.map((x) => String(x.id)).join(', ')})`,
        { field: `spec.ipam.${id}`, rule: 'ipam/unknown-network' },
      );
      continue;
    }
    const pool = newPool(ctx, id, cfg, n);
    if (!pool) continue;
    if (reserve(ctx, pool, cfg, n, net)) pools.set(id, pool);
  }
  return pools;
}

/** The network's type (ipv4, ipv6, ipv6_dhcp...) says which family its addresses are. */
function networkFamily(n: Json): Family | undefined {
  const type = typeof n.type === 'string' ? n.type : '';
  return /^ipv4/.test(type) ? 4 : /^ipv6/.test(type) ? 6 : undefined;
}

function checkedCidr<S>(ctx: Context<S>, id: string, cfg: IpamEntry, n: Json): Cidr | undefined | false {
  if (!cfg.cidr) return undefined;
  const field = `spec.ipam.${id}.cidr`;
  const cidr = parseCidr(cfg.cidr);
  if (!cidr) {
    ctx.results.error(`${field}: "${cfg.cidr}" is not an IPv4 or IPv6 CIDR with the host bits zero (e.g. 10.23.25.0/24, fd00:23:25::/64)`, {
      field,
      rule: 'ipam/bad-cidr',
    });
    return false;
  }
  const netFamily = networkFamily(n);
  if (netFamily !== undefined && netFamily !== cidr.family) {
    ctx.results.error(
      `${field}: ${cfg.cidr} is IPv${cidr.family} but network ${id} is type ${String(n.type)}; give an IPv${netFamily} CIDR`,
      {
        field,
        rule: 'ipam/bad-cidr',
      },
    );
    return false;
  }
  const mask = typeof n.netmask === 'string' ? n.netmask : undefined;
  const p = mask ? netmaskPrefix(mask) : undefined;
  if (mask && p !== undefined && p !== cidr.prefix)
    ctx.results.warning(`${field} is /${cidr.prefix} but the network's netmask ${mask} is /${p}`, { field, rule: 'ipam/netmask-mismatch' });
  return cidr;
}

/** The pool's range: the CIDR's host addresses, narrowed by start and end. */
function newPool<S>(ctx: Context<S>, id: string, cfg: IpamEntry, n: Json): Pool | undefined {
  const cidr = checkedCidr(ctx, id, cfg, n);
  if (cidr === false) return undefined;
  let family = cidr ? cidr.family : undefined;
  // IPv4: not the network and broadcast addresses; IPv6: not the subnet-router anycast (::0)
  let first = cidr ? (cidr.size > 2n ? cidr.base + 1n : cidr.base) : undefined;
  let last = cidr ? (cidr.family === 4 && cidr.size > 2n ? cidr.base + cidr.size - 2n : cidr.base + cidr.size - 1n) : undefined;
  for (const k of ['start', 'end'] as const) {
    const v = cfg[k];
    if (v === undefined) continue;
    const x = parseIp(v);
    const fam = family ?? networkFamily(n) ?? x?.family;
    if (!x || x.family !== fam || (cidr && (x.n < cidr.base || x.n >= cidr.base + cidr.size))) {
      ctx.results.error(`spec.ipam.${id}.${k}: "${v}" is not an IPv${fam ?? 4} address${cidr ? ` inside ${cfg.cidr}` : ''}`, {
        field: `spec.ipam.${id}.${k}`,
        rule: 'ipam/bad-range',
      });
      return undefined;
    }
    family = x.family;
    if (k === 'start') first = x.n;
    else last = x.n;
  }
  if (first === undefined || last === undefined || family === undefined) {
    ctx.results.error(`spec.ipam.${id}: give cidr, or start and end`, { field: `spec.ipam.${id}`, rule: 'ipam/bad-range' });
    return undefined;
  }
  return new Pool(id, family, first, last);
}

/** Gateways, ironic and the API endpoint (built in), and spec.ipam.<net>.reserved; false after an error. */
function reserve<S>(ctx: Context<S>, pool: Pool, cfg: IpamEntry, n: Json, net: Networking): boolean {
  for (const r of Array.isArray(n.routes) ? n.routes : []) {
    const g = isRecord(r) && typeof r.gateway === 'string' ? parseIp(r.gateway) : undefined;
    if (g && g.family === pool.family) pool.reserve(g.n, g.n);
  }
  for (const h of net.reservedHints) {
    const r = parseRange(h.value);
    if (r && r.family === pool.family) pool.reserve(r.from, r.to);
  }
  let ok = true;
  for (const [i, res] of (cfg.reserved ?? []).entries()) {
    const r = parseRange(res);
    if (r && r.family === pool.family) {
      pool.reserve(r.from, r.to, true);
      continue;
    }
    ctx.results.error(
      `spec.ipam.${pool.network}.reserved[${i}]: "${res}" is not an IPv${pool.family} address or range (10.0.0.5, 10.0.0.200-10.0.0.250, fd00::5-fd00::9)`,
      { field: `spec.ipam.${pool.network}.reserved[${i}]`, rule: 'ipam/bad-range' },
    );
    ok = false;
  }
  return ok;
}

/** ip_address per network id from an existing network-data Secret (our own earlier output). */
function recordedAddresses(secret: KubeObject | undefined): Record<string, string> {
  const nd = secret ? parseNetworkData(secret) : undefined;
  const out: Record<string, string> = {};
  for (const n of nd && Array.isArray(nd.networks) ? nd.networks : [])
    if (isRecord(n) && (typeof n.id === 'string' || typeof n.id === 'number') && typeof n.ip_address === 'string' && n.ip_address)
      out[String(n.id)] = n.ip_address;
  return out;
}

/** Every host's address per network id, or errors (duplicates, missing addresses, full ranges). */
export function assignAddresses<S>(
  ctx: Context<S>,
  inputs: Inputs,
  selected: Host[],
  net: Networking,
  pools: Map<string, Pool>,
): Map<string, Record<string, string>> {
  const addr = catalogueAddresses(ctx, inputs, net, pools);
  checkDuplicates(ctx, selected, addr, pools);
  const secrets = new Map<string, KubeObject>();
  for (const s of ctx.ofKind('Secret')) if (s.apiVersion === 'v1') secrets.set(s.name, s);
  const wanted = new Set(selected.map((h) => h.name));
  const allByName = [...inputs.hosts.values()].sort((a, b) => compareStrings(a.name, b.name));
  const missing = allByName.flatMap((h) => keepRecorded(ctx, h, addr.get(h.name)!, secrets, net, pools, wanted.has(h.name)));
  for (const { h, id } of missing) allocate(ctx, h, id, addr.get(h.name)!, pools.get(id), wanted.has(h.name));
  return addr;
}

/** The catalogue's addresses of every host (selected or not: they are taken either way). */
function catalogueAddresses<S>(
  ctx: Context<S>,
  inputs: Inputs,
  net: Networking,
  pools: Map<string, Pool>,
): Map<string, Record<string, string>> {
  const addr = new Map<string, Record<string, string>>();
  for (const h of inputs.hosts.values()) {
    const ips = isRecord(h.entry.ipAddresses) ? h.entry.ipAddresses : {};
    const mine: Record<string, string> = {};
    for (const n of net.networks) {
      const id = String(n.id);
      const ip = ips[id];
      if (typeof ip !== 'string' || !ip) continue;
      mine[id] = ip;
      const other = pools.get(id)?.take(ip, h.name);
      if (other !== undefined)
        ctx.results.error(`host ${h.name}: ipAddresses.${id} ${ip} is also host ${other}'s address`, {
          object: h.source,
          field: `${h.field}.ipAddresses.${id}`,
          rule: 'ipam/duplicate-address',
        });
    }
    addr.set(h.name, mine);
  }
  return addr;
}

/** Duplicates among the selected hosts: addresses on networks without a pool (a pool finds its own), boot MACs. */
function checkDuplicates<S>(ctx: Context<S>, selected: Host[], addr: Map<string, Record<string, string>>, pools: Map<string, Pool>): void {
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
    const mac = typeof h.entry.macAddress === 'string' ? h.entry.macAddress.toLowerCase() : undefined;
    if (!mac) continue;
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

/**
 * An address the host already holds (recorded in its network-data Secret) is kept, even where the
 * built-in reserved list (gateway, ironic, controlPlaneEndpoint) would stop a new one: airshipctl
 * sites set the endpoint to a host's own address. Returns the networks still without an address.
 */
function keepRecorded<S>(
  ctx: Context<S>,
  h: Host,
  mine: Record<string, string>,
  secrets: Map<string, KubeObject>,
  net: Networking,
  pools: Map<string, Pool>,
  wanted: boolean,
): { h: Host; id: string }[] {
  const secretName = `${h.name}-network-data`;
  const before = recordedAddresses(secrets.get(secretName));
  const missing: { h: Host; id: string }[] = [];
  for (const n of net.networks) {
    const id = String(n.id);
    if (mine[id]) continue;
    const pool = pools.get(id);
    const prev = before[id];
    if (!pool || !prev || !pool.inRange(prev)) {
      missing.push({ h, id });
      continue;
    }
    const other = pool.take(prev, h.name);
    if (other !== undefined)
      ctx.results.error(
        `host ${h.name}: address ${prev} on network ${id} (recorded in Secret ${secretName}) is also host ${other}'s address; pin one of them with ipAddresses.${id} in the catalogue, or delete the address from ${secretName} to allocate a new one`,
        { object: secrets.get(secretName) ?? h.source, field: 'stringData.networkData', rule: 'ipam/duplicate-address' },
      );
    else {
      mine[id] = prev;
      if (pool.userReserved(prev) && wanted)
        ctx.results.warning(
          `host ${h.name}: keeps ${prev} on network ${id} (recorded in ${secretName}) although spec.ipam.${id}.reserved covers it; to move the host, delete its address from ${secretName}`,
          { object: h.source, field: ipField(h, id), rule: 'ipam/kept-reserved' },
        );
    }
  }
  return missing;
}

/** A new address from the network's pool; results only for hosts this run writes. */
function allocate<S>(ctx: Context<S>, h: Host, id: string, mine: Record<string, string>, pool: Pool | undefined, wanted: boolean): void {
  if (!pool) {
    if (wanted)
      ctx.results.error(
        `host ${h.name}: no address on network ${id}: airshipctl would write \`ip_address: <no value>\`; set ${ipField(h, id)}, or give spec.ipam.${id}.cidr to allocate one`,
        { object: h.source, field: ipField(h, id), rule: 'host/missing-ip' },
      );
    return;
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
    return;
  }
  mine[id] = ip;
  if (wanted)
    ctx.results.info(
      `host ${h.name}: allocated ${ip} on network ${id} (recorded in ${h.name}-network-data; copy it into the catalogue to pin it)`,
      {
        object: h.source,
        field: ipField(h, id),
        rule: 'ipam/allocated',
      },
    );
}
