/**
 * distil: from rendered BareMetalHosts (their network-data Secrets and the NetworkCatalogue),
 * the host catalogue and host-generation list that generate them. Credentials are never read
 * back into the catalogue. A host generated into several folders (ephemeral and target phases,
 * host-inventory) is one catalogue entry when its copies are identical; copies that differ are
 * an error naming both files.
 */
import type { Context, KubeObject, ResultOptions } from '../../src/krm/index.js';
import { isRecord, scalarText } from '../../src/krm/index.js';
import { redactBmcAddress } from '../../src/model/bmc.js';
import { secretNameFor } from './generate.js';
import { sortedKeys } from './goyaml.js';
import { type Inputs, type Json, type Networking, readInputs } from './inputs.js';
import { parseNetworkData } from './network-data.js';
import type { Spec } from './spec.js';

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortedKeys(a ?? null)) === JSON.stringify(sortedKeys(b ?? null));
}

/** A warning about one host, reported once however many copies of the host there are. */
interface Note {
  message: string;
  opts: ResultOptions;
}

interface Distilled {
  entry: Json;
  notes: Note[];
}

function fileOf(o: KubeObject): string {
  return o.file()?.path ?? `${o.id} (no file)`;
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
  const before = ctx.results.count('error');
  const secrets = networkDataSecrets(ctx);
  const hosts = new Map<string, { entry: Json; copies: KubeObject[] }>();
  for (const b of bmhs) {
    const d = distilHost(ctx, spec, b, inputs, net, secrets);
    if (!d) continue;
    const seen = hosts.get(b.name);
    if (!seen) {
      hosts.set(b.name, { entry: d.entry, copies: [b] });
      for (const n of d.notes) ctx.results.warning(n.message, n.opts);
    } else if (same(seen.entry, d.entry)) seen.copies.push(b);
    else conflictingCopies(ctx, b, seen.copies[0]!, seen.entry, d.entry);
  }
  if (ctx.results.count('error') !== before) return;
  reportMergedCopies(ctx, hosts);
  const dir = (spec.outputDir ?? 'hosts').replace(/\/+$/, '');
  const m3: Json = {};
  for (const [name, h] of hosts) m3[name] = h.entry;
  ctx.reconcile('site-from-catalogue/distil', [
    {
      data: {
        apiVersion: 'airshipit.org/v1alpha1',
        kind: 'VariableCatalogue',
        metadata: { name: 'host-catalogue', labels: { 'airshipit.org/deploy-k8s': 'false' } },
        hosts: { m3 },
      },
      path: `${dir}/host-catalogue.yaml`,
    },
    {
      data: {
        apiVersion: 'airshipit.org/v1alpha1',
        kind: 'VariableCatalogue',
        metadata: { name: 'host-generation-catalogue' },
        hosts: { m3: [...hosts.keys()] },
      },
      path: `${dir}/host-generation.yaml`,
    },
  ]);
}

/** network-data Secrets by `namespace/name`, each with every copy (a host in several folders has one per folder). */
function networkDataSecrets<S>(ctx: Context<S>): Map<string, KubeObject[]> {
  const out = new Map<string, KubeObject[]>();
  for (const s of ctx.ofKind('Secret')) {
    const k = `${s.namespace ?? ''}/${s.name}`;
    out.set(k, [...(out.get(k) ?? []), s]);
  }
  return out;
}

/** The host's network-data Secret: the one in the BareMetalHost's own file first (its copy), else any of that name. */
function networkDataOf(b: KubeObject, ref: Json | undefined, secrets: Map<string, KubeObject[]>): KubeObject | undefined {
  const name = ref ? scalarText(ref.name) : undefined;
  if (!name) return undefined;
  const ns = scalarText(ref?.namespace) ?? b.namespace ?? '';
  const candidates = secrets.get(`${ns}/${name}`) ?? secrets.get(`${b.namespace ?? ''}/${name}`) ?? [];
  const file = b.file()?.path;
  return candidates.find((s) => file !== undefined && s.file()?.path === file) ?? candidates[0];
}

function distilHost<S>(
  ctx: Context<S>,
  spec: Spec,
  b: KubeObject,
  inputs: Inputs,
  net: Networking,
  secrets: Map<string, KubeObject[]>,
): Distilled | undefined {
  const s = isRecord(b.data.spec) ? b.data.spec : {};
  const bmc = isRecord(s.bmc) ? s.bmc : {};
  const address = typeof bmc.address === 'string' ? bmc.address : undefined;
  if (address !== undefined && redactBmcAddress(address) !== address) {
    ctx.results.error(
      `${b.name}: spec.bmc.address "${redactBmcAddress(address)}" carries a user name or password: it is not copied into the catalogue; remove it from the address (the credentials belong in the BMC Secret)`,
      { object: b, field: 'spec.bmc.address', rule: 'distil/credentials-in-address' },
    );
    return undefined;
  }
  const ndRef = isRecord(s.networkData) ? s.networkData : undefined;
  const secret = networkDataOf(b, ndRef, secrets);
  const nd = secret ? parseNetworkData(secret) : undefined;
  if (!secret || !nd) {
    ctx.results.error(
      `${b.name}: its network-data Secret ${scalarText(ndRef?.name) ?? '(spec.networkData not set)'} is not in the input or has no readable networkData; include it`,
      { object: b, field: 'spec.networkData', rule: 'distil/no-network-data' },
    );
    return undefined;
  }
  const entry: Json = {};
  const notes: Note[] = [];
  if (s.bootMode !== undefined) entry.bootMode = s.bootMode;
  entry.macAddress = s.bootMACAddress;
  entry.bmcAddress = address;
  entry.disableCertificateVerification = bmc.disableCertificateVerification === true;
  Object.assign(entry, networkEntry(b, secret, nd, net, notes));
  const profile = [...inputs.profiles.values()].find((p) => same(p.firmware, s.firmware) && same(p.raid, s.raid));
  if (profile) entry.hardwareProfile = profile.name;
  else
    notes.push({
      message: `${b.name}: its firmware/raid match no hardware profile in the input (${[...inputs.profiles.keys()].join(', ')}); add a VariableCatalogue hardwareprofile-<name> and set hardwareProfile`,
      opts: { object: b, field: 'spec.raid', rule: 'distil/no-profile' },
    });
  if (Object.keys(b.labels).length) entry.labels = b.labels;
  const cred = scalarText(bmc.credentialsName) ?? '';
  const expected = secretNameFor(spec, b.name);
  if (cred !== expected)
    notes.push({
      message: `${b.name}: bmc.credentialsName is ${cred}, not ${expected}: generating will reference ${expected} (set spec.credentials.secretName)`,
      opts: { object: b, field: 'spec.bmc.credentialsName', rule: 'distil/credentials-name' },
    });
  return { entry, notes };
}

/** ipAddresses and macAddresses from the networkData, with a note when it differs from the catalogue beyond them. */
function networkEntry(b: KubeObject, secret: KubeObject, nd: Json, net: Networking, notes: Note[]): Json {
  const links = Array.isArray(nd.links) ? nd.links : [];
  const networks = Array.isArray(nd.networks) ? nd.networks : [];
  const strip = (o: unknown, key: string) => {
    const { [key]: _x, ...rest } = isRecord(o) ? o : {};
    return rest;
  };
  const differs =
    links.length !== net.links.length ||
    networks.length !== net.networks.length ||
    links.some((l, i) => !same(strip(l, 'ethernet_mac_address'), net.links[i])) ||
    networks.some((n, i) => !same(strip(n, 'ip_address'), net.networks[i])) ||
    !same(nd.services ?? [], net.services ?? []);
  if (differs)
    notes.push({
      message: `${b.name}: its networkData differs from the NetworkCatalogue's commonHostNetworking beyond MACs and addresses; generating from the catalogue will not reproduce it (keep a site patch for this host)`,
      opts: { object: secret, field: 'stringData.networkData', rule: 'distil/network-differs' },
    });
  const ips: Json = {};
  const macs: Json = {};
  for (const l of links) {
    const id = isRecord(l) ? scalarText(l.id) : undefined;
    const mac = isRecord(l) ? scalarText(l.ethernet_mac_address) : undefined;
    if (id !== undefined && mac) macs[id] = mac;
  }
  for (const n of networks) {
    const id = isRecord(n) ? scalarText(n.id) : undefined;
    const ip = isRecord(n) ? scalarText(n.ip_address) : undefined;
    if (id !== undefined && ip) ips[id] = ip;
  }
  return Object.keys(macs).length ? { ipAddresses: ips, macAddresses: macs } : { ipAddresses: ips };
}

function conflictingCopies<S>(ctx: Context<S>, b: KubeObject, first: KubeObject, a: Json, c: Json): void {
  const fields = [...new Set([...Object.keys(a), ...Object.keys(c)])].filter((k) => !same(a[k], c[k]));
  ctx.results.error(
    `${b.name}: the BareMetalHosts in ${fileOf(first)} and ${fileOf(b)} differ in ${fields.join(', ')}; a catalogue has one entry per host: make the copies the same, or keep the difference as a patch of one phase`,
    { object: b, rule: 'distil/conflicting-copies' },
  );
}

function reportMergedCopies<S>(ctx: Context<S>, hosts: Map<string, { copies: KubeObject[] }>): void {
  const merged = [...hosts].filter(([, h]) => h.copies.length > 1);
  if (!merged.length) return;
  const shown = merged.slice(0, 10).map(([name, h]) => `${name} (${h.copies.map(fileOf).join(', ')})`);
  if (merged.length > shown.length) shown.push(`and ${merged.length - shown.length} more`);
  ctx.results.info(`${merged.length} host(s) are in several folders with identical copies, one catalogue entry each: ${shown.join('; ')}`, {
    rule: 'distil/merged-copies',
  });
}
