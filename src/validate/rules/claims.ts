/**
 * Who owns a MAC, a BMC and an IP address: the first host to claim one owns it, a second host
 * claiming it is a duplicate. A host is named by an owner label (`BareMetalHost ns/name`,
 * `host node01 (VariableCatalogue/...)`); the same machine may be claimed from several documents
 * (its BareMetalHost, its catalogue entry, its HardwareInventory) without a finding.
 */
import type { KubeObject } from '../../krm/index.js';
import { scalarText } from '../../krm/index.js';
import { bmcIdentity, redactBmcAddress, removedScheme } from '../../model/bmc.js';
import { canonicalIp } from '../../model/ip.js';
import type { RuleContext } from '../context.js';
import type { FindingPlace } from '../types.js';

/**
 * Who claims: a label (`host node01 (VariableCatalogue/...)`), or a BareMetalHost, whose label
 * (`BareMetalHost ns/name`) is made when a message needs one: at fleet scale every host claims
 * a MAC and a BMC, and few claims are ever quoted.
 */
export type Owner = string | KubeObject;

/** A field of an object that claims something for a host. */
export interface ClaimSite {
  owner: Owner;
  obj: KubeObject;
  field: string;
  path: (string | number)[];
}

/** `BareMetalHost ns/name`: how messages name a host of that kind. */
export const ownerOf = (kind: string, h: { namespace?: string; name: string }): string =>
  `${kind} ${h.namespace ? h.namespace + '/' : ''}${h.name}`;

/** Normalises a MAC for comparison: lower case, `:` separators. */
export function normalMac(v: string): string {
  return v.trim().toLowerCase().replace(/-/g, ':');
}

const MAC = /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/;

/**
 * The host an owner label names, as namespace (when the label has one) and name: the same
 * machine may appear as a BMH and a catalogue entry (`host node01 (...)`, no namespace), while
 * `BareMetalHost a/node01` and `BareMetalHost b/node01` are two hosts.
 */
function hostId(owner: string): { ns?: string; name: string } {
  const m = /^(?:BareMetalHost|HardwareInventory) (?:([^/ ]+)\/)?([^ ]+)/.exec(owner);
  if (m) return m[1] !== undefined ? { ns: m[1], name: m[2]! } : { ns: '', name: m[2]! };
  const h = /^host ([^ ]+)/.exec(owner);
  return h ? { name: h[1]! } : { ns: '', name: owner };
}

function sameHost(a: string, b: string): boolean {
  const x = hostId(a);
  const y = hostId(b);
  return x.name === y.name && (x.ns === undefined || y.ns === undefined || x.ns === y.ns);
}

const place = (s: ClaimSite): FindingPlace => ({ object: s.obj, field: s.field, path: s.path });

export class HostClaims {
  readonly #macs = new Map<string, ClaimSite>();
  readonly #bmcs = new Map<string, ClaimSite>();
  readonly #ips = new Map<string, ClaimSite>();
  readonly #duplicates: boolean;

  constructor(private readonly ctx: RuleContext) {
    this.#duplicates = ctx.on('duplicate');
  }

  /** The label of an owner, for messages and for telling hosts apart. */
  label(owner: Owner): string {
    return typeof owner === 'string' ? owner : ownerOf('BareMetalHost', this.ctx.head(owner));
  }

  #sameHost(a: Owner, b: Owner): boolean {
    return a === b || sameHost(this.label(a), this.label(b));
  }

  mac(value: unknown, site: ClaimSite): void {
    const v = scalarText(value);
    if (!v || !this.#duplicates) return;
    const m = normalMac(v);
    if (!MAC.test(m)) return;
    const prev = this.#macs.get(m);
    this.ctx.count('lookups');
    if (!prev) this.#macs.set(m, site);
    else if (!this.#sameHost(prev.owner, site.owner))
      this.ctx.report(
        'duplicate',
        `MAC ${m} of ${this.label(site.owner)} is also used by ${this.label(prev.owner)} (${prev.obj.id} ${prev.field}); every NIC has its own MAC: fix the copy-paste`,
        place(site),
      );
  }

  bmc(value: unknown, site: ClaimSite): void {
    const raw = scalarText(value);
    if (!raw) return;
    // never repeat credentials written into an address (`http://admin:pw@10.0.0.1/...`): a finding of its own
    const v = redactBmcAddress(raw);
    if (v !== raw)
      this.ctx.report(
        'encryption',
        `BMC address of ${this.label(site.owner)} has credentials in it (${v}): remove them; BareMetalHosts take credentials from the Secret in bmc.credentialsName`,
        place(site),
      );
    const removed = removedScheme(v);
    if (removed)
      this.ctx.report(
        'bmc-scheme',
        [
          `BMC address ${v} of ${this.label(site.owner)} uses ${removed.name}:// (${removed.what})`,
          `, which Metal3's baremetal-operator removed ${removed.removed} (metal3-io/baremetal-operator${removed.change})`,
          `: BMO refuses the host; write ${removed.use}`,
        ].join(''),
        place(site),
      );
    if (this.ctx.on('plain-http-bmc') && /^([a-z0-9-]+\+)?http:\/\//i.test(v))
      this.ctx.report(
        'plain-http-bmc',
        `BMC address ${v} of ${this.label(site.owner)} uses plain http: credentials cross the network in clear; use https (e.g. redfish+https://, idrac-virtualmedia+https://)`,
        place(site),
      );
    if (!this.#duplicates) return;
    const k = bmcIdentity(v);
    const prev = this.#bmcs.get(k);
    this.ctx.count('lookups');
    if (!prev) this.#bmcs.set(k, site);
    else if (!this.#sameHost(prev.owner, site.owner))
      this.ctx.report(
        'duplicate',
        `BMC address ${v} of ${this.label(site.owner)} is also the BMC of ${this.label(prev.owner)} (${prev.obj.id}); two hosts would power-cycle the same machine: fix the address or System path`,
        place(site),
      );
  }

  /** An address on a network; IPv6 compared in canonical form (`fd00:10:0:0::11` is `fd00:10::11`). */
  ip(network: string, value: unknown, site: ClaimSite): void {
    const v = scalarText(value);
    if (!v || !this.#duplicates) return;
    const ip = canonicalIp(v.replace(/\/\d+$/, ''));
    const k = `${network}|${ip}`;
    const prev = this.#ips.get(k);
    this.ctx.count('lookups');
    if (!prev) this.#ips.set(k, site);
    else if (!this.#sameHost(prev.owner, site.owner))
      this.ctx.report(
        'duplicate',
        `IP ${ip} on network ${network} of ${this.label(site.owner)} is also given to ${this.label(prev.owner)} (${prev.obj.id}): give each host its own address`,
        place(site),
      );
  }
}
