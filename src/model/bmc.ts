/**
 * BMC addresses as Metal3's baremetal-operator reads them, the one home for them (like BMO's
 * pkg/hardwareutils/bmc: one table of schemes). Discovery chooses a scheme from it,
 * site-from-catalogue writes addresses with it, intent-validate checks and compares them with it.
 *
 * A BMO address is `<scheme>[+http|+https]://host[:port]/<system path>`; a bare `host[:port]`
 * is IPMI. The `+http`/`+https` suffix picks the transport of the Redfish-based schemes
 * (https when absent).
 */
import { redactText } from '../secrets/redact.js';

export type BootMethod = 'ipxe' | 'virtualmedia' | 'uefihttp';
export type Transport = 'http' | 'https';

export interface BmcScheme {
  /** the scheme without a transport suffix: `idrac-virtualmedia` */
  name: string;
  protocol: 'redfish' | 'ipmi' | 'libvirt';
  /** a vendor's own driver (Dell iDRAC, HPE iLO 5), else generic */
  vendor?: 'dell' | 'hpe';
  bootMethod: BootMethod;
  /** whether `+http` / `+https` may follow the name */
  transports: boolean;
  /** whether the address carries the Redfish System path */
  systemPath: boolean;
  /**
   * the Ironic hardware type BMO configures (its `Driver()`): `idrac` for the iDRAC schemes;
   * BMO's `ilo5-redfish` / `ilo5-virtualmedia` build the generic Redfish access details, so `redfish`
   */
  driver: 'ipmi' | 'redfish' | 'idrac';
}

/**
 * Every scheme BMO accepts today, checked against metal3-io/baremetal-operator
 * pkg/hardwareutils/bmc: ipmi.go (ipmi, libvirt), redfish.go (redfish, ilo5-redfish with the
 * generic details, idrac-redfish), redfish_virtualmedia.go (redfish-virtualmedia, ilo5-virtualmedia
 * with the generic details), idrac_virtualmedia.go, redfish_https.go (redfish-uefihttp, boot
 * interface `redfish-https`); the Redfish ones register the `http` and `https` transports.
 */
export const BMC_SCHEMES: readonly BmcScheme[] = [
  { name: 'ipmi', protocol: 'ipmi', bootMethod: 'ipxe', transports: false, systemPath: false, driver: 'ipmi' },
  { name: 'libvirt', protocol: 'libvirt', bootMethod: 'ipxe', transports: false, systemPath: false, driver: 'ipmi' },
  { name: 'redfish', protocol: 'redfish', bootMethod: 'ipxe', transports: true, systemPath: true, driver: 'redfish' },
  { name: 'redfish-virtualmedia', protocol: 'redfish', bootMethod: 'virtualmedia', transports: true, systemPath: true, driver: 'redfish' },
  { name: 'redfish-uefihttp', protocol: 'redfish', bootMethod: 'uefihttp', transports: true, systemPath: true, driver: 'redfish' },
  { name: 'idrac-redfish', protocol: 'redfish', vendor: 'dell', bootMethod: 'ipxe', transports: true, systemPath: true, driver: 'idrac' },
  {
    name: 'idrac-virtualmedia',
    protocol: 'redfish',
    vendor: 'dell',
    bootMethod: 'virtualmedia',
    transports: true,
    systemPath: true,
    driver: 'idrac',
  },
  { name: 'ilo5-redfish', protocol: 'redfish', vendor: 'hpe', bootMethod: 'ipxe', transports: true, systemPath: true, driver: 'redfish' },
  {
    name: 'ilo5-virtualmedia',
    protocol: 'redfish',
    vendor: 'hpe',
    bootMethod: 'virtualmedia',
    transports: true,
    systemPath: true,
    driver: 'redfish',
  },
];

const BY_NAME = new Map(BMC_SCHEMES.map((s) => [s.name, s]));

/** A scheme BMO accepted once and has removed: hosts written with it are refused. */
export interface RemovedBmcScheme {
  name: string;
  /** what the driver drove */
  what: string;
  /** when, as BMO's release notes tell: `in v0.6.0`, or `after v0.12.0-rc.0` (the last release that had it) */
  removed: string;
  /** the baremetal-operator pull request that removed it */
  change: string;
  /** what to write instead */
  use: string;
}

/**
 * Schemes removed from metal3-io/baremetal-operator (pkg/hardwareutils/bmc), with the release:
 * v0.6.0's notes list "Remove ibmc and idrac drivers (#1624)"; v0.12.0's (beta.0, rc.0) list "Drop
 * the non-Redfish iLO 4 and iLO 5 drivers (#2750)"; iRMC went in #3034 (merged 2026-02-27, after
 * v0.12.0-rc.0), in no release whose notes we could check.
 */
export const REMOVED_BMC_SCHEMES: readonly RemovedBmcScheme[] = [
  {
    name: 'idrac',
    what: 'Dell iDRAC over WS-Man',
    removed: 'in v0.6.0',
    change: '#1624',
    use: 'idrac-redfish:// or idrac-virtualmedia://',
  },
  { name: 'ibmc', what: 'Huawei iBMC', removed: 'in v0.6.0', change: '#1624', use: 'redfish:// or redfish-virtualmedia://' },
  {
    name: 'ilo4',
    what: 'HPE iLO 4 without Redfish',
    removed: 'in v0.12.0',
    change: '#2750',
    use: 'ipmi:// (BMO has no Redfish driver for iLO 4)',
  },
  {
    name: 'ilo4-virtualmedia',
    what: 'HPE iLO 4 virtual media without Redfish',
    removed: 'in v0.12.0',
    change: '#2750',
    use: 'ipmi:// (BMO has no Redfish driver for iLO 4)',
  },
  {
    name: 'ilo5',
    what: 'HPE iLO 5 without Redfish',
    removed: 'in v0.12.0',
    change: '#2750',
    use: 'ilo5-redfish:// or ilo5-virtualmedia://',
  },
  { name: 'irmc', what: 'Fujitsu iRMC', removed: 'after v0.12.0-rc.0', change: '#3034', use: 'redfish:// or ipmi://' },
];

const REMOVED = new Map(REMOVED_BMC_SCHEMES.map((s) => [s.name, s]));

/** The removed scheme an address is written with, if any (`ilo4://10.0.0.1` -> ilo4). */
export function removedScheme(address: string): RemovedBmcScheme | undefined {
  const a = parseBmcAddress(address);
  return a ? REMOVED.get(a.scheme.replace(/\+https?$/, '')) : undefined;
}

export interface BmcAddress {
  /** the scheme as written, lowercased (`redfish+http`); `ipmi` for a bare host */
  scheme: string;
  /** the table entry, when BMO knows the scheme */
  known?: BmcScheme;
  transport?: Transport;
  /** host as written, lowercased; IPv6 in brackets */
  host: string;
  /** the port as written, or undefined */
  port?: number;
  /** the path (system path), no trailing slash */
  path: string;
  /** a user name or password was written into the address (its user information, or its path or query: `?password=x`) */
  userinfo: boolean;
}

/** The port a scheme uses when none is written: 623 for IPMI, 80 over +http, else 443. */
export function defaultPort(a: Pick<BmcAddress, 'scheme' | 'transport'>): number {
  if (a.scheme === 'ipmi') return 623;
  return a.transport === 'http' || a.scheme === 'http' ? 80 : 443;
}

/** Reads a BMC address; undefined when it is not one (no host, a port out of range, spaces). */
export function parseBmcAddress(address: string): BmcAddress | undefined {
  const text = address.trim();
  if (text === '' || /\s/.test(text)) return undefined;
  const m = /^(?:([a-z][a-z0-9.-]*)(?:\+([a-z]+))?:\/\/)?(?:(.*)@)?(\[[0-9a-f:.]+\]|[^:/[\]]+)(?::(\d*))?(\/.*)?$/i.exec(text);
  if (!m || (m[1] === undefined && text.includes('://')) || m[5] === '') return undefined;
  const name = (m[1] ?? 'ipmi').toLowerCase();
  const suffix = m[2]?.toLowerCase();
  if (suffix !== undefined && suffix !== 'http' && suffix !== 'https') return undefined;
  const port = m[5] === undefined ? undefined : Number(m[5]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  const known = BY_NAME.get(name);
  const transport: Transport | undefined =
    suffix !== undefined ? (suffix as Transport) : name === 'http' || name === 'https' ? name : known?.transports ? 'https' : undefined;
  return {
    scheme: suffix ? `${name}+${suffix}` : name,
    known,
    transport,
    host: m[4]!.toLowerCase(),
    port,
    path: (m[6] ?? '').replace(/\/+$/, ''),
    userinfo: m[3] !== undefined || (m[6] !== undefined && redactText(m[6]) !== m[6]),
  };
}

/**
 * What makes two addresses the same BMC: host, port (the scheme's default left out) and system
 * path, whatever the driver scheme (`redfish://h/S/1` and `idrac-virtualmedia://h:443/S/1`).
 */
export function bmcIdentity(address: string): string {
  const a = parseBmcAddress(address);
  if (!a) return address.trim().toLowerCase();
  const port = a.port !== undefined && a.port !== defaultPort(a) ? `:${a.port}` : '';
  return `${a.host}${port}${a.path}`;
}

/**
 * The scheme to write for a vendor and boot method: the vendor's own scheme where BMO gives it
 * its own Ironic driver (Dell: `idrac`), else the generic one. HPE's `ilo5-*` schemes are the
 * generic Redfish driver under another name in BMO, and would only tie the address to one iLO
 * generation, so HPE gets the generic scheme.
 */
export function schemeFor(opts: { vendor?: 'dell' | 'hpe'; bootMethod: BootMethod; transport?: Transport }): string {
  const generic = BMC_SCHEMES.find((s) => s.protocol === 'redfish' && s.vendor === undefined && s.bootMethod === opts.bootMethod)!;
  const own = BMC_SCHEMES.find((s) => s.protocol === 'redfish' && s.vendor === opts.vendor && s.bootMethod === opts.bootMethod);
  const s = opts.vendor && own && own.driver !== generic.driver ? own : generic;
  return opts.transport === 'http' ? `${s.name}+http` : s.name;
}

/** What a BMC and its System offer for booting a host, from a HardwareInventory. */
export interface BootCapabilities {
  vendor?: 'dell' | 'hpe';
  /** the BMC has VirtualMedia devices; undefined: not known (a snapshot from before this was recorded) */
  virtualMedia?: boolean;
  /** the System can boot over UEFI HTTP */
  uefiHttp?: boolean;
  /** a NIC to network-boot from is known (iPXE needs it) */
  bootMac?: boolean;
  transport?: Transport;
}

export interface SchemeChoice {
  scheme: string;
  bootMethod: BootMethod;
  /** why this scheme (for an info result); undefined when the requested method was possible */
  why?: string;
  /** set when no boot method is known to work on this host (a warning) */
  warning?: string;
}

/**
 * The scheme for a host from what it can do: the requested method (virtual media by default)
 * when the BMC offers it; a BMC known to have no VirtualMedia gets `redfish-uefihttp` when the
 * System boots over UEFI HTTP, else iPXE (`redfish`, `idrac-redfish`); a warning when that too
 * has nothing to boot from.
 */
export function chooseScheme(want: BootMethod, cap: BootCapabilities): SchemeChoice {
  const at = (bootMethod: BootMethod, why?: string, warning?: string): SchemeChoice => ({
    scheme: schemeFor({ vendor: cap.vendor, bootMethod, transport: cap.transport }),
    bootMethod,
    ...(why ? { why } : {}),
    ...(warning ? { warning } : {}),
  });
  if (want !== 'virtualmedia' || cap.virtualMedia !== false) return at(want);
  if (cap.uefiHttp) return at('uefihttp', 'the BMC has no VirtualMedia devices; the System boots over UEFI HTTP');
  if (cap.bootMac) return at('ipxe', 'the BMC has no VirtualMedia devices and the System offers no UEFI HTTP boot; network boot (iPXE)');
  return at(
    'ipxe',
    undefined,
    'the BMC has no VirtualMedia devices, the System offers no UEFI HTTP boot and no NIC to network-boot from is known; no boot method is known to work',
  );
}

/**
 * An address as messages may show it: a user name or password replaced by `***`, and a
 * credential written in its path or query (`?password=x`, a signature) masked as any text's.
 */
export function redactBmcAddress(address: string): string {
  return redactText(address.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[\s\S]*@/i, '$1***@'));
}
