/**
 * Hosts wherever intent names them: BareMetalHosts (Secret references, boot MAC, BMC, TLS,
 * network data), airshipctl host catalogues (`VariableCatalogue` hosts.m3.<node>, with the
 * NetworkCatalogue's links and networks), HardwareInventory snapshots and HardwareData. Duplicate
 * MACs, BMCs and addresses across all of them; networking that does not add up.
 *
 * Each item is read once (visit) into a small record; the checks run after the last item, in a
 * fixed order (BareMetalHosts, catalogues, inventories), so "first" in a message is stable.
 */
import type { KubeObject } from '../../krm/index.js';
import { dig, isRecord, scalarText } from '../../krm/index.js';
import { bmcIdentity } from '../../model/bmc.js';
import { type Head, identityKey, type RuleContext, type RuleFamily, type Tree } from '../context.js';
import { closest } from '../suggest.js';
import { type ClaimSite, HostClaims, normalMac, type Owner, ownerOf } from './claims.js';
import {
  type CatalogueNetworking,
  gatewaysOutside,
  type NetworkData,
  networkDataText,
  readCatalogueNetworking,
  readNetworkData,
} from './network.js';

/** A field of a catalogue entry as a claim site: `at('ipAddresses', 'oam-ipv4')`. */
type SiteAt = (...rest: string[]) => ClaimSite;

interface SecretRef {
  name: string;
  ns?: string;
  field: string;
  what: string;
}

/**
 * What the rules need of a BareMetalHost (its parsed tree is not kept; its head is the
 * analysis's, RuleContext.head; its label is made when a message needs it).
 */
export interface BareMetalHostRecord {
  o: KubeObject;
  secretRefs: readonly SecretRef[];
  bootMac?: string;
  bmcAddress?: string;
  insecureTls: boolean;
  networkData?: { name: string; ns?: string };
  /** status.hardware as written, when there is one */
  statusHardware?: Tree;
}

export interface InventoryRecord {
  o: KubeObject;
  head: Head;
  spec: Tree;
}

/** No Secret reference (a host without credentials): one list for every such host. */
const NO_REFS: readonly SecretRef[] = Object.freeze([]);

/** Where a BareMetalHost claims its boot MAC and its BMC: the same path for every host. */
const BOOT_MAC_PATH = ['spec', 'bootMACAddress'];
const BMC_ADDRESS_PATH = ['spec', 'bmc', 'address'];

function secretRefs(spec: Tree, bmc: Tree): readonly SecretRef[] {
  const out: SecretRef[] = [];
  const add = (name: unknown, ns: unknown, field: string, what: string): void => {
    const n = scalarText(name);
    if (n) out.push({ name: n, ns: scalarText(ns), field, what });
  };
  add(bmc.credentialsName, undefined, 'spec.bmc.credentialsName', 'BMC credentials');
  for (const f of ['networkData', 'userData', 'metaData'] as const) {
    const r = spec[f];
    if (isRecord(r)) add(r.name, r.namespace, `spec.${f}.name`, f);
  }
  add(spec.preprovisioningNetworkDataName, undefined, 'spec.preprovisioningNetworkDataName', 'preprovisioning networkData');
  // kept for every host: as long as it is (a list pushed to grows room for 16 more)
  return out.length === 0 ? NO_REFS : out.slice();
}

function bareMetalHostRecord(o: KubeObject, head: Head, tree: Tree): BareMetalHostRecord {
  const spec = isRecord(tree.spec) ? tree.spec : {};
  const bmc = isRecord(spec.bmc) ? spec.bmc : {};
  const nd = isRecord(spec.networkData) ? spec.networkData : undefined;
  const ndName = nd ? scalarText(nd.name) : undefined;
  const status = dig(tree, 'status', 'hardware');
  return {
    o,
    secretRefs: secretRefs(spec, bmc),
    bootMac: scalarText(spec.bootMACAddress),
    bmcAddress: scalarText(bmc.address),
    insecureTls: bmc.disableCertificateVerification === true,
    networkData: ndName ? { name: ndName, ns: scalarText(nd!.namespace) ?? head.namespace } : undefined,
    statusHardware: isRecord(status) ? status : undefined,
  };
}

export class HostRules implements RuleFamily {
  readonly bareMetalHosts: BareMetalHostRecord[] = [];
  readonly inventories: InventoryRecord[] = [];
  /** HardwareData spec.hardware by the BareMetalHost identity it belongs to */
  readonly hardwareData = new Map<string, { o: KubeObject; hardware: unknown }>();
  /** the HardwareInventory attached to each BareMetalHost */
  readonly inventoryOf = new Map<KubeObject, InventoryRecord>();
  readonly #claims: HostClaims;
  readonly #networkData = new Map<string, { o: KubeObject; text: string; field: string }>();
  readonly #catalogues: { o: KubeObject; hosts: Tree }[] = [];
  readonly #networking: CatalogueNetworking = { links: new Set(), networks: new Map() };
  readonly #hardwareDataObjects: KubeObject[] = [];

  constructor(private readonly ctx: RuleContext) {
    this.#claims = new HostClaims(ctx);
  }

  visit(o: KubeObject, head: Head, tree: Tree | undefined): void {
    if (!tree) return;
    const k = head.kind;
    if (k === 'BareMetalHost' && head.group === 'metal3.io') {
      this.bareMetalHosts.push(bareMetalHostRecord(o, head, tree));
    } else if (k === 'Secret') {
      const nd = networkDataText(tree);
      if (nd) this.#networkData.set(identityKey('Secret', head.namespace, head.name), { o, ...nd });
    } else if (k === 'VariableCatalogue') {
      if (isRecord(tree.hosts)) this.#catalogues.push({ o, hosts: tree.hosts });
    } else if (k === 'NetworkCatalogue') readCatalogueNetworking(tree.spec, this.#networking);
    else if (k === 'HardwareInventory' && head.group === 'baremetal-krm.dev')
      this.inventories.push({ o, head, spec: isRecord(tree.spec) ? tree.spec : {} });
    else if (k === 'HardwareData' && head.group === 'metal3.io') {
      this.#hardwareDataObjects.push(o);
      this.hardwareData.set(identityKey('BareMetalHost', head.namespace, head.name), { o, hardware: dig(tree, 'spec', 'hardware') });
    }
  }

  finish(): void {
    for (const b of this.bareMetalHosts) if (!this.ctx.isPartial(b.o)) this.#bareMetalHost(b);
    for (const c of this.#catalogues) this.#catalogue(c.o, c.hosts);
    this.#inventories();
    this.#hardwareDataReferences();
  }

  /**
   * A reference may name a namespace that a document without one gets when it is applied
   * (`kubectl apply -n`): a host without a namespace finds a Secret without one of the same name.
   */
  #bareMetalHost(b: BareMetalHostRecord): void {
    const { ctx } = this;
    const o = b.o;
    const hostNs = ctx.head(o).namespace;
    if (ctx.on('reference'))
      for (const r of b.secretRefs) {
        const ns = r.ns ?? hostNs;
        if (ctx.exists('Secret', ns, r.name) || (!hostNs && ns && ctx.exists('Secret', undefined, r.name))) continue;
        ctx.report(
          'reference',
          `${r.what} Secret ${ns ? ns + '/' : ''}${r.name} referenced by ${o.id} is not in the input: add the Secret (same namespace) or fix ${r.field}`,
          { object: o, field: r.field, path: r.field.split('.') },
        );
      }
    this.#claims.mac(b.bootMac, { owner: o, obj: o, field: 'spec.bootMACAddress', path: BOOT_MAC_PATH });
    this.#claims.bmc(b.bmcAddress, { owner: o, obj: o, field: 'spec.bmc.address', path: BMC_ADDRESS_PATH });
    if (b.insecureTls)
      ctx.report(
        'insecure-tls',
        `${this.#claims.label(o)} has spec.bmc.disableCertificateVerification: true: the BMC's identity is not checked; install a trusted certificate on the BMC and set it to false`,
        { object: o, field: 'spec.bmc.disableCertificateVerification', path: ['spec', 'bmc', 'disableCertificateVerification'] },
      );
    if (!b.networkData) return;
    ctx.count('lookups');
    const secret =
      this.#networkData.get(identityKey('Secret', b.networkData.ns, b.networkData.name)) ??
      (hostNs ? undefined : this.#networkData.get(identityKey('Secret', undefined, b.networkData.name)));
    const nd = secret ? readNetworkData(secret.text, secret.field) : undefined;
    if (secret && nd) this.#hostNetworkData(b, secret.o, nd);
  }

  /** MACs and addresses of a host's network_data, its gateways, and its boot MAC among its links. */
  #hostNetworkData(b: BareMetalHostRecord, secret: KubeObject, nd: NetworkData): void {
    const path = nd.field.split('.');
    const site = (field: string): ClaimSite => ({ owner: b.o, obj: secret, field: `${nd.field} ${field}`, path });
    for (const l of nd.links) this.#claims.mac(l.mac, site(`links[${l.index}].ethernet_mac_address`));
    for (const n of nd.networks) {
      if (n.address) this.#claims.ip(n.id, n.address, site(`networks[${n.index}].ip_address`));
      for (const g of gatewaysOutside(n.address, n.netmask, n.gateways))
        this.ctx.report(
          'network',
          [
            `${secret.id} ${nd.field}: network ${n.id} of ${this.#claims.label(b.o)} has address ${n.address} (subnet ${g.subnet})`,
            ` but routes[${g.index}] goes through gateway ${g.gateway}, outside that subnet`,
            ': the host cannot reach it; fix the address, netmask or gateway',
          ].join(''),
          { object: secret, field: nd.field, path },
        );
    }
    const macs = nd.links.map((l) => (l.mac ? normalMac(l.mac) : undefined)).filter((m) => m !== undefined);
    if (b.bootMac && macs.length > 0 && !macs.includes(normalMac(b.bootMac)))
      this.ctx.report(
        'network',
        [
          `${this.#claims.label(b.o)} boots from MAC ${normalMac(b.bootMac)}, which is on no link of its network data ${secret.id} (links: ${macs.join(', ')})`,
          ": the boot NIC would stay unconfigured; fix spec.bootMACAddress or the link's ethernet_mac_address",
        ].join(''),
        { object: b.o, field: 'spec.bootMACAddress', path: ['spec', 'bootMACAddress'] },
        'warning',
      );
  }

  /** airshipctl host catalogue entries: claims, and their link/network keys against the NetworkCatalogue. */
  #catalogue(o: KubeObject, hosts: Tree): void {
    for (const [group, members] of Object.entries(hosts)) {
      if (!isRecord(members)) continue;
      for (const [node, h] of Object.entries(members)) if (isRecord(h)) this.#catalogueHost(o, ['hosts', group, node], node, h);
    }
  }

  #catalogueHost(o: KubeObject, base: string[], node: string, h: Tree): void {
    const owner = `host ${node} (${o.id})`;
    const at: SiteAt = (...rest) => ({ owner, obj: o, field: [...base, ...rest].join('.'), path: [...base, ...rest] });
    this.#claims.mac(h.macAddress, at('macAddress'));
    const macs = isRecord(h.macAddresses) ? h.macAddresses : {};
    for (const [nic, m] of Object.entries(macs)) this.#claims.mac(m, at('macAddresses', nic));
    this.#claims.bmc(h.bmcAddress, at('bmcAddress'));
    const ips = isRecord(h.ipAddresses) ? h.ipAddresses : {};
    for (const [net, ip] of Object.entries(ips)) this.#claims.ip(net, ip, at('ipAddresses', net));
    this.#catalogueKeys(owner, macs, ips, at);
    this.#catalogueBootMac(owner, h, macs, at);
  }

  #catalogueKeys(owner: string, macs: Tree, ips: Tree, at: SiteAt): void {
    const { links, networks } = this.#networking;
    const check = (keys: string[], known: Set<string>, what: 'link' | 'network', field: string): void => {
      if (known.size === 0 || !this.ctx.on('reference')) return;
      for (const key of keys) {
        if (known.has(key)) continue;
        const site = at(field, key);
        this.ctx.report(
          'reference',
          [
            `${owner} ${field}.${key} names ${what} ${key}`,
            `, which no NetworkCatalogue in the input defines (${what}s: ${[...known].sort().join(', ')})`,
            `: the host generator skips it; fix the key${closest(key, known)}`,
          ].join(''),
          { object: site.obj, field: site.field, path: site.path },
        );
      }
    };
    check(Object.keys(macs), links, 'link', 'macAddresses');
    check(Object.keys(ips), new Set(networks.keys()), 'network', 'ipAddresses');
    for (const [net, ip] of Object.entries(ips)) {
      const def = networks.get(net);
      const address = scalarText(ip);
      if (!def || !address) continue;
      for (const g of gatewaysOutside(address, def.netmask, def.gateways)) {
        const site = at('ipAddresses', net);
        this.ctx.report(
          'network',
          [
            `${owner} has address ${address} on network ${net} (subnet ${g.subnet} with the NetworkCatalogue's netmask)`,
            `, but the network's gateway ${g.gateway} is outside that subnet`,
            ': fix the address, or the netmask or gateway in the NetworkCatalogue',
          ].join(''),
          { object: site.obj, field: site.field, path: site.path },
        );
      }
    }
  }

  /** The boot MAC of a catalogue entry (macAddress) should be one of its NIC MACs (macAddresses). */
  #catalogueBootMac(owner: string, h: Tree, macs: Tree, at: SiteAt): void {
    const boot = scalarText(h.macAddress);
    const nics = Object.values(macs)
      .map((m) => scalarText(m))
      .filter((m) => m !== undefined)
      .map(normalMac);
    if (!boot || nics.length === 0 || nics.includes(normalMac(boot))) return;
    const site = at('macAddress');
    this.ctx.report(
      'network',
      [
        `${owner} boots from MAC ${normalMac(boot)}, which is none of its macAddresses (${nics.join(', ')})`,
        ': the boot NIC would get no link in its network data; fix macAddress or macAddresses',
      ].join(''),
      { object: site.obj, field: site.field, path: site.path },
      'warning',
    );
  }

  /** HardwareInventory snapshots: attached to their BareMetalHost by name or BMC, NIC MACs and BMC claimed. */
  #inventories(): void {
    if (this.inventories.length === 0) return;
    const byName = new Map(
      this.bareMetalHosts.map((b) => {
        const h = this.ctx.head(b.o);
        return [identityKey('BareMetalHost', h.namespace, h.name), b];
      }),
    );
    const byBmc = new Map<string, BareMetalHostRecord>();
    for (const b of this.bareMetalHosts) if (b.bmcAddress) byBmc.set(bmcIdentity(b.bmcAddress), b);
    for (const inv of this.inventories) {
      const bmc = isRecord(inv.spec.bmc) ? inv.spec.bmc : {};
      const addr = scalarText(bmc.address);
      const systemPath = scalarText(bmc.systemPath);
      const full = addr ? addr + (systemPath && !addr.includes('/redfish/') ? systemPath : '') : undefined;
      this.ctx.count('lookups', 2);
      const host =
        byName.get(identityKey('BareMetalHost', inv.head.namespace, inv.head.name)) ?? (full ? byBmc.get(bmcIdentity(full)) : undefined);
      const owner: Owner = host ? host.o : ownerOf('HardwareInventory', inv.head);
      if (host) this.inventoryOf.set(host.o, inv);
      else if (full) this.#claims.bmc(full, { owner, obj: inv.o, field: 'spec.bmc.address', path: ['spec', 'bmc', 'address'] });
      (Array.isArray(inv.spec.nics) ? inv.spec.nics : []).forEach((n, i) => {
        if (isRecord(n)) this.#claims.mac(n.mac, { owner, obj: inv.o, field: `spec.nics[${i}].mac`, path: ['spec', 'nics', i, 'mac'] });
      });
    }
  }

  #hardwareDataReferences(): void {
    if (!this.ctx.on('reference')) return;
    for (const h of this.#hardwareDataObjects) {
      if (this.ctx.isPartial(h) || this.ctx.exists('BareMetalHost', h.namespace, h.name)) continue;
      this.ctx.report(
        'reference',
        `HardwareData ${h.namespace ? h.namespace + '/' : ''}${h.name} has no BareMetalHost of the same name and namespace: Metal3 pairs them by name; rename it or add the host`,
        { object: h, field: 'metadata.name', path: ['metadata', 'name'] },
      );
    }
  }
}
