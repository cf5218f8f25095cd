/**
 * distil: from rendered BareMetalHosts (their network-data Secrets and the NetworkCatalogue),
 * the host catalogue and host-generation list that generate them. Credentials are never read
 * back into the catalogue.
 */
import type { Context, KubeObject } from '../../src/krm/index.js';
import { parseNetworkData } from './generate.js';
import { sortedKeys } from './goyaml.js';
import { isMap, readInputs, type Json } from './inputs.js';
import type { Spec } from './spec.js';

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortedKeys(a ?? null)) === JSON.stringify(sortedKeys(b ?? null));
}

export function distil<S>(ctx: Context<S>, spec: Spec): void {
  const inputs = readInputs(ctx);
  const net = inputs.networking;
  if (!net) {
    ctx.results.error('distil needs the NetworkCatalogue with spec.commonHostNetworking that the site was generated with', {
      rule: 'catalogue/no-networking',
    });
    return;
  }
  const bmhs = ctx.ofKind('BareMetalHost', 'metal3.io');
  if (!bmhs.length) {
    ctx.results.error('distil: no metal3.io BareMetalHost in the input', { rule: 'distil/no-hosts' });
    return;
  }
  const secrets = new Map<string, KubeObject>();
  for (const s of ctx.ofKind('Secret')) secrets.set(`${s.namespace ?? ''}/${s.name}`, s);
  const before = ctx.results.count('error');
  const hosts: Json = {};
  const names: string[] = [];
  for (const b of bmhs) {
    const s = (b.data.spec ?? {}) as Json;
    const bmc = isMap(s.bmc) ? s.bmc : {};
    const entry: Json = {};
    if (s.bootMode !== undefined) entry.bootMode = s.bootMode;
    entry.macAddress = s.bootMACAddress;
    entry.bmcAddress = bmc.address;
    entry.disableCertificateVerification = bmc.disableCertificateVerification === true;
    const ndRef = isMap(s.networkData) ? s.networkData : undefined;
    const secret = ndRef
      ? (secrets.get(`${String(ndRef.namespace ?? b.namespace ?? '')}/${String(ndRef.name)}`) ??
        secrets.get(`${b.namespace ?? ''}/${String(ndRef.name)}`))
      : undefined;
    const nd = secret ? parseNetworkData(secret) : undefined;
    if (!nd) {
      ctx.results.error(
        `${b.name}: its network-data Secret ${ndRef ? String(ndRef.name) : '(spec.networkData not set)'} is not in the input or has no readable networkData; include it`,
        { object: b, field: 'spec.networkData', rule: 'distil/no-network-data' },
      );
      continue;
    }
    const ips: Json = {};
    const macs: Json = {};
    const links = Array.isArray(nd.links) ? nd.links : [];
    const networks = Array.isArray(nd.networks) ? nd.networks : [];
    const strip = (o: unknown, key: string) => {
      const { [key]: _x, ...rest } = (isMap(o) ? o : {}) as Json;
      return rest;
    };
    const differs =
      links.length !== net.links.length ||
      networks.length !== net.networks.length ||
      links.some((l, i) => !same(strip(l, 'ethernet_mac_address'), net.links[i])) ||
      networks.some((n, i) => !same(strip(n, 'ip_address'), net.networks[i])) ||
      !same(nd.services ?? [], net.services ?? []);
    if (differs)
      ctx.results.warning(
        `${b.name}: its networkData differs from the NetworkCatalogue's commonHostNetworking beyond MACs and addresses; generating from the catalogue will not reproduce it (keep a site patch for this host)`,
        { object: secret, field: 'stringData.networkData', rule: 'distil/network-differs' },
      );
    for (const l of links) if (isMap(l) && l.ethernet_mac_address) macs[String(l.id)] = String(l.ethernet_mac_address);
    for (const n of networks)
      if (isMap(n) && n.ip_address !== undefined && n.ip_address !== null && n.ip_address !== '') ips[String(n.id)] = String(n.ip_address);
    entry.ipAddresses = ips;
    if (Object.keys(macs).length) entry.macAddresses = macs;
    let profile: string | undefined;
    for (const p of inputs.profiles.values()) {
      if (same(p.firmware, s.firmware) && same(p.raid, s.raid)) {
        profile = p.name;
        break;
      }
    }
    if (profile === undefined) {
      ctx.results.warning(
        `${b.name}: its firmware/raid match no hardware profile in the input (${[...inputs.profiles.keys()].join(', ')}); add a VariableCatalogue hardwareprofile-<name> and set hardwareProfile`,
        { object: b, field: 'spec.raid', rule: 'distil/no-profile' },
      );
    } else entry.hardwareProfile = profile;
    const labels = b.labels;
    if (Object.keys(labels).length) entry.labels = labels;
    const cred = String(bmc.credentialsName ?? '');
    const expected = (spec.credentials?.secretName ?? '{host}-bmc-secret').replace(/\{host\}/g, b.name);
    if (cred !== expected)
      ctx.results.warning(
        `${b.name}: bmc.credentialsName is ${cred}, not ${expected}: generating will reference ${expected} (set spec.credentials.secretName)`,
        {
          object: b,
          field: 'spec.bmc.credentialsName',
          rule: 'distil/credentials-name',
        },
      );
    if (hosts[b.name] !== undefined) {
      ctx.results.error(`${b.name}: two BareMetalHosts with this name (namespaces differ?); a catalogue keys hosts by name`, {
        object: b,
        rule: 'distil/duplicate-host',
      });
      continue;
    }
    hosts[b.name] = entry;
    names.push(b.name);
  }
  if (ctx.results.count('error') !== before) return;
  const dir = (spec.outputDir ?? 'hosts').replace(/\/+$/, '');
  ctx.reconcile('site-from-catalogue/distil', [
    {
      data: {
        apiVersion: 'airshipit.org/v1alpha1',
        kind: 'VariableCatalogue',
        metadata: { name: 'host-catalogue', labels: { 'airshipit.org/deploy-k8s': 'false' } },
        hosts: { m3: hosts },
      },
      path: `${dir}/host-catalogue.yaml`,
    },
    {
      data: {
        apiVersion: 'airshipit.org/v1alpha1',
        kind: 'VariableCatalogue',
        metadata: { name: 'host-generation-catalogue' },
        hosts: { m3: names },
      },
      path: `${dir}/host-generation.yaml`,
    },
  ]);
}
