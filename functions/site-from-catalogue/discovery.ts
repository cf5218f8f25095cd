/**
 * `spec.discovery`: the objects that run discovery in the site's own cluster (src/fleet/discovery.ts),
 * for the BMCs of the BareMetalHosts this function wrote.
 */
import { posix } from 'node:path';
import type { Context, KubeObject } from '../../src/krm/index.js';
import {
  DISCOVERY_DEFAULTS,
  type DiscoverySettings,
  discoveryObjects,
  discoveryProblems,
  discoverySiteName,
} from '../../src/fleet/discovery.js';
import { parseBmcAddress } from '../../src/model/bmc.js';
import { parseIp } from '../../src/model/ip.js';
import type { Spec } from './spec.js';

/** The release's bmh-from-redfish image, the one the examples name. */
export const DISCOVERY_IMAGE = 'ghcr.io/baremetal-krm/bmh-from-redfish:v0.1.0';

interface Bmc {
  name: string;
  /** what bmh-from-redfish discovers: `https://host[:port]/redfish/v1/Systems/x` */
  url: string;
  host: string;
  port: number;
}

/** The Redfish BMC of a BareMetalHost, or why it has none discovery can use. */
function bmcOf(o: KubeObject): Bmc | string {
  const address = o.get('spec.bmc.address');
  const a = typeof address === 'string' ? parseBmcAddress(address) : undefined;
  if (!a || a.userinfo) return 'has no usable BMC address';
  if (a.known?.protocol !== 'redfish') return `has a ${a.scheme} BMC, not Redfish`;
  const host = a.host.replace(/^\[|\]$/g, '');
  const port = a.port ?? (a.transport === 'http' ? 80 : 443);
  return { name: o.name, url: `${a.transport ?? 'https'}://${a.host}${a.port ? `:${a.port}` : ''}${a.path}`, host, port };
}

/** One CIDR per BMC address; names cannot be in a NetworkPolicy (undefined: give egress.bmcCidrs). */
function hostCidrs(bmcs: Bmc[]): string[] | undefined {
  const out = new Set<string>();
  for (const b of bmcs) {
    const ip = parseIp(b.host);
    if (!ip) return undefined;
    out.add(`${b.host}/${ip.family === 4 ? 32 : 128}`);
  }
  return [...out].sort();
}

/**
 * The site name: spec.discovery.site as given, else spec.site.name or the last part of sitePath
 * made a name that fits the CronJob's (with an info when that changed it).
 */
function siteName<S>(ctx: Context<S>, d: NonNullable<Spec['discovery']>, spec: Spec, sitePath: string): string | undefined {
  if (d.site !== undefined) return d.site;
  const raw = spec.site?.name ?? posix.basename(sitePath);
  const site = discoverySiteName(raw);
  const from = spec.site?.name !== undefined ? 'spec.site.name' : 'the last part of spec.discovery.sitePath';
  const opts = { object: ctx.functionConfig, field: 'spec.discovery.site', rule: 'discovery/settings' };
  if (site === '') {
    ctx.results.error(
      `spec.discovery.site: no site name can be made from ${from} ("${raw}"); set spec.discovery.site (a DNS-1123 label)`,
      opts,
    );
    return undefined;
  }
  if (site !== raw)
    ctx.results.info(
      `spec.discovery.site: the objects are named for site "${site}", made from ${from} ("${raw}"); set spec.discovery.site to choose`,
      opts,
    );
  return site;
}

/** The settings of the discovery objects, or undefined when one cannot be used (an error result each, naming the field). */
function discoverySettings<S>(ctx: Context<S>, spec: Spec, bmcs: Bmc[], bmcCidrs: string[]): DiscoverySettings | undefined {
  const d = spec.discovery!;
  const sitePath = d.sitePath.replace(/\/+$/, '');
  const site = siteName(ctx, d, spec, sitePath);
  if (site === undefined) return undefined;
  const settings: DiscoverySettings = {
    site,
    sitePath,
    repository: d.repository,
    baseBranch: d.baseBranch,
    branch: d.branch,
    schedule: d.schedule,
    namespace: d.namespace,
    image: d.image ?? DISCOVERY_IMAGE,
    gitImage: d.gitImage,
    bmcCredentialsSecret: d.bmcCredentialsSecret,
    gitSecret: d.gitSecret,
    discover: { bmcs: bmcs.map((b) => ({ address: b.url, name: b.name })) },
    egress: {
      bmcCidrs,
      bmcPorts: d.egress.bmcPorts ?? [...new Set(bmcs.map((b) => b.port))].sort((a, b) => a - b),
      gitCidrs: d.egress.gitCidrs,
      gitPort: d.egress.gitPort ?? DISCOVERY_DEFAULTS.gitPort,
    },
  };
  const problems = discoveryProblems(settings);
  for (const p of problems)
    ctx.results.error(`spec.discovery.${p.field} ${p.message}; no discovery objects written`, {
      object: ctx.functionConfig,
      field: `spec.discovery.${p.field}`,
      rule: 'discovery/settings',
    });
  return problems.length ? undefined : settings;
}

export function reconcileDiscovery<S>(ctx: Context<S>, spec: Spec, owner: string): void {
  const d = spec.discovery;
  if (!d) {
    ctx.pruneGenerated(`${owner}/discovery`); // asked for no more: what it wrote goes
    return;
  }
  const hosts = new Map<string, KubeObject>();
  for (const o of ctx.items)
    if (
      o.kind === 'BareMetalHost' &&
      o.annotations['baremetal-krm.dev/generated-by']?.startsWith('site-from-catalogue/') &&
      !hosts.has(o.name)
    )
      hosts.set(o.name, o);
  const bmcs: Bmc[] = [];
  for (const o of [...hosts.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const b = bmcOf(o);
    if (typeof b === 'string')
      ctx.results.warning(`${o.id} ${b}: discovery leaves it out`, { object: o, field: 'spec.bmc.address', rule: 'discovery/no-bmc' });
    else bmcs.push(b);
  }
  if (bmcs.length === 0) {
    ctx.results.warning(
      'spec.discovery: no BareMetalHost with a Redfish BMC was written, so there is nothing to discover: no discovery objects',
      {
        object: ctx.functionConfig,
        field: 'spec.discovery',
        rule: 'discovery/no-bmc',
      },
    );
    ctx.pruneGenerated(`${owner}/discovery`);
    return;
  }
  const bmcCidrs = d.egress.bmcCidrs ?? hostCidrs(bmcs);
  if (!bmcCidrs) {
    ctx.results.error('a BMC address is a host name: a NetworkPolicy takes addresses, so give spec.discovery.egress.bmcCidrs', {
      object: ctx.functionConfig,
      field: 'spec.discovery.egress.bmcCidrs',
      rule: 'discovery/bmc-cidrs',
    });
    return;
  }
  const settings = discoverySettings(ctx, spec, bmcs, bmcCidrs);
  if (!settings) return;
  const objects = discoveryObjects(settings, (d.dir ?? 'discovery').replace(/\/+$/, ''));
  ctx.reconcile(
    `${owner}/discovery`,
    objects.map((o) => ({ data: o.data, path: o.path })),
  );
}
